//! Browser sign-in end to end against an in-process sandbox, with a test browser
//! that reads and fills the real sign-in pages; who signed in comes from
//! `/userinfo` and the permissions from the token response's `scope`; then the
//! session's life: renewal with rotation, sign-out with revocation, the keyring
//! budget.

use crate::support;

use rxdesk_client::{ClientError, SignOutStep};
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prescriber_signs_in_through_the_browser() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let (browser, landing) = TestBrowser::signing_in(BEN, None);

    let session = client.sign_in().opener(browser).run().await.unwrap();

    assert_eq!(session.user().name, "Ben Okafor");
    assert_eq!(session.user().role.as_deref(), Some("prescriber"));
    assert_eq!(session.organization().name, BIRCH);
    assert!(session.can("write:prescription"));
    assert!(session.can_renew(), "offline_access gives a refresh token");
    assert!(!session.is_expired());
    let landing = landing.await.unwrap();
    assert_eq!(landing.status, 200);
    assert!(
        landing
            .text()
            .contains("Signed in — you can close this tab and return to Rx Desk"),
        "{}",
        landing.html
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_organization_user_picks_one_on_the_choose_page() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let (browser, landing) = TestBrowser::signing_in(ADA, Some(BIRCH));

    let session = client.sign_in().opener(browser).run().await.unwrap();

    assert_eq!(session.user().name, "Ada Quinn");
    assert_eq!(session.organization().id, "org_birch");
    assert!(landing.await.unwrap().chose_organization);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn organization_option_skips_the_choose_page() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let (browser, landing) = TestBrowser::signing_in(ADA, None);

    let session = client
        .sign_in()
        .organization("org_maple")
        .opener(browser)
        .run()
        .await
        .unwrap();

    assert_eq!(session.organization().name, MAPLE);
    assert!(!landing.await.unwrap().chose_organization);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn medical_operations_user_signs_in_without_signing_permission() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());

    let session = sign_in(&client, MO, None).await;

    assert_eq!(session.user().role.as_deref(), Some("medical_ops"));
    assert_eq!(session.organization().name, MAPLE);
    assert!(session.can("write:order"));
    assert!(!session.can("write:prescription"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_carries_the_user_and_organization_of_userinfo_and_the_scope_as_permissions() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());

    let session = sign_in(&client, MO, None).await;

    let user = session.user();
    assert_eq!(user.id, rxdesk_sandbox::fixture::derive_user_id(MO));
    assert_eq!(user.name, "Mo Reyes");
    assert_eq!(user.email.as_deref(), Some(MO));
    assert_eq!(user.role.as_deref(), Some("medical_ops"));
    assert_eq!(session.organization().id, "org_maple");
    assert_eq!(session.organization().name, MAPLE);
    assert_eq!(
        session.permissions(),
        [
            "read:patient",
            "write:patient",
            "read:prescription",
            "read:order",
            "write:order"
        ],
        "the token response's scope, without offline_access"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_token_works_against_the_network_api() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let session = sign_in(&client, BEN, None).await;

    let pong = client.network(&session).ping().await.unwrap();

    assert_eq!(pong, "pong");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_fits_the_keyring_budget() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let session = sign_in(&client, ADA, Some(MAPLE)).await;

    let stored = serde_json::to_vec(&session).unwrap();
    println!("a stored session takes {} bytes", stored.len());

    assert!(stored.len() <= 2560, "{} bytes", stored.len());
    let restored: rxdesk_client::Session = serde_json::from_slice(&stored).unwrap();
    assert_eq!(restored, session);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renewal_rotates_the_refresh_token() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let first = sign_in(&client, BEN, None).await;

    let second = client.renew(&first).await.unwrap();

    assert_ne!(second, first, "a new refresh token");
    assert_eq!(second.organization(), first.organization());
    assert!(second.can("write:prescription"));
    client.network(&second).ping().await.unwrap();
    let reused = client.renew(&first).await.unwrap_err();
    assert!(
        matches!(reused, ClientError::SignedOut { .. }),
        "{reused:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_out_revokes_the_refresh_token() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let session = sign_in(&client, BEN, None).await;

    let report = client.sign_out(session.clone()).await;

    assert_eq!(report.refresh_token, SignOutStep::Done);
    let after = client.renew(&session).await.unwrap_err();
    assert!(matches!(after, ClientError::SignedOut { .. }), "{after:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_revocation_is_reported_not_blocking() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let session = sign_in(&client, BEN, None).await;
    // The network that issued the session is gone.
    sandbox.shutdown().await;

    let report = client.sign_out(session).await;

    assert!(
        matches!(
            report.refresh_token,
            SignOutStep::Failed(ClientError::Network { .. })
        ),
        "{report:?}"
    );
    assert!(!report.ended_anything(), "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_offline_access_expiry_means_signing_in_again() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let (browser, _landing) = TestBrowser::signing_in(BEN, None);
    let session = client
        .sign_in()
        .scopes(Vec::<String>::new())
        .opener(browser)
        .run()
        .await
        .unwrap();

    let renewal = client.renew(&session).await.unwrap_err();

    assert!(!session.can_renew());
    assert!(
        matches!(renewal, ClientError::SignedOut { .. }),
        "{renewal:?}"
    );
    assert_eq!(
        client.sign_out(session).await.refresh_token,
        SignOutStep::NotOffered
    );
}
