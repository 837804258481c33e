//! The IT policy: a system-wide file an IT-managed install uses to turn
//! features off, or tighten them, for every user of the machine:
//!
//! ```toml
//! # /etc/rxdesk/policy.toml (Linux)
//! # %ProgramData%\Rx Desk\policy.toml (Windows)
//! # /Library/Application Support/Rx Desk/policy.toml (macOS)
//! updates = false
//! max_idle_minutes = 10   # the app locks after at most this long without input
//! ```
//!
//! No file means no policy (updates offered, the user's idle time). The file is
//! writable only by an administrator. On Windows, where any user may create
//! folders under ProgramData, the folder and the file count only when
//! Administrators, SYSTEM or TrustedInstaller own them ([`trusted_owner`]): a
//! file a user owns (or in a folder a user owns) is ignored, as if absent, and
//! Settings says so naming the owner ([`Ignored`]) — a planted file neither
//! turns updates off nor caps the idle time for everyone. Nothing a user
//! controls (environment variable, setting) outranks an administrator's file: a
//! user's idle time longer than `max_idle_minutes`, or "never", gives way to it
//! ([`effective_idle`]). An administrator's file that cannot be read or
//! understood, or one whose owner cannot be read, fails closed: the features it
//! could turn off stay off, the idle time is at most the default, and Settings
//! says why. [`decide`] is that rule, a pure function of the owner and the
//! parse. Unknown keys are logged and otherwise ignored, so a newer policy file
//! does not break an older app.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The file's name inside the system-wide directory.
const FILE_NAME: &str = "policy.toml";
/// The keys this version understands.
const KNOWN_KEYS: &[&str] = &["updates", "max_idle_minutes"];

/// What IT allows on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Whether the app may check for and install updates (`updates`, default `true`).
    pub updates: bool,
    /// The longest the app may stay unlocked without input (`max_idle_minutes`,
    /// whole minutes, at least 1; default: no maximum).
    pub max_idle: Option<Duration>,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            updates: true,
            max_idle: None,
        }
    }
}

impl Policy {
    /// What applies when the policy file cannot be used: no updates, and the
    /// idle time at most `default_idle`.
    pub fn closed(default_idle: Duration) -> Self {
        Self {
            updates: false,
            max_idle: Some(default_idle),
        }
    }
}

/// The idle time that applies: the user's (`Duration::ZERO`: never lock), but
/// never longer than IT's maximum — and never "never" when IT set one.
pub fn effective_idle(user: Duration, max: Option<Duration>) -> Duration {
    match max {
        Some(max) if user.is_zero() || user > max => max,
        _ => user,
    }
}

/// A policy file as read: the policy and the keys it had that this version does
/// not know (logged, not fatal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub policy: Policy,
    pub unknown_keys: Vec<String>,
}

/// Why a policy file could not be used; every feature it governs stays off.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error(
        "the IT policy file {} cannot be read ({source}); ask your IT team to make it readable or remove it",
        path.display()
    )]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the IT policy file {} is not valid: {problem}; ask your IT team to correct it (it holds e.g. `updates = false`)",
        path.display()
    )]
    Malformed { path: PathBuf, problem: String },
    #[error(
        "the owner of the IT policy file {} cannot be read ({reason} for {}), so it cannot be told apart from an administrator's; ask your IT team to check it",
        path.display(), owned.display()
    )]
    OwnerUnknown {
        path: PathBuf,
        /// The file or its folder.
        owned: PathBuf,
        reason: String,
    },
}

/// Who owns the policy file and its folder, as far as the app can tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    /// Administrators, SYSTEM or TrustedInstaller own the folder and the file —
    /// or there is nothing to check (no file; not Windows, whose system
    /// folders only root may write to).
    Administrators,
    /// `owned` (the file or its folder) belongs to `owner`, not an administrator.
    NotAdministrators {
        owned: PathBuf,
        /// As Windows names it in SDDL: an alias (`BU`) or a SID.
        owner: String,
    },
    /// The owner of `owned` could not be read.
    Unknown { owned: PathBuf, reason: String },
}

