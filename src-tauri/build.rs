//! Build script: lets tauri-build embed the config, icons and capabilities, and
//! declares the app's own commands so the capability file can grant exactly them.

// Keep in step with `commands::register`.
const COMMANDS: &[&str] = &[
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

fn main() {
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(e) = tauri_build::try_build(attributes) {
        println!("cargo:warning=tauri-build failed: {e:#}");
        std::process::exit(1);
    }
}
