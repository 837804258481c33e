//! The GraphQL types of the API (outputs, inputs, enums, result unions), made from
//! the store's records. Doc comments here become descriptions in `schema.graphql`.
//! Nested records (`Prescription.patient`, `Order.patient`, `Fill.prescription`)
//! are loaded on demand and need their own `read:` permission.

use async_graphql::{
    ComplexObject, Context, Enum, ID, InputObject, MaybeUndefined, Object, SimpleObject, Union,
};

use super::errors::{ApiError, Invalid, Permission, Refusal, parts, require_read};
use crate::store;

/// Who the token acts for: a signed-in user or an organization's backend.
#[derive(Debug, Enum, Copy, Clone, Eq, PartialEq)]
pub enum ActorKind {
    User,
    Machine,
}

#[derive(Debug, SimpleObject)]
pub struct Me {
    pub kind: ActorKind,
    /// User id, or the backend client_id for a machine token.
    pub id: ID,
    pub name: String,
    pub email: Option<String>,
    /// Role name for users (prescriber, medical_ops, or a fixture role); null for machines.
    pub role: Option<String>,
    pub permissions: Vec<String>,
    pub organization: Organization,
}

#[derive(Debug, SimpleObject)]
pub struct Organization {
    pub id: ID,
    pub name: String,
}

#[derive(Debug, SimpleObject)]
pub struct PageInfo {
    pub has_next_page: bool,
    pub end_cursor: Option<String>,
}

impl PageInfo {
    pub fn of<T>(page: &store::clinical::Paged<T>) -> Self {
        Self {
            has_next_page: page.has_next,
            end_cursor: page
                .items
                .last()
                .map(|(seq, _)| super::pagination::cursor(*seq)),
        }
    }
}

#[derive(Debug, Enum, Copy, Clone, Eq, PartialEq)]
pub enum Sex {
    Male,
    Female,
    Unknown,
}

impl Sex {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Male => "MALE",
            Self::Female => "FEMALE",
            Self::Unknown => "UNKNOWN",
        }
    }

    fn parse(s: &str) -> Self {
        match s {
            "MALE" => Self::Male,
            "FEMALE" => Self::Female,
            _ => Self::Unknown,
        }
    }
}

#[derive(Debug, SimpleObject)]
pub struct PatientName {
    pub first: String,
    pub middle: Option<String>,
    pub last: String,
    pub full: String,
}

#[derive(Debug, SimpleObject)]
pub struct Address {
    pub street1: String,
    pub street2: Option<String>,
    pub city: String,
    pub state: String,
    pub postal_code: String,
    pub country: String,
}

impl From<store::clinical::Address> for Address {
    fn from(a: store::clinical::Address) -> Self {
        Self {
            street1: a.street1,
            street2: a.street2,
            city: a.city,
            state: a.state,
            postal_code: a.postal_code,
            country: a.country,
        }
    }
}

#[derive(Debug, SimpleObject)]
pub struct Patient {
    pub id: ID,
    pub external_id: Option<String>,
    pub name: PatientName,
    pub date_of_birth: String,
    pub sex: Sex,
    pub gender: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<Address>,
    pub created_at: String,
}

