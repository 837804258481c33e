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
/// Event carrying signing progress ([`SigningProgress`]).
pub const EVENT_SIGNING: &str = "rxdesk://signing";
/// Event carrying a link the OS handed over ([`LinkEvent`]).
pub const EVENT_OPEN_LINK: &str = "rxdesk://open-link";
/// Event carrying an update's download progress ([`UpdateProgress`]).
pub const EVENT_UPDATE: &str = "rxdesk://update";

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

/// One of the network vendor's own networks: the Settings screen fills its
/// addresses in, and the user adds only their Application's `client_id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NetworkPreset {
    pub name: String,
    pub auth_url: String,
    pub api_url: String,
    pub audience: String,
}

/// Whether the network was told to end a session at sign-out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Revocation {
    /// The refresh token was revoked: the session cannot be renewed anywhere.
    Revoked,
    /// The session had no refresh token: its access token ends by itself.
    NothingToRevoke,
    /// The network could not be told; the refresh token may work until it expires.
    Failed { message: String },
}

/// What signing out did. The session is gone from the app either way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SignOutSummary {
    pub revocation: Revocation,
    /// The keyring did not remove the stored session: why (it is unusable
    /// without the app, and the next sign-in replaces it).
    pub keyring_problem: Option<String>,
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
    /// The vendor's networks, for the settings screen.
    pub presets: Vec<NetworkPreset>,
    /// The `rxdesk://` link the app was started with, handed over once.
    pub link: Option<LinkEvent>,
    /// Seconds without input after which the app locks (0: never).
    pub idle_lock_seconds: u32,
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

// ---- vocabulary: the network's enums, as string unions in TypeScript ----------------

/// A patient's sex as the network records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Sex {
    Female,
    Male,
    Unknown,
}

/// Whether the patient takes a medication of their history now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MedicationStatus {
    Active,
    Historical,
    Unknown,
}

/// A draft's screening verdict: `BLOCKED` drafts cannot be signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DraftStatus {
    Ready,
    Warning,
    Blocked,
}

/// Where a prescription stands with its signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SigningState {
    Unsigned,
    Signed,
    /// The content changed after it was reviewed: review and sign again.
    InvalidatedSign,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AlertSeverity {
    Minor,
    Moderate,
    Major,
}

/// What a screening alert is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AlertKind {
    Drug,
    Allergen,
    Condition,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderState {
    Draft,
    Submitted,
    Canceled,
}

/// How a pharmacy hands prescriptions over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Fulfillment {
    PickUp,
    MailOrder,
}

/// What the network did with one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ChangeStatus {
    Applied,
    Rejected,
    /// Several things could be meant: a person chooses one of the options.
    Ambiguous,
}

/// How much a change matters: `BLOCKING` means nothing was saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ChangeSeverity {
    Info,
    Advisory,
    Blocking,
}

/// The kinds of record a link or the local index names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum RecordKind {
    Patient,
    Prescription,
    Order,
}

// ---- what the network answered about inputs ----------------------------------------

/// One way to answer a change, as the network offered it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChoiceView {
    pub label: String,
    pub reason: Option<String>,
    /// Where `value` goes in the input, e.g. `treatment.id`.
    pub argument: Option<String>,
    pub value: Option<String>,
    /// The network says it matched exactly (name or RxNorm code).
    pub exact: bool,
    /// Pharmacy options: the offers, in words.
    pub offers: Vec<String>,
}

/// One input the network applied, rejected or could not decide.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChangeNote {
    /// The input it is about, e.g. `clinical.allergies.add.0`.
    pub key: String,
    pub label: String,
    pub status: ChangeStatus,
    pub severity: ChangeSeverity,
    pub reason: Option<String>,
    pub options: Vec<ChoiceView>,
}

// ---- patients -----------------------------------------------------------------------

/// A patient as a search candidate or a row of "Recent patients": enough to
/// choose, nothing more.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PatientSummary {
    pub id: String,
    pub name: String,
    pub date_of_birth: Option<String>,
}

/// An allergy or diagnosis on the patient's record (or a prescription's).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ClinicalEntry {
    pub id: String,
    pub name: String,
    /// RxNorm id (allergies) or ICD-10 code (diagnoses); `null` when uncoded.
    pub code: Option<String>,
}

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MedicationEntry {
    pub id: String,
    pub name: String,
    pub code: Option<String>,
    pub status: MedicationStatus,
}

/// A patient with their clinical record, fetched live.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PatientRecord {
    pub id: String,
    pub first_name: String,
    pub middle_name: Option<String>,
    pub last_name: String,
    pub full_name: String,
    pub date_of_birth: Option<String>,
    pub sex: Option<Sex>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub allergies: Vec<ClinicalEntry>,
    pub medications: Vec<MedicationEntry>,
    pub diagnoses: Vec<ClinicalEntry>,
    /// `rxdesk://patient/…`
    pub link: String,
}

