//! Stored records → the Network API's output types: what a caller sees of a
//! patient, a prescription (with its screening and content hash) and an order.

use async_graphql::ID;
use serde::Serialize;
use sha2::{Digest as _, Sha256};

use super::call::Call;
use super::screening;
use super::types::{
    Allergy, Benefit, Date, DateTime, Diagnosis, Dispense, HumanName, MedicationHistoryEntry,
    MedicationHistoryStatus, Order, OrderException, Patient, PatientClinical, PatientDemographic,
    PatientRecordResult, PatientReference, Pharmacy, PharmacyAddress, Prescription,
    PrescriptionClinical, PrescriptionSigningDetails, PrescriptionSigningState,
};
use crate::catalog::{Catalog, PharmacyEntry};
use crate::store::StoreError;
use crate::store::records::{EntryDoc, OrderDoc, PatientDoc, PrescriptionDoc};

pub fn pharmacy(entry: &PharmacyEntry) -> Pharmacy {
    Pharmacy {
        id: ID(entry.id.clone()),
        name: entry.name.clone(),
        address: Some(PharmacyAddress {
            street1: Some(entry.street1.clone()),
            street2: entry.street2.clone(),
            city: Some(entry.city.clone()),
            state: Some(entry.state.clone()),
            postal_code: Some(entry.postal_code.clone()),
            country: Some("US".to_owned()),
        }),
        latitude: Some(entry.latitude),
        longitude: Some(entry.longitude),
        fulfillment_type: Some(entry.fulfillment_types.clone()),
    }
}

fn diagnosis(entry: &EntryDoc) -> Diagnosis {
    Diagnosis {
        id: ID(entry.id.clone()),
        name: Some(entry.name.clone()),
        icd10_code: entry.code.clone(),
    }
}

fn demographic(catalog: &Catalog, doc: &PatientDoc) -> PatientDemographic {
    PatientDemographic {
        name: HumanName {
            title: doc.title.clone(),
            first: doc.first.clone(),
            middle: doc.middle.clone(),
            last: doc.last.clone(),
        },
        date_of_birth: doc.date_of_birth.as_deref().and_then(Date::parse),
        sex: doc.sex,
        gender: doc.gender.clone(),
        email: doc.email.clone(),
        phone: doc.phone.clone(),
        address: doc.address.clone(),
        benefits: doc
            .benefits
            .iter()
            .map(|b| Benefit {
                id: ID(b.id.clone()),
                bin: b.bin.clone(),
                pcn: b.pcn.clone(),
                group_id: b.group_id.clone(),
                member_id: b.member_id.clone(),
            })
            .collect(),
        preferred_pharmacy: doc
            .preferred_pharmacy
            .as_deref()
            .and_then(|id| catalog.pharmacy(id))
            .map(pharmacy),
    }
}

pub fn patient(catalog: &Catalog, doc: &PatientDoc) -> Patient {
    Patient {
        id: ID(doc.id.clone()),
        demographic: Some(demographic(catalog, doc)),
        clinical: Some(PatientClinical {
            allergies: doc
                .allergies
                .iter()
                .map(|a| Allergy {
                    id: ID(a.id.clone()),
                    name: a.name.clone(),
                    rx_norm_id: a.code.clone(),
                })
                .collect(),
            medications: doc
                .medications
                .iter()
                .map(|m| MedicationHistoryEntry {
                    id: ID(m.id.clone()),
                    name: m.name.clone(),
                    rx_norm_id: m.code.clone(),
                    status: m.status.unwrap_or(MedicationHistoryStatus::Unknown),
                })
                .collect(),
            diagnoses: doc.diagnoses.iter().map(diagnosis).collect(),
            notes: doc.notes.clone(),
        }),
    }
}

pub fn patient_record(catalog: &Catalog, doc: &PatientDoc) -> PatientRecordResult {
    PatientRecordResult::Patient(Box::new(patient(catalog, doc)))
}

