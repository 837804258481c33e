// The app's own commands, shared by `build.rs` (which declares them to Tauri's
// ACL so the capability file can grant exactly these) and the library (a test
// checks it against the `commands!` list and the capability file). Plain
// `include!` text: no module doc here.
pub const COMMANDS: &[&str] = &[
    "app_status",
    "select_environment",
    "save_environment",
    "remove_environment",
    "check_network",
    "sign_in",
    "cancel_sign_in",
    "open_sign_in_again",
    "sign_out",
    "lock_session",
    "work_lists",
    "open_link",
    "find_patients",
    "get_patient",
    "save_patient",
    "edit_clinical",
    "patient_work",
    "look_up_drug",
    "get_prescription",
    "save_draft",
    "sign_prescriptions",
    "get_order",
    "draft_order",
    "change_order_prescriptions",
    "find_pharmacies",
    "choose_pharmacy",
    "send_order",
    "cancel_order",
];
