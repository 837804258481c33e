//! The Network API's `patient` upsert (docs/network-api.md, "Patient"): Get, Sync
//! (matching, adding, candidates, what is missing), Update, validation, and the
//! clinical lists and benefits as patches. A call is all or nothing.

use crate::network_support;

use network_support::*;
use serde_json::{Value, json};

const DOB: &str = "1980-05-17";

async fn ada_and_sandbox() -> (rxdesk_sandbox::Sandbox, String) {
    let sb = start().await;
    let token = prescriber(&sb).await;
    (sb, token)
}

fn record(result: &Value) -> &Value {
    let r = patient_of(result);
    assert_eq!(r["__typename"], "Patient", "{result:#}");
    r
}

fn entry_ids(result: &Value, list: &str) -> Vec<String> {
    ids_of(&record(result)["clinical"][list])
}

// ------------------------------------------------------------------ Sync: matching

#[tokio::test]
async fn sync_with_enough_to_add_and_no_match_adds_a_new_patient() {
    let (sb, ada) = ada_and_sandbox().await;

    let r = patient(
        &sb,
        &ada,
        json!({ "demographic": demographic("Grace", "Hopper", DOB) }),
    )
    .await;

    let p = record(&r);
    assert!(p["id"].as_str().unwrap().starts_with("pat_"), "{r:#}");
    assert_eq!(p["demographic"]["name"]["first"], "Grace");
    assert_eq!(p["demographic"]["name"]["last"], "Hopper");
    assert_eq!(p["demographic"]["dateOfBirth"], DOB);
    assert_eq!(p["demographic"]["sex"], "FEMALE");
    assert_eq!(p["demographic"]["phone"], MOBILE);
    assert!(!has_blocking(&r), "{r:#}");
}

#[tokio::test]
async fn get_answers_the_patient_as_it_was_saved() {
    let (sb, ada) = ada_and_sandbox().await;
    let added = patient(
        &sb,
        &ada,
        json!({ "demographic": demographic("Grace", "Hopper", DOB) }),
    )
    .await;
    let id = record(&added)["id"].as_str().unwrap().to_owned();

    let got = get_patient(&sb, &ada, &id).await;

    assert_eq!(record(&got), record(&added));
    assert!(unapplied_under(&got, "").is_empty(), "{got:#}");
}

#[tokio::test]
async fn sync_with_the_same_names_ignoring_case_and_date_of_birth_updates_that_patient() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "demographic": {
            "name": { "first": "GRACE", "last": "hopper" },
            "dateOfBirth": DOB,
            "email": "admiral@example.com",
        }}),
    )
    .await;

    assert_eq!(record(&r)["id"], id.as_str(), "{r:#}");
    assert_eq!(record(&r)["demographic"]["email"], "admiral@example.com");
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(record(&got)["demographic"]["email"], "admiral@example.com");
}

#[tokio::test]
async fn sync_with_the_same_email_and_phone_updates_that_patient() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "demographic": {
            "email": "grace.hopper@example.com",
            "phone": MOBILE,
            "gender": "woman",
        }}),
    )
    .await;

    assert_eq!(record(&r)["id"], id.as_str(), "{r:#}");
    assert_eq!(record(&r)["demographic"]["gender"], "woman");
}

#[tokio::test]
async fn sync_with_a_partial_name_answers_the_candidates_and_saves_nothing() {
    let (sb, ada) = ada_and_sandbox().await;
    let hopper = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let hollis = add_patient(&sb, &ada, "Gretchen", "Hollis", "1975-01-02").await;
    let _other = add_patient(&sb, &ada, "Alan", "Turing", "1912-06-23").await;
    let search =
        json!({ "demographic": { "name": { "first": "gr", "last": "HO" }, "gender": "woman" } });

    let r = patient(&sb, &ada, search.clone()).await;

    assert_eq!(r["__typename"], "AmbiguousPatientMatch", "{r:#}");
    assert!(
        !r["reason"].as_str().unwrap_or_default().is_empty(),
        "{r:#}"
    );
    assert_eq!(candidate_ids(&r), sorted(&[&hopper, &hollis]));
    for id in [&hopper, &hollis] {
        let got = get_patient(&sb, &ada, id).await;
        assert_eq!(
            record(&got)["demographic"]["gender"],
            Value::Null,
            "{got:#}"
        );
    }
    let again = patient(&sb, &ada, search).await;
    assert_eq!(
        candidate_ids(&again),
        sorted(&[&hopper, &hollis]),
        "{again:#}"
    );
}

