//! `cargo xtask windows setup`: the Windows setup program tried as a clinic's
//! user would, under Wine, in a prefix made fresh for it (a new user's
//! machine): without the WebView2 runtime setup refuses in words and installs
//! nothing; with it, `setup.exe /S` installs per user — the files, the Start
//! menu entry, the `rxdesk://` scheme and the Apps & features entry where
//! README says — an update (`/S /UPDATE`) installs over it, and the
//! uninstaller removes all of it. What setup does is `src-tauri/windows/
//! installer.nsi`; only the trying and the checking live here.
//!
//! Wine has no WebView2 runtime. The one stand-in is its registry entry
//! (`pv`, the installed version, under the runtime's product code), which is
//! all setup reads of it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use anyhow::{Context as _, Result, bail, ensure};

use crate::windows::{WINE, stop_wine};

/// No Mono or Gecko install prompts, and no menu entries or link handlers
/// written to the host's desktop by `winemenubuilder`.
const OVERRIDES: &str = "mscoree,mshtml=;winemenubuilder.exe=d";

/// The WebView2 runtime's product code (the NSIS script's `WEBVIEW2_GUID`).
const WEBVIEW2_CLIENT: &str =
    r"HKCU\Software\Microsoft\EdgeUpdate\Clients\{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}";
/// The version the stand-in says is installed.
const WEBVIEW2_STAND_IN: &str = "131.0.2903.70";

/// What the setup program is expected to install.
pub struct Expected<'a> {
    /// The product name: the install folder, the Start menu entry and the
    /// Apps & features entry are named after it.
    pub name: &'a str,
    pub version: &'a str,
    /// The `rxdesk.exe` it should put in place, byte for byte (`None`: a
    /// setup program built elsewhere, checked for the file only).
    pub app: Option<&'a Path>,
}

/// A prefix made fresh for one try, and where setup puts things in it.
struct Prefix {
    dir: PathBuf,
    /// The Wine user's profile (`drive_c/users/<user>`).
    profile: PathBuf,
    /// The same, as Windows programs see it (`C:\users\<user>`).
    windows_profile: String,
}

impl Prefix {
    fn fresh(dir: PathBuf) -> Result<Self> {
        if dir.exists() {
            stop_wine(&dir);
            std::fs::remove_dir_all(&dir)
                .with_context(|| format!("cannot remove the old prefix {}", dir.display()))?;
        }
        let mut boot = Command::new(WINE);
        boot.args(["wineboot", "--init"]);
        run_in(&dir, boot, "wineboot --init")?;
        stop_wine(&dir);
        let users = dir.join("drive_c/users");
        let user = std::fs::read_dir(&users)
            .with_context(|| format!("wineboot made no {}", users.display()))?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .find(|name| name != "Public")
            .with_context(|| format!("no user profile under {}", users.display()))?;
        Ok(Self {
            profile: users.join(&user),
            windows_profile: format!(r"C:\users\{user}"),
            dir,
        })
    }

    fn install_dir(&self, name: &str) -> PathBuf {
        self.profile.join("AppData/Local").join(name)
    }

    fn windows_install_dir(&self, name: &str) -> String {
        format!(r"{}\AppData\Local\{name}", self.windows_profile)
    }

    fn start_menu_entry(&self, name: &str) -> PathBuf {
        self.profile
            .join("AppData/Roaming/Microsoft/Windows/Start Menu/Programs")
            .join(format!("{name}.lnk"))
    }

    /// Runs a Windows program (`args[0]`).
    fn wine(&self, args: &[&str]) -> Result<Output> {
        let mut cmd = Command::new(WINE);
        cmd.args(args);
        run_in(&self.dir, cmd, args.first().copied().unwrap_or("wine"))
    }

    /// [`Prefix::wine`], then waits for every process it started in the
    /// prefix to end: the uninstaller copies itself to the temporary folder
    /// and runs the copy, which removes the original.
    fn wine_and_wait(&self, args: &[&str]) -> Result<Output> {
        let output = self.wine(args)?;
        stop_wine(&self.dir);
        Ok(output)
    }

