//! Pharmacies: the pharmacy with its address and fulfillment types, the offers a
//! pharmacy option carries, and how an input names one.

use async_graphql::{Enum, ID, InputObject, SimpleObject};
use serde::{Deserialize, Serialize};

use super::location::LocationInput;
use super::scalars::{Date, DateTime};

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
pub struct PharmacyReferenceInput {
    pub id: Option<ID>,
    pub name: Option<String>,
    pub near: Option<LocationInput>,
    pub open_at: Option<Date>,
    pub fulfillment_type: Option<FulfillmentType>,
}