/// The canonical form the content hash covers: drug, sig and dispense.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Canonical<'a> {
    dispense: CanonicalDispense<'a>,
    instructions: Option<&'a str>,
    treatment: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CanonicalDispense<'a> {
    days_supply: Option<i32>,
    dispense_as_written: Option<bool>,
    quantity: Option<f64>,
    refills_allowed: Option<i32>,
    unit: Option<&'a str>,
}

/// SHA-256 (hex) of the canonical JSON of the prescription's drug, sig and dispense.
pub fn content_hash(doc: &PrescriptionDoc) -> String {
    let d: &Dispense = &doc.dispense;
    let canonical = Canonical {
        dispense: CanonicalDispense {
            days_supply: d.days_supply,
            dispense_as_written: d.dispense_as_written,
            quantity: d.quantity,
            refills_allowed: d.refills_allowed,
            unit: d.unit.as_deref(),
        },
        instructions: doc.instructions.as_deref(),
        treatment: doc.treatment.id.as_str(),
    };
    // Serializing plain fields cannot fail.
    let json = serde_json::to_string(&canonical).unwrap_or_default();
    hex::encode(Sha256::digest(json.as_bytes()))
}

/// The prescription as the caller sees it, screened against `patient` now.
/// `invalidated` marks the answer to a sign whose hash did not match.
pub fn prescription(
    catalog: &Catalog,
    doc: &PrescriptionDoc,
    patient: Option<&PatientDoc>,
    invalidated: bool,
) -> Prescription {
    let (status, alerts) = screening::screen(catalog, doc, patient);
    let state = if doc.is_signed() {
        PrescriptionSigningState::Signed
    } else if invalidated {
        PrescriptionSigningState::InvalidatedSign
    } else {
        PrescriptionSigningState::Unsigned
    };
    Prescription {
        id: ID(doc.id.clone()),
        status: Some(status),
        template_id: doc.template_id.clone().map(ID),
        patient: patient.map(|p| PatientReference {
            id: ID(p.id.clone()),
            demographic: Some(demographic(catalog, p)),
        }),
        treatment: doc.treatment.clone(),
        instructions: doc.instructions.clone(),
        dispense: Some(doc.dispense.clone()),
        clinical: Some(PrescriptionClinical {
            diagnoses: doc.diagnoses.iter().map(diagnosis).collect(),
            notes: doc.notes.clone(),
        }),
        screening_alerts: Some(alerts),
        signing: PrescriptionSigningDetails {
            state,
            content_hash: content_hash(doc),
            message: doc.signing_message.clone(),
            signed_at: doc.signed_at.as_deref().and_then(Date::parse),
        },
    }
}

pub fn order(call: &Call<'_>, doc: &OrderDoc) -> Result<Order, StoreError> {
    let catalog = call.catalog;
    let patient = call.patient(&doc.patient_id)?;
    let mut prescriptions = Vec::new();
    for id in &doc.prescription_ids {
        if let Some(p) = call.prescription(id)? {
            let owner = if p.patient_id == doc.patient_id {
                patient.clone()
            } else {
                call.patient(&p.patient_id)?
            };
            prescriptions.push(prescription(catalog, &p, owner.as_deref(), false));
        }
    }
    Ok(Order {
        id: ID(doc.id.clone()),
        state: doc.state,
        patient: patient.as_ref().map(|p| patient_record(catalog, p)),
        prescriptions,
        pharmacy: doc
            .pharmacy_id
            .as_deref()
            .and_then(|id| catalog.pharmacy(id))
            .map(pharmacy),
        exceptions: doc
            .exceptions
            .iter()
            .map(|e| OrderException {
                id: ID(e.id.clone()),
                kind: e.kind,
                message: Some(e.message.clone()),
                created_at: DateTime(e.created_at.clone()),
            })
            .collect(),
    })
}