    /// The value `name` (`None`: the key's default) of registry key `key`,
    /// `None` when the key or the value is not there (`reg query`).
    fn reg_value(&self, key: &str, name: Option<&str>) -> Result<Option<String>> {
        let mut args = vec!["reg", "query", key];
        match name {
            Some(name) => args.extend(["/v", name]),
            None => args.push("/ve"),
        }
        let output = self.wine(&args)?;
        if !output.status.success() {
            return Ok(None);
        }
        Ok(reg_query_value(&String::from_utf8_lossy(&output.stdout)))
    }

    fn has_key(&self, key: &str) -> Result<bool> {
        Ok(self.wine(&["reg", "query", key])?.status.success())
    }
}

/// The data of the one value a `reg query … /v NAME` (or `/ve`) printed:
/// `    NAME    REG_SZ    DATA`.
fn reg_query_value(printed: &str) -> Option<String> {
    printed.lines().find_map(|line| {
        let (_, rest) = line.split_once("REG_")?;
        // An empty value may end at its type.
        let data = rest.split_once(char::is_whitespace).map_or("", |(_, d)| d);
        Some(data.trim().to_owned())
    })
}

fn run_in(prefix: &Path, mut cmd: Command, what: &str) -> Result<Output> {
    cmd.env("WINEPREFIX", prefix)
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", OVERRIDES)
        .output()
        .with_context(|| format!("cannot run {what} under Wine ({WINE})"))
}

/// One thing checked, said as it passed.
fn ok(what: &str, started: Instant) {
    eprintln!("  ok ({:.1} s): {what}", started.elapsed().as_secs_f64());
}

/// Tries `setup` in a fresh prefix at `prefix_dir`; fails naming the first
/// thing that is not as `expected`.
pub fn try_setup(setup: &Path, prefix_dir: PathBuf, expected: &Expected) -> Result<()> {
    let all = Instant::now();
    eprintln!(
        "\n==> Wine: the setup program in a fresh prefix ({})",
        prefix_dir.display()
    );
    let prefix = Prefix::fresh(prefix_dir)?;
    let name = expected.name;
    let setup_arg = setup
        .to_str()
        .context("the setup program's path is not UTF-8")?;
    let install_dir = prefix.install_dir(name);
    let windows_app = format!(r"{}\rxdesk.exe", prefix.windows_install_dir(name));
    let scheme = r"HKCU\Software\Classes\rxdesk";
    let uninstall_key = format!(r"HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\{name}");

    // Without the WebView2 runtime, and no way to fetch its installer (Wine's
    // PowerShell is a stub): setup says so and stops before installing.
    let started = Instant::now();
    let refused = prefix.wine_and_wait(&[setup_arg, "/S"])?;
    ensure!(
        refused.status.code() == Some(1),
        "setup without the WebView2 runtime ended with {}, not 1 (refused)",
        refused.status
    );
    ensure!(
        !install_dir.exists() && !prefix.has_key(scheme)?,
        "setup without the WebView2 runtime installed something ({})",
        install_dir.display()
    );
    ok(
        "without the WebView2 runtime setup stops with exit code 1 and installs nothing",
        started,
    );

    // The stand-in: the runtime's registry entry, per user.
    let marked = prefix.wine(&[
        "reg",
        "add",
        WEBVIEW2_CLIENT,
        "/v",
        "pv",
        "/d",
        WEBVIEW2_STAND_IN,
        "/f",
    ])?;
    ensure!(
        marked.status.success(),
        "reg add of the WebView2 stand-in failed"
    );

    // Installed, then updated over it as the updater runs it.
    let installed = format!(
        "setup /S installed per user into {} with the Start menu entry, rxdesk:// and Apps & features",
        prefix.windows_install_dir(name)
    );
    let updated = "setup /S /UPDATE installed over it, everything in place".to_owned();
    for (switches, done) in [(&["/S"][..], installed), (&["/S", "/UPDATE"][..], updated)] {
        let started = Instant::now();
        let mut args = vec![setup_arg];
        args.extend(switches);
        let ran = prefix.wine_and_wait(&args)?;
        ensure!(
            ran.status.success(),
            "setup {} ended with {}",
            switches.join(" "),
            ran.status
        );
        check_installed(&prefix, expected, &windows_app, &uninstall_key)?;
        ok(&done, started);
    }

    let started = Instant::now();
    let uninstaller = format!(r"{}\uninstall.exe", prefix.windows_install_dir(name));
    let removed = prefix.wine_and_wait(&[&uninstaller, "/S"])?;
    ensure!(
        removed.status.success(),
        "uninstall.exe /S ended with {}",
        removed.status
    );
    let mut left = Vec::new();
    if install_dir.exists() {
        left.push(install_dir.display().to_string());
    }
    if prefix.start_menu_entry(name).exists() {
        left.push(prefix.start_menu_entry(name).display().to_string());
    }
    for key in [
        scheme.to_owned(),
        uninstall_key.clone(),
        r"HKCU\Software\Rx Desk".to_owned(),
    ] {
        if prefix.has_key(&key)? {
            left.push(key);
        }
    }
    if !left.is_empty() {
        bail!("the uninstaller left {}", left.join(", "));
    }
    ok(
        "uninstall.exe /S removed the files, the Start menu entry and every key setup wrote",
        started,
    );
    eprintln!(
        "xtask: the setup program tried under Wine in {:.0} s",
        all.elapsed().as_secs_f64()
    );
    Ok(())
}

