//! How many requests each screen sends to the network, counted by the
//! sandbox's link layer: the commands are called as each screen calls them
//! (`ui/src/components/`), for a patient with one draft and one order. A count
//! that grows means a call was added back; change the pinned number only with
//! a reason.

use crate::support;

use std::collections::BTreeMap;

use rxdesk_lib::ipc::{
    DraftForm, OrderOutcome, PatientInput, PatientOutcome, PatientRecord, PrescriptionOutcome,
    PrescriptionView, Sex,
};
use rxdesk_sandbox::Sandbox;
use rxdesk_sandbox::link::{Latency, LinkSettings, Operation};
use support::*;

/// A patient with one draft and one draft order holding it, the app signed in as Ada.
struct Clinic {
    sandbox: Sandbox,
    app: TestApp,
    patient: PatientRecord,
    draft: PrescriptionView,
    order_id: String,
}

fn amoxicillin() -> DraftForm {
    DraftForm {
        drug_id: Some("med_amoxicillin_500_cap".into()),
        instructions: Some("Take 1 by mouth three times daily.".into()),
        quantity: Some(21.0),
        unit: Some("capsule".into()),
        days_supply: Some(7),
        refills: Some(0),
        ..Default::default()
    }
}

fn clinic() -> Clinic {
    let sandbox = sandbox();
    let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));
    app.sign_in_as(ADA);
    let input = PatientInput {
        first_name: "Rhea".into(),
        last_name: "Roundtrip".into(),
        date_of_birth: "1969-03-14".into(),
        sex: Some(Sex::Female),
        email: None,
        phone: Some("+16175550188".into()),
        middle_name: None,
        gender: None,
        address: None,
        notes: None,
    };
    let patient = match app.invoke_ok(args::save_patient {
        action: None,
        id: None,
        input: input.clone(),
    }) {
        PatientOutcome::Saved { patient, .. } => *patient,
        other => panic!("not added: {other:?}"),
    };
    let draft = new_draft(&app, &patient.id);
    let order_id = match app.invoke_ok(args::draft_order {
        action: None,
        patient_id: patient.id.clone(),
        prescription_ids: vec![draft.id.clone()],
        key: create_key(),
    }) {
        OrderOutcome::Saved { order, .. } => order.id,
        other => panic!("no order: {other:?}"),
    };
    Clinic {
        sandbox,
        app,
        patient,
        draft,
        order_id,
    }
}

fn new_draft(app: &TestApp, patient_id: &str) -> PrescriptionView {
    match app.invoke_ok(args::save_draft {
        action: None,
        patient_id: patient_id.to_owned(),
        id: None,
        key: create_key(),
        form: amoxicillin(),
    }) {
        PrescriptionOutcome::Saved { prescription, .. } => *prescription,
        other => panic!("not saved: {other:?}"),
    }
}

/// Starts counting: the layer counts only while it does something, so every
/// request gets a 1 ms delay (the counters start again at each `set`).
fn count_from_now(sandbox: &Sandbox) {
    let settings = LinkSettings {
        latency: Latency {
            ms: 1,
            jitter_ms: 0,
        },
        ..LinkSettings::default()
    };
    sandbox.link().set(settings).unwrap();
}

/// The requests sent since counting started, by operation (token requests
/// left out: they are the session's, not the screen's).
fn requests(sandbox: &Sandbox) -> BTreeMap<Operation, u64> {
    let mut seen = sandbox.link().counters().requests;
    seen.remove(&Operation::Token);
    seen.retain(|_, n| *n > 0);
    seen
}

#[test]
fn the_work_screen_fetches_each_listed_record_once() {
    let c = clinic();
    count_from_now(&c.sandbox);

    c.app.invoke_ok(args::work_lists { action: None });

    // The patient, the draft and the order: one Get each.
    assert_eq!(requests(&c.sandbox), BTreeMap::from([(Operation::Get, 3)]));
}

#[test]
fn the_patient_page_fetches_the_patient_and_each_of_their_records_once() {
    let c = clinic();
    count_from_now(&c.sandbox);

    // PatientPage.svelte: the patient and their work, side by side.
    c.app.invoke_ok(args::get_patient {
        action: None,
        id: c.patient.id.clone(),
    });
    c.app.invoke_ok(args::patient_work {
        action: None,
        id: c.patient.id.clone(),
    });

    assert_eq!(requests(&c.sandbox), BTreeMap::from([(Operation::Get, 3)]));
}

#[test]
fn a_new_drafts_screening_answer_comes_with_the_draft_in_one_request() {
    let c = clinic();
    count_from_now(&c.sandbox);

    let draft = new_draft(&c.app, &c.patient.id);

    assert_ne!(draft.id, c.draft.id);
    assert_eq!(
        requests(&c.sandbox),
        BTreeMap::from([(Operation::PrescriptionDraft, 1)])
    );
}

#[test]
fn the_order_page_fetches_the_order_and_what_can_be_added_once_each() {
    let c = clinic();
    count_from_now(&c.sandbox);

    // OrderScreen.svelte, opened from the patient: the order and the patient's
    // work, side by side.
    c.app.invoke_ok(args::get_order {
        action: None,
        id: c.order_id.clone(),
    });
    c.app.invoke_ok(args::patient_work {
        action: None,
        id: c.patient.id.clone(),
    });

    assert_eq!(requests(&c.sandbox), BTreeMap::from([(Operation::Get, 3)]));
}

#[test]
fn a_one_word_patient_search_is_two_searches_and_no_more() {
    let c = clinic();
    count_from_now(&c.sandbox);

    c.app.invoke_ok(args::find_patients {
        action: None,
        query: "Roundtrip".into(),
    });

    assert_eq!(
        requests(&c.sandbox),
        BTreeMap::from([(Operation::PatientSync, 2)])
    );
}