#[tokio::test]
async fn candidates_carry_their_names_and_dates_of_birth() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "demographic": { "name": { "first": "Gra" } } }),
    )
    .await;

    assert_eq!(r["__typename"], "AmbiguousPatientMatch", "{r:#}");
    assert_eq!(
        r["candidates"],
        json!([{ "id": id, "firstName": "Grace", "lastName": "Hopper", "dateOfBirth": DOB }])
    );
}

#[tokio::test]
async fn sync_with_only_a_date_of_birth_answers_the_patients_born_that_day() {
    let (sb, ada) = ada_and_sandbox().await;
    let a = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let b = add_patient(&sb, &ada, "Alan", "Kay", DOB).await;
    let _c = add_patient(&sb, &ada, "Ada", "Lovelace", "1915-12-10").await;

    let r = patient(&sb, &ada, json!({ "demographic": { "dateOfBirth": DOB } })).await;

    assert_eq!(r["__typename"], "AmbiguousPatientMatch", "{r:#}");
    assert_eq!(candidate_ids(&r), sorted(&[&a, &b]));
}

#[tokio::test]
async fn sync_with_an_email_alone_answers_a_single_candidate_as_a_choice() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let _other = add_patient(&sb, &ada, "Alan", "Kay", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "demographic": { "email": "grace.hopper@example.com" } }),
    )
    .await;

    assert_eq!(r["__typename"], "AmbiguousPatientMatch", "{r:#}");
    assert_eq!(candidate_ids(&r), vec![id]);
}

#[tokio::test]
async fn sync_with_a_phone_alone_answers_the_patients_with_that_phone() {
    let (sb, ada) = ada_and_sandbox().await;
    let a = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let b = add_patient(&sb, &ada, "Alan", "Kay", "1940-05-17").await;

    let r = patient(&sb, &ada, json!({ "demographic": { "phone": MOBILE } })).await;

    assert_eq!(r["__typename"], "AmbiguousPatientMatch", "{r:#}");
    assert_eq!(candidate_ids(&r), sorted(&[&a, &b]));
}

#[tokio::test]
async fn an_email_and_a_phone_that_fit_no_one_together_find_no_candidates() {
    let (sb, ada) = ada_and_sandbox().await;
    let _id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "demographic": { "email": "grace.hopper@example.com", "phone": "+16175550177" } }),
    )
    .await;

    // Neither rule 1 nor 2 matches, nothing fits every identifying field sent, and
    // there is not enough to add: what is missing.
    assert!(patient_of(&r).is_null(), "{r:#}");
    assert_eq!(
        unapplied(&r, "demographic.name.first")["category"],
        "MISSING_INPUT"
    );
}

#[tokio::test]
async fn sync_without_enough_to_add_and_no_match_answers_null_with_each_missing_field() {
    let (sb, ada) = ada_and_sandbox().await;

    let r = patient(
        &sb,
        &ada,
        json!({ "demographic": { "name": { "first": "Zed" } } }),
    )
    .await;

    assert!(patient_of(&r).is_null(), "{r:#}");
    let mut missing: Vec<String> = changes(&r)
        .iter()
        .filter(|c| c["category"] == "MISSING_INPUT")
        .map(|c| c["key"].as_str().unwrap().to_owned())
        .collect();
    missing.sort();
    assert_eq!(
        missing,
        sorted(&[
            "demographic.name.last",
            "demographic.dateOfBirth",
            "demographic.sex"
        ]),
        "{r:#}"
    );
}

#[tokio::test]
async fn sync_with_nothing_at_all_names_all_four_missing_fields() {
    let (sb, ada) = ada_and_sandbox().await;

    let r = patient(&sb, &ada, json!({ "demographic": { "gender": "woman" } })).await;

    assert!(patient_of(&r).is_null(), "{r:#}");
    for key in [
        "demographic.name.first",
        "demographic.name.last",
        "demographic.dateOfBirth",
        "demographic.sex",
    ] {
        let c = unapplied(&r, key);
        assert_eq!(c["category"], "MISSING_INPUT", "{c:#}");
        assert_ne!(c["status"], "APPLIED", "{c:#}");
    }
}

#[tokio::test]
async fn two_patients_equal_by_name_and_date_of_birth_answer_ambiguous() {
    let (sb, ada) = ada_and_sandbox().await;
    let a = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let b = add_patient(&sb, &ada, "Grace", "Smith", DOB).await;
    let renamed = patient(
        &sb,
        &ada,
        json!({ "id": b, "demographic": { "name": { "last": "Hopper" } } }),
    )
    .await;
    assert_eq!(
        record(&renamed)["demographic"]["name"]["last"],
        "Hopper",
        "{renamed:#}"
    );

    let r = patient(
        &sb,
        &ada,
        json!({ "demographic": demographic("Grace", "Hopper", DOB) }),
    )
    .await;

    assert_eq!(r["__typename"], "AmbiguousPatientMatch", "{r:#}");
    assert_eq!(candidate_ids(&r), sorted(&[&a, &b]));
}

