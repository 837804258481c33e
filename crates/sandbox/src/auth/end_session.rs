//! `GET`/`POST /oidc/logout`: OpenID Connect RP-Initiated Logout 1.0, advertised
//! as the discovery document's `end_session_endpoint`.
//!
//! With `id_token_hint` — an ID token this sandbox issued to one of its
//! Applications, expired or not — the sign-in it names (`sid`) ends: its refresh
//! tokens are revoked, its access tokens refused from then on, and the browser
//! that signed in is no longer remembered (its next sign-in asks for the
//! password). An Application calls this directly at sign-out; no browser needs
//! to be involved. `client_id`, when sent, must be the hint's audience, and
//! `logout_hint`, when sent, the hint's `sid`. `post_logout_redirect_uri` is
//! honoured only with a hint and only when it is one of the Application's
//! allowed redirect URIs (303, with `state`); otherwise a page says the user is
//! signed out.
//!
//! Without a hint nothing names a sign-in, and §2 has the provider ask the user:
//! `GET` shows a page asking whether to sign out of the sandbox in this browser,
//! whose form `POST`s back; the browser (known by its cookie) is then forgotten.
//! A cross-site `POST` carries no cookie (it is `SameSite=Lax`), so no other site
//! can sign a browser out.

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use url::Url;

use super::common::{now, parse_params, sha256_hex};
use super::state::AuthState;
use super::{db, pages, sign_ins};
use crate::store::StoreError;

/// `GET /oidc/logout`
pub(super) async fn get(
    State(state): State<AuthState>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    handle(
        &state,
        &headers,
        query.unwrap_or_default().as_bytes(),
        false,
    )
    .await
}

/// `POST /oidc/logout` (form-encoded, as §2 allows; also the confirmation form).
pub(super) async fn post(
    State(state): State<AuthState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    handle(&state, &headers, &body, true).await
}

async fn handle(state: &AuthState, headers: &HeaderMap, raw: &[u8], posted: bool) -> Response {
    let params = match parse_params(raw) {
        Ok(params) => params,
        Err(name) => {
            return refused(&format!(
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
    match param("id_token_hint") {
        Some(hint) => {
            let request = Hinted {
                hint,
                client_id: param("client_id"),
                logout_hint: param("logout_hint"),
                redirect: param("post_logout_redirect_uri"),
                state: param("state"),
            };
            end_hinted(state, request).await
        }
        None if param("post_logout_redirect_uri").is_some() => {
            refused("A redirect after sign-out needs the id_token_hint of the sign-in being ended.")
        }
        None if !posted => pages::respond(StatusCode::OK, pages::confirm_sign_out(), None),
        None => forget_this_browser(state, headers).await,
    }
}

/// A logout request naming its sign-in.
struct Hinted<'a> {
    hint: &'a str,
    client_id: Option<&'a str>,
    logout_hint: Option<&'a str>,
    redirect: Option<&'a str>,
    state: Option<&'a str>,
}

async fn end_hinted(state: &AuthState, request: Hinted<'_>) -> Response {
    let claims = match state.keys.verify_id_token_hint(request.hint, &state.issuer) {
        Ok(claims) => claims,
        Err(rejection) => {
            tracing::info!(?rejection, "end session refused: id_token_hint");
            return refused("The id_token_hint is not an ID token this network issued.");
        }
    };
    if request.client_id.is_some_and(|id| id != claims.aud) {
        return refused("client_id is not the application the id_token_hint was issued to.");
    }
    if request.logout_hint.is_some_and(|sid| sid != claims.sid) {
        return refused("logout_hint names another sign-in than the id_token_hint.");
    }
    let client_id = claims.aud.clone();
    let application = match state
        .db
        .call(move |conn| Ok(db::application(conn, &client_id)?))
        .await
    {
        Ok(Some(app)) => app,
        Ok(None) => return refused("The id_token_hint was issued to an unknown application."),
        Err(e) => return internal(&e),
    };
    let redirect = match request.redirect {
        Some(uri) if super::redirect::is_allowed(uri, &application.allowed_urls) => {
            Url::parse(uri).ok()
        }
        Some(_) => {
            return refused(
                "post_logout_redirect_uri is not one of this application's allowed URLs.",
            );
        }
        None => None,
    };
    let ended = state.ended_sign_ins.clone();
    let (sid, user_id) = (claims.sid.clone(), claims.sub.clone());
    let forgot = state
        .db
        .call(move |conn| {
            let at = now();
            let tx = conn.transaction()?;
            let sign_in = db::sign_in(&tx, &sid)?;
            sign_ins::end(&tx, &ended, &sid, at)?;
            let forgot = match sign_in.and_then(|s| s.browser_hash) {
                Some(browser) => db::forget_browser(&tx, &browser, Some(&user_id))?,
                None => 0,
            };
            tx.commit()?;
            Ok(forgot)
        })
        .await;
    let forgot = match forgot {
        Ok(forgot) => forgot,
        Err(e) => return internal(&e),
    };
    tracing::info!(user_id = %claims.sub, client_id = %claims.aud, browser_forgotten = forgot > 0, "sign-in ended (RP-initiated logout)");
    match redirect {
        Some(mut url) => {
            if let Some(state) = request.state {
                url.query_pairs_mut().append_pair("state", state);
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
        None => pages::respond(StatusCode::OK, pages::signed_out(), None),
    }
}

/// The confirmed sign-out of the browser that posted it.
async fn forget_this_browser(state: &AuthState, headers: &HeaderMap) -> Response {
    let Some(browser) = super::authorize::browser_id(headers) else {
        // Nothing remembered without the cookie: already signed out here.
        return pages::respond(StatusCode::OK, pages::signed_out(), None);
    };
    let hash = sha256_hex(&browser);
    match state
        .db
        .call(move |conn| Ok(db::forget_browser(conn, &hash, None)?))
        .await
    {
        Ok(forgot) => {
            tracing::info!(
                browser_forgotten = forgot > 0,
                "browser signed out (RP-initiated logout)"
            );
            pages::respond(StatusCode::OK, pages::signed_out(), None)
        }
        Err(e) => internal(&e),
    }
}

fn refused(message: &str) -> Response {
    pages::respond(
        StatusCode::BAD_REQUEST,
        pages::sign_out_refused(message),
        None,
    )
}

fn internal(e: &StoreError) -> Response {
    tracing::error!(error = %e, "end session failed on a store error");
    pages::respond(
        StatusCode::INTERNAL_SERVER_ERROR,
        pages::error(
            "Something went wrong",
            "The sandbox could not sign you out. Try again.",
        ),
        None,
    )
}
