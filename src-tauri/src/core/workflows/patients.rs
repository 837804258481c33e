//! Patients: search by name (candidates, never picked for the user; the search
//! never sends what would add someone), Get by id, add (the network matches
//! first), demographic edits (with the record's notes), insurance and the
//! clinical record as patches, the preferred pharmacy by the orders' search.

use std::collections::HashSet;

use futures::future::try_join_all;

use rxdesk_client::network::documents::{
    Patient, PatientCandidate, PatientDemographicInput, PatientInput as NetPatient,
    PharmacyReferenceInput,
};
use rxdesk_client::network::{Outcome, PatientSearch, PharmacyMatches};

use super::{AppCore, not_found};
use crate::convert::{
    benefits_input, candidate_summary, change_notes, check_benefit_edit, check_clinical_edit,
    check_patient_input, choice_view, clinical_input, demographic_input, for_adding, notes_input,
    patient_record, patient_summary, pharmacy_reference,
};
use crate::index::Scope;
use crate::ipc::{
    BenefitEdit, ClinicalEdit, CommandError, PatientInput, PatientOutcome, PatientRecord,
    PatientSummary, PharmacySearch, PreferredPharmacyAnswer, RecordKind,
};

/// What a name typed into the search box asks the network: one word is a
/// first- or last-name prefix (two searches, sent at once: the network has no
/// "first or last"); more is first, then last (one search).
fn searches(query: &str) -> Vec<PatientSearch> {
    let words: Vec<&str> = query.split_whitespace().collect();
    match words.as_slice() {
        [] => Vec::new(),
        [only] => vec![
            PatientSearch {
                last: Some((*only).to_owned()),
                ..Default::default()
            },
            PatientSearch {
                first: Some((*only).to_owned()),
                ..Default::default()
            },
        ],
        [first, rest @ ..] => vec![PatientSearch {
            first: Some((*first).to_owned()),
            last: Some(rest.join(" ")),
            ..Default::default()
        }],
    }
}

impl AppCore {
    /// Candidates for a name typed in the search box, in the network's order.
    pub async fn find_patients(&self, query: &str) -> Result<Vec<PatientSummary>, CommandError> {
        crate::convert::plain_text("query", "The search", query)?;
        let searches = searches(query);
        if searches.is_empty() {
            return Ok(Vec::new());
        }
        let (found, _) = self
            .with_network("find_patients", |net| {
                let searches = searches.clone();
                async move {
                    // A one-word query is two searches: sent together, not one
                    // after the other (one round trip on a slow link).
                    let answers =
                        try_join_all(searches.iter().map(|s| net.find_patients(s))).await?;
                    Ok(answers.into_iter().flatten().collect::<Vec<_>>())
                }
            })
            .await?;
        let mut seen = HashSet::new();
        Ok(found
            .iter()
            .filter(|c| seen.insert(c.id.inner().to_owned()))
            .map(candidate_summary)
            .collect())
    }

    pub async fn get_patient(&self, id: &str) -> Result<PatientRecord, CommandError> {
        let (outcome, scope) = self
            .with_network(
                "get_patient",
                |net| async move { net.get_patient(id).await },
            )
            .await?;
        match outcome {
            Outcome::Record {
                record: Some(patient),
                ..
            } => Ok(self.opened_patient(&scope, patient)),
            Outcome::Record { unapplied, .. } => {
                self.forget(&scope, RecordKind::Patient, id);
                Err(not_found("patient", &unapplied))
            }
            Outcome::Ambiguous { reason, .. } => Err(CommandError::Protocol { message: reason }),
        }
    }

    fn opened_patient(&self, scope: &Scope, patient: Patient) -> PatientRecord {
        let record = patient_record(patient);
        self.remember(scope, RecordKind::Patient, &record.id, None);
        record
    }

    /// Adds a patient (`id` = `None`: the network matches first, and may answer
    /// candidates or name what is missing) or changes one's demographics.
    pub async fn save_patient(
        &self,
        id: Option<&str>,
        input: &PatientInput,
    ) -> Result<PatientOutcome, CommandError> {
        check_patient_input(input)?;
        let adding;
        let input = match id {
            None => {
                adding = for_adding(input);
                &adding
            }
            Some(_) => input,
        };
        let demographic = demographic_input(input);
        let notes = notes_input(input);
        let (outcome, scope) = match id {
            None => {
                self.with_network("add_patient", |net| {
                    let patient = NetPatient {
                        demographic: Some(demographic.clone()),
                        clinical: notes.clone(),
                        ..Default::default()
                    };
                    async move { net.sync_patient(patient).await }
                })
                .await?
            }
            Some(id) => {
                self.with_network("update_patient", |net| {
                    let demographic = demographic.clone();
                    let notes = notes.clone();
                    async move { net.update_patient(id, Some(demographic), notes).await }
                })
                .await?
            }
        };
        Ok(self.patient_outcome(&scope, outcome))
    }

