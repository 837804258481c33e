//! The shapes that cross the IPC bridge: command arguments and results, the
//! one command error and the events. Every type here derives `TS`; the
//! TypeScript declarations are generated into `ui/src/bindings/ipc.ts` by
//! [`typescript_bindings`] and a test fails when the committed file drifts.
//!
//! Nothing secret ever appears in these types: the UI learns who is signed in
//! and what they may do, never a token.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Event carrying sign-in progress and outcome ([`SignInEvent`]).
pub const EVENT_SIGN_IN: &str = "rxdesk://sign-in";
/// Event sent whenever the session changes ([`SessionEvent`]).
pub const EVENT_SESSION: &str = "rxdesk://session";

/// The one error every command returns. `kind` tells the UI what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, thiserror::Error)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum CommandError {
    /// No valid session: open sign-in, keep what the user typed, let them resubmit.
    #[error("signed out: {message}")]
    SignedOut { message: String },
    /// The network refused: shown as it came (code, message, permission).
    #[error("refused ({code}): {message}")]
    #[serde(rename_all = "camelCase")]
    Refused {
        code: String,
        message: String,
        required_permission: Option<String>,
    },
    /// Input rejected; `field` names the form field when known.
    #[error("invalid ({code}): {message}")]
    Invalid {
        code: String,
        message: String,
        field: Option<String>,
    },
    #[error("not found: {message}")]
    NotFound { message: String },
    #[error("network trouble: {message}")]
    Network { message: String },
    #[error("server trouble: {message}")]
    Server { message: String },
    #[error("unexpected answer: {message}")]
    Protocol { message: String },
    /// A local problem: environment file, sandbox start, keyring, app state.
    #[error("{message}")]
    App { message: String },
}

impl CommandError {
    pub fn app(message: impl Into<String>) -> Self {
        Self::App {
            message: message.into(),
        }
    }
}

/// Where environments come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum EnvironmentSource {
    /// The built-in local sandbox, started in-process.
    Sandbox,
    /// `RXDESK_AUTH_URL` & co. in the process environment.
    Variables,
    /// The environments file in the app's config directory.
    File,
}

/// One network the user can sign in to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentInfo {
    pub id: String,
    pub name: String,
    pub source: EnvironmentSource,
    /// The authorization server's origin ("starts on first use" for the sandbox).
    pub auth_url: String,
    pub api_url: String,
}

/// What the settings screen submits to add or replace a file environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentInput {
    pub name: String,
    pub auth_url: String,
    pub api_url: String,
    pub audience: String,
    pub client_id: String,
    pub callback_port: Option<u16>,
    /// Only ever filled to be refused: a public client never holds a secret.
    pub client_secret: Option<String>,
}

/// Where the session is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SessionStorage {
    /// The OS keyring (Keychain, Credential Manager, Secret Service).
    Keyring,
    /// No keyring service: memory only, gone when the app quits.
    MemoryOnly { reason: String },
}

/// Who is signed in, as the UI may know it (never the token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub environment_id: String,
    pub user_name: String,
    pub user_email: String,
    pub role: String,
    pub organization_id: String,
    pub organization_name: String,
    pub permissions: Vec<String>,
    /// RFC 3339.
    pub expires_at: String,
}

/// The session changed (signed in, renewed, signed out, switched environment).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionEvent {
    pub session: Option<SessionInfo>,
    /// Where the session is kept now (a keyring that refused a write means memory only).
    pub storage: SessionStorage,
}

/// Everything the UI needs at start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AppStatus {
    pub environments: Vec<EnvironmentInfo>,
    pub active_environment: String,
    pub session: Option<SessionInfo>,
    pub storage: SessionStorage,
    /// Problems with the environments file or variables, shown on the settings screen.
    pub environment_problems: Vec<String>,
}

/// Why a sign-in ended without a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum SignInFailure {
    /// The user pressed Cancel on the sign-in page (`access_denied`).
    AccessDenied,
    /// No callback arrived in time.
    Timeout,
    /// The network could not be reached.
    Network,
    /// The user cancelled in the app.
    Cancelled,
    /// Anything else the server or the listener reported.
    Other,
}

