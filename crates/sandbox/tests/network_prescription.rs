//! The Network API's `prescription` upsert (docs/network-api.md, "Prescription"):
//! look-up, drafting (by treatment, by template, continuing a draft in progress,
//! externalIds), dispense rules, screening, and signing (the content hash, who may
//! sign, finality, races).

use crate::network_support;

use network_support::*;
use rxdesk_sandbox::Sandbox;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const DOB: &str = "1980-05-17";

/// A sandbox, Ada's Maple token and a patient of Maple.
async fn setup() -> (Sandbox, String, String) {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    (sb, ada, patient)
}

fn rx(result: &Value) -> &Value {
    let p = prescription_of(result);
    assert!(p.is_object(), "no prescription in {result:#}");
    p
}

fn alerts(result: &Value) -> Vec<Value> {
    rx(result)["screeningAlerts"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn involved_ids(alert: &Value) -> Vec<String> {
    ids_of(&alert["involvedEntities"])
}

// ------------------------------------------------------------------ look-up

#[tokio::test]
async fn a_look_up_by_name_lists_the_matching_drugs_as_options_and_creates_nothing() {
    let (sb, ada, _) = setup().await;

    let r = prescription(&sb, &ada, json!({ "treatment": { "name": "ibuprofen" } })).await;

    assert!(prescription_of(&r).is_null(), "{r:#}");
    let c = change(&r, "treatment");
    assert_eq!(
        (&c["status"], &c["severity"]),
        (&json!("AMBIGUOUS"), &json!("INFO")),
        "{c:#}"
    );
    let mut values = option_values(&c);
    values.sort();
    assert_eq!(values, sorted(&[IBUPROFEN_400, IBUPROFEN_800]));
    for option in c["options"].as_array().unwrap() {
        assert_eq!(option["argument"], "treatment.id", "{option:#}");
        assert_eq!(option["operation"], "prescription", "{option:#}");
    }
}

#[tokio::test]
async fn a_look_up_by_the_exact_full_name_gives_a_single_exact_name_match() {
    let (sb, ada, _) = setup().await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "treatment": { "name": IBUPROFEN_400_NAME } }),
    )
    .await;

    assert!(prescription_of(&r).is_null(), "{r:#}");
    let c = change(&r, "treatment");
    let options = c["options"].as_array().unwrap();
    assert_eq!(options.len(), 1, "{c:#}");
    assert_eq!(options[0]["value"], IBUPROFEN_400);
    assert_eq!(
        options[0]["match"]["matchType"], "EXACT_NAME_MATCH",
        "{c:#}"
    );
}

#[tokio::test]
async fn a_look_up_that_fits_nothing_is_rejected() {
    let (sb, ada, _) = setup().await;

    let r = prescription(&sb, &ada, json!({ "treatment": { "name": "unobtainium" } })).await;

    assert!(prescription_of(&r).is_null(), "{r:#}");
    assert_eq!(change(&r, "treatment")["status"], "REJECTED", "{r:#}");
}

// ------------------------------------------------------------------ diagnosis look-up

fn diagnosis_look_up(entry: Value) -> Value {
    json!({ "clinical": { "diagnoses": { "add": [entry] } } })
}

#[tokio::test]
async fn a_diagnosis_look_up_by_name_lists_the_icd10_matches_as_options_and_creates_nothing() {
    let (sb, ada, patient) = setup().await;

    let r = prescription(&sb, &ada, diagnosis_look_up(json!({ "name": "diabetes" }))).await;

    assert!(prescription_of(&r).is_null(), "{r:#}");
    let c = change(&r, "clinical.diagnoses.add.0");
    assert_eq!(
        (&c["status"], &c["severity"]),
        (&json!("AMBIGUOUS"), &json!("INFO")),
        "{c:#}"
    );
    let mut values = option_values(&c);
    values.sort();
    assert_eq!(values, sorted(&["dx_E11_65", "dx_E11_9"]));
    for option in c["options"].as_array().unwrap() {
        assert_eq!(
            option["argument"], "clinical.diagnoses.add.0.id",
            "{option:#}"
        );
        assert_eq!(option["operation"], "prescription", "{option:#}");
    }
    let names: Vec<&str> = c["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o["displayName"].as_str())
        .collect();
    assert!(
        names.contains(&"E11.9 Type 2 diabetes mellitus without complications"),
        "code and name in each option: {names:?}"
    );
    let drafts = prescription(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "treatment": { "id": METFORMIN } }),
    )
    .await;
    assert!(
        rx(&drafts)["clinical"]["diagnoses"]
            .as_array()
            .unwrap()
            .is_empty(),
        "the look-up added nothing anywhere: {drafts:#}"
    );
}

