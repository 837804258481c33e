//! The built-in catalog of medications and pharmacies. (Being built: see issue 3.)
//!
//! A fixture may replace either list with its own `[[medications]]` /
//! `[[pharmacies]]` entries, in the shapes below.

use serde::Deserialize;

use crate::fixture::Fixture;
use crate::store::{Db, StoreError};

/// A `[[medications]]` entry of a fixture (or of the built-in list).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MedicationEntry {
    pub id: String,
    /// Generic name, e.g. "Amoxicillin".
    pub name: String,
    /// e.g. "500 mg".
    pub strength: String,
    /// e.g. "capsule".
    pub form: String,
    #[serde(default)]
    pub rxcui: Option<String>,
}

/// A `[[pharmacies]]` entry of a fixture (or of the built-in list).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PharmacyEntry {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub phone: Option<String>,
    pub street1: String,
    #[serde(default)]
    pub street2: Option<String>,
    pub city: String,
    pub state: String,
    pub postal_code: String,
}

pub async fn seed(_db: &Db, _fixture: &Fixture) -> Result<(), StoreError> {
    Ok(())
}