/// The patient form (add and edit demographics).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PatientInput {
    pub first_name: String,
    pub last_name: String,
    /// `YYYY-MM-DD`.
    pub date_of_birth: String,
    pub sex: Option<Sex>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

/// One entry to add to a clinical list: by the name typed, or by the id of the
/// option the user chose when the network found the name ambiguous.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EntryInput {
    pub name: Option<String>,
    pub id: Option<String>,
    /// Medications only.
    pub status: Option<MedicationStatus>,
}

/// Changes to the clinical record, sent as the network's patches.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ClinicalEdit {
    pub add_allergies: Vec<EntryInput>,
    /// Ids of allergies on the record.
    pub remove_allergies: Vec<String>,
    /// Records "no known allergies" (clears the list).
    pub no_known_allergies: bool,
    pub add_medications: Vec<EntryInput>,
    pub remove_medications: Vec<String>,
    pub add_diagnoses: Vec<EntryInput>,
    pub remove_diagnoses: Vec<String>,
}

/// The network's answer to adding or changing a patient.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PatientOutcome {
    /// Saved; `notes` are the inputs not applied as sent (ambiguous names with
    /// their options, advisories).
    Saved {
        patient: Box<PatientRecord>,
        notes: Vec<ChangeNote>,
    },
    /// The details fit people already on record: choose one, or add with more
    /// detail. Nothing was saved.
    Candidates {
        reason: String,
        candidates: Vec<PatientSummary>,
    },
    /// Nothing saved, for these reasons (missing or invalid fields, named).
    NotSaved { problems: Vec<ChangeNote> },
}

// ---- prescriptions ------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DrugView {
    pub id: String,
    pub name: String,
    pub rx_norm_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DispenseView {
    pub quantity: Option<f64>,
    pub unit: Option<String>,
    pub days_supply: Option<i32>,
    pub refills: Option<i32>,
    pub dispense_as_written: Option<bool>,
}

/// A screening alert on a draft.
#[derive(Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AlertView {
    pub severity: AlertSeverity,
    pub kind: AlertKind,
    pub description: String,
    /// The drugs, allergies or conditions involved, by name.
    pub involved: Vec<String>,
    /// An alternative drug, when the network offers one.
    pub alternatives: Vec<ChoiceView>,
}

/// A prescription, draft or signed, exactly as the network holds it now.
#[derive(Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PrescriptionView {
    pub id: String,
    pub patient_id: Option<String>,
    /// `null` once signed.
    pub status: Option<DraftStatus>,
    pub signing: SigningState,
    /// What a signature of this content must quote.
    pub content_hash: String,
    pub signed_at: Option<String>,
    pub template_id: Option<String>,
    pub drug: DrugView,
    pub instructions: Option<String>,
    pub dispense: DispenseView,
    pub diagnoses: Vec<ClinicalEntry>,
    pub alerts: Vec<AlertView>,
    /// `rxdesk://prescription/…`
    pub link: String,
}

/// The draft form: a new draft (from a template or a drug) or changes to one.
/// Empty fields are not sent.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DraftForm {
    pub template_id: Option<String>,
    /// The drug chosen from the look-up's options.
    pub drug_id: Option<String>,
    pub instructions: Option<String>,
    pub quantity: Option<f64>,
    pub unit: Option<String>,
    pub days_supply: Option<i32>,
    pub refills: Option<i32>,
}

/// The network's answer to drafting or changing a prescription.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PrescriptionOutcome {
    Saved {
        prescription: Box<PrescriptionView>,
        notes: Vec<ChangeNote>,
    },
    NotSaved {
        problems: Vec<ChangeNote>,
    },
}

/// A signature request: the draft and the content hash the prescriber saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SignRequest {
    pub id: String,
    pub content_hash: String,
}

/// What happened to one signature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SignResult {
    Signed {
        prescription: PrescriptionView,
    },
    /// The prescription changed since it was reviewed: `current` is what it
    /// says now; review it and sign again.
    Invalidated {
        current: PrescriptionView,
        reason: String,
    },
    /// Not signed, for the network's reasons (blocked by screening, already signed…).
    Rejected {
        id: String,
        reasons: Vec<ChangeNote>,
    },
    /// The call itself failed (a refusal, trouble reaching the network).
    Failed {
        id: String,
        error: CommandError,
    },
}

/// Signing progress, sent as [`EVENT_SIGNING`] while a batch runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SigningProgress {
    pub done: u32,
    pub total: u32,
}

// ---- orders -------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PharmacyView {
    pub id: String,
    pub name: String,
    pub address: String,
    pub fulfillment: Vec<Fulfillment>,
}

