//! The TypeScript bindings committed in `ui/src/bindings/ipc.ts` match the
//! Rust IPC types. Regenerate with `RXDESK_WRITE_BINDINGS=1 cargo test -p rxdesk --test bindings`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

#[test]
fn committed_typescript_bindings_match_the_rust_types() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings/ipc.ts");
    let expected = rxdesk_lib::bindings::typescript_bindings();
    if std::env::var_os("RXDESK_WRITE_BINDINGS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &expected).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == expected,
        "ui/src/bindings/ipc.ts is out of date: run `RXDESK_WRITE_BINDINGS=1 cargo test -p rxdesk --test bindings` and commit it"
    );
}
