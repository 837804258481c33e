//! `GET /.well-known/openid-configuration` (also served as
//! `/.well-known/oauth-authorization-server`, RFC 8414) and
//! `GET /.well-known/jwks.json`. Only metadata: the endpoints themselves live
//! in `authorize.rs`, `token.rs`, `userinfo.rs` and `end_session.rs`. The
//! `issuer` is the one kept across restarts (`issuer.rs`); every endpoint is an
//! address of the origin the sandbox listens on now, which differs from the
//! issuer after a restart on another port.

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use super::claims::ALL_PERMISSIONS;
use super::state::AuthState;

pub(super) async fn openid_configuration(State(state): State<AuthState>) -> Json<Value> {
    // The issuer is kept across restarts; the endpoints are where it listens now.
    let origin = &*state.origin;
    let mut scopes = vec![super::common::OPENID, super::common::OFFLINE_ACCESS];
    scopes.extend(ALL_PERMISSIONS);
    Json(json!({
        "issuer": &*state.issuer,
        "authorization_endpoint": format!("{origin}/authorize"),
        "token_endpoint": format!("{origin}/oauth/token"),
        "revocation_endpoint": format!("{origin}/oauth/revoke"),
        "jwks_uri": format!("{origin}/.well-known/jwks.json"),
        "userinfo_endpoint": format!("{origin}/userinfo"),
        "end_session_endpoint": format!("{origin}{}", super::common::END_SESSION_PATH),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "client_credentials", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": true,
        "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": scopes,
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "claims_supported": ["sub", "name", "email", "role", "org_id", "org_name", "sid", "auth_time"],
        "prompt_values_supported": ["none", "login"],
        "audience": &*state.config.audience,
    }))
}

pub(super) async fn jwks(State(state): State<AuthState>) -> Json<Value> {
    Json(state.keys.jwks())
}