/// Something that happened to a sent order (the pharmacy needs insurance details…).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionView {
    /// The network's type, e.g. `PHARMACY_NEEDS_INSURANCE_INFO`.
    pub kind: String,
    pub message: Option<String>,
    pub created_at: String,
}

#[derive(Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OrderView {
    pub id: String,
    pub state: OrderState,
    pub patient_id: Option<String>,
    pub patient_name: Option<String>,
    pub prescriptions: Vec<PrescriptionView>,
    /// `null`: the patient chooses.
    pub pharmacy: Option<PharmacyView>,
    pub exceptions: Vec<ExceptionView>,
    /// `rxdesk://order/…`
    pub link: String,
}

/// The network's answer to a change of an order (drafting, sending, cancelling).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum OrderOutcome {
    /// The order as it is now; `notes` are the inputs not applied (e.g. why it
    /// was not sent).
    Saved {
        order: Box<OrderView>,
        notes: Vec<ChangeNote>,
    },
    NotSaved {
        problems: Vec<ChangeNote>,
    },
}

/// A pharmacy search for an order: any of the fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PharmacySearch {
    pub name: Option<String>,
    /// An address or place, in words.
    pub near: Option<String>,
    pub fulfillment: Option<Fulfillment>,
}

/// The network's answer to a pharmacy search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PharmacyAnswer {
    /// Exactly one fitted: the network set it on the order.
    Chosen { order: Box<OrderView> },
    /// Choose one (with the offers shown).
    Options { options: Vec<ChoiceView> },
    /// None fitted: the network's reasons.
    Nothing { reasons: Vec<ChangeNote> },
}

// ---- work lists, links, the network check -------------------------------------------

/// A draft awaiting signature, as "Drafts awaiting signature" lists it.
#[derive(Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DraftRow {
    pub prescription: PrescriptionView,
    pub patient_name: Option<String>,
}

/// The start screen's lists, read from the local index (ids only) and fetched
/// live; ids the network no longer answers for are dropped from the index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorkLists {
    pub recent_patients: Vec<PatientSummary>,
    pub drafts: Vec<DraftRow>,
    pub open_orders: Vec<OrderView>,
    /// How many indexed ids were dropped because the network no longer has them.
    pub dropped: u32,
}

/// A patient's prescriptions and orders that this workstation created or
/// opened (the network has no list queries), fetched live.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PatientWork {
    pub prescriptions: Vec<PrescriptionView>,
    pub orders: Vec<OrderView>,
}

/// Where a link or typed id leads. Opening one only navigates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LinkTarget {
    pub kind: RecordKind,
    pub id: String,
}

/// Sent as [`EVENT_OPEN_LINK`] when the OS hands the app a `rxdesk://` link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum LinkEvent {
    Open { target: LinkTarget },
    Invalid { message: String },
}

/// One operation the network would not accept, in plain words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FailingOperation {
    pub operation: String,
    pub problems: Vec<String>,
}

/// Whether a network speaks what the app sends (checked on first use).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum NetworkCheck {
    Compatible,
    Incompatible {
        failing: Vec<FailingOperation>,
    },
    /// The check could not run (network trouble); workflows are not blocked.
    Unchecked {
        message: String,
    },
}

// ---- updates ------------------------------------------------------------------------

/// Whether this copy of Rx Desk updates itself, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum UpdatesStatus {
    /// Checking and installing are offered, each only on the user's click.
    #[serde(rename_all = "camelCase")]
    Offered { current_version: String },
    /// A build without the vendor's release key (e.g. built locally): it does not update itself.
    NotConfigured,
    /// The updater could not be set up on this installation (unsupported platform…).
    Unavailable { problem: String },
    /// `updates = false` in the IT policy file at `path`.
    OffByPolicy { path: String },
    /// The IT policy file could not be read or understood: updates stay off until it is fixed.
    PolicyBroken { problem: String },
}

/// What a check for updates found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum UpdateCheck {
    #[serde(rename_all = "camelCase")]
    UpToDate { current_version: String },
    /// A newer version: nothing is downloaded until the user chooses to install it.
    #[serde(rename_all = "camelCase")]
    Found {
        current_version: String,
        version: String,
        /// The release notes, as published (plain text).
        notes: Option<String>,
        /// RFC 3339, when published.
        date: Option<String>,
    },
}