#[tokio::test]
async fn a_diagnosis_look_up_by_the_start_of_a_code_finds_the_codes_under_it() {
    let (sb, ada, _) = setup().await;

    let r = prescription(&sb, &ada, diagnosis_look_up(json!({ "name": "e11" }))).await;

    let mut values = option_values(&change(&r, "clinical.diagnoses.add.0"));
    values.sort();
    assert_eq!(values, sorted(&["dx_E11_65", "dx_E11_9"]), "{r:#}");
}

#[tokio::test]
async fn a_diagnosis_look_up_that_fits_nothing_is_rejected() {
    let (sb, ada, _) = setup().await;

    let r = prescription(&sb, &ada, diagnosis_look_up(json!({ "name": "dragonpox" }))).await;

    assert!(prescription_of(&r).is_null(), "{r:#}");
    assert_eq!(
        change(&r, "clinical.diagnoses.add.0")["status"],
        "REJECTED",
        "{r:#}"
    );
}

#[tokio::test]
async fn a_looked_up_diagnosis_answered_by_its_option_is_on_the_draft() {
    let (sb, ada, patient) = setup().await;
    let looked = prescription(
        &sb,
        &ada,
        diagnosis_look_up(json!({ "name": "hypertension" })),
    )
    .await;
    let values = option_values(&change(&looked, "clinical.diagnoses.add.0"));
    assert_eq!(values, vec!["dx_I10".to_owned()], "{looked:#}");

    let mut input = draft_input(&patient, METFORMIN);
    input["clinical"] = json!({ "diagnoses": { "add": [{ "id": values[0] }] } });
    let r = prescription(&sb, &ada, input).await;

    assert_eq!(
        rx(&r)["clinical"]["diagnoses"][0]["icd10Code"],
        "I10",
        "{r:#}"
    );
}

// ------------------------------------------------------------------ drafting

#[tokio::test]
async fn a_draft_by_treatment_id_is_a_new_unsigned_prescription() {
    let (sb, ada, patient) = setup().await;

    let r = prescription(&sb, &ada, draft_input(&patient, METFORMIN)).await;

    let p = rx(&r);
    assert!(p["id"].as_str().unwrap().starts_with("rx_"), "{r:#}");
    assert_eq!(p["patient"]["id"], patient.as_str());
    assert_eq!(p["treatment"]["id"], METFORMIN);
    assert_eq!(
        p["treatment"]["name"],
        "Metformin Hydrochloride 500 MG Oral Tablet"
    );
    assert_eq!(p["instructions"], INSTRUCTIONS);
    assert_eq!(p["dispense"]["quantity"].as_f64(), Some(30.0));
    assert_eq!(p["signing"]["state"], "UNSIGNED");
    let hash = p["signing"]["contentHash"].as_str().unwrap();
    assert!(
        hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
        "{hash}"
    );
}

#[tokio::test]
async fn a_draft_by_rxnorm_id_resolves_the_catalog_drug() {
    let (sb, ada, patient) = setup().await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "treatment": { "rxNormId": METFORMIN_RXNORM } }),
    )
    .await;

    assert_eq!(rx(&r)["treatment"]["id"], METFORMIN, "{r:#}");
    assert_eq!(rx(&r)["treatment"]["rxNormId"], METFORMIN_RXNORM);
}

#[tokio::test]
async fn a_draft_may_be_incomplete() {
    let (sb, ada, patient) = setup().await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "treatment": { "id": METFORMIN } }),
    )
    .await;

    assert!(rx(&r)["id"].is_string(), "{r:#}");
    assert!(!has_blocking(&r), "{r:#}");
    assert_eq!(rx(&r)["instructions"], Value::Null);
}

#[tokio::test]
async fn a_treatment_named_two_ways_is_rejected() {
    let (sb, ada, patient) = setup().await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "treatment": { "id": METFORMIN, "rxNormId": METFORMIN_RXNORM } }),
    )
    .await;

    assert!(prescription_of(&r).is_null(), "{r:#}");
    let rejected = unapplied_under(&r, "treatment");
    assert!(rejected.iter().any(|c| c["status"] == "REJECTED"), "{r:#}");
}

#[tokio::test]
async fn a_draft_from_a_template_takes_its_drug_sig_and_dispense() {
    let (sb, ada, patient) = setup().await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "templateId": MAPLE_TEMPLATE }),
    )
    .await;

    let p = rx(&r);
    assert_eq!(p["templateId"], MAPLE_TEMPLATE, "{r:#}");
    assert_eq!(p["treatment"]["id"], METFORMIN);
    assert_eq!(
        p["instructions"],
        "Take 1 tablet by mouth twice daily with meals."
    );
    assert_eq!(
        (
            p["dispense"]["quantity"].as_f64(),
            &p["dispense"]["unit"],
            &p["dispense"]["daysSupply"],
            &p["dispense"]["refillsAllowed"]
        ),
        (Some(60.0), &json!("tablet"), &json!(30), &json!(2)),
        "{p:#}"
    );
}

