//! Opening the authorize URL: the [`UrlOpener`] trait, the default
//! [`SystemBrowser`] (honours `$BROWSER`, else the platform's opener) and
//! [`NoBrowser`] for callers that only show the URL. Nothing else lives here.

use std::fmt;
use std::io;
use std::process::{Command, Stdio};

use url::Url;

/// Something that shows the authorize URL to the user.
pub trait UrlOpener: Send + Sync + fmt::Debug {
    /// Opens `url`; an error means the caller should show the URL instead.
    fn open(&self, url: &Url) -> io::Result<()>;
}

/// The system browser: each command of `$BROWSER` (`:`-separated, `%s` replaced
/// by the URL or the URL appended) in turn, else `xdg-open` / `open` /
/// `rundll32 url.dll,FileProtocolHandler`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemBrowser;

impl UrlOpener for SystemBrowser {
    fn open(&self, url: &Url) -> io::Result<()> {
        let browser = std::env::var("BROWSER").ok();
        let mut last_error = None;
        for argv in candidates(browser.as_deref(), url.as_str()) {
            match spawn(&argv) {
                Ok(()) => return Ok(()),
                Err(e) => last_error = Some(e),
            }
        }
        Err(last_error.unwrap_or_else(|| io::Error::other("no way to open a browser")))
    }
}

/// The commands to try, in order: each entry of `$BROWSER`, then the platform's opener.
fn candidates(browser_var: Option<&str>, url: &str) -> Vec<Vec<String>> {
    browser_var
        .unwrap_or_default()
        .split(':')
        .filter(|c| !c.trim().is_empty())
        .map(|entry| browser_command(entry, url))
        .chain([platform_command(url)])
        .collect()
}

/// Opens nothing: the caller shows the URL (headless runs, "copy the link").
#[derive(Debug, Clone, Copy, Default)]
pub struct NoBrowser;

impl UrlOpener for NoBrowser {
    fn open(&self, _url: &Url) -> io::Result<()> {
        Ok(())
    }
}

/// One `$BROWSER` entry as program and arguments, with the URL in place of `%s`
/// or appended.
fn browser_command(entry: &str, url: &str) -> Vec<String> {
    let mut parts: Vec<String> = entry.split_whitespace().map(str::to_owned).collect();
    if parts.iter().any(|p| p.contains("%s")) {
        for p in &mut parts {
            *p = p.replace("%s", url);
        }
    } else {
        parts.push(url.to_owned());
    }
    parts
}

fn platform_command(url: &str) -> Vec<String> {
    let parts: &[&str] = if cfg!(target_os = "macos") {
        &["open"]
    } else if cfg!(windows) {
        &["rundll32", "url.dll,FileProtocolHandler"]
    } else {
        &["xdg-open"]
    };
    parts
        .iter()
        .map(|s| (*s).to_owned())
        .chain([url.to_owned()])
        .collect()
}

/// Starts `argv` detached from our stdio and reaps it in the background.
fn spawn(argv: &[String]) -> io::Result<()> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty browser command"))?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    std::thread::spawn(move || child.wait());
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn browser_variable_entries_come_before_the_platform_opener() {
        let tried = candidates(Some("w3m:firefox %s"), "http://a/b");

        assert_eq!(tried[0], vec!["w3m", "http://a/b"]);
        assert_eq!(tried[1], vec!["firefox", "http://a/b"]);
        assert_eq!(tried.len(), 3);
        assert_eq!(tried[2].last().map(String::as_str), Some("http://a/b"));
    }

    #[test]
    fn without_browser_variable_only_the_platform_opener_is_tried() {
        assert_eq!(candidates(None, "http://a/b").len(), 1);
    }

    #[test]
    fn a_missing_program_is_an_error_not_a_panic() {
        let e = spawn(&["/nonexistent/rxdesk-browser".to_owned()]).unwrap_err();

        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn browser_entry_gets_the_url_appended() {
        assert_eq!(
            browser_command("firefox --new-window", "http://a/b"),
            vec!["firefox", "--new-window", "http://a/b"]
        );
    }

    #[test]
    fn browser_entry_substitutes_percent_s() {
        assert_eq!(
            browser_command("chromium --app=%s", "http://a/b"),
            vec!["chromium", "--app=http://a/b"]
        );
    }
}