/// Sign-in progress and outcome, sent as [`EVENT_SIGN_IN`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "stage", rename_all = "camelCase")]
pub enum SignInEvent {
    /// The browser was asked to open `url`; waiting for the callback.
    Waiting {
        url: String,
        #[serde(rename = "browserOpened")]
        browser_opened: bool,
    },
    #[serde(rename_all = "camelCase")]
    SignedIn { session: SessionInfo },
    Failed {
        reason: SignInFailure,
        message: String,
    },
}

/// One page of a paginated list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Page<T: TS> {
    pub items: Vec<T>,
    /// Pass back as `after` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Patient {
    pub id: String,
    pub external_id: Option<String>,
    pub first_name: String,
    pub middle_name: Option<String>,
    pub last_name: String,
    pub full_name: String,
    pub date_of_birth: String,
    pub sex: String,
    pub email: Option<String>,
    pub phone: Option<String>,
}

/// The patient form (create and edit).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PatientInput {
    pub first_name: String,
    pub last_name: String,
    pub date_of_birth: String,
    pub sex: String,
    pub email: Option<String>,
    pub phone: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Medication {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Pharmacy {
    pub id: String,
    pub name: String,
    pub address: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Prescription {
    pub id: String,
    /// `DRAFT`, `ACTIVE` (signed), `CANCELED`.
    pub state: String,
    pub patient_id: String,
    pub patient_name: String,
    pub medication: String,
    pub dispense_quantity: f64,
    pub dispense_unit: String,
    /// Fills after the first (the network counts total fills: refills + 1).
    pub refills: i32,
    pub days_supply: i32,
    pub instructions: String,
    pub notes: Option<String>,
    pub effective_date: Option<String>,
    pub written_at: Option<String>,
}

/// The draft prescription form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PrescriptionInput {
    pub patient_id: String,
    pub medication_id: String,
    pub dispense_quantity: f64,
    pub dispense_unit: String,
    /// Fills after the first.
    pub refills: i32,
    pub days_supply: i32,
    pub instructions: String,
    pub notes: Option<String>,
    pub effective_date: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub id: String,
    /// `DRAFT`, `PLACED`, `ROUTING`, `CANCELED`, …
    pub state: String,
    pub patient_id: String,
    pub pharmacy: Option<Pharmacy>,
    pub prescriptions: Vec<Prescription>,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OrderInput {
    pub patient_id: String,
    pub prescription_ids: Vec<String>,
    /// `null`: leave the choice of pharmacy to the patient.
    pub pharmacy_id: Option<String>,
}

/// A patient with their prescriptions and orders.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PatientDetail {
    pub patient: Patient,
    pub prescriptions: Vec<Prescription>,
    pub orders: Vec<Order>,
}

/// What happened to one prescription of a "Sign selected" request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SignOutcome {
    pub prescription_id: String,
    pub signed: Option<Prescription>,
    pub error: Option<CommandError>,
}

/// The TypeScript declarations of every IPC type, as committed in
/// `ui/src/bindings/ipc.ts`.
pub fn typescript_bindings() -> String {
    let cfg = ts_rs::Config::default();
    let decls = [
        CommandError::decl(&cfg),
        EnvironmentSource::decl(&cfg),
        EnvironmentInfo::decl(&cfg),
        EnvironmentInput::decl(&cfg),
        SessionStorage::decl(&cfg),
        SessionInfo::decl(&cfg),
        SessionEvent::decl(&cfg),
        AppStatus::decl(&cfg),
        SignInFailure::decl(&cfg),
        SignInEvent::decl(&cfg),
        Page::<Patient>::decl(&cfg),
        Patient::decl(&cfg),
        PatientInput::decl(&cfg),
        Medication::decl(&cfg),
        Pharmacy::decl(&cfg),
        Prescription::decl(&cfg),
        PrescriptionInput::decl(&cfg),
        Order::decl(&cfg),
        OrderInput::decl(&cfg),
        PatientDetail::decl(&cfg),
        SignOutcome::decl(&cfg),
    ];
    let mut out = String::from(
        "// Generated by `RXDESK_WRITE_BINDINGS=1 cargo test -p rxdesk bindings` from src-tauri/src/ipc.rs.\n// Do not edit by hand: a test fails when this file drifts from the Rust types.\n\n",
    );
    out.push_str(&format!(
        "export const EVENT_SIGN_IN = {EVENT_SIGN_IN:?};\nexport const EVENT_SESSION = {EVENT_SESSION:?};\n\n"
    ));
    for decl in decls {
        out.push_str("export ");
        out.push_str(&decl);
        out.push_str("\n\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}