#[tokio::test]
async fn update_changes_only_the_fields_sent() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "phone": "+16175550142" } }),
    )
    .await;

    let p = record(&r);
    assert_eq!(p["demographic"]["phone"], "+16175550142");
    assert_eq!(p["demographic"]["name"]["first"], "Grace");
    assert_eq!(p["demographic"]["email"], "grace.hopper@example.com");
    assert_eq!(applied(&r, "demographic.phone")["status"], "APPLIED");
}

#[tokio::test]
async fn a_medical_ops_token_syncs_patients() {
    let sb = start().await;
    let mo = medical_ops(&sb).await;

    let r = patient(
        &sb,
        &mo,
        json!({ "demographic": demographic("Grace", "Hopper", DOB) }),
    )
    .await;

    assert!(
        record(&r)["id"].as_str().unwrap().starts_with("pat_"),
        "{r:#}"
    );
}

#[tokio::test]
async fn a_machine_token_syncs_patients() {
    let sb = start().await;
    let machine = machine(&sb).await;

    let r = patient(
        &sb,
        &machine,
        json!({ "demographic": demographic("Grace", "Hopper", DOB) }),
    )
    .await;

    assert!(
        record(&r)["id"].as_str().unwrap().starts_with("pat_"),
        "{r:#}"
    );
}

#[tokio::test]
async fn an_unknown_id_is_a_rejected_change_on_id() {
    let (sb, ada) = ada_and_sandbox().await;

    let r = get_patient(&sb, &ada, UNKNOWN_PATIENT).await;

    assert!(patient_of(&r).is_null(), "{r:#}");
    let c = unapplied(&r, "id");
    assert_eq!(c["status"], "REJECTED", "{c:#}");
}

#[tokio::test]
async fn another_organizations_patient_reads_as_an_unknown_id() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let ben = birch_prescriber(&sb).await;
    let birch_id = add_patient(&sb, &ben, "Grace", "Hopper", DOB).await;

    let theirs = get_patient(&sb, &ada, &birch_id).await;
    let unknown = get_patient(&sb, &ada, UNKNOWN_PATIENT).await;

    assert!(patient_of(&theirs).is_null(), "{theirs:#}");
    assert_eq!(unapplied(&theirs, "id")["status"], "REJECTED");
    assert_eq!(
        with_id_masked(&theirs, &birch_id),
        with_id_masked(&unknown, UNKNOWN_PATIENT)
    );
}

// ------------------------------------------------------------------ validation

#[tokio::test]
async fn a_date_of_birth_in_the_future_is_rejected_and_nothing_is_added() {
    let (sb, ada) = ada_and_sandbox().await;

    let r = patient(
        &sb,
        &ada,
        json!({ "demographic": demographic("Grace", "Hopper", "2999-01-01") }),
    )
    .await;

    assert!(patient_of(&r).is_null(), "{r:#}");
    let c = unapplied(&r, "demographic.dateOfBirth");
    assert_eq!(
        (&c["status"], &c["severity"], &c["category"]),
        (
            &json!("REJECTED"),
            &json!("BLOCKING"),
            &json!("INVALID_INPUT")
        ),
        "{c:#}"
    );
    let search = patient(
        &sb,
        &ada,
        json!({ "demographic": { "name": { "first": "Grace" } } }),
    )
    .await;
    assert_eq!(
        search["__typename"], "PatientPayload",
        "nothing to choose from: {search:#}"
    );
    assert!(patient_of(&search).is_null());
}

#[tokio::test]
async fn a_date_of_birth_before_1900_is_rejected() {
    let (sb, ada) = ada_and_sandbox().await;

    let r = patient(
        &sb,
        &ada,
        json!({ "demographic": demographic("Grace", "Hopper", "1899-12-31") }),
    )
    .await;

    assert!(patient_of(&r).is_null(), "{r:#}");
    assert_eq!(
        unapplied(&r, "demographic.dateOfBirth")["category"],
        "INVALID_INPUT"
    );
}

#[tokio::test]
async fn a_blank_first_name_is_rejected_as_invalid() {
    let (sb, ada) = ada_and_sandbox().await;
    let mut input = demographic("Grace", "Hopper", DOB);
    input["name"]["first"] = json!("  ");

    let r = patient(&sb, &ada, json!({ "demographic": input })).await;

    assert!(patient_of(&r).is_null(), "{r:#}");
    let c = unapplied(&r, "demographic.name.first");
    assert_eq!(
        (&c["status"], &c["category"]),
        (&json!("REJECTED"), &json!("INVALID_INPUT")),
        "{c:#}"
    );
}

