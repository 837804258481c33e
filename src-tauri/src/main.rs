//! The `rxdesk` binary: everything lives in the library so tests can reach it.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    rxdesk_lib::run();
}
