//! The `rxdesk` binary: everything lives in the library so tests can reach it.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    // SAFETY: the first thing `main` does — no other thread exists yet.
    #[allow(unsafe_code)] // The workspace's one exception (`web_process::apply`).
    let web_process = unsafe { rxdesk_lib::web_process::apply() };
    match rxdesk_lib::run(web_process) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Rx Desk could not start: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