#[tokio::test]
async fn blanking_a_last_name_on_update_is_rejected_as_invalid() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "name": { "last": " " } } }),
    )
    .await;

    let c = unapplied(&r, "demographic.name.last");
    assert_eq!(
        (&c["status"], &c["severity"], &c["category"]),
        (
            &json!("REJECTED"),
            &json!("BLOCKING"),
            &json!("INVALID_INPUT")
        ),
        "{c:#}"
    );
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(record(&got)["demographic"]["name"]["last"], "Hopper");
}

#[tokio::test]
async fn a_phone_not_in_e164_is_rejected_and_the_patient_keeps_the_old_one() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "phone": "(617) 555-0123" } }),
    )
    .await;

    let c = unapplied(&r, "demographic.phone");
    assert_eq!(
        (&c["status"], &c["severity"], &c["category"]),
        (
            &json!("REJECTED"),
            &json!("BLOCKING"),
            &json!("INVALID_INPUT")
        ),
        "{c:#}"
    );
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(record(&got)["demographic"]["phone"], MOBILE);
}

#[tokio::test]
async fn a_phone_with_too_few_digits_is_rejected() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "phone": "+1234567" } }),
    )
    .await;

    assert_eq!(
        unapplied(&r, "demographic.phone")["category"],
        "INVALID_INPUT",
        "{r:#}"
    );
}

#[tokio::test]
async fn an_email_without_a_dot_after_the_at_is_rejected() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "email": "grace@localhost" } }),
    )
    .await;

    assert_eq!(
        unapplied(&r, "demographic.email")["category"],
        "INVALID_INPUT",
        "{r:#}"
    );
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(
        record(&got)["demographic"]["email"],
        "grace.hopper@example.com"
    );
}

#[tokio::test]
async fn an_address_without_a_country_is_rejected() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "address": {
            "street1": "12 Elm Street", "city": "Boston", "state": "MA", "postalCode": "02110"
        }}}),
    )
    .await;

    let rejected = unapplied_under(&r, "demographic.address");
    assert!(
        rejected
            .iter()
            .any(|c| c["category"] == "INVALID_INPUT" && c["severity"] == "BLOCKING"),
        "{r:#}"
    );
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(
        record(&got)["demographic"]["address"],
        Value::Null,
        "{got:#}"
    );
}

#[tokio::test]
async fn an_address_with_a_country_is_saved() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "address": {
            "street1": "12 Elm Street", "city": "Boston", "state": "MA", "postalCode": "02110", "country": "US"
        }}}),
    )
    .await;

    assert!(!has_blocking(&r), "{r:#}");
    assert_eq!(record(&r)["demographic"]["address"]["country"], "US");
}

// ------------------------------------------------------------------ allergies

#[tokio::test]
async fn an_allergy_added_by_rxnorm_id_resolves_to_the_catalog_allergen() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": { "add": [{ "rxNormId": "723" }] } } }),
    )
    .await;

    assert_eq!(
        record(&r)["clinical"]["allergies"],
        json!([{ "id": ALG_AMOXICILLIN, "name": "Amoxicillin", "rxNormId": "723" }])
    );
    let c = applied(&r, "clinical.allergies.add.0");
    assert_eq!(
        (&c["status"], &c["operation"]),
        (&json!("APPLIED"), &json!("ADDED")),
        "{c:#}"
    );
}

#[tokio::test]
async fn an_allergy_added_by_id_resolves_to_that_allergen() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": { "add": [{ "id": ALG_NSAID }] } } }),
    )
    .await;

    assert_eq!(entry_ids(&r, "allergies"), vec![ALG_NSAID]);
    assert_eq!(record(&r)["clinical"]["allergies"][0]["name"], "NSAIDs");
}

#[tokio::test]
async fn an_allergy_added_by_its_exact_name_ignoring_case_resolves() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": { "add": [{ "name": "penicillins" }] } } }),
    )
    .await;

    assert_eq!(entry_ids(&r, "allergies"), vec![ALG_PENICILLIN]);
    assert_eq!(applied(&r, "clinical.allergies.add.0")["status"], "APPLIED");
}

#[tokio::test]
async fn an_allergy_name_that_fits_several_allergens_is_ambiguous_and_saves_nothing() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": { "add": [{ "name": "penicillin" }] } } }),
    )
    .await;

    let c = unapplied(&r, "clinical.allergies.add.0");
    assert_eq!(
        (&c["status"], &c["severity"]),
        (&json!("AMBIGUOUS"), &json!("BLOCKING")),
        "{c:#}"
    );
    let values = option_values(&c);
    assert!(values.contains(&ALG_PENICILLIN_G.to_owned()), "{c:#}");
    assert!(values.contains(&ALG_PENICILLIN_V.to_owned()), "{c:#}");
    for option in c["options"].as_array().unwrap() {
        assert_eq!(
            option["argument"], "clinical.allergies.add.0.id",
            "{option:#}"
        );
        assert_eq!(option["operation"], "patient", "{option:#}");
    }
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(record(&got)["clinical"]["allergies"], json!([]));
}