#[tokio::test]
async fn fields_sent_beside_a_template_win() {
    let (sb, ada, patient) = setup().await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "templateId": MAPLE_TEMPLATE,
                "instructions": "Take 1 tablet by mouth once daily with dinner." }),
    )
    .await;

    assert_eq!(
        rx(&r)["instructions"],
        "Take 1 tablet by mouth once daily with dinner.",
        "{r:#}"
    );
    assert_eq!(rx(&r)["dispense"]["quantity"].as_f64(), Some(60.0));
}

#[tokio::test]
async fn another_organizations_template_is_not_one_of_ours() {
    let (sb, ada, patient) = setup().await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "templateId": BIRCH_TEMPLATE }),
    )
    .await;

    assert!(prescription_of(&r).is_null(), "{r:#}");
    assert_eq!(unapplied(&r, "templateId")["status"], "REJECTED");
}

#[tokio::test]
async fn an_ambiguous_treatment_name_on_a_draft_blocks_with_options_and_saves_nothing() {
    let (sb, ada, patient) = setup().await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "treatment": { "name": "ibuprofen" }, "instructions": INSTRUCTIONS }),
    )
    .await;

    assert!(prescription_of(&r).is_null(), "{r:#}");
    let c = unapplied(&r, "treatment");
    assert_eq!(
        (&c["status"], &c["severity"], &c["category"]),
        (
            &json!("AMBIGUOUS"),
            &json!("BLOCKING"),
            &json!("DISAMBIGUATION")
        ),
        "{c:#}"
    );
    let mut values = option_values(&c);
    values.sort();
    assert_eq!(values, sorted(&[IBUPROFEN_400, IBUPROFEN_800]));
    for option in c["options"].as_array().unwrap() {
        assert_eq!(option["argument"], "treatment.id", "{option:#}");
    }
}

#[tokio::test]
async fn answering_a_treatment_choice_with_its_option_drafts_that_drug() {
    let (sb, ada, patient) = setup().await;
    let first = prescription(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "treatment": { "name": "ibuprofen" } }),
    )
    .await;
    let option = unapplied(&first, "treatment")["options"][0].clone();

    let r = prescription(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "treatment": { "id": option["value"] } }),
    )
    .await;

    assert_eq!(rx(&r)["treatment"]["id"], option["value"], "{r:#}");
}

#[tokio::test]
async fn a_second_draft_of_the_same_drug_for_the_patient_continues_the_first() {
    let (sb, ada, patient) = setup().await;
    let (first, _) = draft(&sb, &ada, &patient, METFORMIN).await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "treatment": { "id": METFORMIN },
                "instructions": "Take 2 tablets by mouth daily." }),
    )
    .await;

    assert_eq!(rx(&r)["id"], first.as_str(), "{r:#}");
    assert_eq!(rx(&r)["instructions"], "Take 2 tablets by mouth daily.");
    assert_eq!(
        rx(&r)["dispense"]["quantity"].as_f64(),
        Some(30.0),
        "only what was sent changed"
    );
}

#[tokio::test]
async fn a_draft_of_another_drug_for_the_patient_is_a_new_prescription() {
    let (sb, ada, patient) = setup().await;
    let (first, _) = draft(&sb, &ada, &patient, METFORMIN).await;

    let (second, _) = draft(&sb, &ada, &patient, ACETAMINOPHEN).await;

    assert_ne!(first, second);
}

#[tokio::test]
async fn a_draft_sync_with_two_drafts_in_progress_of_that_drug_is_ambiguous() {
    let (sb, ada, patient) = setup().await;
    let (a, _) = draft(&sb, &ada, &patient, METFORMIN).await;
    let (b, _) = draft(&sb, &ada, &patient, ACETAMINOPHEN).await;
    let switched = prescription(
        &sb,
        &ada,
        json!({ "id": b, "treatment": { "id": METFORMIN } }),
    )
    .await;
    assert_eq!(rx(&switched)["treatment"]["id"], METFORMIN, "{switched:#}");

    let r = prescription(&sb, &ada, draft_input(&patient, METFORMIN)).await;

    assert_eq!(r["__typename"], "AmbiguousPrescriptionMatch", "{r:#}");
    assert_eq!(candidate_ids(&r), sorted(&[&a, &b]));
    assert!(!r["reason"].as_str().unwrap_or_default().is_empty());
}

#[tokio::test]
async fn a_signed_prescription_is_not_a_draft_in_progress() {
    let (sb, ada, patient) = setup().await;
    let signed_id = signed(&sb, &ada, &patient, METFORMIN).await;

    let (next, _) = draft(&sb, &ada, &patient, METFORMIN).await;

    assert_ne!(next, signed_id);
}

#[tokio::test]
async fn an_external_id_used_again_returns_that_prescription_unchanged() {
    let (sb, ada, patient) = setup().await;
    let mut input = draft_input(&patient, METFORMIN);
    input["externalId"] = json!("ehr-rx-1");
    let (first, _) = draft_with(&sb, &ada, input.clone()).await;
    input["instructions"] = json!("Something else entirely.");
    input["treatment"] = json!({ "id": ACETAMINOPHEN });

    let r = prescription(&sb, &ada, input).await;

    assert_eq!(rx(&r)["id"], first.as_str(), "{r:#}");
    assert_eq!(rx(&r)["instructions"], INSTRUCTIONS);
    assert_eq!(rx(&r)["treatment"]["id"], METFORMIN);
}

