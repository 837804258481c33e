//! The browser sign-in: `GET /authorize` checks the authorization request and
//! shows the sign-in page; `POST /authorize/login` checks the password (or
//! cancels); `POST /authorize/organization` takes the choice of a user in several
//! organizations. It ends with a redirect carrying a one-time code and the
//! `state`.
//!
//! A browser whose password was accepted is remembered (as OpenID providers
//! remember their users), for as long as a sign-in may be renewed
//! (`--refresh-family-ttl`): a later request from it skips the password page —
//! unless it asks for a fresh login (OpenID Connect `prompt=login`, or
//! `max_age` no longer than the time since the password was typed; `max_age=0`
//! always), when the password is asked again. `prompt=none` never shows a page:
//! without a remembered browser it answers `login_required`. The end-session
//! endpoint (`end_session.rs`) forgets a remembered browser.
//!
//! Faults that leave no trustworthy place to send the browser (unknown client,
//! redirect URI not allowed, an expired or foreign sign-in) end on an error page,
//! never a redirect. Other faults of the request (no PKCE, `plain`, unknown
//! audience…) redirect with `error=` and `state` (RFC 6749 §4.1.2.1).
//!
//! On the wire it is typed: the query is an [`AuthorizeQuery`], the forms a
//! [`LoginForm`] and an [`OrganizationForm`], the refusals redirected to the
//! application a [`Refused`] (its variant gives its `error` code).
//!
//! CSRF: the request's parameters are kept server-side under a random sign-in
//! id that the form posts back; the sign-in is also bound to a per-browser
//! cookie, so a form posted from another browser (login CSRF) is refused.
//! The code exchange lives in `token.rs`, the HTML in `pages.rs`.

use axum::body::Bytes;
use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use url::Url;

use serde::Deserialize;

use super::common::{
    CODE_TTL_SECS, LOGIN_TTL_SECS, non_empty, now, parse_params, random_token, read_params,
    sha256_hex,
};
use super::db::{self, PendingLogin};
use super::limits::Refusal;
use super::pages::{self, SignIn};
use super::state::AuthState;
use crate::store::StoreError;

/// The cookie that binds a sign-in to the browser that started it.
const BROWSER_COOKIE: &str = "rxdesk_browser";

/// The query of `GET /authorize` (RFC 6749 §4.1.1, RFC 7636 §4.3, OpenID
/// Connect Core §3.1.2.1). A parameter sent empty counts as absent, but for
/// `state`, which goes back to the application as it came.
#[derive(Debug, Default, Deserialize)]
struct AuthorizeQuery {
    #[serde(default, deserialize_with = "non_empty")]
    client_id: Option<String>,
    #[serde(default, deserialize_with = "non_empty")]
    redirect_uri: Option<String>,
    #[serde(default, deserialize_with = "non_empty")]
    response_type: Option<String>,
    #[serde(default, deserialize_with = "non_empty")]
    code_challenge: Option<String>,
    #[serde(default, deserialize_with = "non_empty")]
    code_challenge_method: Option<String>,
    #[serde(default, deserialize_with = "non_empty")]
    audience: Option<String>,
    #[serde(default, deserialize_with = "non_empty")]
    scope: Option<String>,
    /// `prompt` (space-separated values), read by [`Prompt::of`].
    #[serde(default, deserialize_with = "non_empty")]
    prompt: Option<String>,
    /// `max_age` in seconds, read by [`Prompt::of`].
    #[serde(default, deserialize_with = "non_empty")]
    max_age: Option<String>,
    /// The sandbox's own: the organization to sign in to, when the user has several.
    #[serde(default, deserialize_with = "non_empty")]
    organization: Option<String>,
    #[serde(default)]
    state: Option<String>,
}

/// The button a sign-in form was posted with.
#[derive(Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum FormAction {
    Cancel,
    /// Sign in (`signin`), or anything else a form may send.
    #[default]
    #[serde(other)]
    Proceed,
}