fn check_installed(
    prefix: &Prefix,
    expected: &Expected,
    windows_app: &str,
    uninstall_key: &str,
) -> Result<()> {
    let name = expected.name;
    let dir = prefix.install_dir(name);
    for file in ["rxdesk.exe", "WebView2Loader.dll", "uninstall.exe"] {
        ensure!(
            dir.join(file).is_file(),
            "setup put no {file} in {}",
            dir.display()
        );
    }
    if let Some(app) = expected.app {
        let built = std::fs::read(app).with_context(|| format!("cannot read {}", app.display()))?;
        let put = std::fs::read(dir.join("rxdesk.exe"))?;
        ensure!(
            built == put,
            "the installed rxdesk.exe is not the one built ({})",
            app.display()
        );
    }
    let entry = prefix.start_menu_entry(name);
    ensure!(entry.is_file(), "no Start menu entry {}", entry.display());

    let open = prefix.reg_value(r"HKCU\Software\Classes\rxdesk\shell\open\command", None)?;
    let wanted = format!("\"{windows_app}\" \"%1\"");
    ensure!(
        open.as_deref() == Some(wanted.as_str()),
        "rxdesk:// opens {open:?}, not {wanted:?}"
    );
    ensure!(
        prefix
            .reg_value(r"HKCU\Software\Classes\rxdesk", Some("URL Protocol"))?
            .is_some(),
        "rxdesk is not marked as a URL protocol"
    );
    let version = prefix.reg_value(uninstall_key, Some("DisplayVersion"))?;
    ensure!(
        version.as_deref() == Some(expected.version),
        "Apps & features shows version {version:?}, not {}",
        expected.version
    );
    let quiet = prefix.reg_value(uninstall_key, Some("QuietUninstallString"))?;
    ensure!(
        quiet
            .as_deref()
            .is_some_and(|q| q.contains("uninstall.exe") && q.ends_with("/S")),
        "Apps & features has no quiet uninstall: {quiet:?}"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::reg_query_value;

    #[test]
    fn a_value_is_read_from_what_reg_query_prints() {
        let printed = "\r\nHKEY_CURRENT_USER\\Software\\Classes\\rxdesk\\shell\\open\\command\r\n    \
                       (Default)    REG_SZ    \"C:\\users\\root\\AppData\\Local\\Rx Desk\\rxdesk.exe\" \"%1\"\r\n\r\n";

        assert_eq!(
            reg_query_value(printed).as_deref(),
            Some(r#""C:\users\root\AppData\Local\Rx Desk\rxdesk.exe" "%1""#)
        );
    }

    #[test]
    fn an_empty_value_is_read_as_empty() {
        let printed =
            "HKEY_CURRENT_USER\\Software\\Classes\\rxdesk\r\n    URL Protocol    REG_SZ\r\n";

        assert_eq!(reg_query_value(printed).as_deref(), Some(""));
    }

    #[test]
    fn nothing_printed_is_no_value() {
        assert_eq!(reg_query_value("\r\n"), None);
    }
}
