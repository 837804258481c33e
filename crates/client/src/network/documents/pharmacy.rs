//! Pharmacies: the record (a patient's preferred one, an order's), the offers a
//! pharmacy option carries, and how an input names one (by id, name or place).

use cynic::Id;

use super::common::{AddressInput, Date, DateTime, schema};

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FulfillmentType {
    MailOrder,
    PickUp,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PharmacyOffer {
    pub source: String,
    pub is_promoted: bool,
    pub attribute_tags: Vec<OfferAttributeTag>,
    /// What the patient pays there, when the network has a price.
    pub price_summary: Option<OfferPriceSummary>,
    pub prescription_delivery_estimates: Vec<PrescriptionDeliveryEstimate>,
}

#[derive(cynic::QueryFragment, Debug, Clone, PartialEq)]
pub struct OfferPriceSummary {
    pub price_type: Option<OfferPriceType>,
    /// What the patient pays in all, in dollars.
    pub total_amount: Option<f64>,
    /// The list price in all.
    pub total_retail_amount: Option<f64>,
    pub total_savings: Option<f64>,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfferPriceType {
    Cash,
    Insurance,
    Membership,
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
    pub delivery_promise_range_start: Option<DateTime>,
    pub delivery_promise_range_end: Option<DateTime>,
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
