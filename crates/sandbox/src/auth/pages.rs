//! The HTML of the sign-in flow: the sign-in page, **Choose an organization**
//! and the error page. Plain, accessible HTML (a `lang`, a `<main>`, labelled
//! fields, visible focus), inline CSS only, no script and no external resource;
//! every interpolated value is escaped. Which page to show when lives in
//! `authorize.rs`.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// A demo account shown as a hint on the sign-in page (the built-in demo
/// fixture's users: `crate::fixture` makes them).
#[derive(Debug, Clone)]
pub struct DemoAccount {
    pub email: String,
    pub password: String,
    /// e.g. "Prescriber — Maple Street Clinic, Birch Family Practice".
    pub description: String,
}

/// Escapes text for HTML element content and double-quoted attributes.
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;background:#f4f6f8;color:#1a1a1a;line-height:1.5}
main{max-width:26rem;margin:3rem auto;padding:2rem;background:#fff;border:1px solid #ccd3da;border-radius:8px}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=email],input[type=password]{box-sizing:border-box;width:100%;padding:.55rem;font-size:1rem;border:1px solid #5c6670;border-radius:4px}
button{font-size:1rem;padding:.55rem 1.2rem;border-radius:4px;border:1px solid #0b4f8a;background:#0b5cad;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#0b4f8a}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
.orgs{list-style:none;padding:0;margin:0}
.orgs li{margin:.5rem 0}
.orgs button{width:100%;text-align:left}
.error{background:#fdecea;border:1px solid #b3261e;color:#7a1712;padding:.6rem;border-radius:4px}
.hint{font-size:.9rem;color:#3d4650}
code{font-size:.9rem}
:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
";

/// A whole page around `body` (already escaped HTML).
fn layout(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title} — Rx Desk sandbox</title>\n<style>{STYLE}</style>\n</head>\n\
         <body>\n<main>\n{body}\n</main>\n</body>\n</html>\n",
        title = escape(title),
    )
}

/// An HTML response with the headers every page carries: no caching, no
/// framing, no referrer, nothing loaded from elsewhere.
pub(super) fn respond(status: StatusCode, html: String, cookie: Option<String>) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        ),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if let Some(value) = cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        headers.insert(header::SET_COOKIE, value);
    }
    (status, headers, html).into_response()
}

/// What the sign-in page shows besides the form.
#[derive(Debug, Default)]
pub(super) struct SignIn<'a> {
    pub login_id: &'a str,
    pub client_id: &'a str,
    pub email: &'a str,
    pub message: Option<&'a str>,
    pub demo: &'a [DemoAccount],
}

pub(super) fn sign_in(page: &SignIn<'_>) -> String {
    let message = page
        .message
        .map(|m| {
            format!(
                "<p class=\"error\" role=\"alert\" id=\"problem\">{}</p>\n",
                escape(m)
            )
        })
        .unwrap_or_default();
    let described = if page.message.is_some() {
        " aria-describedby=\"problem\""
    } else {
        ""
    };
    let demo = if page.demo.is_empty() {
        String::new()
    } else {
        let items: String = page
            .demo
            .iter()
            .map(|a| {
                format!(
                    "<li><code>{}</code> / <code>{}</code><br>{}</li>\n",
                    escape(&a.email),
                    escape(&a.password),
                    escape(&a.description)
                )
            })
            .collect();
        format!(
            "<section aria-labelledby=\"demo-heading\" class=\"hint\">\n\
             <h2 id=\"demo-heading\">Demo accounts</h2>\n\
             <p>This sandbox runs the built-in demo fixture. Sign in with one of these (email / password):</p>\n\
             <ul>\n{items}</ul>\n</section>"
        )
    };
    let body = format!(
        "<h1>Sign in</h1>\n\
         <p>to continue to <strong>{client}</strong> (Rx Desk sandbox).</p>\n\
         {message}\
         <form method=\"post\" action=\"/authorize/login\">\n\
         <input type=\"hidden\" name=\"login\" value=\"{login}\">\n\
         <label for=\"email\">Email</label>\n\
         <input id=\"email\" name=\"email\" type=\"email\" autocomplete=\"username\" required autofocus value=\"{email}\"{described}>\n\
         <label for=\"password\">Password</label>\n\
         <input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"current-password\" required{described}>\n\
         <div class=\"actions\">\n\
         <button type=\"submit\" name=\"action\" value=\"signin\">Sign in</button>\n\
         <button type=\"submit\" name=\"action\" value=\"cancel\" class=\"secondary\" formnovalidate>Cancel</button>\n\
         </div>\n</form>\n{demo}",
        client = escape(page.client_id),
        login = escape(page.login_id),
        email = escape(page.email),
    );
    layout("Sign in", &body)
}