/// A policy file that was not used because no administrator owns it (or its
/// folder): in words, what Settings shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "A policy file at {} is not owned by an administrator and was ignored ({}{} is owned by {owner}). Updates and the idle time are as without it; ask your IT team to remove it, or to recreate it as an administrator.",
    path.display(),
    if owned == path { "it" } else { "its folder " },
    if owned == path { String::new() } else { owned.display().to_string() }
)]
pub struct Ignored {
    pub path: PathBuf,
    /// The file or its folder.
    pub owned: PathBuf,
    pub owner: String,
}

/// The policy that applies, and the file that was ignored to get it, if one was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effective {
    pub policy: Policy,
    pub ignored: Option<Ignored>,
}

/// The policy that applies, given who owns the file at `path` and what reading
/// it gave (a missing file reads as the default policy). A file an
/// administrator owns is used, or fails closed when broken; one a user owns is
/// ignored whatever it says; one whose owner is unknown fails closed.
pub fn decide(
    path: &Path,
    ownership: Ownership,
    parsed: Result<Policy, PolicyError>,
) -> Result<Effective, PolicyError> {
    match ownership {
        Ownership::Administrators => parsed.map(|policy| Effective {
            policy,
            ignored: None,
        }),
        Ownership::NotAdministrators { owned, owner } => Ok(Effective {
            policy: Policy::default(),
            ignored: Some(Ignored {
                path: path.to_owned(),
                owned,
                owner,
            }),
        }),
        Ownership::Unknown { owned, reason } => Err(PolicyError::OwnerUnknown {
            path: path.to_owned(),
            owned,
            reason,
        }),
    }
}

/// The SID of TrustedInstaller (`NT SERVICE\TrustedInstaller`), which owns
/// what Windows itself installs.
const TRUSTED_INSTALLER: &str = "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464";

/// The owner of a security descriptor in SDDL (`O:BAG:SYD:…` → `BA`): what
/// Windows reports in a form that does not depend on the system's language.
pub fn sddl_owner(sddl: &str) -> Option<&str> {
    let rest = sddl.trim().strip_prefix("O:")?;
    // The owner runs to the next section (`G:`, `D:`, `S:`); a SID's own
    // dashes (`S-1-…`) never hold a colon.
    let end = ["G:", "D:", "S:"]
        .iter()
        .filter_map(|section| rest.find(section))
        .min()
        .unwrap_or(rest.len());
    Some(&rest[..end]).filter(|owner| !owner.is_empty())
}

/// Whether an owner (SDDL alias or SID) may hold the IT policy: the
/// Administrators group, SYSTEM or TrustedInstaller — never a user.
pub fn trusted_owner(owner: &str) -> bool {
    matches!(
        owner,
        "BA" | "SY" | "S-1-5-32-544" | "S-1-5-18" | TRUSTED_INSTALLER
    )
}

/// The owner of `path` as Windows reports it, in SDDL terms: PowerShell's
/// `Get-Acl` (part of every Windows), the path passed in the environment so it
/// is never parsed as code. Only asked when a policy file exists.
#[cfg(windows)]
fn owner_of(path: &Path) -> Result<String, String> {
    let output = std::process::Command::new("powershell.exe")
        .args([
            "-NoProfile",
            "-NonInteractive",
            "-Command",
            "(Get-Acl -LiteralPath $env:RXDESK_POLICY_OWNED).Sddl",
        ])
        .env("RXDESK_POLICY_OWNED", path)
        .output()
        .map_err(|e| format!("Get-Acl did not run: {e}"))?;
    let sddl = String::from_utf8_lossy(&output.stdout);
    sddl_owner(&sddl)
        .map(str::to_owned)
        .ok_or_else(|| "Get-Acl gave no owner".to_owned())
}

/// Who owns the system-wide policy file and its folder. Read on Windows only;
/// elsewhere the system folders are root's already.
fn ownership(path: &Path) -> Ownership {
    #[cfg(windows)]
    if path == system_path() && path.exists() {
        for owned in [path.parent().unwrap_or(path), path] {
            match owner_of(owned) {
                Ok(owner) if trusted_owner(&owner) => {}
                Ok(owner) => {
                    return Ownership::NotAdministrators {
                        owned: owned.to_owned(),
                        owner,
                    };
                }
                Err(reason) => {
                    return Ownership::Unknown {
                        owned: owned.to_owned(),
                        reason,
                    };
                }
            }
        }
    }
    let _ = path;
    Ownership::Administrators
}

