//! The networks a user can sign in to: the built-in **Local sandbox** first,
//! then one named from `RXDESK_AUTH_URL`/`RXDESK_API_URL`/`RXDESK_AUDIENCE`/
//! `RXDESK_CLIENT_ID` when those are set, then the entries of
//! `environments.toml` in the app's config directory:
//!
//! ```toml
//! [[environments]]
//! name = "Staging"
//! auth_url = "https://auth.staging.example"
//! api_url = "https://api.staging.example"
//! audience = "rxdesk-api"
//! client_id = "rxdesk-desktop"
//! # callback_port = 8765
//! # require_issuer = true   # refuse a sign-in answer without `iss` (RFC 9207)
//! ```
//!
//! Each entry is checked by `rxdesk_client::Environment` (https unless loopback;
//! a `client_secret` refused with the reason); entries that fail are reported as
//! problems, not dropped silently. No network access here.

use std::path::{Path, PathBuf};

use rxdesk_client::{Environment, EnvironmentError, Preset};

use crate::ipc::{EnvironmentInfo, EnvironmentInput, EnvironmentSource, NetworkPreset};

/// Id of the built-in sandbox environment.
pub const SANDBOX_ID: &str = "sandbox";
/// Id of the environment named by `RXDESK_*` variables.
pub const VARIABLES_ID: &str = "variables";
/// The file's name in the config directory.
pub const FILE_NAME: &str = "environments.toml";

/// Why the environments file could not be changed, or an input was refused.
#[derive(Debug, thiserror::Error)]
pub enum EnvironmentsError {
    /// An input field is wrong; `field` is the input's field name.
    #[error("{message}")]
    Invalid { field: String, message: String },
    #[error("cannot read or write {path}: {reason}")]
    File { path: String, reason: String },
    /// The disk (or the user's quota) is full: the file is as it was.
    #[error(
        "the disk is full: {path} was not changed and nothing was lost; free some space and try again"
    )]
    DiskFull { path: String },
}

/// A usable network from the file or the variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Configured {
    pub id: String,
    pub name: String,
    pub source: EnvironmentSource,
    pub environment: Environment,
}

impl Configured {
    pub fn info(&self) -> EnvironmentInfo {
        EnvironmentInfo {
            id: self.id.clone(),
            name: self.name.clone(),
            source: self.source,
            auth_url: self.environment.auth_url().to_string(),
            api_url: self.environment.api_url().to_string(),
            require_issuer: self.environment.requires_issuer(),
        }
    }
}

/// What was found: usable environments and problems to show.
#[derive(Debug, Default)]
pub struct Loaded {
    pub environments: Vec<Configured>,
    pub problems: Vec<String>,
}

/// The built-in sandbox as the UI lists it.
pub fn sandbox_info(url: Option<&url::Url>) -> EnvironmentInfo {
    let shown = url.map_or_else(|| "starts on first use".to_owned(), ToString::to_string);
    EnvironmentInfo {
        id: SANDBOX_ID.to_owned(),
        name: "Local sandbox".to_owned(),
        source: EnvironmentSource::Sandbox,
        auth_url: shown.clone(),
        api_url: shown,
        require_issuer: true,
    }
}

/// The environment from `RXDESK_*` variables, looked up through `var`: `None`
/// when `RXDESK_AUTH_URL` is not set.
pub fn from_variables(var: impl Fn(&str) -> Option<String>) -> Result<Option<Configured>, String> {
    if var(rxdesk_client::VAR_AUTH_URL).is_none_or(|v| v.is_empty()) {
        return Ok(None);
    }
    let environment =
        Environment::from_vars(&var).map_err(|e| format!("RXDESK_* variables: {e}"))?;
    Ok(Some(Configured {
        id: VARIABLES_ID.to_owned(),
        name: format!("From RXDESK_AUTH_URL ({})", environment.auth_url()),
        source: EnvironmentSource::Variables,
        environment,
    }))
}

/// The environments file in `config_dir`.
#[derive(Debug, Clone)]
pub struct EnvironmentsFile {
    path: PathBuf,
}