/// Download progress of the update being installed, sent as [`EVENT_UPDATE`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UpdateProgress {
    /// Bytes received so far.
    #[ts(type = "number")]
    pub downloaded: u64,
    /// The bundle's size, when the server said.
    #[ts(type = "number | null")]
    pub total: Option<u64>,
    /// The download is complete and verified; installing follows, then a restart.
    pub verified: bool,
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
        Revocation::decl(&cfg),
        SignOutSummary::decl(&cfg),
        NetworkPreset::decl(&cfg),
        AppStatus::decl(&cfg),
        SignInFailure::decl(&cfg),
        SignInEvent::decl(&cfg),
        Sex::decl(&cfg),
        MedicationStatus::decl(&cfg),
        DraftStatus::decl(&cfg),
        SigningState::decl(&cfg),
        AlertSeverity::decl(&cfg),
        AlertKind::decl(&cfg),
        OrderState::decl(&cfg),
        Fulfillment::decl(&cfg),
        ChangeStatus::decl(&cfg),
        ChangeSeverity::decl(&cfg),
        RecordKind::decl(&cfg),
        ChoiceView::decl(&cfg),
        ChangeNote::decl(&cfg),
        PatientSummary::decl(&cfg),
        ClinicalEntry::decl(&cfg),
        MedicationEntry::decl(&cfg),
        PatientRecord::decl(&cfg),
        PatientInput::decl(&cfg),
        EntryInput::decl(&cfg),
        ClinicalEdit::decl(&cfg),
        PatientOutcome::decl(&cfg),
        DrugView::decl(&cfg),
        DispenseView::decl(&cfg),
        AlertView::decl(&cfg),
        PrescriptionView::decl(&cfg),
        DraftForm::decl(&cfg),
        PrescriptionOutcome::decl(&cfg),
        SignRequest::decl(&cfg),
        SignResult::decl(&cfg),
        SigningProgress::decl(&cfg),
        PharmacyView::decl(&cfg),
        ExceptionView::decl(&cfg),
        OrderView::decl(&cfg),
        OrderOutcome::decl(&cfg),
        PharmacySearch::decl(&cfg),
        PharmacyAnswer::decl(&cfg),
        DraftRow::decl(&cfg),
        PatientWork::decl(&cfg),
        WorkLists::decl(&cfg),
        LinkTarget::decl(&cfg),
        LinkEvent::decl(&cfg),
        FailingOperation::decl(&cfg),
        NetworkCheck::decl(&cfg),
        UpdatesStatus::decl(&cfg),
        UpdateCheck::decl(&cfg),
        UpdateProgress::decl(&cfg),
    ];
    let mut out = String::from(
        "// Generated by `RXDESK_WRITE_BINDINGS=1 cargo test -p rxdesk bindings` from src-tauri/src/ipc.rs.\n// Do not edit by hand: a test fails when this file drifts from the Rust types.\n\n",
    );
    out.push_str(&format!(
        "export const EVENT_SIGN_IN = {EVENT_SIGN_IN:?};\nexport const EVENT_SESSION = {EVENT_SESSION:?};\nexport const EVENT_SIGNING = {EVENT_SIGNING:?};\nexport const EVENT_OPEN_LINK = {EVENT_OPEN_LINK:?};\nexport const EVENT_UPDATE = {EVENT_UPDATE:?};\n\n"
    ));
    for decl in decls {
        out.push_str("export ");
        out.push_str(&decl);
        out.push_str("\n\n");
    }
    out.push_str("/** Every command: its arguments and its result (from `commands!` in src-tauri/src/commands.rs). */\n");
    out.push_str(&crate::commands::typescript_commands());
    out.push('\n');
    out
}

rxdesk_client::redacted_debug! {
    PatientSummary { id }
    ClinicalEntry { id, code }
    MedicationEntry { id, code, status }
    PatientRecord { id }
    PatientInput { sex }
    EntryInput { id, status }
    ClinicalEdit { no_known_allergies }
    AlertView { severity, kind }
    PrescriptionView { id, status, signing }
    DraftForm { template_id, drug_id }
    OrderView { id, state }
    DraftRow { prescription }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printing_what_crosses_ipc_shows_no_patient_data() {
        let patient = PatientRecord {
            id: "pat_1".into(),
            first_name: "Rosa".into(),
            middle_name: None,
            last_name: "Delgado".into(),
            full_name: "Rosa Delgado".into(),
            date_of_birth: Some("1988-04-17".into()),
            sex: Some(Sex::Female),
            email: Some("rosa.delgado@example.org".into()),
            phone: Some("+16175550142".into()),
            allergies: vec![ClinicalEntry {
                id: "alg_1".into(),
                name: "Penicillins".into(),
                code: None,
            }],
            medications: Vec::new(),
            diagnoses: Vec::new(),
            link: "rxdesk://patient/pat_1".into(),
        };
        let outcome = PatientOutcome::Saved {
            patient: Box::new(patient),
            notes: Vec::new(),
        };
        let form = DraftForm {
            instructions: Some("One capsule three times daily".into()),
            ..Default::default()
        };

        let printed = format!("{outcome:?} {form:?}");

        assert!(printed.contains("pat_1"), "{printed}");
        for secret in [
            "Rosa",
            "Delgado",
            "1988",
            "rosa.delgado",
            "5550142",
            "Penicillins",
            "capsule",
        ] {
            assert!(!printed.contains(secret), "{secret} in {printed}");
        }
    }
}
