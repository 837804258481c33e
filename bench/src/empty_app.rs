//! The reference app: an empty Tauri 2 app generated under
//! `target/bench/empty-app/` — the Tauri version of the workspace's
//! `Cargo.lock` (copied in, so every shared crate resolves alike), the
//! workspace's icons, a one-heading `index.html`, the workspace's installer
//! profile ([`PROFILE`], with the release profile it inherits) — built with
//! that profile and bundled as a `.deb` by the same Tauri CLI (the UI's locked
//! `@tauri-apps/cli`) into the workspace's target dir, so compiled
//! dependencies whose features match are reused. Same profile, same Tauri: the
//! size ratio measures what Rx Desk's features cost. [`build_variant`] builds
//! any [`Variant`] of it the same way under `target/bench/<name>/`: the
//! installer figure's floor (`stack_app.rs`) is one.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Its binary and package name.
pub const NAME: &str = "empty-app";
/// The heading its window shows.
pub const HEADING: &str = "Empty Tauri app";
/// The cargo profile the installers are built with (`cargo xtask bundle`).
pub const PROFILE: &str = "installer";

/// An app this module generates and builds: the empty app ([`EMPTY`]), or the
/// installer figure's floor (`stack_app.rs`), which is the empty app plus
/// dependencies and a `main` that uses them.
#[derive(Debug, Clone)]
pub struct Variant {
    /// Package, binary and directory name (under `target/bench/`).
    pub name: &'static str,
    pub heading: &'static str,
    pub identifier: &'static str,
    /// `[dependencies]` lines beside `tauri`.
    pub dependencies: String,
    /// `src/main.rs`.
    pub main: String,
    /// `tauri.conf.json`'s `plugins`.
    pub plugins: serde_json::Value,
}

/// The empty app: Tauri and one heading.
pub fn empty() -> Variant {
    Variant {
        name: NAME,
        heading: HEADING,
        identifier: "dev.rxdesk.bench-empty-app",
        dependencies: String::new(),
        main: "fn main() {\n    tauri::Builder::default()\n        .run(tauri::generate_context!())\n        \
               .expect(\"the empty app runs\");\n}\n"
            .to_owned(),
        plugins: serde_json::json!({}),
    }
}

/// The built reference.
#[derive(Debug, Clone)]
pub struct EmptyApp {
    pub binary: PathBuf,
    pub deb: PathBuf,
    /// The linker's map of the binary (its build script asks for it).
    pub map: PathBuf,
}

impl EmptyApp {
    /// A prebuilt empty app: its `.deb` and map beside it, with its stem.
    pub fn prebuilt(binary: PathBuf) -> Self {
        Self {
            deb: binary.with_extension("deb"),
            map: binary.with_extension("map"),
            binary,
        }
    }
}

/// Generates, builds and bundles the empty app.
pub fn build(root: &Path) -> Result<EmptyApp> {
    build_variant(root, &empty())
}

/// Generates, builds and bundles `variant` under `target/bench/<name>/`.
pub fn build_variant(root: &Path, variant: &Variant) -> Result<EmptyApp> {
    let name = variant.name;
    let dir = root.join("target/bench").join(name);
    generate(root, &dir, variant)?;
    let cli = root.join("ui/node_modules/.bin/tauri");
    if !cli.is_file() {
        bail!("no Tauri CLI at {} (npm --prefix ui ci)", cli.display());
    }
    let target = root.join("target");
    eprintln!("\n==> build and bundle {name} ({})", dir.display());
    let status = Command::new(&cli)
        .args([
            "build",
            "--bundles",
            "deb",
            "--ci",
            "--",
            "--profile",
            PROFILE,
        ])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .with_context(|| format!("cannot start {}", cli.display()))?;
    if !status.success() {
        bail!("{name} did not build ({status})");
    }
    // Out of the shared bundle dir at once: the app's own bundling collects
    // what it finds there.
    let bundled = target.join(PROFILE).join("bundle/deb");
    let out = dir.join("out");
    std::fs::create_dir_all(&out)?;
    let mut deb = None;
    for entry in std::fs::read_dir(&bundled)? {
        let path = entry?.path();
        let file = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if file.starts_with(&format!("{name}_")) && file.ends_with(".deb") {
            let moved = out.join(file);
            std::fs::rename(&path, &moved)?;
            deb = Some(moved);
        } else if file.starts_with(&format!("{name}_")) && path.is_dir() {
            std::fs::remove_dir_all(&path)?;
        }
    }
    Ok(EmptyApp {
        binary: target.join(PROFILE).join(name),
        deb: deb.with_context(|| format!("no {name} .deb in {}", bundled.display()))?,
        map: map_of(&dir, name),
    })
}

/// The linker's map of `name`'s binary, in its directory.
fn map_of(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.map"))
}

