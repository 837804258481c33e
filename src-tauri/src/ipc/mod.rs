//! The shapes that cross the IPC bridge: command arguments and results, the
//! one command error and the events, one file a domain as in `core/workflows/`:
//! `common.rs` ([`CommandError`], change notes and choices), `actions.rs` (one
//! user action on a slow link: its id, its create key, retry events),
//! `vocabulary.rs` (the
//! network's enums as string unions), `session.rs`, `environments.rs`,
//! `patients.rs`, `prescriptions.rs`, `orders.rs`, `lists.rs`, `links.rs`,
//! `updates.rs`. Every type here derives `TS`; `crate::bindings` generates the
//! TypeScript declarations into `ui/src/bindings/ipc.ts` and a test fails when the
//! committed file drifts. Every name is re-exported here: `crate::ipc::Name` is
//! the one path outside this folder.
//!
//! Nothing secret ever appears in these types: the UI learns who is signed in
//! and what they may do, never a token.

mod actions;
mod common;
mod environments;
mod links;
mod lists;
mod orders;
mod patients;
mod prescriptions;
mod session;
mod updates;
mod vocabulary;

pub use actions::*;
pub use common::*;
pub use environments::*;
pub use links::*;
pub use lists::*;
pub use orders::*;
pub use patients::*;
pub use prescriptions::*;
pub use session::*;
pub use updates::*;
pub use vocabulary::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printing_what_crosses_ipc_shows_no_patient_data() {
        let patient = PatientRecord {
            id: "pat_1".into(),
            first_name: "Rosa".into(),
            middle_name: None,
            last_name: "Delgado".into(),
            full_name: "Rosa Delgado".into(),
            date_of_birth: Some("1988-04-17".into()),
            sex: Some(Sex::Female),
            email: Some("rosa.delgado@example.org".into()),
            phone: Some("+16175550142".into()),
            gender: Some("woman".into()),
            address: Some(PatientAddress {
                street1: "12 Elm Street".into(),
                city: "Boston".into(),
                country: "US".into(),
                ..Default::default()
            }),
            benefits: vec![BenefitView {
                id: "ben_1".into(),
                bin: "610014".into(),
                pcn: None,
                group_id: Some("RXGRP77".into()),
                member_id: "M123456".into(),
            }],
            preferred_pharmacy: None,
            notes: Some("Prefers morning calls".into()),
            allergies: vec![ClinicalEntry {
                id: "alg_1".into(),
                name: "Penicillins".into(),
                code: None,
            }],
            medications: Vec::new(),
            diagnoses: Vec::new(),
            link: "rxdesk://patient/pat_1".into(),
        };
        let outcome = PatientOutcome::Saved {
            patient: Box::new(patient),
            notes: Vec::new(),
        };
        let form = DraftForm {
            instructions: Some("One capsule three times daily".into()),
            ..Default::default()
        };

        let benefit = BenefitEdit::Add {
            benefit: BenefitInput {
                bin: "610014".into(),
                member_id: "M123456".into(),
                ..Default::default()
            },
        };

        let printed = format!("{outcome:?} {form:?} {benefit:?}");

        assert!(printed.contains("pat_1"), "{printed}");
        for secret in [
            "Rosa",
            "Delgado",
            "1988",
            "rosa.delgado",
            "5550142",
            "Penicillins",
            "capsule",
            "woman",
            "Elm Street",
            "610014",
            "M123456",
            "RXGRP77",
            "morning calls",
        ] {
            assert!(!printed.contains(secret), "{secret} in {printed}");
        }
    }
}