#[tokio::test]
async fn an_external_id_used_again_for_another_patient_is_refused_and_saves_nothing() {
    let (sb, ada, patient) = setup().await;
    let other = add_patient(&sb, &ada, "Katherine", "Johnson", "1978-08-26").await;
    let mut input = draft_input(&patient, METFORMIN);
    input["externalId"] = json!("ehr-rx-shared");
    draft_with(&sb, &ada, input).await;
    let mut reused = draft_input(&other, METFORMIN);
    reused["externalId"] = json!("ehr-rx-shared");

    let r = prescription(&sb, &ada, reused).await;

    assert!(prescription_of(&r).is_null(), "no record answered: {r:#}");
    let refused = unapplied(&r, "externalId");
    assert_eq!(refused["status"], "REJECTED", "{r:#}");
    assert!(
        refused["reason"]
            .as_str()
            .unwrap()
            .contains("another patient"),
        "{refused:#}"
    );
    // Nothing saved: the other patient has no draft of it in progress, so
    // the next Sync makes a new one.
    let next = prescription(&sb, &ada, draft_input(&other, METFORMIN)).await;
    assert_eq!(
        applied(&next, "treatment")["operation"],
        "ADDED",
        "{next:#}"
    );
}

#[tokio::test]
async fn an_external_id_used_again_for_the_same_patient_still_answers_the_first_prescription() {
    let (sb, ada, patient) = setup().await;
    let mut input = draft_input(&patient, METFORMIN);
    input["externalId"] = json!("ehr-rx-same");
    let (first, _) = draft_with(&sb, &ada, input.clone()).await;

    let r = prescription(&sb, &ada, input).await;

    assert_eq!(rx(&r)["id"], first.as_str(), "{r:#}");
    assert!(changes(&r).is_empty(), "{r:#}");
}

#[tokio::test]
async fn eight_concurrent_drafts_with_one_external_id_make_one_prescription() {
    let (sb, ada, patient) = setup().await;
    let mut input = draft_input(&patient, METFORMIN);
    input["externalId"] = json!("ehr-rx-race");

    let answers =
        futures::future::join_all((0..8).map(|_| prescription(&sb, &ada, input.clone()))).await;

    let ids: Vec<&Value> = answers.iter().map(|r| &rx(r)["id"]).collect();
    assert!(ids[0].is_string(), "{answers:#?}");
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
}

#[tokio::test]
async fn a_machine_token_drafts_prescriptions() {
    let (sb, _, patient) = setup().await;
    let machine = machine(&sb).await;

    let r = prescription(&sb, &machine, draft_input(&patient, METFORMIN)).await;

    assert_eq!(rx(&r)["signing"]["state"], "UNSIGNED", "{r:#}");
}

#[tokio::test]
async fn an_update_changes_only_the_fields_sent() {
    let (sb, ada, patient) = setup().await;
    let (id, _) = draft(&sb, &ada, &patient, METFORMIN).await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "id": id, "dispense": { "refillsAllowed": 3 } }),
    )
    .await;

    assert_eq!(rx(&r)["dispense"]["refillsAllowed"], 3, "{r:#}");
    assert_eq!(rx(&r)["dispense"]["quantity"].as_f64(), Some(30.0));
    assert_eq!(rx(&r)["instructions"], INSTRUCTIONS);
}

// ------------------------------------------------------------------ dispense

async fn dispense_answer(dispense: Value) -> Value {
    let (sb, ada, patient) = setup().await;
    prescription(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "treatment": { "id": METFORMIN }, "dispense": dispense }),
    )
    .await
}

fn assert_invalid(r: &Value, key: &str) {
    assert!(prescription_of(r).is_null(), "{r:#}");
    let c = unapplied(r, key);
    assert_eq!(
        (&c["status"], &c["severity"], &c["category"]),
        (
            &json!("REJECTED"),
            &json!("BLOCKING"),
            &json!("INVALID_INPUT")
        ),
        "{c:#}"
    );
}

#[tokio::test]
async fn a_dispense_quantity_of_zero_is_rejected() {
    let r = dispense_answer(json!({ "quantity": 0, "unit": "tablet" })).await;
    assert_invalid(&r, "dispense.quantity");
}

#[tokio::test]
async fn a_days_supply_of_zero_is_rejected() {
    let r = dispense_answer(json!({ "quantity": 30, "daysSupply": 0 })).await;
    assert_invalid(&r, "dispense.daysSupply");
}

#[tokio::test]
async fn a_days_supply_over_365_is_rejected() {
    let r = dispense_answer(json!({ "quantity": 30, "daysSupply": 366 })).await;
    assert_invalid(&r, "dispense.daysSupply");
}

