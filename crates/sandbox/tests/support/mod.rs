//! Shared helpers of the sandbox's integration tests: machine tokens, the
//! browser sign-in driven with the `oauth2` crate as the OAuth client (PKCE S256)
//! over the sign-in pages, and the tokens' verification against the JWKS. The
//! plumbing every crate's tests share (starting a sandbox, the demo accounts,
//! the crypto provider and HTTP clients, the sign-in page reader, the log
//! capture) lives in `rxdesk-testkit` and is re-exported here under the names
//! the tests use.
//!
//! Used by the auth tests (issue 2) and the GraphQL tests (issue 3): keep the
//! signatures of `start_demo`, `start_with`, `machine_token` and `user_token` stable.
//! No assertions about the auth server's behaviour live here, only the plumbing.
#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::expect_used)]

use oauth2::basic::BasicClient;
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, CsrfToken, EndpointNotSet, EndpointSet,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, RevocationUrl, TokenResponse, TokenUrl,
};
use rxdesk_sandbox::Sandbox;
use rxdesk_sandbox::auth::claims::AccessClaims;
use url::Url;

pub use rxdesk_testkit::demo::{
    ADA, BEN, BIRCH, BIRCH_BACKEND, DESKTOP_CLIENT, MAPLE, MAPLE_BACKEND, MO,
    PASSWORD as DEMO_PASSWORD,
};
pub use rxdesk_testkit::logs::CapturedLogs;
pub use rxdesk_testkit::sign_in_page::{Page, Reply, get, query_map};
pub use rxdesk_testkit::{browser, http, install_crypto, start_demo, start_with};

/// A loopback redirect URI the demo Application allows (nothing listens there:
/// the tests read the redirect's `Location` instead of following it).
pub const REDIRECT_URI: &str = "http://127.0.0.1:53682/callback";
/// The machine token's `scope`, exactly as the contract's table.
pub const MACHINE_SCOPE: &str =
    "read:patient write:patient read:prescription read:order write:order";

/// `{origin}{path}` of the sandbox.
pub fn endpoint(sandbox: &Sandbox, path: &str) -> String {
    sandbox.url().join(path).unwrap().to_string()
}

/// `oauth2`'s HTTP client over [`http`] (the crate is built without one of its own).
pub async fn oauth_http(
    request: oauth2::HttpRequest,
) -> Result<oauth2::HttpResponse, reqwest::Error> {
    let response = http().execute(request.try_into()?).await?;
    let mut answer = oauth2::http::Response::builder().status(response.status());
    for (name, value) in response.headers() {
        answer = answer.header(name, value);
    }
    let body = response.bytes().await?.to_vec();
    // Status and headers come from a response that was already parsed.
    Ok(answer.body(body).unwrap())
}

