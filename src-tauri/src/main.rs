//! The `rxdesk` binary: everything lives in the library so tests can reach it.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    match rxdesk_lib::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Rx Desk could not start: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
