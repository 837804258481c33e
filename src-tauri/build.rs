//! Build script: lets tauri-build embed the config, icons and capabilities, and
//! declares the app's own commands so the capability file can grant exactly them.

include!("src/command_names.rs");

/// `tauri::generate_context!` embeds `../ui/dist` and fails to compile without
/// it. On a fresh checkout (`cargo build`/`clippy` before `npm run build`), put a
/// page there that says how to build the UI, so the crate still compiles.
fn ensure_ui_dist() {
    let dist = std::path::Path::new("../ui/dist");
    let index = dist.join("index.html");
    if index.exists() {
        return;
    }
    let page = "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Rx Desk</title>\
        <p>The UI has not been built. Run <code>npm --prefix ui ci &amp;&amp; npm --prefix ui run build</code>, \
        then build Rx Desk again (or use <code>cargo xtask run</code>).</p></html>\n";
    if std::fs::create_dir_all(dist).is_ok() && std::fs::write(&index, page).is_ok() {
        println!(
            "cargo:warning=ui/dist was missing: a placeholder page was written; build the UI first"
        );
    }
}

fn main() {
    ensure_ui_dist();
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(e) = tauri_build::try_build(attributes) {
        println!("cargo:warning=tauri-build failed: {e:#}");
        std::process::exit(1);
    }
}
