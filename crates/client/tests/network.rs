//! The client on the Network API, against an in-process sandbox: each call shape,
//! each kind of outcome (record, unapplied change, ambiguity, refusal), answering
//! an option and sending again, signing by content hash (stale → invalidated),
//! batch signing with a refusal in the middle (the compatibility check: `compatibility.rs`).

use crate::support;

use rxdesk_client::network::documents::*;
use rxdesk_client::network::{
    AnswerOption as _, Network, Outcome, PatientSearch, PharmacyMatches, SIGNING_IN_FLIGHT, Signing,
};
use rxdesk_client::{ClientError, IdempotencyKey, MachineTokens};
use support::*;

fn machine(client: &rxdesk_client::Client) -> Network {
    client.machine_network(client.machine_tokens(maple_backend()))
}

fn new_patient(first: &str, last: &str, phone: Option<&str>) -> PatientInput {
    PatientInput {
        demographic: Some(PatientDemographicInput {
            name: Some(HumanNameInput {
                first: Some(first.into()),
                last: Some(last.into()),
                ..Default::default()
            }),
            date_of_birth: Some(Date("1984-02-29".into())),
            sex: Some(Sex::Female),
            phone: phone.map(str::to_owned),
            ..Default::default()
        }),
        ..Default::default()
    }
}

async fn add_patient(network: &Network, first: &str, last: &str) -> String {
    match network
        .sync_patient(new_patient(first, last, Some("+16175550111")))
        .await
        .unwrap()
    {
        Outcome::Record {
            record: Some(p), ..
        } => p.id.into_inner(),
        other => panic!("not added: {other:?}"),
    }
}

fn draft_of(patient: &str, drug: &str) -> PrescriptionInput {
    PrescriptionInput {
        patient: Some(PatientReferenceInput {
            id: Some(cynic::Id::new(patient)),
        }),
        treatment: Some(TreatmentReferenceInput {
            id: Some(cynic::Id::new(drug)),
            ..Default::default()
        }),
        instructions: Some("Take 1 tablet by mouth daily".into()),
        dispense: Some(DispenseInput {
            quantity: Some(30.0),
            unit: Some("tablet".into()),
            days_supply: Some(30),
            ..Default::default()
        }),
        ..Default::default()
    }
}

async fn draft(network: &Network, patient: &str, drug: &str) -> Prescription {
    network
        .draft_prescription(draft_of(patient, drug), &IdempotencyKey::new())
        .await
        .unwrap()
        .into_record()
        .expect("a draft")
}

#[tokio::test]
async fn ping_answers_pong_on_the_network_api() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());

    assert_eq!(machine(&client).ping().await.unwrap(), "pong");
}

#[tokio::test]
async fn a_synced_patient_is_read_back_by_id() {
    let sandbox = sandbox().await;
    let network = machine(&client_for(sandbox.url()));

    let id = add_patient(&network, "Nadia", "Ferreira").await;
    let got = network.get_patient(&id).await.unwrap();

    let name = &got.record().unwrap().demographic.as_ref().unwrap().name;
    assert_eq!(name.first.as_deref(), Some("Nadia"));
}

#[tokio::test]
async fn finding_patients_answers_candidates_and_never_sends_sex() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let network = machine(&proxy.client());
    add_patient(&network, "Nadia", "Ferreira").await;
    add_patient(&network, "Nadine", "Ferreira").await;

    let found = network
        .find_patients(&PatientSearch {
            first: Some("Nad".into()),
            last: Some("Ferr".into()),
            ..Default::default()
        })
        .await
        .unwrap();

    assert_eq!(found.len(), 2, "{found:?}");
    let (_, body) = proxy.last_request("/graphql");
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert!(
        body["variables"]["patient"]["demographic"]["sex"].is_null(),
        "{body}"
    );
}

