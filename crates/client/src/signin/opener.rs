//! Opening the authorize URL: the [`UrlOpener`] trait, the default
//! [`SystemBrowser`] (honours `$BROWSER`, else the platform's opener) and
//! [`NoBrowser`] for callers that only show the URL. Nothing else lives here.
//!
//! `$BROWSER` follows Python's `webbrowser`: entries separated by the platform's
//! path-list separator (`;` on Windows, `:` elsewhere), tried in order. Each
//! entry is a program and its arguments, split on whitespace; double quotes keep
//! a word whole (`"C:\Program Files\Mozilla Firefox\firefox.exe" --new-window %s`)
//! and are removed; backslashes are always literal (they are Windows' path
//! separator, not escapes) and so are single quotes. `%s` is replaced by the URL,
//! or the URL is appended. An entry with an unterminated double quote is not
//! guessed at: it is skipped with an error naming it, and the next one is tried.

use std::fmt;
use std::io;
use std::process::{Command, Stdio};

use url::Url;

/// Something that shows the authorize URL to the user.
pub trait UrlOpener: Send + Sync + fmt::Debug {
    /// Opens `url`; an error means the caller should show the URL instead.
    fn open(&self, url: &Url) -> io::Result<()>;
}

/// The system browser: each command of `$BROWSER` (`;`-separated on Windows,
/// `:`-separated elsewhere; `"…"` keeps a path with spaces whole; `%s` replaced by
/// the URL or the URL appended) in turn, else `xdg-open` / `open` /
/// `rundll32 url.dll,FileProtocolHandler`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemBrowser;

impl UrlOpener for SystemBrowser {
    fn open(&self, url: &Url) -> io::Result<()> {
        let browser = std::env::var("BROWSER").ok();
        let mut last_error = None;
        for argv in candidates(browser.as_deref(), PATH_LIST_SEPARATOR, url.as_str()) {
            match argv.and_then(|argv| spawn(&argv)) {
                Ok(()) => return Ok(()),
                Err(e) => last_error = Some(e),
            }
        }
        Err(last_error.unwrap_or_else(|| io::Error::other("no way to open a browser")))
    }
}

/// What separates `$BROWSER` entries: the platform's path-list separator, as
/// in `PATH`.
const PATH_LIST_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// The commands to try, in order: each entry of `$BROWSER` (split on
/// `separator`), then the platform's opener. An entry that cannot be parsed is
/// an error in its place.
fn candidates(
    browser_var: Option<&str>,
    separator: char,
    url: &str,
) -> Vec<io::Result<Vec<String>>> {
    parse_browser_var(browser_var.unwrap_or_default(), separator)
        .into_iter()
        .map(|entry| entry.map(|words| browser_command(words, url)))
        .chain([Ok(platform_command(url))])
        .collect()
}

/// `$BROWSER` as commands (program and arguments, `%s` not yet replaced), blank
/// entries left out: entries split on `separator`, words on whitespace outside
/// double quotes, quotes removed, backslashes kept.
fn parse_browser_var(value: &str, separator: char) -> Vec<io::Result<Vec<String>>> {
    value
        .split(separator)
        .filter(|entry| !entry.trim().is_empty())
        .map(split_words)
        .collect()
}

/// One entry's words. A double quote opens or closes a quoted stretch, which
/// may hold whitespace; `""` is an empty word.
fn split_words(entry: &str) -> io::Result<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quoted = false;
    for c in entry.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quoted {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("the $BROWSER entry {entry:?} has an unterminated double quote"),
        ));
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Opens nothing: the caller shows the URL (headless runs, "copy the link").
#[derive(Debug, Clone, Copy, Default)]
pub struct NoBrowser;

impl UrlOpener for NoBrowser {
    fn open(&self, _url: &Url) -> io::Result<()> {
        Ok(())
    }
}