/// The form of `POST /authorize/login`.
#[derive(Default, Deserialize)]
#[serde(default)]
struct LoginForm {
    /// The sign-in id the page carried.
    login: String,
    action: FormAction,
    email: String,
    password: String,
}

impl std::fmt::Debug for LoginForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginForm")
            .field("action", &self.action)
            .finish_non_exhaustive()
    }
}

/// The form of `POST /authorize/organization`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OrganizationForm {
    login: String,
    action: FormAction,
    organization: String,
}

/// A posted form as `T`; a form that does not parse (a field sent twice) is
/// an empty one, which no pending sign-in matches.
fn read_form<T: serde::de::DeserializeOwned + Default>(body: &[u8]) -> T {
    parse_params(body)
        .ok()
        .and_then(|params| read_params(params).ok())
        .unwrap_or_default()
}

/// A refusal sent back to the application's redirect URI (RFC 6749 §4.1.2.1,
/// OpenID Connect Core §3.1.2.6): each variant gives its `error` code.
#[derive(Debug, Clone, Copy)]
enum Refused {
    /// `invalid_request`.
    InvalidRequest(&'static str),
    /// `unsupported_response_type`.
    UnsupportedResponseType,
    /// `access_denied`.
    AccessDenied(&'static str),
    /// `login_required`: `prompt=none` without a remembered browser.
    LoginRequired,
    /// `interaction_required`: `prompt=none`, and an organization to choose.
    InteractionRequired,
}

impl Refused {
    fn code(self) -> &'static str {
        match self {
            Self::InvalidRequest(_) => "invalid_request",
            Self::UnsupportedResponseType => "unsupported_response_type",
            Self::AccessDenied(_) => "access_denied",
            Self::LoginRequired => "login_required",
            Self::InteractionRequired => "interaction_required",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Self::InvalidRequest(description) | Self::AccessDenied(description) => description,
            Self::UnsupportedResponseType => "response_type must be code",
            Self::LoginRequired => "prompt=none was asked, but this browser has no sign-in to use",
            Self::InteractionRequired => {
                "prompt=none was asked, but the user must choose an organization"
            }
        }
    }

    /// The redirect that carries it, with `state` and `iss`.
    fn redirect(self, issuer: &str, redirect_uri: &str, state: Option<&str>) -> Response {
        redirect_with(
            issuer,
            redirect_uri,
            &[
                ("error", self.code()),
                ("error_description", self.description()),
            ],
            state,
        )
    }
}

/// `GET /authorize`
pub(super) async fn start(
    State(state): State<AuthState>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let query = match parse_params(query.unwrap_or_default().as_bytes()) {
        Ok(params) => read_params::<AuthorizeQuery>(params).unwrap_or_default(),
        Err(name) => {
            return error_page(&format!(
                "The parameter `{name}` appears more than once in the request."
            ));
        }
    };

    let Some(client_id) = query.client_id.as_deref() else {
        return error_page("The request does not name an application (client_id is missing).");
    };
    let client = client_id.to_owned();
    let application = match state
        .db
        .call(move |conn| Ok(db::application(conn, &client)?))
        .await
    {
        Ok(Some(app)) => app,
        Ok(None) => {
            tracing::info!(client_id, "authorize: unknown application");
            return error_page(
                "This application is not registered with the sandbox (unknown client_id).",
            );
        }
        Err(e) => return internal(e),
    };
    let Some(redirect_uri) = query.redirect_uri.as_deref() else {
        return error_page("The request has no redirect_uri.");
    };
    if !super::redirect::is_allowed(redirect_uri, &application.allowed_urls) {
        tracing::info!(client_id, "authorize: redirect_uri not allowed");
        return error_page("The redirect URI is not in this application's allowed URLs.");
    }

    // From here on the redirect URI is trusted: faults go back to the application.
    let state_param = query.state.clone();
    let back = |error: Refused| error.redirect(&state.issuer, redirect_uri, state_param.as_deref());
    if query.response_type.as_deref() != Some("code") {
        return back(Refused::UnsupportedResponseType);
    }
    let Some(challenge) = query.code_challenge.as_deref() else {
        return back(Refused::InvalidRequest(
            "PKCE is required: code_challenge is missing",
        ));
    };
    if query.code_challenge_method.as_deref() != Some("S256") {
        return back(Refused::InvalidRequest(
            "code_challenge_method must be S256 (plain is not supported)",
        ));
    }
    if challenge.len() != 43
        || !challenge
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return back(Refused::InvalidRequest(
            "code_challenge is not a base64url SHA-256 digest",
        ));
    }
    match query.audience.as_deref() {
        None => return back(Refused::InvalidRequest("audience is required")),
        Some(a) if a != state.config.audience => {
            return back(Refused::InvalidRequest("unknown audience"));
        }
        Some(_) => {}
    }
    let asked = match Prompt::of(query.prompt.as_deref(), query.max_age.as_deref()) {
        Ok(asked) => asked,
        Err(description) => return back(Refused::InvalidRequest(description)),
    };

