//! The legacy API's catalog (served at `/legacy/graphql` until the client and the
//! app move to the Network API): a built-in list of medications and pharmacies
//! ([`builtin_medications`], [`builtin_pharmacies`]) that [`seed`] writes into the
//! database at start-up. Fixtures no longer change it: their `[[medications]]` and
//! `[[pharmacies]]` are the Network API's catalog (`super`).

mod medications;
mod pharmacies;

use serde::Deserialize;

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

/// Writes the built-in lists into the database, replacing what a previous start left.
pub async fn seed(db: &Db) -> Result<(), StoreError> {
    let medications = builtin_medications();
    let pharmacies = builtin_pharmacies();
    db.call(move |conn| crate::store::catalog::replace(conn, &medications, &pharmacies))
        .await
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