impl EnvironmentsFile {
    pub fn in_dir(config_dir: &Path) -> Self {
        Self {
            path: config_dir.join(FILE_NAME),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the file; a missing file is no environments and no problem.
    pub fn load(&self) -> Loaded {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Loaded::default(),
            Err(e) => {
                return Loaded {
                    environments: Vec::new(),
                    problems: vec![format!("cannot read {}: {e}", self.path.display())],
                };
            }
        };
        parse(&text, &self.path.display().to_string())
    }

    /// Checks `input` and appends it to the file (replacing an entry of the same name).
    pub fn add(&self, input: &EnvironmentInput) -> Result<Configured, EnvironmentsError> {
        let configured = check_input(input)?;
        let mut doc = self.read_table()?;
        let list = doc
            .entry("environments")
            .or_insert_with(|| toml::Value::Array(Vec::new()));
        let Some(list) = list.as_array_mut() else {
            return Err(self.file_error("`environments` is not a list"));
        };
        list.retain(|e| e.get("name").and_then(toml::Value::as_str) != Some(input.name.trim()));
        let mut entry = toml::Table::new();
        entry.insert("name".into(), input.name.trim().into());
        entry.insert("auth_url".into(), input.auth_url.trim().into());
        entry.insert("api_url".into(), input.api_url.trim().into());
        entry.insert("audience".into(), input.audience.trim().into());
        entry.insert("client_id".into(), input.client_id.trim().into());
        if let Some(port) = input.callback_port {
            entry.insert("callback_port".into(), i64::from(port).into());
        }
        if input.require_issuer {
            entry.insert("require_issuer".into(), true.into());
        }
        list.push(toml::Value::Table(entry));
        self.write_table(&doc)?;
        Ok(configured)
    }

    /// Removes the entry with this id.
    pub fn remove(&self, id: &str) -> Result<(), EnvironmentsError> {
        let mut doc = self.read_table()?;
        if let Some(list) = doc
            .get_mut("environments")
            .and_then(toml::Value::as_array_mut)
        {
            list.retain(|e| {
                e.get("name")
                    .and_then(toml::Value::as_str)
                    .is_none_or(|name| file_id(name) != id)
            });
        }
        self.write_table(&doc)
    }

    fn read_table(&self) -> Result<toml::Table, EnvironmentsError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => text
                .parse::<toml::Table>()
                .map_err(|e| self.file_error(e.message())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(toml::Table::new()),
            Err(e) => Err(self.file_error(&e.to_string())),
        }
    }

    fn write_table(&self, doc: &toml::Table) -> Result<(), EnvironmentsError> {
        let text = toml::to_string_pretty(doc).map_err(|e| self.file_error(&e.to_string()))?;
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| self.file_error(&e.to_string()))?;
        }
        // Whole or not at all: a temporary file, synced, renamed over the old one.
        let tmp = self.path.with_extension("toml.tmp");
        let write = || -> std::io::Result<()> {
            use std::io::Write as _;
            let mut file = std::fs::File::create(&tmp)?;
            file.write_all(text.as_bytes())?;
            file.sync_all()?;
            std::fs::rename(&tmp, &self.path)
        };
        write().map_err(|e| {
            // Not left behind to take space; the old file is untouched.
            let _ = std::fs::remove_file(&tmp);
            if is_disk_full(&e) {
                EnvironmentsError::DiskFull {
                    path: self.path.display().to_string(),
                }
            } else {
                self.file_error(&e.to_string())
            }
        })
    }

    fn file_error(&self, reason: &str) -> EnvironmentsError {
        EnvironmentsError::File {
            path: self.path.display().to_string(),
            reason: reason.to_owned(),
        }
    }
}

/// ENOSPC, or a quota's EDQUOT: the disk is full for this user.
pub fn is_disk_full(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::StorageFull || e.kind() == std::io::ErrorKind::QuotaExceeded
}

/// The id of a file environment named `name`.
pub fn file_id(name: &str) -> String {
    let slug: String = name
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("file:{slug}")
}

