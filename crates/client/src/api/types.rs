//! The domain types of the API: records read back ([`Patient`], [`Prescription`],
//! [`Order`], …), inputs ([`NewPatient`], [`NewPrescription`], [`NewOrder`], …),
//! filters and [`Page`]. They serialize in the API's own camelCase, so the desktop
//! app can hand them to its UI as they are. The enums are shared with the
//! generated operations (`extern_enums`). No I/O here.

use serde::{Deserialize, Serialize};

/// Who a token acts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ActorKind {
    User,
    Machine,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Sex {
    Male,
    Female,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PrescriptionState {
    Draft,
    Active,
    Canceled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderState {
    Draft,
    Routing,
    Placed,
    Canceled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FillState {
    New,
    Sent,
    Canceled,
}

/// The answer of `me`: who the token acts for, in which organization, with what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Me {
    pub kind: ActorKind,
    /// User id, or the backend `client_id` for a machine token.
    pub id: String,
    pub name: String,
    pub email: Option<String>,
    /// Role name for users; `None` for machines.
    pub role: Option<String>,
    pub permissions: Vec<String>,
    pub organization: Organization,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Organization {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatientName {
    pub first: String,
    pub middle: Option<String>,
    pub last: String,
    pub full: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    pub street1: String,
    pub street2: Option<String>,
    pub city: String,
    pub state: String,
    pub postal_code: String,
    pub country: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Patient {
    pub id: String,
    pub external_id: Option<String>,
    pub name: PatientName,
    /// `YYYY-MM-DD`.
    pub date_of_birth: String,
    pub sex: Sex,
    pub gender: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<Address>,
    pub created_at: String,
}

/// A patient as prescriptions and orders name them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PatientRef {
    pub id: String,
    pub external_id: Option<String>,
    pub name: PatientName,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Medication {
    pub id: String,
    pub name: String,
    pub strength: String,
    pub form: String,
    pub rxcui: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pharmacy {
    pub id: String,
    pub name: String,
    pub phone: Option<String>,
    pub address: Address,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prescriber {
    pub id: String,
    pub name: String,
    pub npi: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prescription {
    pub id: String,
    pub external_id: Option<String>,
    pub state: PrescriptionState,
    pub patient: PatientRef,
    /// Set once signed.
    pub prescriber: Option<Prescriber>,
    pub treatment: Medication,
    pub dispense_as_written: bool,
    pub dispense_quantity: f64,
    pub dispense_unit: String,
    /// Total fills: 1 + refills.
    pub fills_allowed: i64,
    pub days_supply: i64,
    pub instructions: String,
    pub notes: Option<String>,
    pub effective_date: Option<String>,
    pub expiration_date: Option<String>,
    /// Set once signed.
    pub written_at: Option<String>,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fill {
    pub id: String,
    pub state: FillState,
    pub prescription: Prescription,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub id: String,
    pub external_id: Option<String>,
    pub state: OrderState,
    pub patient: PatientRef,
    pub pharmacy: Option<Pharmacy>,
    pub fills: Vec<Fill>,
    pub address: Option<Address>,
    pub created_at: String,
    pub sent_at: Option<String>,
}

/// One page of a list and the cursor of the next one (`None` on the last page).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}

/// Which page to fetch: after `after` (from [`Page::next_cursor`]), at most
/// `first` items (the server's default when `None`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageRequest {
    pub after: Option<String>,
    pub first: Option<u32>,
}

impl PageRequest {
    pub fn first(first: u32) -> Self {
        Self {
            after: None,
            first: Some(first),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PatientFilter {
    pub name: Option<String>,
    pub external_id: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrescriptionFilter {
    pub patient_id: Option<String>,
    pub state: Option<PrescriptionState>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderFilter {
    pub patient_id: Option<String>,
    pub state: Option<OrderState>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewPatientName {
    pub first: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub middle: Option<String>,
    pub last: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewAddress {
    pub street1: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub street2: Option<String>,
    pub city: String,
    pub state: String,
    pub postal_code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
}

/// A patient to add. With an `external_id`, adding twice returns the first record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewPatient {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    pub name: NewPatientName,
    /// `YYYY-MM-DD`.
    pub date_of_birth: String,
    pub sex: Sex,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gender: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<NewAddress>,
}

/// Changes to a patient: only the fields given change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PatientChanges {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<NewPatientName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_of_birth: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sex: Option<Sex>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gender: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<NewAddress>,
}

/// A prescription to draft. With an `external_id`, drafting twice returns the first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewPrescription {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    pub patient_id: String,
    /// A [`Medication::id`].
    pub treatment_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispense_as_written: Option<bool>,
    pub dispense_quantity: f64,
    pub dispense_unit: String,
    /// Total fills: 1 + refills (1..=12).
    pub fills_allowed: i64,
    pub days_supply: i64,
    pub instructions: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_date: Option<String>,
}

/// An order to draft from prescriptions. No pharmacy: the patient picks one later.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewOrder {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    pub patient_id: String,
    pub prescription_ids: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pharmacy_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<NewAddress>,
}