#[tokio::test]
async fn answering_an_allergy_choice_with_its_option_adds_that_allergen() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let first = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": { "add": [{ "name": "penicillin" }] } } }),
    )
    .await;
    let chosen = unapplied(&first, "clinical.allergies.add.0")["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["value"] == ALG_PENICILLIN_V)
        .cloned()
        .expect("Penicillin V is an option");
    assert_eq!(chosen["argument"], "clinical.allergies.add.0.id");

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": { "add": [{ "id": chosen["value"] }] } } }),
    )
    .await;

    assert_eq!(entry_ids(&r, "allergies"), vec![ALG_PENICILLIN_V]);
}

#[tokio::test]
async fn an_allergy_name_the_catalog_does_not_know_is_kept_uncoded_with_an_advisory() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": { "add": [{ "name": "Latex" }] } } }),
    )
    .await;

    let c = applied(&r, "clinical.allergies.add.0");
    assert_eq!(
        (&c["status"], &c["severity"], &c["category"]),
        (
            &json!("APPLIED"),
            &json!("ADVISORY"),
            &json!("CODING_SPECIFICITY")
        ),
        "{c:#}"
    );
    let allergies = &record(&r)["clinical"]["allergies"];
    assert_eq!(allergies.as_array().unwrap().len(), 1, "{r:#}");
    assert_eq!(allergies[0]["name"], "Latex");
    assert_eq!(allergies[0]["rxNormId"], Value::Null);
}

#[tokio::test]
async fn an_unknown_allergy_rxnorm_id_is_rejected() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": { "add": [{ "rxNormId": "999999999" }] } } }),
    )
    .await;

    let c = unapplied(&r, "clinical.allergies.add.0");
    assert_eq!(
        (&c["status"], &c["severity"]),
        (&json!("REJECTED"), &json!("BLOCKING")),
        "{c:#}"
    );
}

#[tokio::test]
async fn removing_an_allergy_on_file_removes_it() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    update_clinical(
        &sb,
        &ada,
        &id,
        json!({ "allergies": { "add": [{ "id": ALG_NSAID }, { "id": ALG_PENICILLIN }] } }),
    )
    .await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": { "remove": [{ "id": ALG_NSAID }] } } }),
    )
    .await;

    assert_eq!(entry_ids(&r, "allergies"), vec![ALG_PENICILLIN]);
    let c = applied(&r, "clinical.allergies.remove.0");
    assert_eq!(c["operation"], "REMOVED", "{c:#}");
}

#[tokio::test]
async fn adding_an_allergy_already_on_file_is_an_informational_no_op() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    update_clinical(
        &sb,
        &ada,
        &id,
        json!({ "allergies": { "add": [{ "id": ALG_PENICILLIN }] } }),
    )
    .await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": { "add": [{ "rxNormId": "7980" }] } } }),
    )
    .await;

    let c = applied(&r, "clinical.allergies.add.0");
    assert_eq!(
        (&c["status"], &c["severity"]),
        (&json!("APPLIED"), &json!("INFO")),
        "{c:#}"
    );
    assert_eq!(entry_ids(&r, "allergies"), vec![ALG_PENICILLIN]);
}

#[tokio::test]
async fn none_true_clears_the_allergies() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    update_clinical(
        &sb,
        &ada,
        &id,
        json!({ "allergies": { "add": [{ "id": ALG_NSAID }, { "id": ALG_PENICILLIN }] } }),
    )
    .await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": { "none": true } } }),
    )
    .await;

    assert!(!has_blocking(&r), "{r:#}");
    assert_eq!(record(&r)["clinical"]["allergies"], json!([]));
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(record(&got)["clinical"]["allergies"], json!([]));
}

#[tokio::test]
async fn none_true_beside_add_is_rejected_and_nothing_changes() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    update_clinical(
        &sb,
        &ada,
        &id,
        json!({ "allergies": { "add": [{ "id": ALG_PENICILLIN }] } }),
    )
    .await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": { "none": true, "add": [{ "id": ALG_NSAID }] } } }),
    )
    .await;

    let rejected = unapplied_under(&r, "clinical.allergies");
    assert!(rejected.iter().any(|c| c["status"] == "REJECTED"), "{r:#}");
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(entry_ids(&got, "allergies"), vec![ALG_PENICILLIN]);
}