fn parse(text: &str, path: &str) -> Loaded {
    let mut loaded = Loaded::default();
    let doc = match text.parse::<toml::Table>() {
        Ok(doc) => doc,
        Err(e) => {
            loaded.problems.push(format!("{path}: {}", e.message()));
            return loaded;
        }
    };
    let Some(list) = doc.get("environments") else {
        return loaded;
    };
    let Some(list) = list.as_array() else {
        loaded.problems.push(format!(
            "{path}: `environments` must be a list of [[environments]] tables"
        ));
        return loaded;
    };
    for (index, entry) in list.iter().enumerate() {
        let Some(table) = entry.as_table() else {
            loaded
                .problems
                .push(format!("{path}: entry {} is not a table", index + 1));
            continue;
        };
        let mut table = table.clone();
        let name = match table.remove("name") {
            Some(toml::Value::String(name)) if !name.trim().is_empty() => name,
            _ => {
                loaded
                    .problems
                    .push(format!("{path}: entry {} has no name", index + 1));
                continue;
            }
        };
        let checked = toml::to_string(&table)
            .map_err(|e| e.to_string())
            .and_then(|t| Environment::from_toml_str(&t).map_err(|e| e.to_string()));
        match checked {
            Ok(environment) => loaded.environments.push(Configured {
                id: file_id(&name),
                name,
                source: EnvironmentSource::File,
                environment,
            }),
            Err(reason) => loaded.problems.push(format!("{name}: {reason}")),
        }
    }
    loaded
}

/// Checks a settings-screen input with the client's own rules.
pub fn check_input(input: &EnvironmentInput) -> Result<Configured, EnvironmentsError> {
    if input.name.trim().is_empty() {
        return Err(EnvironmentsError::Invalid {
            field: "name".into(),
            message: "Give the environment a name.".into(),
        });
    }
    if input
        .client_secret
        .as_deref()
        .is_some_and(|s| !s.is_empty())
    {
        return Err(EnvironmentsError::Invalid {
            field: "client_secret".into(),
            message: EnvironmentError::SecretInPublicClient.to_string(),
        });
    }
    let environment = Environment::new(
        input.auth_url.trim(),
        input.api_url.trim(),
        input.audience.trim(),
        input.client_id.trim(),
    )
    .map_err(|e| EnvironmentsError::Invalid {
        field: error_field(&e).to_owned(),
        message: e.to_string(),
    })?
    .with_callback_port(input.callback_port)
    .with_required_issuer(input.require_issuer);
    Ok(Configured {
        id: file_id(&input.name),
        name: input.name.trim().to_owned(),
        source: EnvironmentSource::File,
        environment,
    })
}

fn error_field(e: &EnvironmentError) -> &'static str {
    match e {
        EnvironmentError::SecretInPublicClient => "client_secret",
        EnvironmentError::Missing { setting }
        | EnvironmentError::InvalidUrl { setting, .. }
        | EnvironmentError::InsecureUrl { setting, .. }
        | EnvironmentError::InvalidPort { setting, .. } => setting,
        _ => "name",
    }
}

