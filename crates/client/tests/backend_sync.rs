//! The backend example's sync on the Network API against a sandbox: run twice,
//! the second run creates nothing; a bad row is reported with its line and field while the
//! others go on; orders go out once a prescriber has signed; a row whose call
//! fails after all its attempts (the sandbox's link layer, seeded) is reported
//! and the next rows are done, and a network that is down stops the run early
//! with its report. The last tests run the example's binary itself (built by
//! `cargo test` with the other targets).

use crate::bad_link::{assert_no_duplicates, sandbox_on_disk};
use crate::support;

use std::time::Duration;

use rxdesk_client::network::documents::PrescriptionInput;
use rxdesk_client::network::{Network, PatientSearch};
use rxdesk_client::retry::RetryPolicy;
use rxdesk_client::sync::{DOWN_AFTER, RowError, Step, StopReason, sync_csv};
use rxdesk_client::{ClientError, IdempotencyKey};
use rxdesk_sandbox::link::decide::decide;
use rxdesk_sandbox::link::{
    FaultRates, Injected, Latency, LinkSettings, Operation, OperationSettings,
};
use support::*;

const HEADER: &str = "external_id,first_name,last_name,date_of_birth,sex,phone,email,medication,quantity,unit,days_supply,instructions\n";
const GOOD_ROWS: &str = "\
crm-001,Harriet,Vance,1958-11-03,F,503-555-0110,hv@example.org,Lisinopril 10 mg tablet,30,tablet,30,Take one tablet by mouth daily
crm-002,Omar,Lindqvist,1990-01-15,M,,,Amoxicillin 500 mg capsule,21,capsule,7,Take one capsule three times daily
";
const BAD_ROWS: &str = "\
crm-003,Bad,Date,15/01/1990,M,,,Lisinopril 10 mg tablet,30,tablet,30,Daily
crm-004,Unknown,Drug,1980-01-01,F,,,Unobtainium 5 mg tablet,10,tablet,10,Daily
crm-005,Short,Row
";

const THIRD_ROW: &str = "crm-006,Ines,Marlow,1975-06-30,F,,,Lisinopril 10 mg tablet,30,tablet,30,Take one tablet by mouth daily\n";

fn csv() -> String {
    format!("{HEADER}{GOOD_ROWS}{BAD_ROWS}")
}

/// Link settings under which the first `fail` requests of `op` have their
/// connection closed after the network applied them, and the `pass` after
/// them go through: the seed is searched for, so the run replays.
fn lost_answers_then_through(op: Operation, fail: u64, pass: u64) -> LinkSettings {
    let rates = FaultRates {
        reset_after: 0.5,
        ..FaultRates::default()
    };
    let seed = (0..100_000)
        .find(|&seed| {
            (0..fail + pass)
                .all(|n| decide(seed, op, n, Latency::OFF, &rates).fault.is_some() == (n < fail))
        })
        .expect("a seed that fails the first requests only");
    let mut settings = LinkSettings {
        seed,
        ..LinkSettings::default()
    };
    settings.operations.insert(
        op,
        OperationSettings {
            latency: None,
            faults: Some(rates),
        },
    );
    settings
}

/// Every request of `op` has its connection closed before it reaches the network.
fn always_broken(op: Operation) -> LinkSettings {
    let mut settings = LinkSettings::default();
    settings.operations.insert(
        op,
        OperationSettings {
            latency: None,
            faults: Some(FaultRates {
                reset_before: 1.0,
                ..FaultRates::default()
            }),
        },
    );
    settings
}

/// Quick backoff, the default five attempts per call.
fn quick_network(url: &url::Url) -> Network {
    let client = client_for(url).with_retry_policy(
        RetryPolicy::default().with_backoff(Duration::from_millis(20), Duration::from_millis(100)),
    );
    network_of(&client)
}

