//! Orders and pharmacies: the order with its exceptions, candidates of an
//! ambiguous order match, pharmacies with their offers, and the inputs.

use async_graphql::{Enum, ID, InputObject, SimpleObject};
use serde::{Deserialize, Serialize};

use super::patient::{AddressInput, PatientReferenceInput};
use super::prescription::Prescription;
use super::{Date, DateTime, PatientRecordResult};

#[derive(Debug, Clone, SimpleObject)]
pub struct Order {
    pub id: ID,
    pub state: OrderState,
    pub patient: Option<PatientRecordResult>,
    pub prescriptions: Vec<Prescription>,
    pub pharmacy: Option<Pharmacy>,
    pub exceptions: Vec<OrderException>,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct OrderException {
    pub id: ID,
    #[graphql(name = "type")]
    pub kind: OrderExceptionType,
    pub message: Option<String>,
    pub created_at: DateTime,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderState {
    Draft,
    Submitted,
    Canceled,
}

impl OrderState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "DRAFT",
            Self::Submitted => "SUBMITTED",
            Self::Canceled => "CANCELED",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
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

/// The patient has several draft orders: nothing was saved.
#[derive(Debug, Clone, SimpleObject)]
pub struct AmbiguousOrderMatch {
    pub candidates: Vec<OrderCandidate>,
    pub reason: String,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct OrderCandidate {
    pub id: ID,
    pub pharmacy_id: Option<ID>,
    pub prescription_ids: Vec<ID>,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct Pharmacy {
    pub id: ID,
    pub name: String,
    pub address: Option<PharmacyAddress>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub fulfillment_type: Option<Vec<FulfillmentType>>,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct PharmacyAddress {
    pub street1: Option<String>,
    pub street2: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FulfillmentType {
    MailOrder,
    PickUp,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct PharmacyOffer {
    pub source: String,
    pub is_promoted: bool,
    pub attribute_tags: Vec<OfferAttributeTag>,
    pub price_summary: Option<OfferPriceSummary>,
    pub prescription_delivery_estimates: Vec<PrescriptionDeliveryEstimate>,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct OfferAttributeTag {
    pub kind: String,
    pub label: String,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct OfferPriceSummary {
    pub price_type: Option<OfferPriceType>,
    pub total_amount: Option<f64>,
    pub total_retail_amount: Option<f64>,
    pub total_savings: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum OfferPriceType {
    Cash,
    Insurance,
    Membership,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct PrescriptionDeliveryEstimate {
    pub prescription_id: ID,
    pub delivery_promise: String,
    pub delivery_promise_range_start: Option<DateTime>,
    pub delivery_promise_range_end: Option<DateTime>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct OrderInput {
    pub id: Option<ID>,
    pub external_id: Option<String>,
    pub patient: Option<PatientReferenceInput>,
    pub prescriptions: Option<OrderPrescriptionsPatch>,
    /// `{ pharmacy: … }` to choose one, `{ none: true }` to leave it to the patient.
    pub pharmacy: Option<OrderPharmacyInput>,
    /// `SUBMITTED` sends; `CANCELED` only from `SUBMITTED`.
    pub state: Option<OrderState>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct OrderPrescriptionsPatch {
    pub add: Option<Vec<PrescriptionReferenceInput>>,
    pub remove: Option<Vec<PrescriptionReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct PrescriptionReferenceInput {
    pub id: Option<ID>,
    pub external_id: Option<String>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct OrderPharmacyInput {
    pub pharmacy: Option<PharmacyReferenceInput>,
    pub none: Option<bool>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct PharmacyReferenceInput {
    pub id: Option<ID>,
    pub name: Option<String>,
    pub near: Option<LocationInput>,
    pub open_at: Option<Date>,
    pub fulfillment_type: Option<FulfillmentType>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct LocationInput {
    pub lat_long: Option<LatLongInput>,
    pub address: Option<AddressInput>,
    pub text: Option<String>,
}

/// Latitude and longitude are strings in the network's schema.
#[derive(Debug, Clone, Default, InputObject)]
pub struct LatLongInput {
    pub latitude: String,
    pub longitude: String,
    pub radius_miles: Option<i32>,
}