/// Writes the app's sources into `dir`.
fn generate(root: &Path, dir: &Path, variant: &Variant) -> Result<()> {
    let Variant {
        name,
        heading,
        identifier,
        dependencies,
        main,
        plugins,
    } = variant;
    let lock = std::fs::read_to_string(root.join("Cargo.lock"))?;
    let tauri = locked_version(&lock, "tauri").context("no tauri in Cargo.lock")?;
    let tauri_build =
        locked_version(&lock, "tauri-build").context("no tauri-build in Cargo.lock")?;
    let workspace: toml::Table =
        toml::from_str(&std::fs::read_to_string(root.join("Cargo.toml"))?)?;
    let profile = profiles(&workspace)?;

    for sub in ["src", "dist", "icons"] {
        std::fs::create_dir_all(dir.join(sub))?;
    }
    std::fs::write(dir.join("Cargo.lock"), &lock)?;
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "# Generated by rxdesk-bench: the reference of the size, memory and start-up figures.\n\
             [package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             # Not part of the Rx Desk workspace it sits in.\n[workspace]\n\n\
             [build-dependencies]\ntauri-build = {{ version = \"={tauri_build}\", features = [] }}\n\n\
             [dependencies]\ntauri = {{ version = \"={tauri}\", features = [] }}\n{dependencies}\n\
             [features]\ndefault = [\"custom-protocol\"]\ncustom-protocol = [\"tauri/custom-protocol\"]\n\
             {profile}"
        ),
    )?;
    // The linker's map, as Rx Desk's build script writes one for the
    // installer build: where each binary's bytes go.
    std::fs::write(
        dir.join("build.rs"),
        format!(
            "fn main() {{\n    println!(\"cargo:rustc-link-arg-bins=-Wl,-Map={{}}\", {:?});\n    \
             tauri_build::build();\n}}\n",
            map_of(dir, name).display().to_string()
        ),
    )?;
    std::fs::write(dir.join("src/main.rs"), main)?;
    std::fs::write(
        dir.join("dist/index.html"),
        format!(
            "<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>{heading}</title></head>\n\
             <body><h1>{heading}</h1></body>\n</html>\n"
        ),
    )?;
    let icons = [
        "32x32.png",
        "128x128.png",
        "128x128@2x.png",
        "icon.icns",
        "icon.ico",
    ];
    for icon in icons {
        std::fs::copy(root.join("icons").join(icon), dir.join("icons").join(icon))
            .with_context(|| format!("copying icon {icon}"))?;
    }
    let config = serde_json::json!({
        "$schema": "https://schema.tauri.app/config/2",
        "productName": name,
        "version": "0.1.0",
        "identifier": identifier,
        "build": { "frontendDist": "dist" },
        "app": {
            "windows": [{ "title": heading, "width": 1280, "height": 800 }],
            "security": { "csp": "default-src 'self'" }
        },
        "bundle": {
            "active": true,
            "targets": ["deb"],
            "icon": icons.iter().map(|i| format!("icons/{i}")).collect::<Vec<_>>(),
        },
        "plugins": plugins,
    });
    std::fs::write(
        dir.join("tauri.conf.json"),
        serde_json::to_string_pretty(&config)? + "\n",
    )?;
    Ok(())
}

/// The version `Cargo.lock` pins for package `name` (the first, if several).
pub fn locked_version(lock: &str, name: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == format!("name = \"{name}\"") {
            return lines
                .next()?
                .strip_prefix("version = \"")?
                .strip_suffix('"')
                .map(str::to_owned);
        }
    }
    None
}

/// The workspace's `[profile.release]` and `[profile.installer]` (with their
/// per-package overrides) as TOML to append. The installer profile must be
/// there: the empty app is built with it.
pub fn profiles(workspace: &toml::Table) -> Result<String> {
    let mut profile = toml::Table::new();
    for name in ["release", PROFILE] {
        if let Some(table) = workspace.get("profile").and_then(|p| p.get(name)) {
            profile.insert(name.into(), table.clone());
        }
    }
    if !profile.contains_key(PROFILE) {
        bail!("the workspace's Cargo.toml has no [profile.{PROFILE}]");
    }
    let mut outer = toml::Table::new();
    outer.insert("profile".into(), toml::Value::Table(profile));
    Ok(format!("\n{}", toml::to_string(&outer)?))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn the_locked_version_is_read_from_cargo_lock() {
        let lock = "[[package]]\nname = \"tauri-build\"\nversion = \"2.5.1\"\n\n[[package]]\nname = \"tauri\"\nversion = \"2.12.5\"\n";
        assert_eq!(locked_version(lock, "tauri").as_deref(), Some("2.12.5"));
        assert_eq!(
            locked_version(lock, "tauri-build").as_deref(),
            Some("2.5.1")
        );
        assert_eq!(locked_version(lock, "wry"), None);
    }

    #[test]
    fn the_release_and_installer_profiles_are_copied_and_nothing_else() {
        let with: toml::Table = toml::from_str(
            "[profile.release]\nstrip = true\n[profile.installer]\ninherits = \"release\"\nlto = true\n[profile.dev]\ndebug = 0\n",
        )
        .unwrap();

        let copied = profiles(&with).unwrap();

        let parsed: toml::Table = toml::from_str(&copied).unwrap();
        assert_eq!(parsed["profile"]["release"]["strip"].as_bool(), Some(true));
        assert_eq!(parsed["profile"]["installer"]["lto"].as_bool(), Some(true));
        assert!(parsed["profile"].get("dev").is_none(), "{copied}");
    }

    #[test]
    fn a_workspace_without_the_installer_profile_is_refused() {
        let without: toml::Table = toml::from_str("[profile.release]\nstrip = true\n").unwrap();

        assert!(profiles(&without).is_err());
    }

    #[test]
    fn the_workspace_builds_installers_with_the_profile_the_empty_app_copies() {
        let workspace: toml::Table = toml::from_str(
            &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml"))
                .unwrap(),
        )
        .unwrap();

        let installer = &workspace["profile"][PROFILE];

        assert_eq!(installer["inherits"].as_str(), Some("release"));
        assert!(
            profiles(&workspace)
                .unwrap()
                .contains("[profile.installer]")
        );
    }
}