#[tokio::test]
async fn more_than_eleven_refills_are_rejected() {
    let r = dispense_answer(json!({ "quantity": 30, "refillsAllowed": 12 })).await;
    assert_invalid(&r, "dispense.refillsAllowed");
}

#[tokio::test]
async fn the_dispense_limits_themselves_are_accepted() {
    let r =
        dispense_answer(json!({ "quantity": 0.5, "daysSupply": 365, "refillsAllowed": 11 })).await;

    assert!(!has_blocking(&r), "{r:#}");
    assert_eq!(rx(&r)["dispense"]["daysSupply"], 365);
    assert_eq!(rx(&r)["dispense"]["refillsAllowed"], 11);
}

// ------------------------------------------------------------------ screening

#[tokio::test]
async fn a_clean_draft_is_ready_without_alerts() {
    let (sb, ada, patient) = setup().await;

    let r = prescription(&sb, &ada, draft_input(&patient, METFORMIN)).await;

    assert_eq!(rx(&r)["status"], "READY", "{r:#}");
    assert!(alerts(&r).is_empty(), "{r:#}");
}

#[tokio::test]
async fn a_drug_the_patient_is_allergic_to_is_blocked_with_an_allergen_alert_and_the_alternative() {
    let (sb, ada, patient) = setup().await;
    update_clinical(
        &sb,
        &ada,
        &patient,
        json!({ "allergies": { "add": [{ "id": ALG_PENICILLIN }] } }),
    )
    .await;

    let r = prescription(&sb, &ada, draft_input(&patient, AMOXICILLIN)).await;

    assert_eq!(rx(&r)["status"], "BLOCKED", "{r:#}");
    let alert = alerts(&r)
        .into_iter()
        .find(|a| a["type"] == "ALLERGEN")
        .unwrap_or_else(|| panic!("no ALLERGEN alert in {r:#}"));
    assert_eq!(alert["category"], "SAFETY");
    assert!(!alert["description"].as_str().unwrap_or_default().is_empty());
    assert_eq!(
        involved_ids(&alert),
        sorted(&[ALG_PENICILLIN, AMOXICILLIN]),
        "{alert:#}"
    );
    assert!(
        option_values(&alert).contains(&AZITHROMYCIN.to_owned()),
        "{alert:#}"
    );
}

#[tokio::test]
async fn a_major_drug_interaction_with_an_active_medication_is_blocked() {
    let (sb, ada, patient) = setup().await;
    update_clinical(
        &sb,
        &ada,
        &patient,
        json!({ "medications": { "add": [{ "id": SPIRONOLACTONE, "status": "ACTIVE" }] } }),
    )
    .await;

    let r = prescription(&sb, &ada, draft_input(&patient, LISINOPRIL)).await;

    assert_eq!(rx(&r)["status"], "BLOCKED", "{r:#}");
    let alert = &alerts(&r)[0];
    assert_eq!(
        (&alert["type"], &alert["severity"]),
        (&json!("DRUG"), &json!("MAJOR")),
        "{alert:#}"
    );
    assert_eq!(
        involved_ids(alert),
        sorted(&[LISINOPRIL, SPIRONOLACTONE]),
        "{alert:#}"
    );
}

#[tokio::test]
async fn an_interaction_with_a_historical_medication_is_not_screened() {
    let (sb, ada, patient) = setup().await;
    update_clinical(
        &sb,
        &ada,
        &patient,
        json!({ "medications": { "add": [{ "id": SPIRONOLACTONE, "status": "HISTORICAL" }] } }),
    )
    .await;

    let r = prescription(&sb, &ada, draft_input(&patient, LISINOPRIL)).await;

    assert_eq!(rx(&r)["status"], "READY", "{r:#}");
}

#[tokio::test]
async fn a_minor_drug_interaction_is_a_warning() {
    let (sb, ada, patient) = setup().await;
    update_clinical(
        &sb,
        &ada,
        &patient,
        json!({ "medications": { "add": [{ "id": SERTRALINE, "status": "ACTIVE" }] } }),
    )
    .await;

    let r = prescription(&sb, &ada, draft_input(&patient, SUMATRIPTAN)).await;

    assert_eq!(rx(&r)["status"], "WARNING", "{r:#}");
    let alert = &alerts(&r)[0];
    assert_eq!(
        (&alert["type"], &alert["severity"]),
        (&json!("DRUG"), &json!("MINOR")),
        "{alert:#}"
    );
}

#[tokio::test]
async fn a_condition_on_the_patients_record_blocks_by_icd10_prefix() {
    let (sb, ada, patient) = setup().await;
    update_clinical(
        &sb,
        &ada,
        &patient,
        json!({ "diagnoses": { "add": [{ "icd10Code": "N18.30" }] } }),
    )
    .await;

    let r = prescription(&sb, &ada, draft_input(&patient, IBUPROFEN_400)).await;

    assert_eq!(rx(&r)["status"], "BLOCKED", "{r:#}");
    let alert = &alerts(&r)[0];
    assert_eq!(
        (&alert["type"], &alert["severity"]),
        (&json!("CONDITION"), &json!("MODERATE")),
        "{alert:#}"
    );
}

