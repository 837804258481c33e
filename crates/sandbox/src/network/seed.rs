//! Seeding the fixture's `[[patients]]` at start: each is added once to its
//! organization (matched by name and date of birth), so a restart on the same
//! data directory adds nobody twice and keeps what users changed.

use crate::catalog::{Catalog, PatientSeed};
use crate::fixture::Fixture;
use crate::network::types::{MedicationHistoryStatus, Sex};
use crate::store::records::{self, EntryDoc, PatientDoc, new_id, now};
use crate::store::{Db, StoreError};

fn doc(catalog: &Catalog, seed: &PatientSeed) -> PatientDoc {
    let sex = match seed.sex.as_str() {
        "MALE" => Sex::Male,
        "FEMALE" => Sex::Female,
        _ => Sex::Unknown,
    };
    PatientDoc {
        id: new_id("pat"),
        organization_id: seed.organization.clone(),
        first: Some(seed.first.clone()),
        last: Some(seed.last.clone()),
        date_of_birth: Some(seed.date_of_birth.clone()),
        sex: Some(sex),
        email: seed.email.clone(),
        phone: seed.phone.clone(),
        // The fixture was validated: every reference below resolves.
        allergies: seed
            .allergies
            .iter()
            .filter_map(|id| catalog.allergen(id))
            .map(|a| EntryDoc {
                id: a.id.clone(),
                name: a.name.clone(),
                code: a.rx_norm_id.clone(),
                coded: true,
                status: None,
            })
            .collect(),
        medications: seed
            .medications
            .iter()
            .filter_map(|id| catalog.medication(id))
            .map(|m| EntryDoc {
                id: m.id.clone(),
                name: m.name.clone(),
                code: m.rx_norm_id.clone(),
                coded: true,
                status: Some(MedicationHistoryStatus::Active),
            })
            .collect(),
        diagnoses: seed
            .diagnoses
            .iter()
            .filter_map(|code| catalog.diagnosis_by_code(code))
            .map(|d| EntryDoc {
                id: d.id(),
                name: d.name.clone(),
                code: Some(d.icd10_code.clone()),
                coded: true,
                status: None,
            })
            .collect(),
        created_at: now(),
        ..PatientDoc::default()
    }
}

/// Adds the fixture's patients that their organization does not have yet.
pub async fn patients(db: &Db, catalog: &Catalog, fixture: &Fixture) -> Result<(), StoreError> {
    let docs: Vec<PatientDoc> = fixture.patients.iter().map(|s| doc(catalog, s)).collect();
    db.call(move |conn| {
        let tx = conn.transaction()?;
        for patient in &docs {
            let (first, last, dob) = (
                patient.first.as_deref().unwrap_or_default(),
                patient.last.as_deref().unwrap_or_default(),
                patient.date_of_birth.as_deref().unwrap_or_default(),
            );
            if records::patients_named(&tx, &patient.organization_id, first, last, dob)?.is_empty()
            {
                records::save_patient(&tx, patient)?;
            }
        }
        tx.commit()?;
        Ok(())
    })
    .await
}
