//! The catalog of medications and pharmacies the API offers: a built-in list of
//! each ([`builtin_medications`], [`builtin_pharmacies`]), which a fixture may
//! replace with its own `[[medications]]` / `[[pharmacies]]` entries in the shapes
//! below. [`seed`] writes the lists in force into the database at start-up.

mod medications;
mod pharmacies;

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

/// The built-in medication list (at least 40 common generics).
pub fn builtin_medications() -> Vec<MedicationEntry> {
    medications::MEDICATIONS
        .iter()
        .map(|&(id, name, strength, form, rxcui)| MedicationEntry {
            id: id.to_owned(),
            name: name.to_owned(),
            strength: strength.to_owned(),
            form: form.to_owned(),
            rxcui: rxcui.map(str::to_owned),
        })
        .collect()
}

/// The built-in pharmacy list (at least 10 fictional pharmacies).
pub fn builtin_pharmacies() -> Vec<PharmacyEntry> {
    pharmacies::PHARMACIES
        .iter()
        .map(
            |&(id, name, phone, street1, street2, city, state, postal_code)| PharmacyEntry {
                id: id.to_owned(),
                name: name.to_owned(),
                phone: phone.map(str::to_owned),
                street1: street1.to_owned(),
                street2: street2.map(str::to_owned),
                city: city.to_owned(),
                state: state.to_owned(),
                postal_code: postal_code.to_owned(),
            },
        )
        .collect()
}

/// Writes the catalog in force into the database, replacing what a previous
/// start left: the fixture's lists where it has them, the built-in ones otherwise.
pub async fn seed(db: &Db, fixture: &Fixture) -> Result<(), StoreError> {
    let medications = fixture_medications(fixture).unwrap_or_else(builtin_medications);
    let pharmacies = fixture_pharmacies(fixture).unwrap_or_else(builtin_pharmacies);
    db.call(move |conn| crate::store::catalog::replace(conn, &medications, &pharmacies))
        .await
}

/// The fixture's own medications, when it lists any.
fn fixture_medications(fixture: &Fixture) -> Option<Vec<MedicationEntry>> {
    (!fixture.medications.is_empty()).then(|| fixture.medications.clone())
}

/// The fixture's own pharmacies, when it lists any.
fn fixture_pharmacies(fixture: &Fixture) -> Option<Vec<PharmacyEntry>> {
    (!fixture.pharmacies.is_empty()).then(|| fixture.pharmacies.clone())
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn builtin_lists_are_large_enough_and_ids_unique() {
        let meds = builtin_medications();
        let pharmacies = builtin_pharmacies();
        assert!(meds.len() >= 40);
        assert!(pharmacies.len() >= 10);
        assert_eq!(
            meds.iter().map(|m| &m.id).collect::<HashSet<_>>().len(),
            meds.len()
        );
        assert_eq!(
            pharmacies
                .iter()
                .map(|p| &p.id)
                .collect::<HashSet<_>>()
                .len(),
            pharmacies.len()
        );
    }

    #[test]
    fn builtin_pharmacies_have_us_states_and_zip_codes() {
        for p in builtin_pharmacies() {
            assert!(crate::api::validate::is_us_state(&p.state), "{}", p.id);
            assert!(
                crate::api::validate::is_postal_code(&p.postal_code),
                "{}",
                p.id
            );
        }
    }
}