#[tokio::test]
async fn a_condition_among_the_prescriptions_own_diagnoses_is_screened_too() {
    let (sb, ada, patient) = setup().await;
    let mut input = draft_input(&patient, IBUPROFEN_400);
    input["clinical"] = json!({ "diagnoses": { "add": [{ "icd10Code": "N18.30" }] } });

    let r = prescription(&sb, &ada, input).await;

    assert_eq!(rx(&r)["status"], "BLOCKED", "{r:#}");
    assert_eq!(alerts(&r)[0]["type"], "CONDITION");
}

#[tokio::test]
async fn screening_reads_the_patients_record_as_it_is_now() {
    let (sb, ada, patient) = setup().await;
    let (id, _) = draft(&sb, &ada, &patient, IBUPROFEN_400).await;
    update_clinical(
        &sb,
        &ada,
        &patient,
        json!({ "allergies": { "add": [{ "id": ALG_NSAID }] } }),
    )
    .await;

    let r = get_prescription(&sb, &ada, &id).await;

    assert_eq!(rx(&r)["status"], "BLOCKED", "{r:#}");
    assert!(alerts(&r).iter().any(|a| a["type"] == "ALLERGEN"), "{r:#}");
}

// ------------------------------------------------------------------ signing

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn the_content_hash_is_the_sha256_of_the_canonical_json() {
    let (sb, ada, patient) = setup().await;

    let (_, hash) = draft(&sb, &ada, &patient, METFORMIN).await;

    // Quantity is a Float: accept it written as `30` or `30.0`.
    let canonical = |quantity: &str| {
        format!(
            r#"{{"dispense":{{"daysSupply":30,"dispenseAsWritten":false,"quantity":{quantity},"refillsAllowed":1,"unit":"tablet"}},"instructions":{},"treatment":"{METFORMIN}"}}"#,
            json!(INSTRUCTIONS)
        )
    };
    let candidates: Vec<String> = ["30", "30.0"]
        .iter()
        .map(|q| hex(&Sha256::digest(canonical(q).as_bytes())))
        .collect();
    assert!(
        candidates.contains(&hash),
        "{hash} is none of {candidates:?} ({})",
        canonical("30")
    );
}

#[tokio::test]
async fn the_content_hash_covers_the_sig_but_not_the_notes() {
    let (sb, ada, patient) = setup().await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;

    let noted = prescription(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "notes": "Discussed side effects." } }),
    )
    .await;
    let resigned = prescription(
        &sb,
        &ada,
        json!({ "id": id, "instructions": "Take 2 tablets by mouth daily." }),
    )
    .await;

    assert_eq!(
        rx(&noted)["signing"]["contentHash"],
        hash.as_str(),
        "{noted:#}"
    );
    assert_ne!(
        rx(&resigned)["signing"]["contentHash"],
        hash.as_str(),
        "{resigned:#}"
    );
}

#[tokio::test]
async fn the_content_hash_covers_dispense_as_written() {
    let (sb, ada, patient) = setup().await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "id": id, "dispense": { "dispenseAsWritten": true } }),
    )
    .await;

    assert_eq!(rx(&r)["dispense"]["dispenseAsWritten"], true, "{r:#}");
    assert_ne!(rx(&r)["signing"]["contentHash"], hash.as_str(), "{r:#}");
}

#[tokio::test]
async fn the_content_hash_leaves_out_the_diagnoses() {
    let (sb, ada, patient) = setup().await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "diagnoses": { "add": [{ "icd10Code": "E11.9" }] } } }),
    )
    .await;

    assert_eq!(
        rx(&r)["clinical"]["diagnoses"][0]["icd10Code"],
        "E11.9",
        "{r:#}"
    );
    assert_eq!(rx(&r)["signing"]["contentHash"], hash.as_str(), "{r:#}");
}

#[tokio::test]
async fn signing_with_the_current_hash_signs() {
    let (sb, ada, patient) = setup().await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;

    let r = sign(&sb, &ada, &id, &hash).await;

    assert_eq!(rx(&r)["signing"]["state"], "SIGNED", "{r:#}");
    assert!(rx(&r)["signing"]["signedAt"].is_string(), "{r:#}");
    assert!(
        r["unappliedChanges"].as_array().unwrap().is_empty(),
        "{r:#}"
    );
    let got = get_prescription(&sb, &ada, &id).await;
    assert_eq!(rx(&got)["signing"]["state"], "SIGNED");
}

