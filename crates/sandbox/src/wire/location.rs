//! Places in inputs: an address (a patient's, or where to look for a pharmacy), a
//! point with a radius, or free text.

use async_graphql::InputObject;

/// `country` is required whenever an address is sent.
#[derive(Clone, Default, InputObject)]
pub struct AddressInput {
    pub street1: Option<String>,
    pub street2: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
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

// Patient data: `Debug` prints nothing of an address.
crate::redact::redacted_debug! {
    AddressInput {  }
}