    let (browser, cookie) = match browser_id(&headers) {
        Some(id) => (id, None),
        None => {
            let id = random_token();
            let cookie = format!("{BROWSER_COOKIE}={id}; Path=/; HttpOnly; SameSite=Lax");
            (id, Some(cookie))
        }
    };
    let browser_hash = sha256_hex(&browser);
    let at = now();
    let remembered = if cookie.is_none() {
        let hash = browser_hash.clone();
        match state
            .db
            .call(move |conn| Ok(db::remembered_browser(conn, &hash, at)?))
            .await
        {
            Ok(found) => found.filter(|r| asked.accepts_login_from(r.auth_time, at)),
            Err(e) => return internal(e),
        }
    } else {
        None
    };
    if asked.none && remembered.is_none() {
        return back(Refused::LoginRequired);
    }
    let login_id = random_token();
    let pending = PendingLogin {
        browser_hash,
        client_id: application.client_id.clone(),
        redirect_uri: redirect_uri.to_owned(),
        state: state_param.clone(),
        code_challenge: challenge.to_owned(),
        audience: state.config.audience.clone(),
        scope: query.scope.clone().unwrap_or_default(),
        organization: query.organization.clone(),
        user_id: remembered.as_ref().map(|r| r.user_id.clone()),
        auth_time: remembered.as_ref().map(|r| r.auth_time),
        expires_at: at + LOGIN_TTL_SECS,
    };
    let id_hash = sha256_hex(&login_id);
    let stored = pending.clone();
    let hash = id_hash.clone();
    if let Err(e) = state
        .db
        .call(move |conn| Ok(db::insert_pending(conn, &hash, &stored, at)?))
        .await
    {
        return internal(e);
    }
    if let Some(remembered) = remembered {
        let user_id = remembered.user_id.clone();
        let user = match state
            .db
            .call(move |conn| Ok(db::user_by_id(conn, &user_id)?))
            .await
        {
            Ok(Some(user)) => user,
            Ok(None) => return error_page("The account this browser signed in with is gone."),
            Err(e) => return internal(e),
        };
        tracing::info!(user_id = %user.id, client_id = %pending.client_id, "remembered browser: no password asked");
        let interactive = !asked.none;
        return authenticated(&state, &login_id, &id_hash, &pending, &user, interactive).await;
    }
    let html = pages::sign_in(&SignIn {
        login_id: &login_id,
        client_id: &application.client_id,
        demo: &state.demo_accounts,
        ..SignIn::default()
    });
    pages::respond(StatusCode::OK, html, cookie)
}

