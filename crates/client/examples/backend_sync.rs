//! A backend that keeps the network in step with its own records, using one
//! machine token per run, on the Network API: sync patients from a CSV (the
//! network matches them), draft a prescription and an order for each row with
//! the row's id as their idempotency key (`externalId`), then send every order
//! whose prescriptions a prescriber has signed. Run twice, it creates nothing
//! twice; on a bad link each call is retried within its deadline, and a lost
//! answer never becomes a second record.
//!
//! Usage: `cargo run -p rxdesk-client --example backend_sync -- FILE.csv`
//! with `RXDESK_AUTH_URL`, `RXDESK_API_URL`, `RXDESK_AUDIENCE`,
//! `RXDESK_CLIENT_ID` and `RXDESK_CLIENT_SECRET` set (a Backend credential).
//!
//! CSV columns: external_id,first_name,last_name,date_of_birth,sex,phone,email,
//! medication,quantity,unit,days_supply,instructions. The logic lives in
//! `rxdesk_client::sync`; this file is the command-line wrapper. Each rejected
//! row is printed as `FILE: line N: COLUMN: why`; a row the network's trouble
//! stopped after all its attempts as `FILE: line N: not finished (what was
//! done); stopped at what: why. Run again to finish…`, and a run that stopped
//! early (the network down, or an error every row would meet) says where and
//! why. The summary is always printed; the exit status is 1 when a row was
//! rejected or not finished, 2 for a usage or configuration error.

use std::process::ExitCode;

use rxdesk_client::network::documents::RequestSource;
use rxdesk_client::{Client, Environment, sync};

#[tokio::main]
async fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: backend_sync FILE.csv");
        return ExitCode::from(2);
    };
    let (environment, credentials) = match Environment::backend_from_env() {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("backend_sync: {e}");
            return ExitCode::from(2);
        }
    };
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("backend_sync: cannot open {}: {e}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    let client = match Client::new(environment) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("backend_sync: {e}");
            return ExitCode::FAILURE;
        }
    };
    let network = client
        .machine_network(client.machine_tokens(credentials))
        .with_client("rxdesk-backend-sync", RequestSource::DirectApi);
    match sync::sync_csv(&network, file).await {
        Ok(report) => {
            let file = path.to_string_lossy();
            for rejected in &report.rejected {
                eprintln!("{file}: {rejected}");
            }
            for unfinished in &report.unfinished {
                eprintln!("{file}: {unfinished}");
            }
            if let Some(stopped) = &report.stopped_early {
                eprintln!("{file}: {stopped}");
            }
            println!(
                "patients created: {}, prescriptions created: {}, orders created: {}, orders sent: {}, rows unchanged: {}, rows rejected: {}, rows not finished: {}{}",
                report.patients_created,
                report.prescriptions_created,
                report.orders_created,
                report.orders_sent,
                report.rows_unchanged,
                report.rejected.len(),
                report.unfinished.len(),
                if report.stopped_early.is_some() {
                    " (stopped early)"
                } else {
                    ""
                }
            );
            if report.is_complete() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("backend_sync: {e}");
            ExitCode::FAILURE
        }
    }
}
