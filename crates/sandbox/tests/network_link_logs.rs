//! The link layer's logs at TRACE: each injected fault on one `info` line with
//! its operation and kind, and never a token or a body (not even one whose
//! answer was lost). One test only: it installs the process-wide tracing
//! subscriber.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod network_support;
mod support;

use network_support::*;
use rxdesk_sandbox::link::{FaultRates, LinkSettings, Operation, OperationSettings};
use serde_json::json;

fn faults(settings: &mut LinkSettings, op: Operation, rates: FaultRates) {
    settings.operations.insert(
        op,
        OperationSettings {
            latency: None,
            faults: Some(rates),
        },
    );
}

#[tokio::test]
async fn each_fault_is_logged_with_operation_and_kind_and_never_a_token_or_body() {
    let logs = support::capture_logs();
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let mut settings = LinkSettings::default();
    faults(
        &mut settings,
        Operation::PatientSync,
        FaultRates {
            upstream: 1.0,
            ..FaultRates::default()
        },
    );
    faults(
        &mut settings,
        Operation::PatientUpdate,
        FaultRates {
            reset_after: 1.0,
            ..FaultRates::default()
        },
    );
    faults(
        &mut settings,
        Operation::Token,
        FaultRates {
            http_429: 1.0,
            ..FaultRates::default()
        },
    );
    sb.link().set(settings).unwrap();

    let synced = patient(
        &sb,
        &ada,
        json!({ "demographic": demographic("Zebulon", "Quixotefield", "1961-07-13") }),
    )
    .await;
    assert_eq!(synced["__typename"], "UpstreamServiceError", "{synced:#}");
    let lost = support::http()
        .post(support::endpoint(&sb, "/graphql"))
        .bearer_auth(&ada)
        .json(&json!({
            "query": patient_doc(),
            "variables": { "patient": { "id": UNKNOWN_PATIENT, "clinical": { "notes": "Tillamook secret note" } }, "metadata": metadata() },
        }))
        .send()
        .await;
    assert!(lost.is_err());
    let (status, _) =
        support::machine_token_response(&sb, support::MAPLE_BACKEND.0, support::MAPLE_BACKEND.1)
            .await;
    assert_eq!(status, 429);

    let text = logs.text();
    for (op, fault) in [
        ("patient_sync", "upstream"),
        ("patient_update", "reset_after"),
        ("token", "http_429"),
    ] {
        assert!(
            text.lines().any(|l| l.contains(" INFO ")
                && l.contains("link: fault injected")
                && l.contains(op)
                && l.contains(fault)),
            "no info line for {op}/{fault} in:\n{text}"
        );
    }
    for secret in [
        ada.as_str(),
        "Zebulon",
        "Quixotefield",
        "Tillamook",
        support::MAPLE_BACKEND.1,
    ] {
        assert!(!text.contains(secret), "`{secret}` reached the logs");
    }
}
