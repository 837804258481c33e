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
//! CSRF: the request's parameters are kept server-side under a random sign-in
//! id that the form posts back; the sign-in is also bound to a per-browser
//! cookie, so a form posted from another browser (login CSRF) is refused.
//! The code exchange lives in `token.rs`, the HTML in `pages.rs`.

use axum::body::Bytes;
use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use url::Url;

use super::common::{CODE_TTL_SECS, LOGIN_TTL_SECS, now, parse_params, random_token, sha256_hex};
use super::db::{self, PendingLogin};
use super::limits::Refusal;
use super::pages::{self, SignIn};
use crate::state::AppState;
use crate::store::StoreError;

/// The cookie that binds a sign-in to the browser that started it.
const BROWSER_COOKIE: &str = "rxdesk_browser";

/// `GET /authorize`
pub(super) async fn start(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let params = match parse_params(query.unwrap_or_default().as_bytes()) {
        Ok(p) => p,
        Err(name) => {
            return error_page(&format!(
                "The parameter `{name}` appears more than once in the request."
            ));
        }
    };
    let param = |name: &str| {
        params
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    };

    let Some(client_id) = param("client_id") else {
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
    let Some(redirect_uri) = param("redirect_uri") else {
        return error_page("The request has no redirect_uri.");
    };
    if !super::redirect::is_allowed(redirect_uri, &application.allowed_urls) {
        tracing::info!(client_id, "authorize: redirect_uri not allowed");
        return error_page("The redirect URI is not in this application's allowed URLs.");
    }

    // From here on the redirect URI is trusted: faults go back to the application.
    let state_param = params.get("state").cloned();
    let back = |error: &str, description: &str| {
        redirect_with(
            &state.issuer,
            redirect_uri,
            &[("error", error), ("error_description", description)],
            state_param.as_deref(),
        )
    };
    if param("response_type") != Some("code") {
        return back("unsupported_response_type", "response_type must be code");
    }
    let Some(challenge) = param("code_challenge") else {
        return back(
            "invalid_request",
            "PKCE is required: code_challenge is missing",
        );
    };
    if param("code_challenge_method") != Some("S256") {
        return back(
            "invalid_request",
            "code_challenge_method must be S256 (plain is not supported)",
        );
    }
    if challenge.len() != 43
        || !challenge
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return back(
            "invalid_request",
            "code_challenge is not a base64url SHA-256 digest",
        );
    }
    match param("audience") {
        None => return back("invalid_request", "audience is required"),
        Some(a) if a != state.config.audience => {
            return back("invalid_request", "unknown audience");
        }
        Some(_) => {}
    }
    let asked = match Prompt::of(param("prompt"), param("max_age")) {
        Ok(asked) => asked,
        Err(description) => return back("invalid_request", description),
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
        return back(
            "login_required",
            "prompt=none was asked, but this browser has no sign-in to use",
        );
    }
    let login_id = random_token();
    let pending = PendingLogin {
        browser_hash,
        client_id: application.client_id.clone(),
        redirect_uri: redirect_uri.to_owned(),
        state: state_param.clone(),
        code_challenge: challenge.to_owned(),
        audience: state.config.audience.clone(),
        scope: param("scope").unwrap_or_default().to_owned(),
        organization: param("organization").map(str::to_owned),
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
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form = parse_params(&body).unwrap_or_default();
    let field = |name: &str| form.get(name).map(String::as_str).unwrap_or_default();
    let login_id = field("login").to_owned();
    let (id_hash, pending) = match load_pending(&state, &headers, &login_id).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    if field("action") == "cancel" {
        return cancel(&state, &id_hash, &pending).await;
    }

    let email = field("email").trim().to_owned();
    let password = field("password").to_owned();
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
    state: &AppState,
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
    let back = |error: &str, description: &str| {
        redirect_with(
            &state.issuer,
            &pending.redirect_uri,
            &[("error", error), ("error_description", description)],
            pending.state.as_deref(),
        )
    };
    let chosen = match (&pending.organization, organizations.as_slice()) {
        (_, []) => {
            let _ = delete_pending(state, id_hash).await;
            return back(
                "access_denied",
                "the account belongs to no organization this application serves",
            );
        }
        (Some(asked), orgs) if orgs.iter().any(|(id, _)| id == asked) => asked.clone(),
        (_, [(only, _)]) => only.clone(),
        (_, _) if !interactive => {
            let _ = delete_pending(state, id_hash).await;
            return back(
                "interaction_required",
                "prompt=none was asked, but the user must choose an organization",
            );
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
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form = parse_params(&body).unwrap_or_default();
    let field = |name: &str| form.get(name).map(String::as_str).unwrap_or_default();
    let (id_hash, pending) = match load_pending(&state, &headers, field("login")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    if field("action") == "cancel" {
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
    let chosen = field("organization");
    if !organizations.iter().any(|(id, _)| id == chosen) {
        return error_page(
            "That organization is not one you can sign in to with this application.",
        );
    }
    finish(&state, &id_hash, &pending, &user_id, chosen).await
}

/// Issues the code and sends the browser back to the application.
async fn finish(
    state: &AppState,
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

async fn cancel(state: &AppState, id_hash: &str, pending: &PendingLogin) -> Response {
    let _ = delete_pending(state, id_hash).await;
    tracing::info!(client_id = %pending.client_id, "sign-in cancelled by the user");
    redirect_with(
        &state.issuer,
        &pending.redirect_uri,
        &[
            ("error", "access_denied"),
            ("error_description", "the user cancelled the sign-in"),
        ],
        pending.state.as_deref(),
    )
}

async fn delete_pending(state: &AppState, id_hash: &str) -> Result<(), StoreError> {
    let hash = id_hash.to_owned();
    state
        .db
        .call(move |conn| Ok(db::delete_pending(conn, &hash)?))
        .await
}

/// The pending sign-in a form refers to, if it exists, has not expired and was
/// started by this browser.
async fn load_pending(
    state: &AppState,
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
    fn a_prompt_that_cannot_be_honoured_is_refused() {
        assert!(Prompt::of(Some("none login"), None).is_err());
        assert!(Prompt::of(None, Some("-1")).is_err());
        assert!(Prompt::of(None, Some("soon")).is_err());
        assert!(Prompt::of(Some("none"), None).unwrap().none);
    }
}