/// The API audience the sandbox issues tokens for (its `--audience`), as its
/// discovery document advertises it.
pub async fn audience_of(sandbox: &Sandbox) -> String {
    let discovery: serde_json::Value = http()
        .get(endpoint(sandbox, "/.well-known/openid-configuration"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    discovery["audience"].as_str().unwrap().to_owned()
}

/// The raw token endpoint response of a client credentials request (JSON body,
/// as in the contract): status and JSON body.
pub async fn machine_token_response(
    sandbox: &Sandbox,
    client_id: &str,
    secret: &str,
) -> (reqwest::StatusCode, serde_json::Value) {
    let response = http()
        .post(endpoint(sandbox, "/oauth/token"))
        .json(&serde_json::json!({
            "client_id": client_id,
            "client_secret": secret,
            "audience": audience_of(sandbox).await,
            "grant_type": "client_credentials",
        }))
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

/// A machine token for the backend `client_id`.
pub async fn machine_token(sandbox: &Sandbox, client_id: &str, secret: &str) -> String {
    let (status, body) = machine_token_response(sandbox, client_id, secret).await;
    assert_eq!(status, 200, "machine token refused: {body}");
    body["access_token"].as_str().unwrap().to_owned()
}

/// A user's access token after a full browser sign-in (PKCE S256). With
/// `organization_name`, that button is pressed on the **Choose an organization** page
/// (when the page appears); without it the user must be in one organization.
pub async fn user_token(
    sandbox: &Sandbox,
    email: &str,
    password: &str,
    organization_name: Option<&str>,
) -> String {
    user_tokens(sandbox, email, password, organization_name, false)
        .await
        .access_token
}

/// What a sign-in ends with.
#[derive(Debug, Clone)]
pub struct UserTokens {
    pub access_token: String,
    /// Present when `offline_access` was asked for.
    pub refresh_token: Option<String>,
    pub expires_in: u64,
    pub scope: Vec<String>,
}

/// [`user_token`], returning the whole token response; `offline` asks for
/// `offline_access` (a refresh token).
pub async fn user_tokens(
    sandbox: &Sandbox,
    email: &str,
    password: &str,
    organization_name: Option<&str>,
    offline: bool,
) -> UserTokens {
    let flow = Flow::for_audience(sandbox, &audience_of(sandbox).await).offline(offline);
    let browser = browser();
    let page = flow.open(&browser).await;
    let mut after = page.sign_in(&browser, email, password).await;
    if let Some(name) = organization_name
        && after.is_page()
    {
        after = after.page().choose_organization(&browser, name).await;
    }
    let code = flow.code_from(&after);
    flow.exchange(sandbox, &code).await.unwrap()
}

/// Exchanges a refresh token at the token endpoint with the `oauth2` crate.
pub async fn refresh(sandbox: &Sandbox, refresh_token: &str) -> Result<UserTokens, String> {
    let client = oauth_client(sandbox);
    let token = oauth2::RefreshToken::new(refresh_token.to_owned());
    client
        .exchange_refresh_token(&token)
        .request_async(&oauth_http)
        .await
        .map(into_user_tokens)
        .map_err(describe_error)
}

/// Revokes a refresh token at `POST /oauth/revoke` (RFC 7009 form body, as the
/// demo Application). Not through the `oauth2` crate: it refuses a revocation
/// URL that is not https, and the sandbox is plain http on loopback.
pub async fn revoke_refresh_token(sandbox: &Sandbox, refresh_token: &str) {
    let response = http()
        .post(endpoint(sandbox, "/oauth/revoke"))
        .form(&[
            ("token", refresh_token),
            ("token_type_hint", "refresh_token"),
            ("client_id", DESKTOP_CLIENT),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "revocation refused");
}

/// Verifies `token` against the sandbox's published JWKS (fetched over HTTP) with
/// the sandbox's issuer and audience, and returns its claims.
pub async fn verify_with_jwks(sandbox: &Sandbox, token: &str) -> AccessClaims {
    let audience = audience_of(sandbox).await;
    verify_with_jwks_for(sandbox, token, &audience).await
}

/// [`verify_with_jwks`] for another audience.
pub async fn verify_with_jwks_for(sandbox: &Sandbox, token: &str, audience: &str) -> AccessClaims {
    let jwks: jsonwebtoken::jwk::JwkSet = http()
        .get(endpoint(sandbox, "/.well-known/jwks.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let header = jsonwebtoken::decode_header(token).unwrap();
    let kid = header.kid.expect("token header has a kid");
    let jwk = jwks.find(&kid).expect("the token's kid is in the JWKS");
    let key = jsonwebtoken::DecodingKey::from_jwk(jwk).unwrap();
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
    validation.set_audience(&[audience]);
    validation.set_issuer(&[sandbox.issuer()]);
    jsonwebtoken::decode::<AccessClaims>(token, &key, &validation)
        .unwrap()
        .claims
}

/// The demo Application as an `oauth2` client of this sandbox.
pub type OauthClient =
    BasicClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointSet, EndpointSet>;

pub fn oauth_client(sandbox: &Sandbox) -> OauthClient {
    oauth_client_for(sandbox, DESKTOP_CLIENT, REDIRECT_URI)
}

pub fn oauth_client_for(sandbox: &Sandbox, client_id: &str, redirect_uri: &str) -> OauthClient {
    BasicClient::new(ClientId::new(client_id.to_owned()))
        .set_auth_uri(AuthUrl::new(endpoint(sandbox, "/authorize")).unwrap())
        .set_token_uri(TokenUrl::new(endpoint(sandbox, "/oauth/token")).unwrap())
        .set_revocation_url(RevocationUrl::new(endpoint(sandbox, "/oauth/revoke")).unwrap())
        .set_redirect_uri(RedirectUrl::new(redirect_uri.to_owned()).unwrap())
}

/// One authorization request of the demo Application: its URL, PKCE verifier and state.
#[derive(Debug)]
pub struct Flow {
    pub client: OauthClient,
    pub authorize_url: Url,
    pub verifier: String,
    pub state: String,
}

impl Flow {
    /// A standard request: S256 PKCE, the default audience, no extra scope.
    pub fn new(sandbox: &Sandbox) -> Self {
        Self::build(sandbox, &[], rxdesk_sandbox::config::DEFAULT_AUDIENCE)
    }

    /// A standard request for another audience (a sandbox started with `--audience`).
    pub fn for_audience(sandbox: &Sandbox, audience: &str) -> Self {
        Self::build(sandbox, &[], audience)
    }

    /// A request with extra query parameters (e.g. `("organization", "org_birch")`).
    pub fn with_params(sandbox: &Sandbox, params: &[(&str, &str)]) -> Self {
        Self::build(sandbox, params, rxdesk_sandbox::config::DEFAULT_AUDIENCE)
    }

    fn build(sandbox: &Sandbox, params: &[(&str, &str)], audience: &str) -> Self {
        let client = oauth_client(sandbox);
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client
            .authorize_url(CsrfToken::new_random)
            .set_pkce_challenge(challenge)
            .add_extra_param("audience", audience.to_owned());
        for (name, value) in params {
            request = request.add_extra_param(*name, *value);
        }
        let (authorize_url, state) = request.url();
        Self {
            client,
            authorize_url,
            verifier: verifier.secret().clone(),
            state: state.secret().clone(),
        }
    }

    /// The same request asking for `offline_access` (a refresh token).
    pub fn offline(self, offline: bool) -> Self {
        if !offline {
            return self;
        }
        let mut url = self.authorize_url.clone();
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .filter(|(k, _)| k != "scope")
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        url.query_pairs_mut()
            .clear()
            .extend_pairs(pairs)
            .append_pair("scope", "offline_access");
        Self {
            authorize_url: url,
            ..self
        }
    }

    /// `GET /authorize` in `browser`; panics unless it shows the sign-in page.
    pub async fn open(&self, browser: &reqwest::Client) -> Page {
        let reply = get(browser, self.authorize_url.as_str()).await;
        assert!(reply.is_page(), "expected the sign-in page, got {reply:?}");
        reply.page()
    }

    /// The `code` of the final redirect, after checking it goes to the redirect
    /// URI and carries this flow's `state`.
    pub fn code_from(&self, reply: &Reply) -> String {
        let location = reply
            .location()
            .unwrap_or_else(|| panic!("expected a redirect, got {reply:?}"));
        assert!(
            location.as_str().starts_with(REDIRECT_URI),
            "redirected to {location}"
        );
        let query = query_map(&location);
        assert_eq!(query.get("state"), Some(&self.state), "state returned");
        query
            .get("code")
            .unwrap_or_else(|| panic!("no code in {location}"))
            .clone()
    }

    /// Exchanges `code` with this flow's verifier (the `oauth2` crate).
    pub async fn exchange(&self, _sandbox: &Sandbox, code: &str) -> Result<UserTokens, String> {
        self.exchange_with_verifier(code, &self.verifier).await
    }

    /// Exchanges `code` with any verifier.
    pub async fn exchange_with_verifier(
        &self,
        code: &str,
        verifier: &str,
    ) -> Result<UserTokens, String> {
        self.client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .set_pkce_verifier(PkceCodeVerifier::new(verifier.to_owned()))
            .request_async(&oauth_http)
            .await
            .map(into_user_tokens)
            .map_err(describe_error)
    }

    /// Signs in and returns the code (the user must be in one organization, or
    /// `organization_name` picks one).
    pub async fn code_for(
        &self,
        email: &str,
        password: &str,
        organization_name: Option<&str>,
    ) -> String {
        let browser = browser();
        let mut reply = self
            .open(&browser)
            .await
            .sign_in(&browser, email, password)
            .await;
        if let Some(name) = organization_name
            && reply.is_page()
        {
            reply = reply.page().choose_organization(&browser, name).await;
        }
        self.code_from(&reply)
    }
}

fn into_user_tokens(response: oauth2::basic::BasicTokenResponse) -> UserTokens {
    UserTokens {
        access_token: response.access_token().secret().clone(),
        refresh_token: response.refresh_token().map(|t| t.secret().clone()),
        expires_in: response
            .expires_in()
            .map(|d| d.as_secs())
            .unwrap_or_default(),
        scope: response
            .scopes()
            .map(|s| s.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default(),
    }
}

/// `"error_code"` of an RFC 6749 error response, or a description of another failure.
fn describe_error<E: std::error::Error>(
    error: oauth2::RequestTokenError<E, oauth2::basic::BasicErrorResponse>,
) -> String {
    match error {
        oauth2::RequestTokenError::ServerResponse(response) => response.error().to_string(),
        other => format!("{other:?}"),
    }
}

/// Installs the process-wide tracing subscriber, at TRACE level for everything
/// but the HTML parser the tests use to read pages, writing into the returned
/// capture. Once per test binary: a second call panics.
pub fn capture_logs() -> CapturedLogs {
    let captured = CapturedLogs::default();
    captured.install_global("trace,html5ever=off,markup5ever=off,selectors=off,scraper=off");
    captured
}