impl From<store::patients::Patient> for Patient {
    fn from(p: store::patients::Patient) -> Self {
        let full = [
            Some(p.first_name.as_str()),
            p.middle_name.as_deref(),
            Some(p.last_name.as_str()),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
        Self {
            id: ID(p.id),
            external_id: p.external_id,
            name: PatientName {
                first: p.first_name,
                middle: p.middle_name,
                last: p.last_name,
                full,
            },
            date_of_birth: p.date_of_birth,
            sex: Sex::parse(&p.sex),
            gender: p.gender,
            email: p.email,
            phone: p.phone,
            address: p.address.map(Address::from),
            created_at: p.created_at,
        }
    }
}

#[derive(Debug, SimpleObject)]
pub struct PatientConnection {
    pub nodes: Vec<Patient>,
    pub page_info: PageInfo,
}

#[derive(Debug, Default, InputObject)]
pub struct PatientFilter {
    pub name: Option<String>,
    pub external_id: Option<String>,
}

#[derive(Debug, InputObject)]
pub struct PatientNameInput {
    pub first: String,
    pub middle: Option<String>,
    pub last: String,
}

#[derive(Debug, InputObject)]
pub struct AddressInput {
    pub street1: String,
    pub street2: Option<String>,
    pub city: String,
    pub state: String,
    pub postal_code: String,
    pub country: Option<String>,
}

#[derive(Debug, InputObject)]
pub struct CreatePatientInput {
    pub external_id: Option<String>,
    pub name: PatientNameInput,
    pub date_of_birth: String,
    pub sex: Sex,
    pub gender: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<AddressInput>,
}

/// Only the fields given change. `name`, `dateOfBirth` and `sex` cannot be cleared
/// (null leaves them as they are); null clears `gender`, `email`, `phone`, `address`.
#[derive(Debug, InputObject)]
pub struct UpdatePatientInput {
    pub name: Option<PatientNameInput>,
    pub date_of_birth: Option<String>,
    pub sex: Option<Sex>,
    pub gender: MaybeUndefined<String>,
    pub email: MaybeUndefined<String>,
    pub phone: MaybeUndefined<String>,
    pub address: MaybeUndefined<AddressInput>,
}

#[derive(Debug, SimpleObject)]
pub struct Medication {
    pub id: ID,
    pub name: String,
    pub strength: String,
    pub form: String,
    pub rxcui: Option<String>,
}

impl From<store::catalog::Medication> for Medication {
    fn from(m: store::catalog::Medication) -> Self {
        Self {
            id: ID(m.id),
            name: m.name,
            strength: m.strength,
            form: m.form,
            rxcui: m.rxcui,
        }
    }
}

#[derive(Debug, Default, InputObject)]
pub struct MedicationFilter {
    pub name: Option<String>,
}

#[derive(Debug, SimpleObject)]
pub struct Prescriber {
    pub id: ID,
    pub name: String,
    pub npi: String,
}

#[derive(Debug, Enum, Copy, Clone, Eq, PartialEq)]
pub enum PrescriptionState {
    Draft,
    Active,
    Canceled,
}

impl PrescriptionState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "DRAFT",
            Self::Active => "ACTIVE",
            Self::Canceled => "CANCELED",
        }
    }

    fn parse(s: &str) -> Self {
        match s {
            "ACTIVE" => Self::Active,
            "CANCELED" => Self::Canceled,
            _ => Self::Draft,
        }
    }
}

/// A prescription record; `patient` needs `read:patient`.
#[derive(Debug)]
pub struct Prescription(pub store::prescriptions::Prescription);

#[Object]
impl Prescription {
    async fn id(&self) -> ID {
        ID(self.0.id.clone())
    }
    async fn external_id(&self) -> Option<&str> {
        self.0.external_id.as_deref()
    }
    async fn state(&self) -> PrescriptionState {
        PrescriptionState::parse(&self.0.state)
    }
    async fn patient(&self, ctx: &Context<'_>) -> async_graphql::Result<Patient> {
        load_patient(ctx, &self.0.patient_id)
            .await
            .map_err(ApiError::into_graphql)
    }
    /// Set when signed.
    async fn prescriber(&self) -> Option<Prescriber> {
        self.0.prescriber.as_ref().map(|p| Prescriber {
            id: ID(p.id.clone()),
            name: p.name.clone(),
            npi: p.npi.clone(),
        })
    }
    async fn treatment(&self) -> Medication {
        Medication::from(self.0.treatment.clone())
    }
    async fn dispense_as_written(&self) -> bool {
        self.0.dispense_as_written
    }
    async fn dispense_quantity(&self) -> f64 {
        self.0.dispense_quantity
    }
    async fn dispense_unit(&self) -> &str {
        &self.0.dispense_unit
    }
    /// Total fills: 1 + refills (1..=12).
    async fn fills_allowed(&self) -> i32 {
        i32::try_from(self.0.fills_allowed).unwrap_or(i32::MAX)
    }
    async fn days_supply(&self) -> i32 {
        i32::try_from(self.0.days_supply).unwrap_or(i32::MAX)
    }
    async fn instructions(&self) -> &str {
        &self.0.instructions
    }
    async fn notes(&self) -> Option<&str> {
        self.0.notes.as_deref()
    }
    async fn effective_date(&self) -> Option<&str> {
        self.0.effective_date.as_deref()
    }
    async fn expiration_date(&self) -> Option<&str> {
        self.0.expiration_date.as_deref()
    }
    /// Set when signed.
    async fn written_at(&self) -> Option<&str> {
        self.0.written_at.as_deref()
    }
    async fn created_at(&self) -> &str {
        &self.0.created_at
    }
}