#[tokio::test]
async fn an_ambiguous_allergy_is_answered_from_its_options_and_sent_again() {
    let sandbox = sandbox().await;
    let network = machine(&client_for(sandbox.url()));
    let mut input = new_patient("Iris", "Okonjo", None);
    input.clinical = Some(PatientClinicalInput {
        allergies: Some(AllergiesPatch {
            add: Some(vec![AllergyReferenceInput {
                name: Some("antibiotics".into()),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        ..Default::default()
    });

    let first = network.sync_patient(input.clone()).await.unwrap();
    let change = first
        .unapplied()
        .iter()
        .find(|c| c.is_ambiguous())
        .expect("an ambiguous allergy")
        .clone();
    let choice = change.choices().into_iter().next().unwrap();
    input.answer(&choice).unwrap();
    let second = network.sync_patient(input).await.unwrap();

    assert!(
        first.record().is_none(),
        "nothing is saved while a choice is open"
    );
    assert_eq!(change.key, "clinical.allergies.add.0");
    assert!(change.auto_pick().is_none());
    let allergies = &second
        .record()
        .unwrap()
        .clinical
        .as_ref()
        .unwrap()
        .allergies;
    assert_eq!(allergies[0].id.inner(), choice.value.as_deref().unwrap());
}

#[tokio::test]
async fn a_partial_sync_is_an_ambiguity_with_candidates() {
    let sandbox = sandbox().await;
    let network = machine(&client_for(sandbox.url()));
    add_patient(&network, "Nadia", "Ferreira").await;
    let partial = PatientInput {
        demographic: Some(PatientDemographicInput {
            name: Some(HumanNameInput {
                last: Some("Ferreira".into()),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    };

    let outcome = network.sync_patient(partial).await.unwrap();

    assert!(
        matches!(outcome, Outcome::Ambiguous { ref candidates, .. } if candidates.len() == 1),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_drug_name_fitting_several_is_never_picked_and_an_exact_one_is() {
    let sandbox = sandbox().await;
    let network = machine(&client_for(sandbox.url()));
    let by_name = |name: &str| TreatmentReferenceInput {
        name: Some(name.into()),
        ..Default::default()
    };

    let several = network.look_up_drug(by_name("lisinopril")).await.unwrap();
    let exact = network
        .look_up_drug(by_name("Lisinopril 10 MG Oral Tablet"))
        .await
        .unwrap();

    assert!(several.len() > 1);
    assert!(
        several
            .iter()
            .all(|c| c.argument.as_deref() == Some("treatment.id"))
    );
    assert_eq!(exact.len(), 1);
    assert!(exact[0].exact);
}

#[tokio::test]
async fn a_diagnosis_look_up_offers_the_icd10_matches_and_creates_nothing() {
    let sandbox = sandbox().await;
    let network = machine(&client_for(sandbox.url()));
    let by_name = |name: &str| DiagnosisReferenceInput {
        name: Some(name.into()),
        ..Default::default()
    };

    let found = network
        .look_up_diagnosis(by_name("type 2 diabetes"))
        .await
        .unwrap();
    let none = network
        .look_up_diagnosis(by_name("dragonpox"))
        .await
        .unwrap();

    assert!(found.len() > 1, "{found:?}");
    assert!(found.iter().all(|c| {
        c.argument.as_deref() == Some("clinical.diagnoses.add.0.id")
            && c.value.as_deref().is_some_and(|v| v.starts_with("dx_"))
    }));
    assert!(
        found
            .iter()
            .any(|c| c.display_name == "E11.9 Type 2 diabetes mellitus without complications"),
        "{found:?}"
    );
    assert!(none.is_empty(), "{none:?}");
}

#[tokio::test]
async fn a_draft_sends_its_diagnoses_note_and_dispense_as_written_and_reads_them_back() {
    let sandbox = sandbox().await;
    let network = machine(&client_for(sandbox.url()));
    let patient = add_patient(&network, "Rhea", "Lind").await;
    let mut input = draft_of(&patient, "med_metformin_500_tab");
    if let Some(d) = input.dispense.as_mut() {
        d.dispense_as_written = Some(true);
    }
    input.clinical = Some(PrescriptionClinicalInput {
        diagnoses: Some(DiagnosesPatch {
            add: Some(vec![DiagnosisReferenceInput {
                id: Some(cynic::Id::new("dx_E11_9")),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        notes: Some("Patient prefers blister packs.".into()),
    });

    let saved = network
        .draft_prescription(input, &IdempotencyKey::new())
        .await
        .unwrap()
        .into_record()
        .expect("a draft");
    let read = network
        .get_prescription(saved.id.inner())
        .await
        .unwrap()
        .into_record()
        .expect("read back");

    assert_eq!(read.dispense.unwrap().dispense_as_written, Some(true));
    let clinical = read.clinical.expect("clinical");
    assert_eq!(
        clinical.notes.as_deref(),
        Some("Patient prefers blister packs.")
    );
    assert_eq!(clinical.diagnoses.len(), 1);
    assert_eq!(clinical.diagnoses[0].icd10_code.as_deref(), Some("E11.9"));
}

#[tokio::test]
async fn a_machine_connection_never_sends_a_signature() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let network = machine(&proxy.client());
    let patient = add_patient(&network, "Rhea", "Lind").await;
    let rx = draft(&network, &patient, "med_azithromycin_250_tab").await;
    let items = vec![(rx.id.inner().to_owned(), rx.signing.content_hash.clone())];
    let before = proxy.count("/graphql");

    let one = network
        .sign_prescription(rx.id.inner(), &rx.signing.content_hash)
        .await;
    let batch = network.sign_prescriptions(&items, SIGNING_IN_FLIGHT).await;

    for refused in std::iter::once(one).chain(batch) {
        assert!(
            matches!(
                refused,
                Err(ClientError::Refused { ref code, ref required_permission, .. })
                    if code == "PRESCRIPTION_SIGNING_UNAUTHORIZED" && required_permission.as_deref() == Some("write:prescription")
            ),
            "{refused:?}"
        );
    }
    assert_eq!(proxy.count("/graphql") - before, 0, "nothing was sent");
}

#[tokio::test]
async fn a_stale_hash_is_invalidated_and_the_current_one_signs() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let staff = machine(&client);
    let prescriber = client.network(&sign_in(&client, ADA, Some(MAPLE)).await);
    let patient = add_patient(&staff, "Rhea", "Lind").await;
    let reviewed = draft(&staff, &patient, "med_azithromycin_250_tab").await;
    let changed = staff
        .update_prescription(
            reviewed.id.inner(),
            PrescriptionInput {
                instructions: Some("Take 2 tablets".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .into_record()
        .unwrap();

    let stale = prescriber
        .sign_prescription(reviewed.id.inner(), &reviewed.signing.content_hash)
        .await
        .unwrap();
    let Signing::Invalidated { current, .. } = stale else {
        panic!("{stale:?}")
    };
    let signed = prescriber
        .sign_prescription(current.id.inner(), &current.signing.content_hash)
        .await
        .unwrap();

    assert_eq!(current.signing.content_hash, changed.signing.content_hash);
    assert!(
        matches!(signed, Signing::Signed(ref p) if p.signing.state == PrescriptionSigningState::Signed),
        "{signed:?}"
    );
}

#[tokio::test]
async fn batch_signing_answers_each_in_order_and_one_refusal_stops_nothing() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let staff = machine(&client);
    let prescriber = client.network(&sign_in(&client, ADA, Some(MAPLE)).await);
    let mut items = Vec::new();
    for n in 0..20 {
        let patient = add_patient(&staff, &format!("Batch{n}"), "Signer").await;
        let rx = draft(&staff, &patient, "med_azithromycin_250_tab").await;
        let hash = if n == 10 {
            "0".repeat(64)
        } else {
            rx.signing.content_hash.clone()
        };
        items.push((rx.id.into_inner(), hash));
    }

    let answers = prescriber.sign_prescriptions(&items, 4).await;

    assert_eq!(answers.len(), 20);
    for (n, (answer, (id, _))) in answers.iter().zip(&items).enumerate() {
        match answer.as_ref().unwrap() {
            Signing::Signed(p) => assert!(n != 10 && p.id.inner() == id),
            Signing::Invalidated { current, .. } => assert!(n == 10 && current.id.inner() == id),
            other => panic!("{n}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn an_order_is_refused_sending_until_signed_then_a_machine_sends_it() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let staff = machine(&client);
    let prescriber = client.network(&sign_in(&client, ADA, Some(MAPLE)).await);
    let patient = add_patient(&staff, "Otto", "Brandt").await;
    let rx = draft(&staff, &patient, "med_azithromycin_250_tab").await;
    let order = staff
        .draft_order(
            &patient,
            &[rx.id.inner().to_owned()],
            &IdempotencyKey::new(),
        )
        .await
        .unwrap()
        .into_record()
        .unwrap();

    let refused = staff.send_order(order.id.inner()).await.unwrap();
    prescriber
        .sign_prescription(rx.id.inner(), &rx.signing.content_hash)
        .await
        .unwrap();
    let sent = staff.send_order(order.id.inner()).await.unwrap();

    assert!(refused.is_blocked());
    assert_eq!(refused.unapplied()[0].key, "state");
    assert_eq!(sent.record().unwrap().state, OrderState::Submitted);
}

/// The options a search for "Harbor Drug" answers, for a new draft order of
/// `patient` holding `prescriptions`.
async fn harbor_drug_options(
    network: &Network,
    patient: &str,
    prescriptions: &[String],
) -> Vec<rxdesk_client::network::Choice> {
    let order = network
        .draft_order(patient, prescriptions, &IdempotencyKey::new())
        .await
        .unwrap()
        .into_record()
        .unwrap();
    let found = network
        .find_pharmacies(
            order.id.inner(),
            PharmacyReferenceInput {
                name: Some("Harbor Drug".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let PharmacyMatches::Options(options) = found else {
        panic!("{found:?}")
    };
    options
}

#[tokio::test]
async fn pharmacies_fitting_a_name_come_back_as_options() {
    let sandbox = sandbox().await;
    let network = machine(&client_for(sandbox.url()));
    let patient = add_patient(&network, "Otto", "Brandt").await;

    let options = harbor_drug_options(&network, &patient, &[]).await;

    assert!(options.len() > 1 && options.len() <= 20);
    assert!(
        options
            .iter()
            .all(|o| o.argument.as_deref() == Some("pharmacy.pharmacy.id") && !o.offers.is_empty())
    );
}

#[tokio::test]
async fn a_pharmacy_option_carries_the_networks_price_for_the_orders_prescriptions() {
    let sandbox = sandbox().await;
    let network = machine(&client_for(sandbox.url()));
    let patient = add_patient(&network, "Otto", "Brandt").await;
    let rx = draft(&network, &patient, "med_metformin_500_tab").await;

    let options = harbor_drug_options(&network, &patient, &[rx.id.inner().to_owned()]).await;

    let back_bay = options
        .iter()
        .find(|o| o.value.as_deref() == Some("phr_harbor_drug_back_bay"))
        .expect("Harbor Drug Back Bay among the options");
    assert_eq!(
        back_bay.offers[0].price_summary,
        Some(OfferPriceSummary {
            price_type: Some(OfferPriceType::Cash),
            total_amount: Some(4.0),
            total_retail_amount: Some(12.49),
            total_savings: Some(8.49),
        })
    );
    assert_eq!(
        back_bay.offers[0].prescription_delivery_estimates[0]
            .prescription_id
            .inner(),
        rx.id.inner()
    );
}

#[tokio::test]
async fn machine_tokens_are_shared_by_every_network_call() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let client = proxy.client();
    let tokens: MachineTokens = client.machine_tokens(maple_backend());
    let network = client.machine_network(tokens);

    for _ in 0..5 {
        network.ping().await.unwrap();
    }

    assert_eq!(proxy.count("/oauth/token"), 1);
}

#[tokio::test]
async fn a_preferred_pharmacy_fitting_several_comes_back_as_options_and_one_fitting_is_set() {
    let sandbox = sandbox().await;
    let network = machine(&client_for(sandbox.url()));
    let patient = add_patient(&network, "Nadia", "Ferreira").await;
    let by_name = |name: &str| PharmacyReferenceInput {
        name: Some(name.into()),
        ..Default::default()
    };

    let several = network
        .find_preferred_pharmacy(&patient, by_name("harbor"))
        .await
        .unwrap();
    let one = network
        .find_preferred_pharmacy(&patient, by_name("Beacon Hill Apothecary"))
        .await
        .unwrap();

    let PharmacyMatches::Options(options) = several else {
        panic!("options expected: {several:?}");
    };
    assert!(options.len() >= 2, "{options:?}");
    let PharmacyMatches::Chosen(chosen) = one else {
        panic!("one pharmacy set: {one:?}");
    };
    let preferred = chosen
        .demographic
        .as_ref()
        .unwrap()
        .preferred_pharmacy
        .as_ref();
    assert_eq!(
        preferred.map(|p| p.name.as_str()),
        Some("Beacon Hill Apothecary")
    );
}

#[tokio::test]
async fn a_patients_address_insurance_middle_name_gender_and_notes_are_read_back() {
    let sandbox = sandbox().await;
    let network = machine(&client_for(sandbox.url()));
    let patient = add_patient(&network, "Nadia", "Ferreira").await;
    let demographic = PatientDemographicInput {
        name: Some(HumanNameInput {
            middle: Some("Luisa".into()),
            ..Default::default()
        }),
        gender: Some("woman".into()),
        address: Some(AddressInput {
            street1: Some("12 Elm Street".into()),
            city: Some("Boston".into()),
            state: Some("MA".into()),
            postal_code: Some("02110".into()),
            country: Some("US".into()),
            ..Default::default()
        }),
        benefits: Some(BenefitsPatch {
            add: Some(vec![BenefitReferenceInput {
                bin: Some("610014".into()),
                member_id: Some("M123456".into()),
                group_id: Some("G7".into()),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        ..Default::default()
    };
    let clinical = PatientClinicalInput {
        notes: Some("Prefers morning calls".into()),
        ..Default::default()
    };
    network
        .update_patient(&patient, Some(demographic), Some(clinical))
        .await
        .unwrap();

    let got = network.get_patient(&patient).await.unwrap();

    let record = got.record().unwrap();
    let d = record.demographic.as_ref().unwrap();
    assert_eq!(d.name.middle.as_deref(), Some("Luisa"));
    assert_eq!(d.gender.as_deref(), Some("woman"));
    let address = d.address.as_ref().unwrap();
    assert_eq!(
        (address.city.as_deref(), address.country.as_deref()),
        (Some("Boston"), Some("US"))
    );
    assert_eq!(d.benefits.len(), 1);
    assert_eq!(
        (d.benefits[0].bin.as_str(), d.benefits[0].member_id.as_str()),
        ("610014", "M123456")
    );
    assert_eq!(d.benefits[0].group_id.as_deref(), Some("G7"));
    assert_eq!(
        record.clinical.as_ref().unwrap().notes.as_deref(),
        Some("Prefers morning calls")
    );
}