/// Parses a policy file's text. Malformed TOML or a known key with the wrong
/// type is an error (the caller fails closed); unknown keys are returned.
pub fn parse(text: &str) -> Result<Parsed, String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        // The message without the source excerpt toml adds: one line for Settings.
        e.message().to_owned()
    })?;
    let updates = match table.get("updates") {
        None => true,
        Some(toml::Value::Boolean(on)) => *on,
        Some(other) => {
            return Err(format!(
                "`updates` must be true or false, not {} ({other})",
                other.type_str()
            ));
        }
    };
    let max_idle = match table.get("max_idle_minutes") {
        None => None,
        Some(toml::Value::Integer(minutes)) if *minutes >= 1 => Some(Duration::from_secs(
            u64::try_from(*minutes)
                .unwrap_or(u64::MAX)
                .saturating_mul(60),
        )),
        Some(toml::Value::Integer(minutes)) => {
            return Err(format!(
                "`max_idle_minutes` must be at least 1, not {minutes} (leave it out for no maximum)"
            ));
        }
        Some(other) => {
            return Err(format!(
                "`max_idle_minutes` must be a whole number of minutes, not {} ({other})",
                other.type_str()
            ));
        }
    };
    let unknown_keys = table
        .keys()
        .filter(|k| !KNOWN_KEYS.contains(&k.as_str()))
        .cloned()
        .collect();
    Ok(Parsed {
        policy: Policy { updates, max_idle },
        unknown_keys,
    })
}

/// Reads the policy at `path` and decides what applies ([`decide`]): none
/// there is the default policy; an administrator's file that cannot be read or
/// parsed is an error; (on Windows) the system-wide file a user owns is
/// ignored, and said so (logged here, shown by the caller).
pub fn read(path: &Path) -> Result<Effective, PolicyError> {
    let effective = decide(path, ownership(path), load(path))?;
    if let Some(ignored) = &effective.ignored {
        tracing::warn!(
            path = %ignored.path.display(),
            owned = %ignored.owned.display(),
            owner = %ignored.owner,
            "an IT policy file no administrator owns was ignored"
        );
    }
    Ok(effective)
}

/// The policy the file at `path` says, whoever owns it; unknown keys logged.
fn load(path: &Path) -> Result<Policy, PolicyError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Policy::default()),
        Err(source) => {
            return Err(PolicyError::Unreadable {
                path: path.to_owned(),
                source,
            });
        }
    };
    let parsed = parse(&text).map_err(|problem| PolicyError::Malformed {
        path: path.to_owned(),
        problem,
    })?;
    if !parsed.unknown_keys.is_empty() {
        tracing::warn!(
            path = %path.display(),
            keys = ?parsed.unknown_keys,
            "the IT policy file has keys this version does not know; they are ignored"
        );
    }
    Ok(parsed.policy)
}

/// Where the policy lives on Linux (and other Unix-likes but macOS).
pub fn linux_path() -> PathBuf {
    PathBuf::from("/etc/rxdesk").join(FILE_NAME)
}

/// Where the policy lives on macOS.
pub fn macos_path() -> PathBuf {
    PathBuf::from("/Library/Application Support/Rx Desk").join(FILE_NAME)
}

/// Where the policy lives on Windows, given the ProgramData folder.
pub fn windows_path(program_data: &Path) -> PathBuf {
    program_data.join("Rx Desk").join(FILE_NAME)
}

