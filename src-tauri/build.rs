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

/// `generate_context!` reads `ui/dist` when the crate compiles, but cargo does
/// not know that: rerun this script when the directory changes, and hand the
/// crate a stamp of its contents so a new UI build recompiles the crate.
fn track_ui_dist() {
    use std::hash::{Hash, Hasher};
    println!("cargo:rerun-if-changed=../ui/dist");
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut stack = vec![std::path::PathBuf::from("../ui/dist")];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    for file in files {
        file.hash(&mut hasher);
        std::fs::read(&file).unwrap_or_default().hash(&mut hasher);
    }
    println!("cargo:rustc-env=RXDESK_UI_STAMP={:016x}", hasher.finish());
}

/// `RXDESK_LINK_MAP=FILE` (set by `cargo xtask bundle`): the linker writes
/// its map of the `rxdesk` binary there — every function and constant kept,
/// with its size and the library it came from. The installed binary carries no
/// symbols; the map is how `rxdesk-bench` says where the installer's bytes go.
fn link_map() {
    println!("cargo:rerun-if-env-changed=RXDESK_LINK_MAP");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    if let Some(path) = std::env::var_os("RXDESK_LINK_MAP").filter(|_| linux) {
        println!(
            "cargo:rustc-link-arg-bin=rxdesk=-Wl,-Map={}",
            std::path::Path::new(&path).display()
        );
    }
}

fn main() {
    ensure_ui_dist();
    track_ui_dist();
    link_map();
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(e) = tauri_build::try_build(attributes) {
        println!("cargo:warning=tauri-build failed: {e:#}");
        std::process::exit(1);
    }
}
