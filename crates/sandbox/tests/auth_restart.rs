//! A sandbox restarted on the same data directory (and the same port, so the
//! issuer is unchanged) keeps its users, its signing key and every token that
//! is still valid.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rxdesk_sandbox::{Config, Storage};
use support::*;

#[tokio::test]
async fn restart_on_the_same_data_dir_keeps_users_keys_and_valid_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        storage: Storage::Data(dir.path().to_owned()),
        ..Config::in_memory()
    };
    let first = start_with(config.clone()).await;
    let addr = first.addr();
    let user = user_tokens(&first, ADA, DEMO_PASSWORD, Some(MAPLE), true).await;
    let machine = machine_token(&first, MAPLE_BACKEND.0, MAPLE_BACKEND.1).await;
    let user_claims = verify_with_jwks(&first, &user.access_token).await;
    first.shutdown().await;

    let second = start_with(Config {
        listen: addr,
        ..config
    })
    .await;

    // Tokens issued before the restart still verify (same key, same issuer).
    assert_eq!(
        verify_with_jwks(&second, &user.access_token).await,
        user_claims
    );
    assert_eq!(
        verify_with_jwks(&second, &machine).await.org_id,
        "org_maple"
    );
    // The refresh token of the first run still works.
    let refreshed = refresh(&second, user.refresh_token.as_deref().unwrap())
        .await
        .unwrap();
    assert_eq!(
        verify_with_jwks(&second, &refreshed.access_token).await.sub,
        user_claims.sub
    );
    // Users are still there with the same id.
    let again = user_token(&second, ADA, DEMO_PASSWORD, Some(BIRCH)).await;
    assert_eq!(verify_with_jwks(&second, &again).await.sub, user_claims.sub);
    assert!(dir.path().join("signing-key.pem").exists());
    second.shutdown().await;
}