#[tokio::test]
async fn an_empty_patch_is_rejected() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": {} } }),
    )
    .await;

    let rejected = unapplied_under(&r, "clinical.allergies");
    assert!(
        rejected
            .iter()
            .any(|c| c["status"] == "REJECTED" && c["severity"] == "BLOCKING"),
        "{r:#}"
    );
}

#[tokio::test]
async fn an_entry_named_by_both_id_and_name_is_rejected() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "allergies": { "add": [{ "id": ALG_NSAID, "name": "NSAIDs" }] } } }),
    )
    .await;

    let rejected = unapplied_under(&r, "clinical.allergies.add.0");
    assert!(rejected.iter().any(|c| c["status"] == "REJECTED"), "{r:#}");
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(record(&got)["clinical"]["allergies"], json!([]));
}

// ------------------------------------------------------------------ medications

#[tokio::test]
async fn a_medication_added_without_a_status_is_recorded_unknown() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "medications": { "add": [{ "id": SERTRALINE }] } } }),
    )
    .await;

    let meds = &record(&r)["clinical"]["medications"];
    assert_eq!(ids_of(meds), vec![SERTRALINE]);
    assert_eq!(meds[0]["status"], "UNKNOWN");
    assert_eq!(meds[0]["name"], "Sertraline 50 MG Oral Tablet");
}

#[tokio::test]
async fn a_medication_added_active_and_updated_to_historical_changes_status() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    update_clinical(
        &sb,
        &ada,
        &id,
        json!({ "medications": { "add": [{ "id": SERTRALINE, "status": "ACTIVE" }] } }),
    )
    .await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "medications": { "update": [{ "id": SERTRALINE, "status": "HISTORICAL" }] } } }),
    )
    .await;

    assert!(!has_blocking(&r), "{r:#}");
    assert_eq!(
        record(&r)["clinical"]["medications"][0]["status"],
        "HISTORICAL"
    );
    assert_eq!(
        applied(&r, "clinical.medications.update.0")["status"],
        "APPLIED"
    );
}

#[tokio::test]
async fn a_medication_added_by_rxnorm_id_resolves_to_the_catalog_drug() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "medications": { "add": [{ "rxNormId": METFORMIN_RXNORM, "status": "ACTIVE" }] } } }),
    )
    .await;

    assert_eq!(entry_ids(&r, "medications"), vec![METFORMIN]);
}

#[tokio::test]
async fn updating_a_medication_not_on_file_is_rejected() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "medications": { "update": [{ "id": SERTRALINE, "status": "HISTORICAL" }] } } }),
    )
    .await;

    let c = unapplied(&r, "clinical.medications.update.0");
    assert_eq!(
        (&c["status"], &c["severity"]),
        (&json!("REJECTED"), &json!("BLOCKING")),
        "{c:#}"
    );
}

#[tokio::test]
async fn a_medication_name_fitting_several_drugs_is_ambiguous_with_id_options() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "medications": { "add": [{ "name": "ibuprofen" }] } } }),
    )
    .await;

    let c = unapplied(&r, "clinical.medications.add.0");
    assert_eq!(c["status"], "AMBIGUOUS", "{c:#}");
    let mut values = option_values(&c);
    values.sort();
    assert_eq!(values, sorted(&[IBUPROFEN_400, IBUPROFEN_800]));
    for option in c["options"].as_array().unwrap() {
        assert_eq!(
            option["argument"], "clinical.medications.add.0.id",
            "{option:#}"
        );
    }
}

// ------------------------------------------------------------------ diagnoses

#[tokio::test]
async fn a_diagnosis_added_by_icd10_code_resolves_to_the_catalog_entry() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "diagnoses": { "add": [{ "icd10Code": "E11.9" }] } } }),
    )
    .await;

    assert_eq!(
        record(&r)["clinical"]["diagnoses"],
        json!([{ "id": "dx_E11_9", "name": "Type 2 diabetes mellitus without complications", "icd10Code": "E11.9" }])
    );
}

#[tokio::test]
async fn a_diagnosis_code_the_catalog_does_not_have_is_rejected() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "diagnoses": { "add": [{ "icd10Code": "J45.909" }] } } }),
    )
    .await;

    assert_eq!(
        unapplied(&r, "clinical.diagnoses.add.0")["status"],
        "REJECTED",
        "{r:#}"
    );
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(record(&got)["clinical"]["diagnoses"], json!([]));
}

#[tokio::test]
async fn a_diagnosis_name_fitting_several_codes_is_ambiguous() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "clinical": { "diagnoses": { "add": [{ "name": "type 2 diabetes" }] } } }),
    )
    .await;

    let c = unapplied(&r, "clinical.diagnoses.add.0");
    assert_eq!(c["status"], "AMBIGUOUS", "{c:#}");
    let mut values = option_values(&c);
    values.sort();
    assert_eq!(values, sorted(&["dx_E11_65", "dx_E11_9"]));
}

