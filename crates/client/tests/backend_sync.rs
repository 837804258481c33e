//! The backend example's sync on the Network API against a sandbox: run twice,
//! the second run creates nothing; a bad row is reported with its line and field while the
//! others go on; orders go out once a prescriber has signed. The last test runs
//! the example's binary itself (built by `cargo test` with the other targets).

use crate::support;

use rxdesk_client::IdempotencyKey;
use rxdesk_client::network::documents::PrescriptionInput;
use rxdesk_client::network::{Network, PatientSearch};
use rxdesk_client::sync::{RowError, sync_csv};
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

fn csv() -> String {
    format!("{HEADER}{GOOD_ROWS}{BAD_ROWS}")
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
