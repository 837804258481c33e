//! The after-Send journey: staff send the order the prescriber signed; the
//! sandbox's simulated pharmacy takes it on its test clock (advanced through
//! the control endpoint, no sleeping): the patient's choice, Harbor Drug North
//! End, is closed and the order is rerouted. Work flags the order with the
//! pharmacy it went to, the order page lists the exception with its time, and
//! the clinic's backend — the client's `webhook_receiver` example, subscribed
//! to Harbor Lane's events — logs the order's events. On the clean run the
//! network first answers Send with 503s: the screen says "Still trying".

use std::time::Duration;

use anyhow::{Context, Result, ensure};
use rxdesk_e2e::KEYRING_SERVICE;
use rxdesk_e2e::fixture::{HARBOR_ID, SAM};
use rxdesk_e2e::services::WebhookReceiver;

use crate::Run;
use crate::steps::{patients, sign_in};

const J: &str = "07-after-send";
/// The subscription's shared secret: the suite's own, not a credential of anyone.
const WEBHOOK_SECRET: &str = "e2e-webhook-shared-secret";
/// One pharmacy step in `tests/fixtures/e2e.toml` (`step_seconds`).
const STEP_SECONDS: u64 = 3600;
/// What the receiver must have logged for the order (in any order: the
/// network promises no order of delivery).
const ORDER_EVENTS: [&str; 4] = [
    "photon:order:created",
    "photon:order:placed",
    "photon:order:rerouted",
    "photon:order:placed",
];

/// Journey 7. Follows journey 2, which signed the order's prescription.
pub async fn staff_send_the_order_the_pharmacy_reroutes_it_work_flags_it_and_the_clinics_receiver_logs_its_events(
    run: &mut Run,
) -> Result<()> {
    let order_link = run
        .order_link
        .clone()
        .context("journey 1 left no order link")?;
    let order_id = order_link.rsplit('/').next().unwrap_or_default().to_owned();
    let name = patients::full(patients::HARBOR);
    let receiver = WebhookReceiver::start(
        &run.world.layout.webhook_receiver,
        WEBHOOK_SECRET,
        &run.world.layout.logs().join("webhook-receiver.log"),
    )?;
    run.world
        .sandbox
        .subscribe_webhooks(HARBOR_ID, &receiver.url, WEBHOOK_SECRET)
        .await?;

    run.world.keyring.clear(KEYRING_SERVICE)?;
    let mut app = run.world.launch(J, &run.world.sandbox).await?;
    sign_in(run, &app, J, &SAM, None).await?;
    app.click("Open link or id").await?;
    app.fill("Link or id", &order_link).await?;
    app.click("Open").await?;
    app.wait_for_text(&name).await?;
    // On the clean run, the network answers Send "too many requests, retry
    // in 3 s" until the harness lifts it: the screen says it is still trying
    // (the client waits as told, five attempts in about 12 s), then the order
    // is sent once. On the bad link the seeded faults stay as they are.
    let clean = run.world.layout.link.is_none();
    if clean {
        run.world
            .sandbox
            .set_link(serde_json::json!({
                "retry_after_secs": 3,
                "operations": { "order_send": { "faults": { "http_429": 1.0 } } }
            }))
            .await?;
    }
    app.click("Send order").await?;
    if clean {
        app.wait_for_text("Still trying (attempt").await?;
        app.shot("still trying").await?;
        run.world.sandbox.set_link(serde_json::json!({})).await?;
    }
    app.wait_for_any(&["SUBMITTED", "Submitted"]).await?;
    app.shot("order sent by staff").await?;

    // Three steps: placed at the patient's choice, found closed and rerouted,
    // placed at the new pharmacy; a fourth (received) is not due yet.
    run.world
        .sandbox
        .advance_clock(3 * STEP_SECONDS + 60)
        .await?;
    app.click("Work").await?;
    app.wait_for_text("Needs attention: pharmacy closed, rerouted to Harbor Drug Back Bay")
        .await?;
    app.shot("work: the order needs attention").await?;
    app.click(&format!("Order for {name}")).await?;
    app.wait_for_text("Harbor Drug North End is closed").await?;
    app.wait_for_text("Harbor Drug Back Bay").await?;
    app.shot("order page: the exception and when it happened")
        .await?;
    app.quit().await?;

    // Deliveries run in the background: give them a moment.
    let started = tokio::time::Instant::now();
    loop {
        let lines = receiver.lines()?;
        let mut seen: Vec<&str> = lines
            .iter()
            .filter(|l| l.contains(&order_id))
            .filter_map(|l| ORDER_EVENTS.iter().find(|e| l.contains(**e)).copied())
            .collect();
        seen.sort_unstable();
        let mut expected = ORDER_EVENTS;
        expected.sort_unstable();
        if seen == expected {
            break;
        }
        ensure!(
            started.elapsed() < Duration::from_secs(30),
            "after 30 s the receiver logged {seen:?} for the order, not {ORDER_EVENTS:?}:\n{}",
            lines.join("\n")
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    Ok(())
}
