//! The Network API's documents, checked at compile time against
//! `crates/sandbox/schema.graphql` (registered by `build.rs`; the sandbox's export
//! of the real network's schema) with cynic. Fragments are Rust types, written
//! once and shared by every call shape: the record types here are the client's
//! domain types too. One operation per call shape ([`call_shape!`]); the typed
//! functions that send them are in `calls.rs`.
//!
//! Input objects serialize absent fields as `null`, which the network reads as
//! "not sent".

// cynic generates marker types and variable field structs without Debug.
#![allow(missing_docs, missing_debug_implementations)]

use cynic::Id;

#[cynic::schema("network")]
pub(crate) mod schema {}

// ---------- scalars and enums

/// `YYYY-MM-DD`.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq)]
pub struct Date(pub String);

/// RFC 3339.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq)]
pub struct DateTime(pub String);

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestSource {
    DirectApi,
    WebApp,
    EmbeddableComponent,
    McpConnector,
    LlmAgent,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeStatus {
    Applied,
    Rejected,
    Ambiguous,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeSeverity {
    Info,
    Advisory,
    Blocking,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeOperation {
    Added,
    Modified,
    Removed,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeCategory {
    Disambiguation,
    ObsoleteReference,
    CodingSpecificity,
    CostSavings,
    ProductPreference,
    Safety,
    MissingInput,
    InvalidInput,
    ConfirmationRequired,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfidenceLevel {
    Low,
    Medium,
    High,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityMatchType {
    ExactNameMatch,
    FuzzyNameMatch,
    RxnormCodeMatch,
    DrugClassMatch,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchReasonType {
    ExactNameMatch,
    FuzzyNameMatch,
    RxnormCodeMatch,
    DrugClassMatch,
    Name,
    Address,
    LatLong,
    FulfillmentType,
    OpenAt,
    Email,
    Phone,
    NameAndDob,
    PartialName,
    DateOfBirth,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sex {
    Male,
    Female,
    Unknown,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum MedicationHistoryStatus {
    Active,
    Historical,
    Unknown,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DraftStatus {
    Ready,
    Warning,
    Blocked,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrescriptionSigningState {
    Unsigned,
    Signed,
    InvalidatedSign,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ScreeningSeverity {
    Minor,
    Moderate,
    Major,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreeningAlertType {
    Drug,
    Allergen,
    Condition,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderState {
    Draft,
    Submitted,
    Canceled,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderExceptionType {
    OrderError,
    DemographicMismatch,
    PharmacyUnreachable,
    PharmacyClosed,
    ExternalTransfer,
    PharmacyDoesNotAcceptInsurance,
    PharmacyNeedsInsuranceInfo,
    SupervisingPhysicianNeeded,
    DoctorNotLicensedInState,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FulfillmentType {
    MailOrder,
    PickUp,
}

// ---------- errors

#[derive(cynic::QueryFragment, Debug, Clone, PartialEq, Eq)]
pub struct UnauthorizedError {
    pub code: String,
    pub message: String,
    pub required_permission: Option<String>,
}

#[derive(cynic::QueryFragment, Debug, Clone, PartialEq, Eq)]
pub struct UpstreamServiceError {
    pub code: String,
    pub message: String,
    pub service: String,
    pub retryable: bool,
}

// ---------- changes

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct Change {
    pub key: String,
    pub label: String,
    pub status: ChangeStatus,
    pub severity: ChangeSeverity,
    pub reason: Option<String>,
    pub options: Option<Vec<ChangeOption>>,
    pub category: Option<ChangeCategory>,
    pub operation: ChangeOperation,
    pub detail: ChangeDetail,
}

#[derive(cynic::InlineFragments, Debug, Clone)]
pub enum ChangeOption {
    GenericChangeOption(GenericChangeOption),
    PharmacyChangeOption(PharmacyChangeOption),
    #[cynic(fallback)]
    Other(OtherChangeOption),
}

#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "ChangeOption")]
pub struct OtherChangeOption {
    pub display_name: String,
    pub reason: Option<String>,
    pub operation: String,
    pub argument: Option<String>,
    pub value: Option<String>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct GenericChangeOption {
    pub display_name: String,
    pub reason: Option<String>,
    pub operation: String,
    pub argument: Option<String>,
    pub value: Option<String>,
    #[cynic(rename = "match")]
    pub entity_match: Option<EntityMatch>,
    pub match_reasons: Option<Vec<MatchReason>>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PharmacyChangeOption {
    pub display_name: String,
    pub reason: Option<String>,
    pub operation: String,
    pub argument: Option<String>,
    pub value: Option<String>,
    #[cynic(rename = "match")]
    pub entity_match: Option<EntityMatch>,
    pub match_reasons: Option<Vec<MatchReason>>,
    pub offers: Vec<PharmacyOffer>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct EntityMatch {
    pub match_type: EntityMatchType,
    pub confidence: Option<ConfidenceLevel>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct MatchReason {
    #[cynic(rename = "type")]
    pub kind: MatchReasonType,
    pub label: Option<String>,
    pub confidence: Option<ConfidenceLevel>,
}

#[derive(cynic::InlineFragments, Debug, Clone)]
pub enum ChangeDetail {
    FieldChangeDetail(FieldChangeDetail),
    EntityResolutionDetail(EntityResolutionDetail),
    PharmacyResolutionDetail(PharmacyResolutionDetail),
    #[cynic(fallback)]
    Other,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct FieldChangeDetail {
    pub previous_value: Option<TypedValue>,
    pub new_value: Option<TypedValue>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct TypedValue {
    pub display_value: String,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct EntityResolutionDetail {
    pub input_text: Option<String>,
    pub resolved_entity_id: Option<Id>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PharmacyResolutionDetail {
    pub input_text: Option<String>,
    pub resolved_entity_id: Option<Id>,
    pub offers: Vec<PharmacyOffer>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PharmacyOffer {
    pub source: String,
    pub is_promoted: bool,
    pub attribute_tags: Vec<OfferAttributeTag>,
    pub prescription_delivery_estimates: Vec<PrescriptionDeliveryEstimate>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct OfferAttributeTag {
    pub kind: String,
    pub label: String,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PrescriptionDeliveryEstimate {
    pub prescription_id: Id,
    pub delivery_promise: String,
}

// ---------- patients

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct Patient {
    pub id: Id,
    pub demographic: Option<PatientDemographic>,
    pub clinical: Option<PatientClinical>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct PatientDemographic {
    pub name: HumanName,
    pub date_of_birth: Option<Date>,
    pub sex: Option<Sex>,
    pub gender: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<PatientAddress>,
    pub benefits: Vec<Benefit>,
    pub preferred_pharmacy: Option<Pharmacy>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct HumanName {
    pub title: Option<String>,
    pub first: Option<String>,
    pub middle: Option<String>,
    pub last: Option<String>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct PatientAddress {
    pub street1: Option<String>,
    pub street2: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct Benefit {
    pub id: Id,
    pub bin: String,
    pub pcn: Option<String>,
    pub group_id: Option<String>,
    pub member_id: String,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PatientClinical {
    pub allergies: Vec<Allergy>,
    pub medications: Vec<MedicationHistoryEntry>,
    pub diagnoses: Vec<Diagnosis>,
    pub notes: Option<String>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct Allergy {
    pub id: Id,
    pub name: String,
    pub rx_norm_id: Option<String>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct MedicationHistoryEntry {
    pub id: Id,
    pub name: String,
    pub rx_norm_id: Option<String>,
    pub status: MedicationHistoryStatus,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct Diagnosis {
    pub id: Id,
    pub name: Option<String>,
    pub icd10_code: Option<String>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct Pharmacy {
    pub id: Id,
    pub name: String,
    pub address: Option<PharmacyAddress>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub fulfillment_type: Option<Vec<FulfillmentType>>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PharmacyAddress {
    pub street1: Option<String>,
    pub street2: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
}

// Decoded once and taken apart at once (outcome.rs): boxing buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(cynic::InlineFragments, Debug, Clone)]
pub enum PatientRecordResult {
    Patient(Patient),
    UpstreamServiceError(UpstreamServiceError),
    #[cynic(fallback)]
    Unknown,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PatientPayload {
    pub patient: Option<PatientRecordResult>,
    pub applied_changes: Vec<Change>,
    pub unapplied_changes: Vec<Change>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct AmbiguousPatientMatch {
    pub reason: String,
    pub candidates: Vec<PatientCandidate>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct PatientCandidate {
    pub id: Id,
    pub first_name: String,
    pub last_name: Option<String>,
    pub date_of_birth: Option<Date>,
}

// Decoded once and taken apart at once (outcome.rs): boxing buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(cynic::InlineFragments, Debug, Clone)]
pub enum PatientResult {
    PatientPayload(PatientPayload),
    AmbiguousPatientMatch(AmbiguousPatientMatch),
    UnauthorizedError(UnauthorizedError),
    UpstreamServiceError(UpstreamServiceError),
    #[cynic(fallback)]
    Unknown,
}

// ---------- prescriptions

#[derive(cynic::QueryFragment, Clone)]
pub struct Prescription {
    pub id: Id,
    pub status: Option<DraftStatus>,
    pub template_id: Option<Id>,
    pub patient: Option<PatientReference>,
    pub treatment: Treatment,
    pub instructions: Option<String>,
    pub dispense: Option<Dispense>,
    pub clinical: Option<PrescriptionClinical>,
    pub screening_alerts: Option<Vec<ScreeningAlert>>,
    pub signing: PrescriptionSigningDetails,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PatientReference {
    pub id: Id,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct Treatment {
    pub id: Id,
    pub name: String,
    pub rx_norm_id: Option<String>,
    pub ndc: Option<String>,
    pub upc: Option<String>,
}

#[derive(cynic::QueryFragment, Debug, Clone, Default, PartialEq)]
pub struct Dispense {
    pub quantity: Option<f64>,
    pub unit: Option<String>,
    pub days_supply: Option<i32>,
    pub refills_allowed: Option<i32>,
    pub dispense_as_written: Option<bool>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PrescriptionClinical {
    pub diagnoses: Vec<Diagnosis>,
    pub notes: Option<String>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct ScreeningAlert {
    pub severity: ScreeningSeverity,
    #[cynic(rename = "type")]
    pub kind: ScreeningAlertType,
    pub description: String,
    pub involved_entities: Vec<InvolvedEntity>,
    pub category: ChangeCategory,
    pub options: Option<Vec<ChangeOption>>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct InvolvedEntity {
    pub id: Id,
    pub name: String,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PrescriptionSigningDetails {
    pub state: PrescriptionSigningState,
    pub content_hash: String,
    pub message: Option<String>,
    pub signed_at: Option<Date>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PrescriptionPayload {
    pub prescription: Option<Prescription>,
    pub applied_changes: Vec<Change>,
    pub unapplied_changes: Vec<Change>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct AmbiguousPrescriptionMatch {
    pub reason: String,
    pub candidates: Vec<PrescriptionCandidate>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct PrescriptionCandidate {
    pub id: Id,
    pub instructions: Option<String>,
    pub dispense: Option<Dispense>,
}

// Decoded once and taken apart at once (outcome.rs): boxing buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(cynic::InlineFragments, Debug, Clone)]
pub enum PrescriptionResult {
    PrescriptionPayload(PrescriptionPayload),
    AmbiguousPrescriptionMatch(AmbiguousPrescriptionMatch),
    UnauthorizedError(UnauthorizedError),
    UpstreamServiceError(UpstreamServiceError),
    #[cynic(fallback)]
    Unknown,
}

// ---------- orders

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct Order {
    pub id: Id,
    pub state: OrderState,
    pub patient: Option<PatientRecordResult>,
    pub prescriptions: Vec<Prescription>,
    pub pharmacy: Option<Pharmacy>,
    pub exceptions: Vec<OrderException>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct OrderException {
    pub id: Id,
    #[cynic(rename = "type")]
    pub kind: OrderExceptionType,
    pub message: Option<String>,
    pub created_at: DateTime,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct OrderPayload {
    pub order: Option<Order>,
    pub applied_changes: Vec<Change>,
    pub unapplied_changes: Vec<Change>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct AmbiguousOrderMatch {
    pub reason: String,
    pub candidates: Vec<OrderCandidate>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct OrderCandidate {
    pub id: Id,
    pub pharmacy_id: Option<Id>,
    pub prescription_ids: Vec<Id>,
}

// Decoded once and taken apart at once (outcome.rs): boxing buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(cynic::InlineFragments, Debug, Clone)]
pub enum OrderResult {
    OrderPayload(OrderPayload),
    AmbiguousOrderMatch(AmbiguousOrderMatch),
    UnauthorizedError(UnauthorizedError),
    UpstreamServiceError(UpstreamServiceError),
    #[cynic(fallback)]
    Unknown,
}

// ---------- inputs

#[derive(cynic::InputObject, Debug, Clone)]
pub struct RequestMetadata {
    pub source: RequestSource,
    pub client: Option<String>,
    pub source_version: Option<String>,
    pub request_id: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct PatientInput {
    pub id: Option<Id>,
    pub demographic: Option<PatientDemographicInput>,
    pub clinical: Option<PatientClinicalInput>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct PatientReferenceInput {
    pub id: Option<Id>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct PatientDemographicInput {
    pub name: Option<HumanNameInput>,
    pub date_of_birth: Option<Date>,
    pub sex: Option<Sex>,
    pub gender: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<AddressInput>,
    pub benefits: Option<BenefitsPatch>,
    pub preferred_pharmacy: Option<PharmacyReferenceInput>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct HumanNameInput {
    pub first: Option<String>,
    pub last: Option<String>,
    pub middle: Option<String>,
    pub title: Option<String>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct AddressInput {
    pub street1: Option<String>,
    pub street2: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct BenefitsPatch {
    pub add: Option<Vec<BenefitReferenceInput>>,
    pub update: Option<Vec<BenefitReferenceInput>>,
    pub remove: Option<Vec<BenefitReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct BenefitReferenceInput {
    pub id: Option<Id>,
    pub bin: Option<String>,
    pub pcn: Option<String>,
    pub group_id: Option<String>,
    pub member_id: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct PatientClinicalInput {
    pub allergies: Option<AllergiesPatch>,
    pub medications: Option<MedicationsPatch>,
    pub diagnoses: Option<DiagnosesPatch>,
    pub notes: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct AllergiesPatch {
    pub add: Option<Vec<AllergyReferenceInput>>,
    pub remove: Option<Vec<AllergyReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct AllergyReferenceInput {
    pub id: Option<Id>,
    pub name: Option<String>,
    pub rx_norm_id: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct MedicationsPatch {
    pub add: Option<Vec<MedicationReferenceInput>>,
    pub update: Option<Vec<MedicationReferenceInput>>,
    pub remove: Option<Vec<MedicationReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct MedicationReferenceInput {
    pub id: Option<Id>,
    pub name: Option<String>,
    pub rx_norm_id: Option<String>,
    pub status: Option<MedicationHistoryStatus>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct DiagnosesPatch {
    pub add: Option<Vec<DiagnosisReferenceInput>>,
    pub remove: Option<Vec<DiagnosisReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct DiagnosisReferenceInput {
    pub id: Option<Id>,
    pub name: Option<String>,
    pub icd10_code: Option<String>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct PrescriptionInput {
    pub id: Option<Id>,
    pub external_id: Option<String>,
    pub patient: Option<PatientReferenceInput>,
    pub template_id: Option<Id>,
    pub treatment: Option<TreatmentReferenceInput>,
    pub instructions: Option<String>,
    pub dispense: Option<DispenseInput>,
    pub clinical: Option<PrescriptionClinicalInput>,
    pub signing: Option<PrescriptionSigningDetailsInput>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct TreatmentReferenceInput {
    pub id: Option<Id>,
    pub rx_norm_id: Option<String>,
    pub name: Option<String>,
    pub ndc: Option<String>,
    pub upc: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct DispenseInput {
    pub quantity: Option<f64>,
    pub unit: Option<String>,
    pub days_supply: Option<i32>,
    pub refills_allowed: Option<i32>,
    pub dispense_as_written: Option<bool>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct PrescriptionClinicalInput {
    pub diagnoses: Option<DiagnosesPatch>,
    pub notes: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct PrescriptionSigningDetailsInput {
    pub signed_hash: Option<String>,
    pub message: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct OrderInput {
    pub id: Option<Id>,
    pub external_id: Option<String>,
    pub patient: Option<PatientReferenceInput>,
    pub prescriptions: Option<OrderPrescriptionsPatch>,
    pub pharmacy: Option<OrderPharmacyInput>,
    pub state: Option<OrderState>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct OrderPrescriptionsPatch {
    pub add: Option<Vec<PrescriptionReferenceInput>>,
    pub remove: Option<Vec<PrescriptionReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct PrescriptionReferenceInput {
    pub id: Option<Id>,
    pub external_id: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct OrderPharmacyInput {
    pub pharmacy: Option<PharmacyReferenceInput>,
    pub none: Option<bool>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct PharmacyReferenceInput {
    pub id: Option<Id>,
    pub name: Option<String>,
    pub near: Option<LocationInput>,
    pub open_at: Option<Date>,
    pub fulfillment_type: Option<FulfillmentType>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct LocationInput {
    pub lat_long: Option<LatLongInput>,
    pub address: Option<AddressInput>,
    pub text: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct LatLongInput {
    pub latitude: String,
    pub longitude: String,
    pub radius_miles: Option<i32>,
}

// ---------- operations: one per call shape

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct PatientArguments {
    pub patient: PatientInput,
    pub metadata: RequestMetadata,
}

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct PrescriptionArguments {
    pub prescription: PrescriptionInput,
    pub metadata: RequestMetadata,
}

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct OrderArguments {
    pub order: OrderInput,
    pub metadata: RequestMetadata,
}

/// `{ ping }`: tests a token; touches no records.
#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "Query")]
pub struct Ping {
    pub ping: Option<String>,
}

/// One named operation per call shape, all selecting the same shared fragments.
macro_rules! call_shape {
    ($($shape:ident => $field:ident: $result:ty, $variables:literal, $arguments:tt;)*) => {$(
        #[derive(cynic::QueryFragment, Debug, Clone)]
        #[cynic(graphql_type = "Mutation", variables = $variables)]
        pub struct $shape {
            #[arguments $arguments]
            pub $field: $result,
        }
    )*};
}

call_shape! {
    GetPatient => patient: PatientResult, "PatientArguments", (patient: $patient, metadata: $metadata);
    FindPatients => patient: PatientResult, "PatientArguments", (patient: $patient, metadata: $metadata);
    SyncPatient => patient: PatientResult, "PatientArguments", (patient: $patient, metadata: $metadata);
    UpdatePatient => patient: PatientResult, "PatientArguments", (patient: $patient, metadata: $metadata);
    LookUpDrug => prescription: PrescriptionResult, "PrescriptionArguments", (prescription: $prescription, metadata: $metadata);
    DraftPrescription => prescription: PrescriptionResult, "PrescriptionArguments", (prescription: $prescription, metadata: $metadata);
    UpdatePrescription => prescription: PrescriptionResult, "PrescriptionArguments", (prescription: $prescription, metadata: $metadata);
    SignPrescription => prescription: PrescriptionResult, "PrescriptionArguments", (prescription: $prescription, metadata: $metadata);
    GetPrescription => prescription: PrescriptionResult, "PrescriptionArguments", (prescription: $prescription, metadata: $metadata);
    GetOrder => order: OrderResult, "OrderArguments", (order: $order, metadata: $metadata);
    DraftOrder => order: OrderResult, "OrderArguments", (order: $order, metadata: $metadata);
    UpdateOrder => order: OrderResult, "OrderArguments", (order: $order, metadata: $metadata);
    SendOrder => order: OrderResult, "OrderArguments", (order: $order, metadata: $metadata);
    CancelOrder => order: OrderResult, "OrderArguments", (order: $order, metadata: $metadata);
    FindPharmacies => order: OrderResult, "OrderArguments", (order: $order, metadata: $metadata);
}

// Patient data: `Debug` prints ids and states only.
crate::redacted_debug! {
    HumanName {  }
    PatientDemographic { sex }
    PatientAddress {  }
    Benefit { id }
    Allergy { id }
    MedicationHistoryEntry { id, status }
    Diagnosis { id }
    PatientCandidate { id }
    Prescription { id, status, signing }
    ScreeningAlert { severity, kind }
    InvolvedEntity { id }
    PrescriptionCandidate { id }
    PatientDemographicInput { sex }
    HumanNameInput {  }
    AddressInput {  }
    BenefitReferenceInput { id }
    AllergyReferenceInput { id }
    MedicationReferenceInput { id, status }
    DiagnosisReferenceInput { id }
    PrescriptionInput { id, template_id }
}