/// `POST /authorize/login`: Sign in or Cancel.
pub(super) async fn login(
    State(state): State<AuthState>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form: LoginForm = read_form(&body);
    let login_id = form.login;
    let (id_hash, pending) = match load_pending(&state, &headers, &login_id).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    if form.action == FormAction::Cancel {
        return cancel(&state, &id_hash, &pending).await;
    }

    let email = form.email.trim().to_owned();
    let password = form.password;
    let again = |message: &str, status: StatusCode| {
        let html = pages::sign_in(&SignIn {
            login_id: &login_id,
            client_id: &pending.client_id,
            email: &email,
            message: Some(message),
            demo: &state.demo_accounts,
        });
        pages::respond(status, html, None)
    };
    if email.is_empty() || password.is_empty() {
        return again("Enter your email and password.", StatusCode::OK);
    }
    // The lock check and the count are one step: the attempt is reserved now.
    let attempt = match state.login_limiter.begin(&email, peer.ip()) {
        Ok(attempt) => attempt,
        Err(Refusal::Locked(left)) => {
            tracing::info!("sign-in refused: account locked after repeated failures");
            return again(&locked_message(left), StatusCode::TOO_MANY_REQUESTS);
        }
        Err(Refusal::Busy) => {
            tracing::info!("sign-in refused: too many attempts in progress");
            return again(BUSY, StatusCode::TOO_MANY_REQUESTS);
        }
    };
    // Bounded work: at most a few password checks at once, each waiting briefly.
    let Some(_turn) = state.login_limiter.turn().await else {
        drop(attempt);
        return again(BUSY, StatusCode::SERVICE_UNAVAILABLE);
    };

    let lookup = email.clone();
    let user = match state
        .db
        .call(move |conn| Ok(db::user_by_email(conn, &lookup)?))
        .await
    {
        Ok(user) => user,
        Err(e) => return internal(e),
    };
    let checked = user.clone();
    let verified = tokio::task::spawn_blocking(move || match &checked {
        Some(u) => super::password::verify(&password, &u.password_hash),
        None => {
            super::password::verify_nothing(&password);
            false
        }
    })
    .await
    .unwrap_or(false);
    let Some(user) = user.filter(|_| verified) else {
        tracing::info!("sign-in refused: wrong email or password");
        return match attempt.failed() {
            Some(lock) => again(&locked_message(lock), StatusCode::TOO_MANY_REQUESTS),
            None => again("Wrong email or password.", StatusCode::OK),
        };
    };
    attempt.succeeded();
    tracing::info!(user_id = %user.id, client_id = %pending.client_id, "password accepted");

    // This browser is remembered as this user from now on.
    let at = now();
    let remember_until = at + duration_secs(state.config.refresh_family_ttl);
    let (browser_hash, user_id) = (pending.browser_hash.clone(), user.id.clone());
    if let Err(e) = state
        .db
        .call(move |conn| {
            Ok(db::remember_browser(
                conn,
                &browser_hash,
                &user_id,
                at,
                remember_until,
            )?)
        })
        .await
    {
        return internal(e);
    }
    let pending = PendingLogin {
        user_id: Some(user.id.clone()),
        auth_time: Some(at),
        ..pending
    };
    authenticated(&state, &login_id, &id_hash, &pending, &user, true).await
}

