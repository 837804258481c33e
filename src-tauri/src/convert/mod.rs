//! Both directions between `rxdesk-client`'s Network API types and the IPC
//! shapes the UI sees, one file a domain as in `crate::ipc` and `core/workflows/`:
//! `common.rs` (errors, changes and choices), `input.rs` (the text checks every
//! form passes), `vocabulary.rs`, `session.rs`, `environments.rs`, `patients.rs`,
//! `prescriptions.rs`, `orders.rs`. No decision is taken here; it only
//! translates. Every function is re-exported here: `crate::convert::name` is the
//! one path outside this folder.

mod common;
mod environments;
mod input;
mod orders;
mod patients;
mod prescriptions;
mod session;
mod vocabulary;

pub use common::*;
pub use environments::*;
pub use input::*;
pub use orders::*;
pub use patients::*;
pub use prescriptions::*;
pub use session::*;
pub use vocabulary::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::*;

    #[test]
    fn a_right_to_left_override_in_a_name_is_refused_naming_the_field() {
        let input = PatientInput {
            first_name: "Ros\u{202E}a".into(),
            last_name: "Delgado".into(),
            date_of_birth: "1988-04-17".into(),
            sex: None,
            email: None,
            phone: None,
            middle_name: None,
            gender: None,
            address: None,
            notes: None,
        };

        let refused = check_patient_input(&input);

        assert!(matches!(
            refused,
            Err(CommandError::Invalid { ref field, ref message, .. })
                if field.as_deref() == Some("firstName") && message.starts_with("First name")
        ));
    }

    #[test]
    fn adding_a_patient_leaves_out_a_blank_middle_name_gender_and_notes() {
        let input = PatientInput {
            first_name: "Rosa".into(),
            last_name: "Delgado".into(),
            date_of_birth: "1988-04-17".into(),
            sex: None,
            email: None,
            phone: None,
            middle_name: Some(" ".into()),
            gender: Some(String::new()),
            address: None,
            notes: Some(String::new()),
        };

        let adding = for_adding(&input);

        let demographic = demographic_input(&adding);
        assert!(demographic.name.and_then(|n| n.middle).is_none());
        assert!(demographic.gender.is_none());
        assert!(notes_input(&adding).is_none());
    }

    #[test]
    fn control_characters_in_a_sig_are_refused_but_line_breaks_are_not() {
        let sig = |s: &str| DraftForm {
            instructions: Some(s.into()),
            ..Default::default()
        };

        assert!(check_draft_form(&sig("Take one\ntablet daily")).is_ok());
        assert!(check_draft_form(&sig("Take one\u{0007} tablet")).is_err());
        assert!(check_draft_form(&sig("Take \u{2067}one\u{2069} tablet")).is_err());
    }

    #[test]
    fn an_untouched_clinical_list_is_not_sent() {
        let edit = ClinicalEdit {
            add_allergies: vec![EntryInput {
                name: Some(" Penicillin ".into()),
                id: None,
                status: None,
            }],
            ..Default::default()
        };
        let input = clinical_input(&edit);
        assert!(input.medications.is_none() && input.diagnoses.is_none());
        let add = input.allergies.and_then(|a| a.add).unwrap_or_default();
        assert_eq!(add.len(), 1);
        assert_eq!(add[0].name.as_deref(), Some("Penicillin"));
    }

    #[test]
    fn a_chosen_option_sends_the_id_and_not_the_name() {
        let edit = ClinicalEdit {
            add_diagnoses: vec![EntryInput {
                name: Some("hypertension".into()),
                id: Some("dx_i10".into()),
                status: None,
            }],
            ..Default::default()
        };
        let add = clinical_input(&edit)
            .diagnoses
            .and_then(|d| d.add)
            .unwrap_or_default();
        assert_eq!(add[0].id.as_ref().map(cynic::Id::inner), Some("dx_i10"));
        assert!(add[0].name.is_none());
    }

    #[test]
    fn no_known_allergies_is_sent_as_none_alone() {
        let edit = ClinicalEdit {
            no_known_allergies: true,
            ..Default::default()
        };
        let allergies = clinical_input(&edit).allergies.unwrap_or_default();
        assert_eq!(allergies.none, Some(true));
        assert!(allergies.add.is_none() && allergies.remove.is_none());
    }

    #[test]
    fn control_characters_in_the_note_to_the_pharmacy_are_refused() {
        let note = |s: &str| DraftForm {
            notes: Some(s.into()),
            ..Default::default()
        };

        assert!(check_draft_form(&note("Blister packs,\nplease")).is_ok());
        assert!(check_draft_form(&note("Blister\u{0007} packs")).is_err());
    }

    #[test]
    fn the_note_and_diagnoses_are_sent_as_clinical_and_dispense_as_written_in_the_dispense() {
        let input = prescription_input(
            None,
            &DraftForm {
                dispense_as_written: Some(true),
                notes: Some(" Blister packs, please. ".into()),
                add_diagnoses: vec![
                    DiagnosisPick {
                        id: Some("dx_E11_9".into()),
                        name: "E11.9 Type 2 diabetes mellitus".into(),
                    },
                    DiagnosisPick {
                        id: None,
                        name: " sore knee ".into(),
                    },
                ],
                remove_diagnoses: vec!["dx_I10".into()],
                ..Default::default()
            },
        );

        assert!(input.dispense.is_some() && input.clinical.is_some());
        let dispense = input.dispense.unwrap_or_default();
        assert_eq!(dispense.dispense_as_written, Some(true));
        assert!(dispense.quantity.is_none());
        let clinical = input.clinical.unwrap_or_default();
        assert_eq!(clinical.notes.as_deref(), Some("Blister packs, please."));
        let patch = clinical.diagnoses.unwrap_or_default();
        let add = patch.add.unwrap_or_default();
        assert_eq!(add[0].id.as_ref().map(cynic::Id::inner), Some("dx_E11_9"));
        assert!(add[0].name.is_none(), "a chosen option sends its id alone");
        assert_eq!(add[1].name.as_deref(), Some("sore knee"));
        let remove = patch.remove.unwrap_or_default();
        assert_eq!(remove[0].id.as_ref().map(cynic::Id::inner), Some("dx_I10"));
        assert!(patch.none.is_none());
    }

    #[test]
    fn a_form_without_note_or_diagnoses_sends_no_clinical_input() {
        let input = prescription_input(
            None,
            &DraftForm {
                notes: Some("   ".into()),
                ..Default::default()
            },
        );
        assert!(input.clinical.is_none());
    }

    #[test]
    fn empty_draft_fields_are_not_sent() {
        let input = prescription_input(
            Some("pat_1"),
            &DraftForm {
                drug_id: Some("med_1".into()),
                instructions: Some("  ".into()),
                ..Default::default()
            },
        );
        assert!(input.instructions.is_none() && input.dispense.is_none());
        assert!(input.treatment.is_some() && input.patient.is_some());
    }
}
