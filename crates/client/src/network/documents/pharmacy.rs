//! Pharmacies: the record (a patient's preferred one, an order's), the offers a
//! pharmacy option carries, and how an input names one (by id, name or place).

use cynic::Id;

use super::common::{AddressInput, Date, schema};

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