/// The vendor's own networks, named for the settings screen.
pub fn presets() -> Vec<NetworkPreset> {
    [
        (Preset::VendorSandbox, "Vendor sandbox"),
        (Preset::VendorProduction, "Vendor production"),
    ]
    .into_iter()
    .map(|(preset, name)| {
        let (auth_url, api_url, audience) = preset.endpoints();
        NetworkPreset {
            name: name.to_owned(),
            auth_url: auth_url.to_owned(),
            api_url: api_url.to_owned(),
            audience: audience.to_owned(),
            require_issuer: preset.requires_issuer(),
        }
    })
    .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn input(name: &str, auth: &str) -> EnvironmentInput {
        EnvironmentInput {
            name: name.into(),
            auth_url: auth.into(),
            api_url: auth.into(),
            audience: "aud".into(),
            client_id: "desk".into(),
            callback_port: None,
            require_issuer: false,
            client_secret: None,
        }
    }

    #[test]
    fn a_file_entry_with_a_client_secret_is_refused_with_the_reason() {
        let loaded = parse(
            r#"
            [[environments]]
            name = "Good"
            auth_url = "https://auth.example"
            api_url = "https://api.example"
            audience = "aud"
            client_id = "desk"

            [[environments]]
            name = "Leaky"
            auth_url = "https://auth.example"
            api_url = "https://api.example"
            audience = "aud"
            client_id = "desk"
            client_secret = "s3cret"
            "#,
            "environments.toml",
        );

        assert_eq!(loaded.environments.len(), 1);
        assert_eq!(loaded.environments[0].id, "file:good");
        assert_eq!(loaded.problems.len(), 1);
        assert!(
            loaded.problems[0].starts_with("Leaky:"),
            "{:?}",
            loaded.problems
        );
        assert!(loaded.problems[0].contains("public client must never hold a secret"));
        assert!(!loaded.problems[0].contains("s3cret"));
    }

    #[test]
    fn plain_http_is_refused_except_on_loopback() {
        let err = check_input(&input("Remote", "http://auth.example")).unwrap_err();
        assert!(
            matches!(err, EnvironmentsError::Invalid { ref field, .. } if field == "auth_url"),
            "{err:?}"
        );
        assert!(check_input(&input("Local", "http://127.0.0.1:4000")).is_ok());
    }

    #[test]
    fn a_secret_typed_into_settings_is_refused_on_its_field() {
        let mut leaky = input("Leaky", "https://auth.example");
        leaky.client_secret = Some("s3cret".into());
        let err = check_input(&leaky).unwrap_err();
        assert!(
            matches!(err, EnvironmentsError::Invalid { ref field, ref message } if field == "client_secret" && message.contains("public client"))
        );
    }

    #[test]
    fn added_environments_are_read_back_and_removed_by_id() {
        let dir = tempfile::tempdir().unwrap();
        let file = EnvironmentsFile::in_dir(dir.path());
        file.add(&input("Staging EU", "https://auth.example"))
            .unwrap();
        file.add(&input("Other", "https://other.example")).unwrap();

        let loaded = file.load();
        assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
        let ids: Vec<_> = loaded.environments.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["file:staging-eu", "file:other"]);

        file.remove("file:staging-eu").unwrap();
        assert_eq!(file.load().environments.len(), 1);
    }

    #[test]
    fn a_full_disk_leaves_the_file_as_it_was_and_says_so_in_words() {
        let disk = match crate::small_disk::SmallDisk::mount("256k") {
            Ok(disk) => disk,
            Err(why) => {
                eprintln!("skipped: no small tmpfs here ({why})");
                return;
            }
        };
        let file = EnvironmentsFile::in_dir(disk.dir.path());
        file.add(&input("Staging", "https://auth.example")).unwrap();
        let before = std::fs::read_to_string(file.path()).unwrap();
        disk.fill();

        let refused = file
            .add(&input("Other", "https://other.example"))
            .unwrap_err();

        assert!(
            refused.to_string().starts_with("the disk is full: ")
                && refused
                    .to_string()
                    .ends_with("nothing was lost; free some space and try again"),
            "{refused}"
        );
        assert_eq!(std::fs::read_to_string(file.path()).unwrap(), before);
        assert!(!disk.dir.path().join("environments.toml.tmp").exists());
    }

    #[test]
    fn a_write_cut_short_by_a_crash_leaves_the_file_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let file = EnvironmentsFile::in_dir(dir.path());
        file.add(&input("Staging", "https://auth.example")).unwrap();
        // What a crash mid-write leaves: half of the next file, beside the old one.
        std::fs::write(
            dir.path().join("environments.toml.tmp"),
            "[[environments]]\nname = \"Hal",
        )
        .unwrap();

        let loaded = file.load();
        file.add(&input("Other", "https://other.example")).unwrap();

        assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
        assert_eq!(loaded.environments.len(), 1);
        assert_eq!(file.load().environments.len(), 2);
        assert!(!dir.path().join("environments.toml.tmp").exists());
    }

    #[test]
    fn variables_name_an_environment_only_when_set() {
        assert!(from_variables(|_| None).unwrap().is_none());
        let vars = |name: &str| match name {
            "RXDESK_AUTH_URL" | "RXDESK_API_URL" => Some("http://127.0.0.1:9".to_owned()),
            "RXDESK_AUDIENCE" => Some("rxdesk-sandbox".to_owned()),
            "RXDESK_CLIENT_ID" => Some("rxdesk-desktop".to_owned()),
            _ => None,
        };
        let env = from_variables(vars).unwrap().unwrap();
        assert_eq!(env.id, VARIABLES_ID);
    }

    #[test]
    fn requiring_the_issuer_in_settings_is_kept_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = EnvironmentsFile::in_dir(dir.path());
        let mut strict = input("Strict", "https://auth.example");
        strict.require_issuer = true;
        file.add(&strict).unwrap();
        file.add(&input("Lenient", "https://other.example"))
            .unwrap();

        let loaded = file.load();

        let required: Vec<_> = loaded
            .environments
            .iter()
            .map(|e| (e.name.as_str(), e.info().require_issuer))
            .collect();
        assert_eq!(required, [("Strict", true), ("Lenient", false)]);
    }

    #[test]
    fn every_vendor_preset_offered_in_settings_requires_the_issuer() {
        let presets = presets();

        assert!(!presets.is_empty());
        assert!(presets.iter().all(|p| p.require_issuer), "{presets:?}");
    }
}
