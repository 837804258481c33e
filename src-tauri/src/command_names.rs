// The app's own commands, shared by `build.rs` (which declares them to Tauri's
// ACL so the capability file can grant exactly these) and the library (a test
// checks the capability file and the handler list against it). Plain `include!`
// text: no module doc here.
pub const COMMANDS: &[&str] = &[
    "app_status",
    "select_environment",
    "save_environment",
    "remove_environment",
    "sign_in",
    "cancel_sign_in",
    "open_sign_in_again",
    "sign_out",
    "search_patients",
    "get_patient",
    "create_patient",
    "update_patient",
    "search_medications",
    "create_prescription",
    "cancel_prescription",
    "signing_queue",
    "sign_prescriptions",
    "search_pharmacies",
    "create_order",
    "send_order",
    "cancel_order",
];