fn network_of(client: &rxdesk_client::Client) -> Network {
    client.machine_network(client.machine_tokens(maple_backend()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_run_creates_nothing() {
    let sandbox = sandbox().await;
    let network = network_of(&client_for(sandbox.url()));
    let first = sync_csv(&network, csv().as_bytes()).await.unwrap();

    let second = sync_csv(&network, csv().as_bytes()).await.unwrap();

    assert_eq!(
        (
            first.patients_created,
            first.prescriptions_created,
            first.orders_created
        ),
        (2, 2, 2),
        "{first:?}"
    );
    assert_eq!(second.created(), 0, "{second:?}");
    assert_eq!(second.rows_unchanged, 2);
    let vances = network
        .find_patients(&PatientSearch {
            last: Some("Vance".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(vances.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_rows_are_reported_with_line_and_field_and_the_others_go_on() {
    let sandbox = sandbox().await;
    let network = network_of(&client_for(sandbox.url()));

    let report = sync_csv(&network, csv().as_bytes()).await.unwrap();

    let at: Vec<(u64, &str)> = report
        .rejected
        .iter()
        .map(|RowError { line, field, .. }| (*line, field.as_str()))
        .collect();
    assert_eq!(
        at,
        vec![(4, "date_of_birth"), (5, "medication"), (6, "row")]
    );
    assert_eq!(report.patients_created, 2);
    assert!(report.rejected.iter().all(|r| !r.message.contains("Bad")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orders_are_sent_once_a_prescriber_has_signed() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let network = network_of(&client);
    let first = sync_csv(&network, csv().as_bytes()).await.unwrap();
    let ada = client.network(&sign_in(&client, ADA, Some(MAPLE)).await);
    // Drafting again with the row's externalId answers the row's prescription.
    let harriet_rx = network
        .draft_prescription(
            PrescriptionInput::default(),
            &"crm-001".parse::<IdempotencyKey>().unwrap(),
        )
        .await
        .unwrap()
        .into_record()
        .unwrap();
    ada.sign_prescription(harriet_rx.id.inner(), &harriet_rx.signing.content_hash)
        .await
        .unwrap();

    let second = sync_csv(&network, csv().as_bytes()).await.unwrap();

    assert_eq!(first.orders_sent, 0);
    assert_eq!((second.orders_sent, second.created()), (1, 0), "{second:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_whose_call_fails_after_all_its_attempts_is_reported_and_the_next_rows_are_done() {
    let (sandbox, dir) = sandbox_on_disk().await;
    let network = quick_network(sandbox.url());
    sandbox
        .link()
        .set(lost_answers_then_through(
            Operation::PrescriptionDraft,
            5,
            2,
        ))
        .unwrap();

    let report = sync_csv(
        &network,
        format!("{HEADER}{GOOD_ROWS}{THIRD_ROW}").as_bytes(),
    )
    .await
    .unwrap();

    assert_eq!(report.unfinished.len(), 1, "{report:?}");
    let unfinished = &report.unfinished[0];
    assert_eq!(
        (
            unfinished.line,
            unfinished.done.as_slice(),
            unfinished.stopped_at
        ),
        (2, &[Step::SyncPatient][..], Step::DraftPrescription)
    );
    assert!(
        matches!(unfinished.error, ClientError::GaveUp { attempts: 5, .. }),
        "{:?}",
        unfinished.error
    );
    assert_eq!(
        (report.patients_created, report.orders_created),
        (3, 2),
        "the rows after it were done: {report:?}"
    );
    assert!(report.stopped_early.is_none(), "{report:?}");
    assert_eq!(
        sandbox
            .link()
            .counters()
            .injected(Operation::PrescriptionDraft, Injected::ResetAfter),
        5
    );
    assert_no_duplicates(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unfinished_row_says_what_was_done_why_it_stopped_and_to_run_again() {
    let sandbox = sandbox().await;
    let network = quick_network(sandbox.url());
    sandbox
        .link()
        .set(lost_answers_then_through(
            Operation::PrescriptionDraft,
            5,
            1,
        ))
        .unwrap();

    let report = sync_csv(&network, format!("{HEADER}{GOOD_ROWS}").as_bytes())
        .await
        .unwrap();

    let text = report.unfinished[0].to_string();
    assert!(
        text.starts_with(
            "line 2: not finished (patient synced); stopped drafting the prescription: gave up after 5 attempts in "
        ),
        "{text}"
    );
    assert!(text.contains("(write call): network trouble: "), "{text}");
    assert!(
        text.ends_with("Run again to finish: the row's key makes that safe"),
        "{text}"
    );
    assert!(
        !text.contains("Harriet") && !text.contains("Vance"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn running_again_finishes_an_unfinished_row_without_doubling_anything() {
    let (sandbox, dir) = sandbox_on_disk().await;
    let network = quick_network(sandbox.url());
    let rows = format!("{HEADER}{GOOD_ROWS}{THIRD_ROW}");
    sandbox
        .link()
        .set(lost_answers_then_through(
            Operation::PrescriptionDraft,
            5,
            2,
        ))
        .unwrap();
    let first = sync_csv(&network, rows.as_bytes()).await.unwrap();
    sandbox.link().set(LinkSettings::default()).unwrap();

    let second = sync_csv(&network, rows.as_bytes()).await.unwrap();

    assert_eq!(first.unfinished.len(), 1, "{first:?}");
    assert!(second.is_complete(), "{second:?}");
    assert_eq!(
        (
            second.patients_created,
            second.orders_created,
            second.rows_unchanged
        ),
        (0, 1, 2),
        "the unfinished row's order is made, nothing else: {second:?}"
    );
    assert_no_duplicates(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_network_that_is_down_stops_the_run_early_with_its_report() {
    let sandbox = sandbox().await;
    let network = quick_network(sandbox.url());
    let rows = format!(
        "{HEADER}{GOOD_ROWS}{THIRD_ROW}{}",
        THIRD_ROW.replace("crm-006,Ines", "crm-007,Iris")
    );
    network.ping().await.unwrap();
    sandbox
        .link()
        .set(always_broken(Operation::PatientSync))
        .unwrap();

    let report = sync_csv(&network, rows.as_bytes()).await.unwrap();

    assert_eq!(
        report.unfinished.iter().map(|u| u.line).collect::<Vec<_>>(),
        vec![2, 3, 4]
    );
    let stopped = report.stopped_early.as_ref().unwrap();
    assert_eq!(
        (stopped.line, &stopped.reason),
        (4, &StopReason::NetworkDown { rows: DOWN_AFTER })
    );
    assert_eq!(
        sandbox
            .link()
            .counters()
            .injected(Operation::PatientSync, Injected::ResetBefore),
        3 * 5,
        "the fourth row was not tried"
    );
    assert!(
        stopped.to_string().contains("the network looks down"),
        "{stopped}"
    );
}

/// `target/…/examples/backend_sync`, next to this test's own binary in `deps/`.
fn example_binary() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(std::path::Path::parent).unwrap();
    let path = dir
        .join("examples")
        .join(format!("backend_sync{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: `cargo test -p rxdesk-client` builds it (or `cargo build -p rxdesk-client --examples`)",
        path.display()
    );
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_run_twice_creates_nothing_twice_with_one_token_per_run() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("patients.csv");
    std::fs::write(&file, format!("{HEADER}{GOOD_ROWS}")).unwrap();
    let binary = example_binary();
    let url = proxy.url.to_string();
    let run = move || {
        let output = std::process::Command::new(&binary)
            .arg(&file)
            .env("RXDESK_AUTH_URL", &url)
            .env("RXDESK_API_URL", &url)
            .env("RXDESK_AUDIENCE", "rxdesk-sandbox")
            .env("RXDESK_CLIENT_ID", "maple-backend")
            .env("RXDESK_CLIENT_SECRET", "maple-backend-secret")
            .output()
            .unwrap();
        (
            output.status.success(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };

    let (first, second) = tokio::task::spawn_blocking(move || (run(), run()))
        .await
        .unwrap();

    assert_eq!(proxy.count("/oauth/token"), 2, "one machine token per run");
    assert!(first.0, "first run failed: {}", first.2);
    assert!(first.1.contains("patients created: 2"), "{}", first.1);
    assert!(second.0, "second run failed: {}", second.2);
    assert!(
        second
            .1
            .contains("patients created: 0, prescriptions created: 0, orders created: 0"),
        "{}",
        second.1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_reports_a_row_it_could_not_finish_and_does_the_others() {
    let sandbox = sandbox().await;
    sandbox
        .link()
        .set(lost_answers_then_through(
            Operation::PrescriptionDraft,
            5,
            2,
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("patients.csv");
    std::fs::write(&file, format!("{HEADER}{GOOD_ROWS}{THIRD_ROW}")).unwrap();
    let binary = example_binary();
    let url = sandbox.url().to_string();

    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(&binary)
            .arg(&file)
            .env("RXDESK_AUTH_URL", &url)
            .env("RXDESK_API_URL", &url)
            .env("RXDESK_AUDIENCE", "rxdesk-sandbox")
            .env("RXDESK_CLIENT_ID", "maple-backend")
            .env("RXDESK_CLIENT_SECRET", "maple-backend-secret")
            .output()
            .unwrap()
    })
    .await
    .unwrap();

    let (stdout, stderr) = (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    );
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("orders created: 2") && stdout.contains("rows not finished: 1"),
        "{stdout}"
    );
    assert!(
        stderr.contains("patients.csv: line 2: not finished (patient synced); stopped drafting the prescription: gave up after 5 attempts in "),
        "{stderr}"
    );
    assert!(stderr.contains("Run again to finish"), "{stderr}");
}