/// This machine's policy file.
pub fn system_path() -> PathBuf {
    #[cfg(windows)]
    {
        // The Known Folders API, not `%ProgramData%` (which the user can set);
        // the documented default when the API has no answer.
        let program_data =
            known_folders::get_known_folder_path(known_folders::KnownFolder::ProgramData)
                .unwrap_or_else(|| PathBuf::from(r"C:\ProgramData"));
        windows_path(&program_data)
    }
    #[cfg(target_os = "macos")]
    {
        macos_path()
    }
    #[cfg(not(any(windows, target_os = "macos")))]
    {
        linux_path()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn the_owner_is_read_from_sddl_whatever_follows_it() {
        assert_eq!(sddl_owner("O:BAG:SYD:PAI(A;OICI;FA;;;SY)"), Some("BA"));
        assert_eq!(sddl_owner("O:SYD:(A;;FA;;;BA)"), Some("SY"));
        assert_eq!(
            sddl_owner("O:S-1-5-21-1-2-3-1001G:S-1-5-21-1-2-3-513D:AI"),
            Some("S-1-5-21-1-2-3-1001")
        );
        assert_eq!(sddl_owner("O:S-1-5-18S:AI"), Some("S-1-5-18"));
        assert_eq!(sddl_owner("G:SYD:AI"), None);
        assert_eq!(sddl_owner(""), None);
    }

    #[test]
    fn only_administrators_system_or_trusted_installer_may_own_the_policy() {
        for trusted in ["BA", "SY", "S-1-5-32-544", "S-1-5-18", TRUSTED_INSTALLER] {
            assert!(trusted_owner(trusted), "{trusted}");
        }
        // A user (what creating `C:\ProgramData\Rx Desk` as a user leaves),
        // the Users group, or an owner that could not be read.
        for untrusted in [
            "S-1-5-21-1-2-3-1001",
            "BU",
            "S-1-5-32-545",
            "unknown (x)",
            "",
        ] {
            assert!(!trusted_owner(untrusted), "{untrusted}");
        }
    }

    const SYSTEM_FILE: &str = r"C:\ProgramData\Rx Desk\policy.toml";
    const SYSTEM_FOLDER: &str = r"C:\ProgramData\Rx Desk";
    const A_USER: &str = "S-1-5-21-1-2-3-1001";

    fn planted_in(owned: &str) -> Ownership {
        Ownership::NotAdministrators {
            owned: PathBuf::from(owned),
            owner: A_USER.into(),
        }
    }

    fn updates_off() -> Result<Policy, PolicyError> {
        Ok(Policy {
            updates: false,
            max_idle: Some(Duration::from_secs(60)),
        })
    }

    fn broken() -> Result<Policy, PolicyError> {
        Err(PolicyError::Malformed {
            path: PathBuf::from(SYSTEM_FILE),
            problem: "expected a value".into(),
        })
    }

    #[test]
    fn a_policy_file_a_user_owns_is_ignored_as_if_absent_whatever_it_says() {
        for owned in [SYSTEM_FILE, SYSTEM_FOLDER] {
            for parsed in [updates_off(), broken()] {
                let effective = decide(Path::new(SYSTEM_FILE), planted_in(owned), parsed).unwrap();

                assert_eq!(effective.policy, Policy::default(), "{owned}");
                assert!(effective.ignored.is_some(), "{owned}");
            }
        }
    }

    #[test]
    fn an_ignored_policy_file_is_named_with_its_owner_and_what_to_do() {
        let Effective { ignored, .. } = decide(
            Path::new(SYSTEM_FILE),
            planted_in(SYSTEM_FOLDER),
            updates_off(),
        )
        .unwrap();

        let text = ignored.unwrap().to_string();

        assert!(
            text.starts_with(&format!(
                "A policy file at {SYSTEM_FILE} is not owned by an administrator and was ignored"
            )),
            "{text}"
        );
        assert!(text.contains(A_USER), "{text}");
        assert!(
            text.contains(&format!("its folder {SYSTEM_FOLDER}")),
            "{text}"
        );
        assert!(text.contains("recreate it as an administrator"), "{text}");
    }

    #[test]
    fn an_administrators_policy_file_applies_and_fails_closed_when_broken() {
        let used = decide(
            Path::new(SYSTEM_FILE),
            Ownership::Administrators,
            updates_off(),
        )
        .unwrap();
        assert_eq!(used.policy, updates_off().unwrap());
        assert_eq!(used.ignored, None);

        let refused = decide(Path::new(SYSTEM_FILE), Ownership::Administrators, broken());
        assert!(matches!(refused, Err(PolicyError::Malformed { .. })));
    }

    #[test]
    fn a_policy_file_whose_owner_cannot_be_read_fails_closed() {
        let unknown = Ownership::Unknown {
            owned: PathBuf::from(SYSTEM_FILE),
            reason: "Get-Acl did not run".into(),
        };

        let refused = decide(Path::new(SYSTEM_FILE), unknown, updates_off()).unwrap_err();

        assert!(matches!(refused, PolicyError::OwnerUnknown { .. }));
        assert!(
            refused.to_string().contains("Get-Acl did not run"),
            "{refused}"
        );
    }

    #[test]
    fn no_setting_allows_updates_and_false_turns_them_off() {
        assert!(parse("").unwrap().policy.updates);
        assert!(parse("# managed by IT\n").unwrap().policy.updates);
        assert!(parse("updates = true").unwrap().policy.updates);
        let off = parse("updates = false\n").unwrap();
        assert!(!off.policy.updates);
        assert!(off.unknown_keys.is_empty());
    }

    #[test]
    fn max_idle_minutes_is_whole_minutes_of_at_least_one() {
        assert_eq!(parse("").unwrap().policy.max_idle, None);
        assert_eq!(
            parse("max_idle_minutes = 10").unwrap().policy.max_idle,
            Some(Duration::from_secs(600))
        );
        assert!(parse("max_idle_minutes = 0").is_err());
        assert!(parse("max_idle_minutes = -5").is_err());
        assert!(parse("max_idle_minutes = \"10\"").is_err());
        assert!(parse("max_idle_minutes = 1.5").is_err());
    }

    #[test]
    fn a_user_or_variable_idle_time_cannot_exceed_it_policy() {
        let ten = Duration::from_secs(600);
        let five = Duration::from_secs(300);
        let thirty = Duration::from_secs(1800);

        assert_eq!(effective_idle(thirty, Some(ten)), ten);
        assert_eq!(
            effective_idle(Duration::ZERO, Some(ten)),
            ten,
            "never gives way"
        );
        assert_eq!(effective_idle(five, Some(ten)), five, "shorter stays");
        assert_eq!(effective_idle(Duration::ZERO, None), Duration::ZERO);
        assert_eq!(effective_idle(thirty, None), thirty);
    }

    #[test]
    fn a_policy_that_cannot_be_used_closes_updates_and_bounds_the_idle_time() {
        let closed = Policy::closed(Duration::from_secs(900));

        assert!(!closed.updates);
        assert_eq!(
            effective_idle(Duration::ZERO, closed.max_idle),
            Duration::from_secs(900)
        );
    }

    #[test]
    fn unknown_keys_are_reported_and_do_not_change_the_policy() {
        let mut parsed = parse("updates = false\ntelemetry = false\n[future]\nx = 1\n").unwrap();
        assert!(!parsed.policy.updates);
        parsed.unknown_keys.sort();
        assert_eq!(parsed.unknown_keys, vec!["future", "telemetry"]);
    }

    #[test]
    fn malformed_toml_or_a_wrong_type_is_an_error() {
        assert!(parse("updates = ").is_err());
        assert!(parse("updates = no").is_err());
        let wrong = parse("updates = \"false\"").unwrap_err();
        assert!(wrong.contains("true or false"), "{wrong}");
        assert!(parse("updates = 0").is_err());
    }

    #[test]
    fn a_missing_file_is_the_default_policy() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            read(&dir.path().join("policy.toml")).unwrap(),
            Effective {
                policy: Policy::default(),
                ignored: None
            }
        );
    }

    #[test]
    fn a_file_that_cannot_be_parsed_or_read_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.toml");
        std::fs::write(&path, "updates = maybe").unwrap();
        let e = read(&path).unwrap_err();
        assert!(matches!(e, PolicyError::Malformed { .. }));
        assert!(e.to_string().contains("policy.toml"), "{e}");
        // A directory where the file should be: unreadable, not "no policy".
        let dir_path = dir.path().join("dir.toml");
        std::fs::create_dir(&dir_path).unwrap();
        assert!(matches!(
            read(&dir_path).unwrap_err(),
            PolicyError::Unreadable { .. }
        ));
    }

    #[test]
    fn each_platform_has_its_system_wide_path() {
        assert_eq!(linux_path(), PathBuf::from("/etc/rxdesk/policy.toml"));
        assert_eq!(
            macos_path(),
            PathBuf::from("/Library/Application Support/Rx Desk/policy.toml")
        );
        assert_eq!(
            windows_path(Path::new("C:/ProgramData")),
            Path::new("C:/ProgramData")
                .join("Rx Desk")
                .join("policy.toml")
        );
        #[cfg(target_os = "linux")]
        assert_eq!(system_path(), linux_path());
    }
}