// ------------------------------------------------------------------ benefits

#[tokio::test]
async fn a_benefit_added_with_bin_and_member_id_gets_a_ben_id() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "benefits": { "add": [{ "bin": "610014", "memberId": "M123456", "pcn": "MEDDPRIME" }] } } }),
    )
    .await;

    let benefits = &record(&r)["demographic"]["benefits"];
    assert_eq!(benefits.as_array().unwrap().len(), 1, "{r:#}");
    assert!(
        benefits[0]["id"].as_str().unwrap().starts_with("ben_"),
        "{r:#}"
    );
    assert_eq!(benefits[0]["bin"], "610014");
    assert_eq!(benefits[0]["memberId"], "M123456");
}

#[tokio::test]
async fn a_benefit_added_without_a_member_id_is_missing_input() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "benefits": { "add": [{ "bin": "610014" }] } } }),
    )
    .await;

    let missing = unapplied_under(&r, "demographic.benefits.add.0");
    assert!(
        missing
            .iter()
            .any(|c| c["category"] == "MISSING_INPUT" && c["severity"] == "BLOCKING"),
        "{r:#}"
    );
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(record(&got)["demographic"]["benefits"], json!([]));
}

#[tokio::test]
async fn a_benefit_update_by_id_changes_pcn_and_group_id() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let added = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "benefits": { "add": [{ "bin": "610014", "memberId": "M123456" }] } } }),
    )
    .await;
    let benefit = record(&added)["demographic"]["benefits"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "benefits": { "update": [{ "id": benefit, "pcn": "ADV", "groupId": "RX1234" }] } } }),
    )
    .await;

    assert!(!has_blocking(&r), "{r:#}");
    let b = &record(&r)["demographic"]["benefits"][0];
    assert_eq!(
        (&b["id"], &b["pcn"], &b["groupId"], &b["memberId"]),
        (
            &json!(benefit),
            &json!("ADV"),
            &json!("RX1234"),
            &json!("M123456")
        )
    );
}

/// Adds one benefit (bin 610014, member M123456) to `id`; its `ben_` id.
async fn with_benefit(sb: &rxdesk_sandbox::Sandbox, token: &str, id: &str) -> String {
    let added = patient(
        sb,
        token,
        json!({ "id": id, "demographic": { "benefits": { "add": [{ "bin": "610014", "memberId": "M123456", "pcn": "MEDDPRIME" }] } } }),
    )
    .await;
    record(&added)["demographic"]["benefits"][0]["id"]
        .as_str()
        .expect("setup: the benefit was added")
        .to_owned()
}

#[tokio::test]
async fn a_benefit_added_without_a_bin_is_missing_input_on_its_bin() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "benefits": { "add": [{ "memberId": "M123456" }] } } }),
    )
    .await;

    let missing = unapplied(&r, "demographic.benefits.add.0.bin");
    assert_eq!(
        (&missing["category"], &missing["severity"]),
        (&json!("MISSING_INPUT"), &json!("BLOCKING")),
        "{r:#}"
    );
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(record(&got)["demographic"]["benefits"], json!([]));
}

#[tokio::test]
async fn a_benefit_removed_by_id_is_gone_from_the_record() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let benefit = with_benefit(&sb, &ada, &id).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "benefits": { "remove": [{ "id": benefit }] } } }),
    )
    .await;

    assert!(!has_blocking(&r), "{r:#}");
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(record(&got)["demographic"]["benefits"], json!([]));
}

#[tokio::test]
async fn a_benefit_update_with_another_member_id_is_rejected_and_keeps_the_card() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let benefit = with_benefit(&sb, &ada, &id).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "benefits": { "update": [{ "id": benefit, "memberId": "M999", "groupId": "G1" }] } } }),
    )
    .await;

    let refused = unapplied(&r, "demographic.benefits.update.0.memberId");
    assert_eq!(refused["severity"], "BLOCKING", "{r:#}");
    assert!(
        refused["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("remove"),
        "says how to correct it: {refused:#}"
    );
    let got = get_patient(&sb, &ada, &id).await;
    let b = &record(&got)["demographic"]["benefits"][0];
    assert_eq!(
        (&b["memberId"], &b["groupId"]),
        (&json!("M123456"), &Value::Null)
    );
}

#[tokio::test]
async fn a_benefit_update_with_a_blank_pcn_clears_it() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let benefit = with_benefit(&sb, &ada, &id).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "benefits": { "update": [{ "id": benefit, "pcn": " " }] } } }),
    )
    .await;

    assert!(!has_blocking(&r), "{r:#}");
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(
        record(&got)["demographic"]["benefits"][0]["pcn"],
        Value::Null
    );
}