#[tokio::test]
async fn signing_with_another_hash_is_an_invalidated_sign_and_leaves_it_unsigned() {
    let (sb, ada, patient) = setup().await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;

    let r = sign(&sb, &ada, &id, &"0".repeat(64)).await;

    assert_eq!(rx(&r)["signing"]["state"], "INVALIDATED_SIGN", "{r:#}");
    assert_eq!(rx(&r)["signing"]["contentHash"], hash.as_str());
    let c = unapplied(&r, "signing.signedHash");
    assert_eq!(
        (&c["status"], &c["category"]),
        (&json!("REJECTED"), &json!("CONFIRMATION_REQUIRED")),
        "{c:#}"
    );
    let got = get_prescription(&sb, &ada, &id).await;
    assert_eq!(rx(&got)["signing"]["state"], "UNSIGNED", "{got:#}");
}

#[tokio::test]
async fn a_hash_read_before_an_edit_no_longer_signs() {
    let (sb, ada, patient) = setup().await;
    let (id, stale) = draft(&sb, &ada, &patient, METFORMIN).await;
    let edited = prescription(
        &sb,
        &ada,
        json!({ "id": id, "dispense": { "quantity": 90 } }),
    )
    .await;
    let current = rx(&edited)["signing"]["contentHash"]
        .as_str()
        .unwrap()
        .to_owned();

    let r = sign(&sb, &ada, &id, &stale).await;

    assert_eq!(rx(&r)["signing"]["state"], "INVALIDATED_SIGN", "{r:#}");
    assert_eq!(rx(&r)["signing"]["contentHash"], current.as_str());
    assert_eq!(
        rx(&r)["dispense"]["quantity"].as_f64(),
        Some(90.0),
        "the answer shows the new content"
    );
}

#[tokio::test]
async fn signing_beside_another_field_is_rejected_and_signs_nothing() {
    let (sb, ada, patient) = setup().await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "id": id, "instructions": "Take 2 tablets by mouth daily.", "signing": { "signedHash": hash } }),
    )
    .await;

    let rejected = unapplied_under(&r, "signing");
    assert!(rejected.iter().any(|c| c["status"] == "REJECTED"), "{r:#}");
    let got = get_prescription(&sb, &ada, &id).await;
    assert_eq!(rx(&got)["signing"]["state"], "UNSIGNED", "{got:#}");
    assert_eq!(rx(&got)["instructions"], INSTRUCTIONS);
}

#[tokio::test]
async fn a_blocked_draft_cannot_be_signed() {
    let (sb, ada, patient) = setup().await;
    update_clinical(
        &sb,
        &ada,
        &patient,
        json!({ "allergies": { "add": [{ "id": ALG_PENICILLIN }] } }),
    )
    .await;
    let drafted = prescription(&sb, &ada, draft_input(&patient, AMOXICILLIN)).await;
    let id = rx(&drafted)["id"].as_str().unwrap().to_owned();
    let hash = rx(&drafted)["signing"]["contentHash"]
        .as_str()
        .unwrap()
        .to_owned();

    let r = sign(&sb, &ada, &id, &hash).await;

    let refusals: Vec<Value> = r["unappliedChanges"].as_array().unwrap().clone();
    assert!(
        refusals
            .iter()
            .any(|c| c["status"] == "REJECTED" && c["category"] == "SAFETY"),
        "{r:#}"
    );
    let got = get_prescription(&sb, &ada, &id).await;
    assert_eq!(rx(&got)["signing"]["state"], "UNSIGNED", "{got:#}");
}

#[tokio::test]
async fn a_warning_draft_can_be_signed() {
    let (sb, ada, patient) = setup().await;
    update_clinical(
        &sb,
        &ada,
        &patient,
        json!({ "medications": { "add": [{ "id": SERTRALINE, "status": "ACTIVE" }] } }),
    )
    .await;
    let drafted = prescription(&sb, &ada, draft_input(&patient, SUMATRIPTAN)).await;
    assert_eq!(rx(&drafted)["status"], "WARNING", "{drafted:#}");
    let id = rx(&drafted)["id"].as_str().unwrap().to_owned();
    let hash = rx(&drafted)["signing"]["contentHash"]
        .as_str()
        .unwrap()
        .to_owned();

    let r = sign(&sb, &ada, &id, &hash).await;

    assert_eq!(rx(&r)["signing"]["state"], "SIGNED", "{r:#}");
}

#[tokio::test]
async fn a_draft_without_instructions_cannot_be_signed() {
    let (sb, ada, patient) = setup().await;
    let (id, hash) = draft_with(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "treatment": { "id": METFORMIN }, "dispense": dispense() }),
    )
    .await;

    let r = sign(&sb, &ada, &id, &hash).await;

    assert!(
        r["unappliedChanges"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["status"] == "REJECTED"),
        "{r:#}"
    );
    let got = get_prescription(&sb, &ada, &id).await;
    assert_eq!(rx(&got)["signing"]["state"], "UNSIGNED", "{got:#}");
}