/// The user is known (a password just checked, or a remembered browser): the
/// organization is the one asked for, the only one, or the user's choice on
/// **Choose an organization** (`interactive`; otherwise `interaction_required`).
async fn authenticated(
    state: &AuthState,
    login_id: &str,
    id_hash: &str,
    pending: &PendingLogin,
    user: &db::User,
    interactive: bool,
) -> Response {
    let (user_id, client_id) = (user.id.clone(), pending.client_id.clone());
    let organizations = match state
        .db
        .call(move |conn| Ok(db::organizations_for(conn, &user_id, &client_id)?))
        .await
    {
        Ok(orgs) => orgs,
        Err(e) => return internal(e),
    };
    let back = |error: Refused| {
        error.redirect(
            &state.issuer,
            &pending.redirect_uri,
            pending.state.as_deref(),
        )
    };
    let chosen = match (&pending.organization, organizations.as_slice()) {
        (_, []) => {
            let _ = delete_pending(state, id_hash).await;
            return back(Refused::AccessDenied(
                "the account belongs to no organization this application serves",
            ));
        }
        (Some(asked), orgs) if orgs.iter().any(|(id, _)| id == asked) => asked.clone(),
        (_, [(only, _)]) => only.clone(),
        (_, _) if !interactive => {
            let _ = delete_pending(state, id_hash).await;
            return back(Refused::InteractionRequired);
        }
        (_, _) => {
            let (hash, user_id) = (id_hash.to_owned(), user.id.clone());
            let auth_time = pending.auth_time.unwrap_or_else(now);
            if let Err(e) = state
                .db
                .call(move |conn| Ok(db::set_pending_user(conn, &hash, &user_id, auth_time)?))
                .await
            {
                return internal(e);
            }
            let html =
                pages::choose_organization(login_id, &user.name, &user.email, &organizations);
            return pages::respond(StatusCode::OK, html, None);
        }
    };
    finish(state, id_hash, pending, &user.id, &chosen).await
}

/// `POST /authorize/organization`: the button of one organization, or Cancel.
pub(super) async fn choose_organization(
    State(state): State<AuthState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form: OrganizationForm = read_form(&body);
    let (id_hash, pending) = match load_pending(&state, &headers, &form.login).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    if form.action == FormAction::Cancel {
        return cancel(&state, &id_hash, &pending).await;
    }
    let Some(user_id) = pending.user_id.clone() else {
        return error_page("Sign in first: this sign-in has not checked a password yet.");
    };
    let (uid, client_id) = (user_id.clone(), pending.client_id.clone());
    let organizations = match state
        .db
        .call(move |conn| Ok(db::organizations_for(conn, &uid, &client_id)?))
        .await
    {
        Ok(orgs) => orgs,
        Err(e) => return internal(e),
    };
    let chosen = form.organization.as_str();
    if !organizations.iter().any(|(id, _)| id == chosen) {
        return error_page(
            "That organization is not one you can sign in to with this application.",
        );
    }
    finish(&state, &id_hash, &pending, &user_id, chosen).await
}

/// Issues the code and sends the browser back to the application.
async fn finish(
    state: &AuthState,
    id_hash: &str,
    pending: &PendingLogin,
    user_id: &str,
    organization_id: &str,
) -> Response {
    let code = random_token();
    let code_hash = sha256_hex(&code);
    let at = now();
    let row = db::Code {
        client_id: pending.client_id.clone(),
        redirect_uri: pending.redirect_uri.clone(),
        code_challenge: pending.code_challenge.clone(),
        user_id: user_id.to_owned(),
        organization_id: organization_id.to_owned(),
        audience: pending.audience.clone(),
        scope: pending.scope.clone(),
        expires_at: at + CODE_TTL_SECS,
        used_at: None,
        family_id: None,
        auth_time: pending.auth_time,
        browser_hash: Some(pending.browser_hash.clone()),
    };
    let login = id_hash.to_owned();
    let stored = state
        .db
        .call(move |conn| {
            let tx = conn.transaction()?;
            db::insert_code(&tx, &code_hash, &row, at)?;
            db::delete_pending(&tx, &login)?;
            tx.commit()?;
            Ok(())
        })
        .await;
    if let Err(e) = stored {
        return internal(e);
    }
    tracing::info!(%user_id, %organization_id, client_id = %pending.client_id, "authorization code issued");
    redirect_with(
        &state.issuer,
        &pending.redirect_uri,
        &[("code", &code)],
        pending.state.as_deref(),
    )
}

async fn cancel(state: &AuthState, id_hash: &str, pending: &PendingLogin) -> Response {
    let _ = delete_pending(state, id_hash).await;
    tracing::info!(client_id = %pending.client_id, "sign-in cancelled by the user");
    Refused::AccessDenied("the user cancelled the sign-in").redirect(
        &state.issuer,
        &pending.redirect_uri,
        pending.state.as_deref(),
    )
}