#[derive(Debug, SimpleObject)]
pub struct PrescriptionConnection {
    pub nodes: Vec<Prescription>,
    pub page_info: PageInfo,
}

#[derive(Debug, Default, InputObject)]
pub struct PrescriptionFilter {
    pub patient_id: Option<ID>,
    pub state: Option<PrescriptionState>,
}

#[derive(Debug, InputObject)]
pub struct CreatePrescriptionInput {
    pub external_id: Option<String>,
    pub patient_id: ID,
    pub treatment_id: ID,
    pub dispense_as_written: Option<bool>,
    pub dispense_quantity: f64,
    pub dispense_unit: String,
    pub fills_allowed: i32,
    pub days_supply: i32,
    pub instructions: String,
    pub notes: Option<String>,
    pub effective_date: Option<String>,
}

#[derive(Debug, SimpleObject)]
#[graphql(complex)]
pub struct Pharmacy {
    pub id: ID,
    pub name: String,
    pub phone: Option<String>,
    #[graphql(skip)]
    pub stored: store::catalog::Pharmacy,
}

#[ComplexObject]
impl Pharmacy {
    async fn address(&self) -> Address {
        let p = &self.stored;
        Address {
            street1: p.street1.clone(),
            street2: p.street2.clone(),
            city: p.city.clone(),
            state: p.state.clone(),
            postal_code: p.postal_code.clone(),
            country: "US".to_owned(),
        }
    }
}

impl From<store::catalog::Pharmacy> for Pharmacy {
    fn from(p: store::catalog::Pharmacy) -> Self {
        Self {
            id: ID(p.id.clone()),
            name: p.name.clone(),
            phone: p.phone.clone(),
            stored: p,
        }
    }
}

#[derive(Debug, Enum, Copy, Clone, Eq, PartialEq)]
pub enum OrderState {
    Draft,
    Routing,
    Placed,
    Canceled,
}

impl OrderState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "DRAFT",
            Self::Routing => "ROUTING",
            Self::Placed => "PLACED",
            Self::Canceled => "CANCELED",
        }
    }

    fn parse(s: &str) -> Self {
        match s {
            "ROUTING" => Self::Routing,
            "PLACED" => Self::Placed,
            "CANCELED" => Self::Canceled,
            _ => Self::Draft,
        }
    }
}

#[derive(Debug, Enum, Copy, Clone, Eq, PartialEq)]
pub enum FillState {
    New,
    Sent,
    Canceled,
}

/// One prescription sent as part of an order; `prescription` needs `read:prescription`.
#[derive(Debug)]
pub struct Fill(pub store::orders::Fill);

#[Object]
impl Fill {
    async fn id(&self) -> ID {
        ID(self.0.id.clone())
    }
    async fn state(&self) -> FillState {
        match self.0.state.as_str() {
            "SENT" => FillState::Sent,
            "CANCELED" => FillState::Canceled,
            _ => FillState::New,
        }
    }
    async fn prescription(&self, ctx: &Context<'_>) -> async_graphql::Result<Prescription> {
        load_prescription(ctx, &self.0.prescription_id)
            .await
            .map_err(ApiError::into_graphql)
    }
}

/// An order record; `patient` needs `read:patient`.
#[derive(Debug)]
pub struct Order(pub store::orders::Order);

#[Object]
impl Order {
    async fn id(&self) -> ID {
        ID(self.0.id.clone())
    }
    async fn external_id(&self) -> Option<&str> {
        self.0.external_id.as_deref()
    }
    async fn state(&self) -> OrderState {
        OrderState::parse(&self.0.state)
    }
    async fn patient(&self, ctx: &Context<'_>) -> async_graphql::Result<Patient> {
        load_patient(ctx, &self.0.patient_id)
            .await
            .map_err(ApiError::into_graphql)
    }
    async fn pharmacy(&self) -> Option<Pharmacy> {
        self.0.pharmacy.clone().map(Pharmacy::from)
    }
    async fn fills(&self) -> Vec<Fill> {
        self.0.fills.iter().cloned().map(Fill).collect()
    }
    async fn address(&self) -> Option<Address> {
        self.0.address.clone().map(Address::from)
    }
    async fn created_at(&self) -> &str {
        &self.0.created_at
    }
    async fn sent_at(&self) -> Option<&str> {
        self.0.sent_at.as_deref()
    }
}

