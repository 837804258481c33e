//! A clinic backend's webhook endpoint, small: it listens on loopback, verifies
//! each request (signature, timestamp), skips events delivered twice, prints one
//! line per event and answers as the network expects (`200` at once; `401` for a
//! request it cannot verify, which the network drops).
//!
//! Usage:
//!
//! ```sh
//! RXDESK_WEBHOOK_SECRET=… cargo run -p rxdesk-client --example webhook_receiver -- \
//!     [--listen 127.0.0.1:8787] [--tolerance SECONDS]
//! ```
//!
//! The first line says where it listens (`webhook_receiver listening on
//! http://127.0.0.1:PORT/webhooks`); subscribe that URL with the same secret
//! (the sandbox: `--webhook org_maple=URL` and `RXDESK_SANDBOX_WEBHOOK_SECRET`).
//! Then one line per event: when it happened, its type, the record, and what it
//! says. Refused and duplicate requests are reported on stderr. It prints ids,
//! states, pharmacies and reasons: no patient data.

use std::net::SocketAddr;
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
    let (listen, tolerance) = match arguments() {
        Ok(parsed) => parsed,
        Err(usage) => {
            eprintln!("webhook_receiver: {usage}");
            eprintln!(
                "usage: RXDESK_WEBHOOK_SECRET=… webhook_receiver [--listen 127.0.0.1:PORT] [--tolerance SECONDS]"
            );
            return ExitCode::from(2);
        }
    };
    let secret = match std::env::var("RXDESK_WEBHOOK_SECRET") {
        Ok(secret) if !secret.is_empty() => secret,
        _ => {
            eprintln!(
                "webhook_receiver: set RXDESK_WEBHOOK_SECRET to the subscription's shared secret"
            );
            return ExitCode::from(2);
        }
    };
    let receiver = Arc::new(Receiver {
        verifier: Verifier::new(secret).with_tolerance(tolerance),
        seen: Mutex::new(Deduplicator::default()),
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

/// `--listen ADDR` (loopback only) and `--tolerance SECONDS`.
fn arguments() -> Result<(SocketAddr, Duration), String> {
    let mut listen = SocketAddr::from(([127, 0, 0, 1], 8787));
    let mut tolerance = Verifier::DEFAULT_TOLERANCE;
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
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if !listen.ip().is_loopback() {
        return Err(format!(
            "--listen {listen}: this example listens on loopback only (127.0.0.1 or [::1])"
        ));
    }
    Ok((listen, tolerance))
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
    if first_time {
        println!("{}", line(&event));
    } else {
        eprintln!("duplicate {} {} skipped", event.kind(), event.id);
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