async fn delete_pending(state: &AuthState, id_hash: &str) -> Result<(), StoreError> {
    let hash = id_hash.to_owned();
    state
        .db
        .call(move |conn| Ok(db::delete_pending(conn, &hash)?))
        .await
}

/// The pending sign-in a form refers to, if it exists, has not expired and was
/// started by this browser.
async fn load_pending(
    state: &AuthState,
    headers: &HeaderMap,
    login_id: &str,
) -> Result<(String, PendingLogin), Response> {
    const EXPIRED: &str = "This sign-in has expired or was started in another browser. Return to the application and start again.";
    if login_id.is_empty() {
        return Err(error_page(EXPIRED));
    }
    let id_hash = sha256_hex(login_id);
    let hash = id_hash.clone();
    let at = now();
    let pending = state
        .db
        .call(move |conn| Ok(db::pending(conn, &hash, at)?))
        .await
        .map_err(internal)?;
    let browser_hash = browser_id(headers).map(|b| sha256_hex(&b));
    match pending {
        Some(p) if browser_hash.as_deref() == Some(p.browser_hash.as_str()) => Ok((id_hash, p)),
        _ => Err(error_page(EXPIRED)),
    }
}

/// The browser id from the `rxdesk_browser` cookie, if well-formed.
pub(super) fn browser_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == BROWSER_COOKIE)
        .map(|(_, value)| value.to_owned())
        .filter(|v| {
            v.len() == 43
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// What an authorization request asks about the user's login (OpenID Connect
/// Core §3.1.2.1: `prompt`, `max_age`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Prompt {
    /// `prompt=login`: the password, whatever the browser remembers.
    login: bool,
    /// `prompt=none`: no page at all.
    none: bool,
    /// `max_age`: at most this many seconds since the password was typed.
    max_age: Option<i64>,
}

impl Prompt {
    fn of(prompt: Option<&str>, max_age: Option<&str>) -> Result<Self, &'static str> {
        let values: Vec<&str> = prompt
            .unwrap_or_default()
            .split(' ')
            .filter(|v| !v.is_empty())
            .collect();
        let none = values.contains(&"none");
        if none && values.len() > 1 {
            return Err("prompt=none cannot be combined with other prompt values");
        }
        let max_age = match max_age {
            None => None,
            Some(text) => Some(
                text.parse::<u32>()
                    .map_err(|_| "max_age must be a whole number of seconds")?,
            ),
        };
        Ok(Self {
            login: values.contains(&"login"),
            none,
            max_age: max_age.map(i64::from),
        })
    }

    /// Whether a password typed at `auth_time` is still good for this request.
    /// `max_age=0` never accepts one (it asks for a fresh login, like
    /// `prompt=login`), even typed the same second.
    fn accepts_login_from(self, auth_time: i64, now: i64) -> bool {
        !self.login && self.max_age.is_none_or(|max| now - auth_time < max)
    }
}

fn duration_secs(d: std::time::Duration) -> i64 {
    i64::try_from(d.as_secs()).unwrap_or(i64::MAX / 2)
}

/// Said when too many checks run or wait for the same account or the sandbox.
const BUSY: &str = "Too many sign-in attempts are in progress. Wait a moment and try again.";

fn locked_message(left: std::time::Duration) -> String {
    let minutes = left.as_secs().div_ceil(60).max(1);
    let unit = if minutes == 1 { "minute" } else { "minutes" };
    format!(
        "Too many failed sign-in attempts for this account. It is locked: try again in {minutes} {unit}."
    )
}