#[derive(Debug, SimpleObject)]
pub struct OrderConnection {
    pub nodes: Vec<Order>,
    pub page_info: PageInfo,
}

#[derive(Debug, Default, InputObject)]
pub struct OrderFilter {
    pub patient_id: Option<ID>,
    pub state: Option<OrderState>,
}

#[derive(Debug, InputObject)]
pub struct FillInput {
    pub prescription_id: ID,
}

#[derive(Debug, InputObject)]
pub struct CreateOrderInput {
    pub external_id: Option<String>,
    pub patient_id: ID,
    pub fills: Vec<FillInput>,
    /// Null: the patient picks a pharmacy later (the order is sent to ROUTING).
    pub pharmacy_id: Option<ID>,
    pub address: Option<AddressInput>,
}

/// The caller lacks the permission the operation needs. Retrying with the same
/// token gives the same answer.
#[derive(Debug, SimpleObject)]
pub struct UnauthorizedError {
    pub code: String,
    pub message: String,
    pub required_permission: Option<String>,
}

impl From<Refusal> for UnauthorizedError {
    fn from(r: Refusal) -> Self {
        Self {
            code: r.code.to_owned(),
            message: r.message,
            required_permission: r.permission.map(|p| p.as_str().to_owned()),
        }
    }
}

/// The input, or the state of a record, does not allow the operation; nothing changed.
#[derive(Debug, SimpleObject)]
pub struct ValidationError {
    pub code: String,
    pub message: String,
    /// Input path of the offending field, e.g. `name.first` or `fills[1].prescriptionId`.
    pub field: Option<String>,
}

impl From<Invalid> for ValidationError {
    fn from(i: Invalid) -> Self {
        Self {
            code: i.code.to_owned(),
            message: i.message,
            field: i.field,
        }
    }
}

// Built once per answer and serialized at once: boxing the record buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Union)]
pub enum PatientResult {
    Patient(Patient),
    UnauthorizedError(UnauthorizedError),
    ValidationError(ValidationError),
}

// Built once per answer and serialized at once: boxing the record buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Union)]
pub enum PrescriptionResult {
    Prescription(Prescription),
    UnauthorizedError(UnauthorizedError),
    ValidationError(ValidationError),
}

// Built once per answer and serialized at once: boxing the record buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Union)]
pub enum OrderResult {
    Order(Order),
    UnauthorizedError(UnauthorizedError),
    ValidationError(ValidationError),
}

/// Every result union answers a refusal with its `UnauthorizedError` member and
/// a rejected input with its `ValidationError` member.
macro_rules! refusals_and_rejections {
    ($($union:ident),*) => {$(
        impl From<Refusal> for $union {
            fn from(r: Refusal) -> Self {
                Self::UnauthorizedError(r.into())
            }
        }

        impl From<Invalid> for $union {
            fn from(i: Invalid) -> Self {
                Self::ValidationError(i.into())
            }
        }
    )*};
}
refusals_and_rejections!(PatientResult, PrescriptionResult, OrderResult);

/// Loads the patient of a prescription or order for a caller allowed to read patients.
async fn load_patient(ctx: &Context<'_>, patient_id: &str) -> Result<Patient, ApiError> {
    let (caller, db) = parts(ctx)?;
    require_read(caller, Permission::ReadPatient)?;
    let (org, id) = (caller.org().to_owned(), patient_id.to_owned());
    let found = db
        .call(move |conn| store::patients::get(conn, &org, &id))
        .await?;
    Ok(Patient::from(
        found.ok_or(ApiError::Internal("record without its patient"))?,
    ))
}

/// Loads the prescription of a fill for a caller allowed to read prescriptions.
async fn load_prescription(
    ctx: &Context<'_>,
    prescription_id: &str,
) -> Result<Prescription, ApiError> {
    let (caller, db) = parts(ctx)?;
    require_read(caller, Permission::ReadPrescription)?;
    let (org, id) = (caller.org().to_owned(), prescription_id.to_owned());
    let found = db
        .call(move |conn| store::prescriptions::get(conn, &org, &id))
        .await?;
    Ok(Prescription(found.ok_or(ApiError::Internal(
        "fill without its prescription",
    ))?))
}