/// One `$BROWSER` entry's words as program and arguments, with the URL in
/// place of `%s` or appended.
fn browser_command(mut parts: Vec<String>, url: &str) -> Vec<String> {
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

    fn commands(value: &str, separator: char) -> Vec<Vec<String>> {
        parse_browser_var(value, separator)
            .into_iter()
            .map(Result::unwrap)
            .collect()
    }

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn browser_variable_entries_come_before_the_platform_opener() {
        let tried: Vec<_> = candidates(Some("w3m:firefox %s"), ':', "http://a/b")
            .into_iter()
            .map(Result::unwrap)
            .collect();

        assert_eq!(tried[0], vec!["w3m", "http://a/b"]);
        assert_eq!(tried[1], vec!["firefox", "http://a/b"]);
        assert_eq!(tried.len(), 3);
        assert_eq!(tried[2].last().map(String::as_str), Some("http://a/b"));
    }

    #[test]
    fn without_browser_variable_only_the_platform_opener_is_tried() {
        assert_eq!(candidates(None, ':', "http://a/b").len(), 1);
    }

    #[test]
    fn a_quoted_windows_path_with_spaces_stays_whole() {
        let value = r#""C:\Program Files\Mozilla Firefox\firefox.exe" --new-window %s"#;

        let parsed = commands(value, ';');

        assert_eq!(
            parsed,
            vec![words(&[
                r"C:\Program Files\Mozilla Firefox\firefox.exe",
                "--new-window",
                "%s"
            ])]
        );
    }

    #[test]
    fn an_unquoted_windows_path_keeps_its_drive_and_backslashes() {
        let parsed = commands(r"C:\Tools\browser.exe", ';');

        assert_eq!(parsed, vec![words(&[r"C:\Tools\browser.exe"])]);
    }

    #[test]
    fn windows_entries_are_separated_by_semicolons() {
        let value = r#""C:\Program Files\Firefox\firefox.exe" %s;C:\Tools\browser.exe; ;msedge"#;

        let parsed = commands(value, ';');

        assert_eq!(
            parsed,
            vec![
                words(&[r"C:\Program Files\Firefox\firefox.exe", "%s"]),
                words(&[r"C:\Tools\browser.exe"]),
                words(&["msedge"]),
            ]
        );
    }

    #[test]
    fn posix_entries_are_separated_by_colons_and_words_by_whitespace() {
        let parsed = commands("w3m: firefox  --new-window %s :chromium", ':');

        assert_eq!(
            parsed,
            vec![
                words(&["w3m"]),
                words(&["firefox", "--new-window", "%s"]),
                words(&["chromium"]),
            ]
        );
    }

    #[test]
    fn a_quoted_word_may_hold_a_path_with_spaces_on_posix_too() {
        let parsed = commands(r#""/opt/My Browser/browser" --app=%s"#, ':');

        assert_eq!(
            parsed,
            vec![words(&["/opt/My Browser/browser", "--app=%s"])]
        );
    }

    #[test]
    fn percent_s_in_a_quoted_windows_command_is_replaced_by_the_url() {
        let value = r#""C:\Program Files\Mozilla Firefox\firefox.exe" -url "%s""#;

        let tried = candidates(Some(value), ';', "http://127.0.0.1:9/authorize?a=1&b=2");

        assert_eq!(
            tried[0].as_ref().unwrap(),
            &words(&[
                r"C:\Program Files\Mozilla Firefox\firefox.exe",
                "-url",
                "http://127.0.0.1:9/authorize?a=1&b=2"
            ])
        );
    }

    #[test]
    fn an_unterminated_quote_is_an_error_and_the_next_entry_is_still_tried() {
        let value = r#""C:\Program Files\firefox.exe --new-window;msedge"#;

        let tried = candidates(Some(value), ';', "http://a/b");

        let error = tried[0].as_ref().unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        assert!(
            error.to_string().contains("unterminated double quote"),
            "{error}"
        );
        assert_eq!(
            tried[1].as_ref().unwrap(),
            &words(&["msedge", "http://a/b"])
        );
        assert_eq!(tried.len(), 3);
    }

    #[test]
    fn an_empty_quoted_word_is_kept_as_an_empty_argument() {
        assert_eq!(
            commands(r#"open -a "" %s"#, ':'),
            vec![words(&["open", "-a", "", "%s"])]
        );
    }

    #[test]
    fn a_missing_program_is_an_error_not_a_panic() {
        let e = spawn(&["/nonexistent/rxdesk-browser".to_owned()]).unwrap_err();

        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn browser_entry_gets_the_url_appended() {
        assert_eq!(
            browser_command(words(&["firefox", "--new-window"]), "http://a/b"),
            vec!["firefox", "--new-window", "http://a/b"]
        );
    }

    #[test]
    fn browser_entry_substitutes_percent_s() {
        assert_eq!(
            browser_command(words(&["chromium", "--app=%s"]), "http://a/b"),
            vec!["chromium", "--app=http://a/b"]
        );
    }
}