pub(super) fn choose_organization(
    login_id: &str,
    user_name: &str,
    email: &str,
    organizations: &[(String, String)],
) -> String {
    let buttons: String = organizations
        .iter()
        .map(|(id, name)| {
            format!(
                "<li><button type=\"submit\" name=\"organization\" value=\"{}\">{}</button></li>\n",
                escape(id),
                escape(name)
            )
        })
        .collect();
    let body = format!(
        "<h1>Choose an organization</h1>\n\
         <p>Signed in as {name} ({email}). Which organization are you working for?</p>\n\
         <form method=\"post\" action=\"/authorize/organization\">\n\
         <input type=\"hidden\" name=\"login\" value=\"{login}\">\n\
         <ul class=\"orgs\">\n{buttons}</ul>\n\
         <div class=\"actions\">\n\
         <button type=\"submit\" name=\"action\" value=\"cancel\" class=\"secondary\">Cancel</button>\n\
         </div>\n</form>",
        name = escape(user_name),
        email = escape(email),
        login = escape(login_id),
    );
    layout("Choose an organization", &body)
}

/// The end of RP-initiated logout without a redirect back.
pub(super) fn signed_out() -> String {
    layout(
        "Signed out",
        "<h1>Signed out</h1>\n<p role=\"status\">You are signed out of the Rx Desk sandbox. \
         The next sign-in asks for your password.</p>\n<p>You can close this page.</p>",
    )
}

/// RP-initiated logout without an ID token: the user confirms (OpenID Connect
/// RP-Initiated Logout §2); the form posts back with this browser's cookie.
pub(super) fn confirm_sign_out() -> String {
    layout(
        "Sign out",
        "<h1>Sign out?</h1>\n<p>Sign out of the Rx Desk sandbox in this browser? \
         The next sign-in will ask for your password.</p>\n\
         <form method=\"post\" action=\"/oidc/logout\">\n\
         <div class=\"actions\">\n<button type=\"submit\" name=\"action\" value=\"sign_out\">Sign out</button>\n</div>\n</form>",
    )
}

/// A refused sign-out request: what was wrong, nothing else done.
pub(super) fn sign_out_refused(message: &str) -> String {
    let body = format!(
        "<h1>Sign-out refused</h1>\n<p role=\"alert\">{}</p>\n\
         <p>Nothing was signed out. Sign out again from the application.</p>",
        escape(message)
    );
    layout("Sign-out refused", &body)
}

/// A dead end: nothing to redirect to (unknown client, disallowed redirect URI,
/// an expired sign-in).
pub(super) fn error(title: &str, message: &str) -> String {
    let body = format!(
        "<h1>{}</h1>\n<p role=\"alert\">{}</p>\n\
         <p>Return to the application and start the sign-in again. If this keeps happening, \
         the application's settings (client id or redirect URI) do not match the sandbox's fixture.</p>",
        escape(title),
        escape(message)
    );
    layout(title, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_neutralises_markup() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn pages_escape_what_they_interpolate() {
        let html = sign_in(&SignIn {
            login_id: "\"><script>",
            client_id: "<b>",
            email: "\"onfocus=\"x",
            ..SignIn::default()
        });
        assert!(!html.contains("<script>"));
        assert!(!html.contains("<b>"));
        assert!(!html.contains("\"onfocus"));
        let html = choose_organization("x", "<i>", "e", &[("o".into(), "<u>".into())]);
        assert!(!html.contains("<i>") && !html.contains("<u>"));
    }
}