#[tokio::test]
async fn a_draft_without_a_dispense_quantity_cannot_be_signed() {
    let (sb, ada, patient) = setup().await;
    let (id, hash) = draft_with(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "treatment": { "id": METFORMIN }, "instructions": INSTRUCTIONS }),
    )
    .await;

    let r = sign(&sb, &ada, &id, &hash).await;

    assert!(
        r["unappliedChanges"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["status"] == "REJECTED"),
        "{r:#}"
    );
    let got = get_prescription(&sb, &ada, &id).await;
    assert_eq!(rx(&got)["signing"]["state"], "UNSIGNED", "{got:#}");
}

#[tokio::test]
async fn a_signed_prescription_refuses_any_change() {
    let (sb, ada, patient) = setup().await;
    let id = signed(&sb, &ada, &patient, METFORMIN).await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "id": id, "instructions": "Take 2 tablets by mouth daily." }),
    )
    .await;

    let c = unapplied(&r, "instructions");
    assert_eq!(c["status"], "REJECTED", "{c:#}");
    let got = get_prescription(&sb, &ada, &id).await;
    assert_eq!(rx(&got)["instructions"], INSTRUCTIONS);
    assert_eq!(rx(&got)["signing"]["state"], "SIGNED");
}

fn assert_signing_refused(r: &Value) {
    assert_eq!(r["__typename"], "UnauthorizedError", "{r:#}");
    assert_eq!(r["code"], "PRESCRIPTION_SIGNING_UNAUTHORIZED");
    assert_eq!(r["requiredPermission"], "write:prescription");
    assert!(!r["message"].as_str().unwrap_or_default().is_empty());
}

#[tokio::test]
async fn a_machine_token_is_refused_signing_with_the_same_answer_twice() {
    let (sb, ada, patient) = setup().await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;
    let machine = machine(&sb).await;

    let first = sign(&sb, &machine, &id, &hash).await;
    let second = sign(&sb, &machine, &id, &hash).await;

    assert_signing_refused(&first);
    assert_eq!(first, second);
    let got = get_prescription(&sb, &ada, &id).await;
    assert_eq!(rx(&got)["signing"]["state"], "UNSIGNED");
}

#[tokio::test]
async fn a_medical_ops_token_is_refused_signing_with_the_same_answer_twice() {
    let (sb, ada, patient) = setup().await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;
    let mo = medical_ops(&sb).await;

    let first = sign(&sb, &mo, &id, &hash).await;
    let second = sign(&sb, &mo, &id, &hash).await;

    assert_signing_refused(&first);
    assert_eq!(first, second);
    let got = get_prescription(&sb, &ada, &id).await;
    assert_eq!(rx(&got)["signing"]["state"], "UNSIGNED");
}

#[tokio::test]
async fn permission_is_checked_before_the_id_is_looked_up() {
    let (sb, ada, patient) = setup().await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;
    let machine = machine(&sb).await;

    let known = sign(&sb, &machine, &id, &hash).await;
    let unknown = sign(&sb, &machine, UNKNOWN_PRESCRIPTION, &hash).await;

    assert_signing_refused(&unknown);
    assert_eq!(known, unknown);
}

#[tokio::test]
async fn twenty_concurrent_signings_of_one_draft_sign_it_once() {
    let (sb, ada, patient) = setup().await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;

    let answers = futures::future::join_all((0..20).map(|_| sign(&sb, &ada, &id, &hash))).await;

    // One applies the signature; the others find it signed by the same
    // prescriber with the same hash: the prescription as it is, no change.
    let signings: Vec<&Value> = answers
        .iter()
        .filter(|r| {
            r["appliedChanges"]
                .as_array()
                .is_some_and(|c| !c.is_empty())
        })
        .collect();
    assert_eq!(signings.len(), 1, "{answers:#?}");
    assert!(
        answers
            .iter()
            .all(|r| rx(r)["signing"]["state"] == "SIGNED" && !has_blocking(r)),
        "{answers:#?}"
    );
    let got = get_prescription(&sb, &ada, &id).await;
    assert_eq!(rx(&got)["signing"]["state"], "SIGNED");
    assert_eq!(
        rx(&got)["signing"]["signedAt"],
        rx(signings[0])["signing"]["signedAt"]
    );
}

#[tokio::test]
async fn a_look_up_by_rxnorm_id_gives_a_single_rxnorm_code_match() {
    let (sb, ada, _) = setup().await;

    let r = prescription(
        &sb,
        &ada,
        json!({ "treatment": { "rxNormId": METFORMIN_RXNORM } }),
    )
    .await;

    assert!(prescription_of(&r).is_null(), "{r:#}");
    let c = change(&r, "treatment");
    let options = c["options"].as_array().unwrap();
    assert_eq!(options.len(), 1, "{c:#}");
    assert_eq!(options[0]["value"], METFORMIN);
    assert_eq!(
        options[0]["match"]["matchType"], "RXNORM_CODE_MATCH",
        "{c:#}"
    );
}