/// 303 to `redirect_uri` with `params`, `state` and `iss` (RFC 9207: the
/// application can tell which authorization server answered, against mix-up
/// attacks) added to its query.
fn redirect_with(
    issuer: &str,
    redirect_uri: &str,
    params: &[(&str, &str)],
    state: Option<&str>,
) -> Response {
    let Ok(mut url) = Url::parse(redirect_uri) else {
        // Only URIs that parsed when they were allowed get here.
        return error_page("The redirect URI is not a valid URL.");
    };
    {
        let mut query = url.query_pairs_mut();
        for (name, value) in params {
            query.append_pair(name, value);
        }
        if let Some(state) = state {
            query.append_pair("state", state);
        }
        query.append_pair("iss", issuer);
    }
    (
        StatusCode::SEE_OTHER,
        [
            (header::LOCATION, url.to_string()),
            (header::CACHE_CONTROL, "no-store".to_owned()),
        ],
    )
        .into_response()
}

fn error_page(message: &str) -> Response {
    pages::respond(
        StatusCode::BAD_REQUEST,
        pages::error("Sign-in cannot continue", message),
        None,
    )
}

fn internal(e: StoreError) -> Response {
    tracing::error!(error = %e, "sign-in failed on a store error");
    pages::respond(
        StatusCode::INTERNAL_SERVER_ERROR,
        pages::error(
            "Something went wrong",
            "The sandbox could not complete this step. Try again.",
        ),
        None,
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_fresh_login_is_asked_by_prompt_login_or_a_max_age_shorter_than_the_time_since() {
        let plain = Prompt::of(None, None).unwrap();
        let login = Prompt::of(Some("login"), None).unwrap();
        let zero = Prompt::of(None, Some("0")).unwrap();
        let minute = Prompt::of(Some("consent"), Some("60")).unwrap();

        assert!(plain.accepts_login_from(100, 100));
        assert!(!login.accepts_login_from(100, 100));
        assert!(!zero.accepts_login_from(100, 100));
        assert!(minute.accepts_login_from(100, 159));
        assert!(!minute.accepts_login_from(100, 160));
    }

    #[test]
    fn an_empty_query_parameter_is_absent_but_an_empty_state_goes_back_as_it_came() {
        let query: AuthorizeQuery =
            read_params(parse_params(b"client_id=&state=&audience=a&response_type=code").unwrap())
                .unwrap();

        assert_eq!(query.client_id, None);
        assert_eq!(query.state.as_deref(), Some(""));
        assert_eq!(query.audience.as_deref(), Some("a"));
        assert_eq!(query.response_type.as_deref(), Some("code"));
    }

    #[test]
    fn a_form_is_read_with_its_button_and_a_form_sent_twice_over_is_empty() {
        let cancel: LoginForm = read_form(b"login=l1&action=cancel");
        let sign_in: OrganizationForm = read_form(b"login=l1&action=signin&organization=o1");
        let repeated: LoginForm = read_form(b"login=l1&login=l2");

        assert_eq!(
            (cancel.login.as_str(), &cancel.action),
            ("l1", &FormAction::Cancel)
        );
        assert_eq!(sign_in.action, FormAction::Proceed);
        assert_eq!(sign_in.organization, "o1");
        assert_eq!(repeated.login, "");
    }

    #[test]
    fn each_refusal_gives_its_error_code() {
        assert_eq!(Refused::InvalidRequest("x").code(), "invalid_request");
        assert_eq!(
            Refused::UnsupportedResponseType.code(),
            "unsupported_response_type"
        );
        assert_eq!(Refused::AccessDenied("x").code(), "access_denied");
        assert_eq!(Refused::LoginRequired.code(), "login_required");
        assert_eq!(Refused::InteractionRequired.code(), "interaction_required");
    }

    #[test]
    fn a_prompt_that_cannot_be_honoured_is_refused() {
        assert!(Prompt::of(Some("none login"), None).is_err());
        assert!(Prompt::of(None, Some("-1")).is_err());
        assert!(Prompt::of(None, Some("soon")).is_err());
        assert!(Prompt::of(Some("none"), None).unwrap().none);
    }
}