    /// Changes the clinical record with patches; ambiguous names come back as
    /// notes with the network's options.
    pub async fn edit_clinical(
        &self,
        id: &str,
        edit: &ClinicalEdit,
    ) -> Result<PatientOutcome, CommandError> {
        check_clinical_edit(edit)?;
        let clinical = clinical_input(edit);
        let (outcome, scope) = self
            .with_network("edit_clinical", |net| {
                let clinical = clinical.clone();
                async move { net.update_patient(id, None, Some(clinical)).await }
            })
            .await?;
        Ok(self.patient_outcome(&scope, outcome))
    }

    /// Adds, corrects or removes an insurance card (one benefits patch). An
    /// add is sent once: the network does not match cards, so the client never
    /// repeats it after a lost answer (the UI says to check the record).
    pub async fn edit_benefits(
        &self,
        id: &str,
        edit: &BenefitEdit,
    ) -> Result<PatientOutcome, CommandError> {
        check_benefit_edit(edit)?;
        let demographic = PatientDemographicInput {
            benefits: Some(benefits_input(edit)),
            ..Default::default()
        };
        let (outcome, scope) = self
            .with_network("edit_benefits", |net| {
                let demographic = demographic.clone();
                async move { net.update_patient(id, Some(demographic), None).await }
            })
            .await?;
        Ok(self.patient_outcome(&scope, outcome))
    }

    /// Pharmacies for the patient's preferred pharmacy, by the orders' search:
    /// one that fits is set at once; several are options; none, the reasons.
    pub async fn find_preferred_pharmacy(
        &self,
        id: &str,
        search: &PharmacySearch,
    ) -> Result<PreferredPharmacyAnswer, CommandError> {
        let reference = pharmacy_reference(search)?;
        let (matches, scope) = self
            .with_network("find_preferred_pharmacy", |net| {
                let reference = reference.clone();
                async move { net.find_preferred_pharmacy(id, reference).await }
            })
            .await?;
        Ok(match matches {
            PharmacyMatches::Chosen(patient) => PreferredPharmacyAnswer::Chosen {
                patient: Box::new(self.opened_patient(&scope, *patient)),
            },
            PharmacyMatches::Options(choices) => PreferredPharmacyAnswer::Options {
                options: choices.iter().map(choice_view).collect(),
            },
            PharmacyMatches::Nothing(changes) => PreferredPharmacyAnswer::Nothing {
                reasons: change_notes(&changes),
            },
        })
    }

    /// Makes the pharmacy `pharmacy_id` (an option of the search) the patient's preferred one.
    pub async fn choose_preferred_pharmacy(
        &self,
        id: &str,
        pharmacy_id: &str,
    ) -> Result<PatientOutcome, CommandError> {
        let demographic = PatientDemographicInput {
            preferred_pharmacy: Some(PharmacyReferenceInput {
                id: Some(cynic::Id::new(pharmacy_id)),
                ..Default::default()
            }),
            ..Default::default()
        };
        let (outcome, scope) = self
            .with_network("choose_preferred_pharmacy", |net| {
                let demographic = demographic.clone();
                async move { net.update_patient(id, Some(demographic), None).await }
            })
            .await?;
        Ok(self.patient_outcome(&scope, outcome))
    }

    fn patient_outcome(
        &self,
        scope: &Scope,
        outcome: Outcome<Patient, PatientCandidate>,
    ) -> PatientOutcome {
        match outcome {
            Outcome::Record {
                record: Some(patient),
                unapplied,
                ..
            } => PatientOutcome::Saved {
                patient: Box::new(self.opened_patient(scope, patient)),
                notes: change_notes(&unapplied),
            },
            Outcome::Record {
                record: None,
                unapplied,
                ..
            } => PatientOutcome::NotSaved {
                problems: change_notes(&unapplied),
            },
            Outcome::Ambiguous { reason, candidates } => PatientOutcome::Candidates {
                reason,
                candidates: candidates.iter().map(candidate_summary).collect(),
            },
        }
    }

    /// The summary shown in lists, fetched live; `None` when the network no
    /// longer has the patient (the id is then dropped from the index).
    pub(super) async fn patient_row(
        &self,
        net: &rxdesk_client::network::Network,
        scope: &Scope,
        id: &str,
    ) -> Result<Option<PatientSummary>, CommandError> {
        match net.get_patient(id).await? {
            Outcome::Record {
                record: Some(p), ..
            } => Ok(Some(patient_summary(&patient_record(p)))),
            _ => {
                self.forget(scope, RecordKind::Patient, id);
                Ok(None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::searches;

    #[test]
    fn one_word_is_searched_as_a_first_and_a_last_name() {
        let s = searches(" Delg ");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].last.as_deref(), Some("Delg"));
        assert_eq!(s[1].first.as_deref(), Some("Delg"));
    }

    #[test]
    fn several_words_are_a_first_name_then_a_last_name_and_never_a_birth_date() {
        let s = searches("Rosa de la Cruz");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].first.as_deref(), Some("Rosa"));
        assert_eq!(s[0].last.as_deref(), Some("de la Cruz"));
        assert!(s[0].date_of_birth.is_none());
    }
}