#[tokio::test]
async fn a_benefit_removed_and_its_correction_added_in_one_patch_replace_the_card() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let benefit = with_benefit(&sb, &ada, &id).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "benefits": {
            "remove": [{ "id": benefit }],
            "add": [{ "bin": "610014", "memberId": "M999" }] } } }),
    )
    .await;

    assert!(!has_blocking(&r), "{r:#}");
    let got = get_patient(&sb, &ada, &id).await;
    let benefits = record(&got)["demographic"]["benefits"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(benefits.len(), 1, "{got:#}");
    assert_eq!(benefits[0]["memberId"], "M999");
    assert_ne!(benefits[0]["id"], json!(benefit));
}

// ------------------------------------------------------------------ all or nothing

#[tokio::test]
async fn one_failing_entry_saves_nothing_and_the_good_ones_come_back_rejected_info() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id,
                "demographic": { "gender": "woman" },
                "clinical": { "allergies": { "add": [{ "id": ALG_NSAID }, { "rxNormId": "999999999" }] } } }),
    )
    .await;

    let failed = unapplied(&r, "clinical.allergies.add.1");
    assert_eq!(
        (&failed["status"], &failed["severity"]),
        (&json!("REJECTED"), &json!("BLOCKING")),
        "{failed:#}"
    );
    for key in ["clinical.allergies.add.0", "demographic.gender"] {
        let good = unapplied(&r, key);
        assert_eq!(
            (&good["status"], &good["severity"]),
            (&json!("REJECTED"), &json!("INFO")),
            "{good:#}"
        );
        let reason = good["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains("clinical.allergies.add.1")
                || failed["label"].as_str().is_some_and(|l| reason.contains(l)),
            "the reason names the input that failed: {good:#}"
        );
    }
    assert!(r["appliedChanges"].as_array().unwrap().is_empty(), "{r:#}");
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(record(&got)["clinical"]["allergies"], json!([]));
    assert_eq!(record(&got)["demographic"]["gender"], Value::Null);
}

#[tokio::test]
async fn a_rejected_update_answers_the_record_as_it_was() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "gender": "woman", "phone": "not a phone" } }),
    )
    .await;

    assert_eq!(record(&r)["id"], id.as_str());
    assert_eq!(record(&r)["demographic"]["phone"], MOBILE);
    assert_eq!(record(&r)["demographic"]["gender"], Value::Null);
}

// ------------------------------------------------------------------ limits and pharmacy

#[tokio::test]
async fn candidates_are_at_most_twenty() {
    let (sb, ada) = ada_and_sandbox().await;
    for n in 0..21 {
        add_patient(&sb, &ada, &format!("Grace{n}"), "Hopper", DOB).await;
    }

    let r = patient(&sb, &ada, json!({ "demographic": { "dateOfBirth": DOB } })).await;

    assert_eq!(r["__typename"], "AmbiguousPatientMatch", "{r:#}");
    assert_eq!(r["candidates"].as_array().unwrap().len(), 20);
}

#[tokio::test]
async fn a_preferred_pharmacy_by_id_is_saved() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "preferredPharmacy": { "id": MAPLE_PHARMACY } } }),
    )
    .await;

    assert!(!has_blocking(&r), "{r:#}");
    assert_eq!(
        record(&r)["demographic"]["preferredPharmacy"],
        json!({ "id": MAPLE_PHARMACY, "name": "Maple Street Pharmacy" })
    );
}

#[tokio::test]
async fn a_preferred_pharmacy_name_fitting_several_is_ambiguous() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;

    let r = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "preferredPharmacy": { "name": "harbor" } } }),
    )
    .await;

    let ambiguous = unapplied_under(&r, "demographic.preferredPharmacy");
    assert!(
        ambiguous.iter().any(|c| c["status"] == "AMBIGUOUS"),
        "{r:#}"
    );
    let mut values = option_values(&ambiguous[0]);
    values.sort();
    assert_eq!(values, sorted(&[HARBOR_DOWNTOWN, HARBOR_SOUTHSIDE]));
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(
        record(&got)["demographic"]["preferredPharmacy"],
        Value::Null
    );
}

#[tokio::test]
async fn a_preferred_pharmacy_is_read_back_by_a_later_get() {
    let (sb, ada) = ada_and_sandbox().await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "preferredPharmacy": { "id": MAPLE_PHARMACY } } }),
    )
    .await;

    let got = get_patient(&sb, &ada, &id).await;

    assert_eq!(
        record(&got)["demographic"]["preferredPharmacy"]["id"],
        MAPLE_PHARMACY
    );
}
