//! Screening: a prescription's drug against the patient's record as it is now —
//! coded allergies (`ALLERGEN`, from the allergens' `covers`), active medications
//! (`DRUG` rules) and diagnoses with the prescription's own (`CONDITION` rules,
//! by ICD-10 prefix). Runs on every prescription call; nothing is stored.

use std::collections::HashSet;

use crate::catalog::{Catalog, MedicationEntry, RuleKind};
use crate::network::types::{
    ChangeCategory, ChangeOption, DraftStatus, GenericChangeOption, InvolvedEntity,
    MedicationHistoryStatus, ScreeningAlert, ScreeningAlertType, ScreeningSeverity,
};
use crate::store::records::{PatientDoc, PrescriptionDoc};

fn entity(id: &str, name: &str) -> InvolvedEntity {
    InvolvedEntity {
        id: id.to_owned().into(),
        name: name.to_owned(),
    }
}

fn alternative(
    catalog: &Catalog,
    id: Option<&String>,
    drug: &MedicationEntry,
) -> Option<Vec<ChangeOption>> {
    let alt = catalog.medication(id?)?;
    (alt.id != drug.id).then(|| {
        vec![ChangeOption::GenericChangeOption(GenericChangeOption {
            display_name: alt.name.clone(),
            reason: Some(format!(
                "An alternative to {} that avoids this conflict",
                drug.name
            )),
            operation: "prescription".to_owned(),
            argument: Some("treatment.id".to_owned()),
            value: Some(alt.id.clone()),
            entity_match: None,
            match_reasons: None,
        })]
    })
}

/// The alerts of `prescription` for `patient`, and the status they make.
pub fn screen(
    catalog: &Catalog,
    prescription: &PrescriptionDoc,
    patient: Option<&PatientDoc>,
) -> (DraftStatus, Vec<ScreeningAlert>) {
    let (Some(drug), Some(patient)) = (
        catalog.medication(prescription.treatment.id.as_str()),
        patient,
    ) else {
        return (DraftStatus::Ready, Vec::new());
    };
    let terms: HashSet<&str> = drug.terms().collect();
    let mut alerts = Vec::new();
    let mut seen = HashSet::new();
    let mut alert = |kind, severity, description: String, other: InvolvedEntity, options| {
        if seen.insert((kind as u8, other.id.to_string())) {
            alerts.push(ScreeningAlert {
                severity,
                kind,
                description,
                involved_entities: vec![entity(&drug.id, &drug.name), other],
                category: ChangeCategory::Safety,
                options,
            });
        }
    };

    for allergy in patient.allergies.iter().filter(|a| a.coded) {
        let Some(allergen) = catalog.allergen(&allergy.id) else {
            continue;
        };
        if let Some(term) = allergen.covers.iter().find(|c| terms.contains(c.as_str())) {
            alert(
                ScreeningAlertType::Allergen,
                ScreeningSeverity::Moderate,
                format!(
                    "{} contains {term}, which the patient's recorded allergy to {} covers.",
                    drug.name, allergen.name
                ),
                entity(&allergen.id, &allergen.name),
                alternative(catalog, allergen.alternative.as_ref(), drug),
            );
        }
    }

    let active = patient
        .medications
        .iter()
        .filter(|m| m.coded && m.status == Some(MedicationHistoryStatus::Active))
        .filter_map(|m| catalog.medication(&m.id))
        .filter(|m| m.id != drug.id);
    let diagnoses: Vec<(&str, &str)> = patient
        .diagnoses
        .iter()
        .chain(&prescription.diagnoses)
        .filter_map(|d| Some((d.code.as_deref()?, d.id.as_str())))
        .collect();
    let active: Vec<&MedicationEntry> = active.collect();
    for rule in &catalog.rules {
        let [first, second] = rule.between.as_slice() else {
            continue;
        };
        match rule.kind {
            RuleKind::Drug => {
                for other in &active {
                    let theirs: HashSet<&str> = other.terms().collect();
                    let hit = (terms.contains(first.as_str()) && theirs.contains(second.as_str()))
                        || (terms.contains(second.as_str()) && theirs.contains(first.as_str()));
                    if hit {
                        alert(
                            ScreeningAlertType::Drug,
                            rule.severity,
                            rule.description.clone(),
                            entity(&other.id, &other.name),
                            alternative(catalog, rule.alternative.as_ref(), drug),
                        );
                    }
                }
            }
            RuleKind::Condition => {
                if !terms.contains(second.as_str()) {
                    continue;
                }
                for (code, id) in diagnoses
                    .iter()
                    .filter(|(code, _)| code.starts_with(first.as_str()))
                {
                    let name = catalog
                        .diagnosis_by_code(code)
                        .map_or(*code, |d| d.name.as_str());
                    alert(
                        ScreeningAlertType::Condition,
                        rule.severity,
                        rule.description.clone(),
                        entity(id, name),
                        alternative(catalog, rule.alternative.as_ref(), drug),
                    );
                }
            }
        }
    }
    (status_of(&alerts), alerts)
}

/// `BLOCKED` with any moderate or major alert, `WARNING` with only minor ones.
pub fn status_of(alerts: &[ScreeningAlert]) -> DraftStatus {
    if alerts
        .iter()
        .any(|a| a.severity >= ScreeningSeverity::Moderate)
    {
        DraftStatus::Blocked
    } else if alerts.is_empty() {
        DraftStatus::Ready
    } else {
        DraftStatus::Warning
    }
}
