//! A workstation whose clock is set wrong, against an in-process sandbox on
//! true time: sign-in (fresh or not) and renewal work ten minutes either way,
//! the session says how far the clock is off, and beyond the leeway that it is
//! wrong. The wrong clock is the client's [`WallClock::off_by`], a fake of the
//! one thing a test cannot change on this machine.

use crate::support;

use rxdesk_client::{CLOCK_LEEWAY, Client, Session, WallClock};
use rxdesk_sandbox::Sandbox;
use support::*;

const TEN_MINUTES: i64 = 600;

/// A client on a workstation whose clock is `off_by` seconds ahead of the
/// sandbox's (behind when negative).
fn client_off_by(sandbox: &Sandbox, off_by: i64) -> Client {
    client_for(sandbox.url()).with_wall_clock(WallClock::off_by(off_by))
}

/// Ben signs in through the browser whose cookies are in `jar`, asked to be
/// fresh or not; the sign-in's refusal if refused.
async fn sign_in_with(
    client: &Client,
    jar: &reqwest::Client,
    fresh: bool,
) -> Result<Session, rxdesk_client::SignInError> {
    let (browser, _landing) = TestBrowser::signing_in(BEN, None);
    client
        .sign_in()
        .fresh_login(fresh)
        .opener(browser.with_cookies(jar))
        .run()
        .await
}

/// Ben signs in, then signs in again asked to be fresh (as after a lock), on a
/// workstation `off_by` seconds off: the fresh sign-in's result.
async fn fresh_sign_in_off_by(off_by: i64) -> Result<Session, rxdesk_client::SignInError> {
    let sandbox = sandbox().await;
    let client = client_off_by(&sandbox, off_by);
    let jar = cookie_jar();
    sign_in_with(&client, &jar, false).await.unwrap();
    sign_in_with(&client, &jar, true).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_sign_in_works_with_the_workstation_clock_ten_minutes_ahead() {
    let signed_in = fresh_sign_in_off_by(TEN_MINUTES).await;

    assert!(signed_in.is_ok(), "{:?}", signed_in.err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_sign_in_works_with_the_workstation_clock_ten_minutes_behind() {
    let signed_in = fresh_sign_in_off_by(-TEN_MINUTES).await;

    assert!(signed_in.is_ok(), "{:?}", signed_in.err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_sign_in_works_with_the_workstation_clock_a_day_ahead() {
    let signed_in = fresh_sign_in_off_by(24 * 3600).await;

    assert!(signed_in.is_ok(), "{:?}", signed_in.err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_measures_how_far_the_workstation_clock_is_off() {
    let sandbox = sandbox().await;
    let client = client_off_by(&sandbox, TEN_MINUTES);

    let session = sign_in_with(&client, &cookie_jar(), false).await.unwrap();

    let offset = session
        .clock_offset()
        .expect("the sandbox's ID token has iat");
    assert!(
        (-TEN_MINUTES - 2..=-TEN_MINUTES + 2).contains(&offset.network_ahead_secs()),
        "{offset:?}"
    );
    assert!(!offset.is_wrong(), "ten minutes is within the leeway");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workstation_clock_beyond_the_leeway_is_called_wrong() {
    let sandbox = sandbox().await;
    let behind = i64::try_from(CLOCK_LEEWAY.as_secs()).unwrap() + 120;
    let client = client_off_by(&sandbox, -behind);

    let session = sign_in_with(&client, &cookie_jar(), false).await.unwrap();

    assert!(session.clock_offset().unwrap().is_wrong());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renewal_works_with_the_workstation_clock_ten_minutes_behind() {
    let sandbox = sandbox().await;
    let client = client_off_by(&sandbox, -TEN_MINUTES);
    let first = sign_in_with(&client, &cookie_jar(), false).await.unwrap();

    let renewed = client.renew(&first).await.unwrap();

    client.network(&renewed).ping().await.unwrap();
    assert_eq!(renewed.clock_offset(), first.clock_offset());
}
