//! Rx Desk, the desktop app: the Tauri builder, thin commands over
//! `rxdesk-client`, the keyring session store, environments, sign-in
//! orchestration and the events sent to the UI. Logic lives in plain modules
//! so it can be tested without a window.

pub mod ipc;
pub mod logging;
pub mod sandbox;
pub mod session_store;

pub fn run() {
    #[allow(clippy::expect_used)] // placeholder skeleton
    tauri::Builder::default()
        .run(tauri::generate_context!())
        .expect("error while running tauri application");
}
