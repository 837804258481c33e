//! A clinic backend's webhook endpoint, small: it listens on loopback, verifies
//! each request (signature, timestamp, the event's signed time within the
//! window), skips events delivered twice or replayed — the ids it saw are kept
//! in a file, so a restart forgets none — prints one line per event and answers
//! as the network expects (`200` at once; `401` for a request it cannot verify,
//! which the network drops; `503` when it cannot record the id, so the network
//! sends it again).
//!
//! Usage:
//!
//! ```sh
//! RXDESK_WEBHOOK_SECRET=… cargo run -p rxdesk-client --example webhook_receiver -- \
//!     [--listen 127.0.0.1:8787] [--tolerance SECONDS] [--seen FILE]
//! ```
//!
//! `--seen` is where the ids seen are kept (default `webhook_receiver.seen` in
//! the working directory; the last 10,000).
//!
//! The first line says where it listens (`webhook_receiver listening on
//! http://127.0.0.1:PORT/webhooks`); subscribe that URL with the same secret
//! (the sandbox: `--webhook org_maple=URL` and `RXDESK_SANDBOX_WEBHOOK_SECRET`).
//! Then one line per event: when it happened, its type, the record, and what it
//! says. Refused and duplicate requests are reported on stderr. It prints ids,
//! states, pharmacies and reasons: no patient data.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use rxdesk_client::webhooks::{Deduplicator, Event, EventData, Verifier};

struct Receiver {
    verifier: Verifier,
    seen: Mutex<Deduplicator>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let Arguments {
        listen,
        tolerance,
        seen,
    } = match arguments() {
        Ok(parsed) => parsed,
        Err(usage) => {
            eprintln!("webhook_receiver: {usage}");
            eprintln!(
                "usage: RXDESK_WEBHOOK_SECRET=… webhook_receiver [--listen 127.0.0.1:PORT] [--tolerance SECONDS] [--seen FILE]"
            );
            return ExitCode::from(2);
        }
    };
    let secret = std::env::var("RXDESK_WEBHOOK_SECRET").unwrap_or_default();
    let verifier = match Verifier::new(secret) {
        Ok(verifier) => verifier.with_tolerance(tolerance),
        Err(e) => {
            eprintln!(
                "webhook_receiver: set RXDESK_WEBHOOK_SECRET to the subscription's shared secret ({e})"
            );
            return ExitCode::from(2);
        }
    };
    let seen = match Deduplicator::open(&seen, SEEN_IDS) {
        Ok(store) => store,
        Err(e) => {
            eprintln!(
                "webhook_receiver: cannot keep the seen ids in {}: {e}",
                seen.display()
            );
            return ExitCode::FAILURE;
        }
    };
    let receiver = Arc::new(Receiver {
        verifier,
        seen: Mutex::new(seen),
    });
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("webhook_receiver: cannot listen on {listen}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let addr = listener.local_addr().unwrap_or(listen);
    println!("webhook_receiver listening on http://{addr}/webhooks");
    let app = Router::new()
        .route("/webhooks", post(receive))
        .with_state(receiver);
    let served = axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await;
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("webhook_receiver: {e}");
            ExitCode::FAILURE
        }
    }
}

/// How many ids the receiver remembers: more than a busy clinic's events over
/// the verifier's event window.
const SEEN_IDS: usize = 10_000;

struct Arguments {
    listen: SocketAddr,
    tolerance: Duration,
    seen: PathBuf,
}

/// `--listen ADDR` (loopback only), `--tolerance SECONDS` and `--seen FILE`.
fn arguments() -> Result<Arguments, String> {
    let mut listen = SocketAddr::from(([127, 0, 0, 1], 8787));
    let mut tolerance = Verifier::DEFAULT_TOLERANCE;
    let mut seen = PathBuf::from("webhook_receiver.seen");
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--listen" => {
                listen = value
                    .parse()
                    .map_err(|_| format!("--listen {value}: not an address like 127.0.0.1:8787"))?;
            }
            "--tolerance" => {
                let seconds: u64 = value
                    .parse()
                    .map_err(|_| format!("--tolerance {value}: not a number of seconds"))?;
                tolerance = Duration::from_secs(seconds);
            }
            "--seen" => seen = PathBuf::from(value),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if !listen.ip().is_loopback() {
        return Err(format!(
            "--listen {listen}: this example listens on loopback only (127.0.0.1 or [::1])"
        ));
    }
    Ok(Arguments {
        listen,
        tolerance,
        seen,
    })
}

async fn receive(
    State(receiver): State<Arc<Receiver>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let event = match receiver.verifier.verify(&headers, &body) {
        Ok(event) => event,
        Err(refused) => {
            eprintln!("refused: {refused}");
            return StatusCode::from_u16(refused.status()).unwrap_or(StatusCode::UNAUTHORIZED);
        }
    };
    let first_time = receiver
        .seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .first_time(&event.id);
    match first_time {
        Ok(true) => println!("{}", line(&event)),
        Ok(false) => eprintln!("duplicate {} {} skipped", event.kind(), event.id),
        Err(not_recorded) => {
            eprintln!("not handled: {not_recorded}");
            return StatusCode::from_u16(not_recorded.status())
                .unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
        }
    }
    StatusCode::OK
}

/// `TIME TYPE SUBJECT what it says`.
fn line(event: &Event) -> String {
    let time = event
        .time
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    let says = match &event.data {
        EventData::OrderCreated(o) => match &o.pharmacy_id {
            Some(pharmacy) => format!("sent to {pharmacy}, {} fill(s)", o.fills.len()),
            None => format!(
                "sent, the patient chooses the pharmacy, {} fill(s)",
                o.fills.len()
            ),
        },
        EventData::OrderPlaced(o) => format!("placed at {} ({})", o.pharmacy.name, o.pharmacy.id),
        EventData::OrderRerouted(o) => {
            format!("rerouted to {} ({})", o.pharmacy.name, o.pharmacy.id)
        }
        EventData::OrderFulfillment(o) => {
            let tracking = match (&o.fulfillment.carrier, &o.fulfillment.tracking_number) {
                (Some(carrier), Some(number)) => format!(", {carrier} {number}"),
                _ => String::new(),
            };
            format!(
                "{} {}{tracking}",
                o.fulfillment.kind.as_str(),
                o.fulfillment.state.as_str()
            )
        }
        EventData::OrderError(o) => format!("needs attention: {}", o.reason),
        EventData::OrderCompleted(_) => "completed".to_owned(),
        EventData::OrderCanceled(_) => "canceled".to_owned(),
        EventData::PrescriptionCreated(p) => format!("signed, {}", p.treatment_id),
        EventData::PrescriptionDepleted(_) => "every fill is on an order".to_owned(),
        EventData::PrescriptionActive(_) => "a fill is available again".to_owned(),
        EventData::PrescriptionCanceled(_) => "canceled".to_owned(),
        EventData::Other { .. } => "(a type this receiver does not know)".to_owned(),
    };
    format!("{time} {} {} {says}", event.kind(), event.subject)
}
