//! Build script: lets tauri-build embed the config, icons and capabilities.
fn main() {
    tauri_build::build();
}
