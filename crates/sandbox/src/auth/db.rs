//! The SQL of the authorization server: reading Applications, Backends and
//! users, and the life cycle of sign-ins in progress, authorization codes and
//! refresh tokens. Plain functions on a `&Connection`, run inside
//! `Db::call` closures by the handlers; the fixture's writes live in
//! `crate::fixture`. Codes, refresh tokens and sign-in ids are stored only as
//! SHA-256 hashes.

use rusqlite::{Connection, OptionalExtension, params};

/// An Application (public client).
#[derive(Debug, Clone)]
pub(super) struct Application {
    pub client_id: String,
    pub allowed_urls: Vec<String>,
}

/// A Backend (confidential client).
#[derive(Debug, Clone)]
pub(super) struct Backend {
    pub client_id: String,
    pub secret_hash: String,
    pub organization_id: String,
}

/// A user as the sign-in needs it.
#[derive(Debug, Clone)]
pub(super) struct User {
    pub id: String,
    pub email: String,
    pub name: String,
    pub password_hash: String,
}

pub(super) fn application(
    conn: &Connection,
    client_id: &str,
) -> rusqlite::Result<Option<Application>> {
    let exists: Option<String> = conn
        .query_row(
            "SELECT client_id FROM applications WHERE client_id = ?1",
            params![client_id],
            |r| r.get(0),
        )
        .optional()?;
    let Some(client_id) = exists else {
        return Ok(None);
    };
    let mut stmt =
        conn.prepare("SELECT url FROM application_urls WHERE client_id = ?1 ORDER BY position")?;
    let allowed_urls = stmt
        .query_map(params![client_id], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Some(Application {
        client_id,
        allowed_urls,
    }))
}

pub(super) fn backend(conn: &Connection, client_id: &str) -> rusqlite::Result<Option<Backend>> {
    conn.query_row(
        "SELECT client_id, secret_hash, organization_id FROM backends WHERE client_id = ?1",
        params![client_id],
        |r| {
            Ok(Backend {
                client_id: r.get(0)?,
                secret_hash: r.get(1)?,
                organization_id: r.get(2)?,
            })
        },
    )
    .optional()
}

pub(super) fn user_by_email(conn: &Connection, email: &str) -> rusqlite::Result<Option<User>> {
    conn.query_row(
        "SELECT id, email, name, password_hash FROM users WHERE email = ?1",
        params![email.trim()],
        user_row,
    )
    .optional()
}

pub(super) fn user_by_id(conn: &Connection, id: &str) -> rusqlite::Result<Option<User>> {
    conn.query_row(
        "SELECT id, email, name, password_hash FROM users WHERE id = ?1",
        params![id],
        user_row,
    )
    .optional()
}

fn user_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get(0)?,
        email: r.get(1)?,
        name: r.get(2)?,
        password_hash: r.get(3)?,
    })
}

/// The organizations (id, name) `user_id` may sign in to through `client_id`:
/// the user's, in the user's order, that the Application serves.
pub(super) fn organizations_for(
    conn: &Connection,
    user_id: &str,
    client_id: &str,
) -> rusqlite::Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare(
        "SELECT o.id, o.name FROM user_organizations uo
         JOIN organizations o ON o.id = uo.organization_id
         JOIN application_organizations ao
           ON ao.organization_id = uo.organization_id AND ao.client_id = ?2
         WHERE uo.user_id = ?1 ORDER BY uo.position",
    )?;
    stmt.query_map(params![user_id, client_id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

/// The permissions of `user_id`'s role, in the contract's order.
pub(super) fn user_permissions(
    conn: &Connection,
    user_id: &str,
) -> rusqlite::Result<Option<Vec<String>>> {
    let permissions: Option<String> = conn
        .query_row(
            "SELECT r.permissions FROM users u JOIN roles r ON r.name = u.role WHERE u.id = ?1",
            params![user_id],
            |r| r.get(0),
        )
        .optional()?;
    Ok(permissions.map(|p| p.split_whitespace().map(str::to_owned).collect()))
}

/// Who a user token acts for, as `/userinfo` answers it.
#[derive(Debug, Clone)]
pub(super) struct Profile {
    pub name: String,
    pub email: String,
    pub role: String,
    pub org_name: String,
}

/// `user_id` in `organization_id`: `None` when either is unknown.
pub(super) fn profile(
    conn: &Connection,
    user_id: &str,
    organization_id: &str,
) -> rusqlite::Result<Option<Profile>> {
    conn.query_row(
        "SELECT u.name, u.email, u.role, o.name FROM users u, organizations o
         WHERE u.id = ?1 AND o.id = ?2",
        params![user_id, organization_id],
        |r| {
            Ok(Profile {
                name: r.get(0)?,
                email: r.get(1)?,
                role: r.get(2)?,
                org_name: r.get(3)?,
            })
        },
    )
    .optional()
}

/// A validated authorization request waiting for the user.
#[derive(Debug, Clone)]
pub(super) struct PendingLogin {
    pub browser_hash: String,
    pub client_id: String,
    pub redirect_uri: String,
    pub state: Option<String>,
    pub code_challenge: String,
    pub audience: String,
    pub scope: String,
    pub organization: Option<String>,
    /// Set once the password checked out (or the browser was remembered).
    pub user_id: Option<String>,
    /// When that password was typed.
    pub auth_time: Option<i64>,
    pub expires_at: i64,
}

pub(super) fn insert_pending(
    conn: &Connection,
    id_hash: &str,
    p: &PendingLogin,
    now: i64,
) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM pending_logins WHERE expires_at <= ?1",
        params![now],
    )?;
    conn.execute(
        "INSERT INTO pending_logins (id_hash, browser_hash, client_id, redirect_uri, state,
             code_challenge, audience, scope, organization, user_id, expires_at, auth_time)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            id_hash,
            p.browser_hash,
            p.client_id,
            p.redirect_uri,
            p.state,
            p.code_challenge,
            p.audience,
            p.scope,
            p.organization,
            p.user_id,
            p.expires_at,
            p.auth_time
        ],
    )?;
    Ok(())
}

/// The pending sign-in `id_hash`, unless it has expired.
pub(super) fn pending(
    conn: &Connection,
    id_hash: &str,
    now: i64,
) -> rusqlite::Result<Option<PendingLogin>> {
    conn.query_row(
        "SELECT browser_hash, client_id, redirect_uri, state, code_challenge, audience, scope,
                organization, user_id, expires_at, auth_time
         FROM pending_logins WHERE id_hash = ?1 AND expires_at > ?2",
        params![id_hash, now],
        |r| {
            Ok(PendingLogin {
                browser_hash: r.get(0)?,
                client_id: r.get(1)?,
                redirect_uri: r.get(2)?,
                state: r.get(3)?,
                code_challenge: r.get(4)?,
                audience: r.get(5)?,
                scope: r.get(6)?,
                organization: r.get(7)?,
                user_id: r.get(8)?,
                expires_at: r.get(9)?,
                auth_time: r.get(10)?,
            })
        },
    )
    .optional()
}

pub(super) fn set_pending_user(
    conn: &Connection,
    id_hash: &str,
    user_id: &str,
    auth_time: i64,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE pending_logins SET user_id = ?2, auth_time = ?3 WHERE id_hash = ?1",
        params![id_hash, user_id, auth_time],
    )?;
    Ok(())
}

pub(super) fn delete_pending(conn: &Connection, id_hash: &str) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM pending_logins WHERE id_hash = ?1",
        params![id_hash],
    )?;
    Ok(())
}

/// What an authorization code was issued for.
#[derive(Debug, Clone)]
pub(super) struct Code {
    pub client_id: String,
    pub redirect_uri: String,
    pub code_challenge: String,
    pub user_id: String,
    pub organization_id: String,
    pub audience: String,
    pub scope: String,
    pub expires_at: i64,
    pub used_at: Option<i64>,
    /// The sign-in the code was exchanged for (its `sid`), once it was.
    pub family_id: Option<String>,
    /// When the user typed the password this code stands on (`None`: a code
    /// from before that was recorded; the exchange time stands in).
    pub auth_time: Option<i64>,
    /// The browser that signed in (SHA-256 of its cookie).
    pub browser_hash: Option<String>,
}

pub(super) fn insert_code(
    conn: &Connection,
    code_hash: &str,
    c: &Code,
    now: i64,
) -> rusqlite::Result<()> {
    // Codes are useless a minute after use or expiry; keep the table small.
    conn.execute(
        "DELETE FROM auth_codes WHERE expires_at <= ?1",
        params![now - super::common::CODE_TTL_SECS],
    )?;
    conn.execute(
        "INSERT INTO auth_codes (code_hash, client_id, redirect_uri, code_challenge, user_id,
             organization_id, audience, scope, expires_at, auth_time, browser_hash)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            code_hash,
            c.client_id,
            c.redirect_uri,
            c.code_challenge,
            c.user_id,
            c.organization_id,
            c.audience,
            c.scope,
            c.expires_at,
            c.auth_time,
            c.browser_hash
        ],
    )?;
    Ok(())
}

pub(super) fn code(conn: &Connection, code_hash: &str) -> rusqlite::Result<Option<Code>> {
    conn.query_row(
        "SELECT client_id, redirect_uri, code_challenge, user_id, organization_id, audience, scope,
                expires_at, used_at, family_id, auth_time, browser_hash
         FROM auth_codes WHERE code_hash = ?1",
        params![code_hash],
        |r| {
            Ok(Code {
                client_id: r.get(0)?,
                redirect_uri: r.get(1)?,
                code_challenge: r.get(2)?,
                user_id: r.get(3)?,
                organization_id: r.get(4)?,
                audience: r.get(5)?,
                scope: r.get(6)?,
                expires_at: r.get(7)?,
                used_at: r.get(8)?,
                family_id: r.get(9)?,
                auth_time: r.get(10)?,
                browser_hash: r.get(11)?,
            })
        },
    )
    .optional()
}

pub(super) fn mark_code_used(conn: &Connection, code_hash: &str, now: i64) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE auth_codes SET used_at = ?2 WHERE code_hash = ?1",
        params![code_hash, now],
    )?;
    Ok(())
}

pub(super) fn set_code_family(
    conn: &Connection,
    code_hash: &str,
    family_id: &str,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE auth_codes SET family_id = ?2 WHERE code_hash = ?1",
        params![code_hash, family_id],
    )?;
    Ok(())
}

/// A stored refresh token.
#[derive(Debug, Clone)]
pub(super) struct Refresh {
    pub family_id: String,
    pub client_id: String,
    pub user_id: String,
    pub organization_id: String,
    pub audience: String,
    pub scope: String,
    pub expires_at: i64,
    /// When the whole family ends (`None` for rows from before deadlines).
    pub family_expires_at: Option<i64>,
    pub used_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

pub(super) fn insert_refresh(
    conn: &Connection,
    token_hash: &str,
    t: &Refresh,
    now: i64,
) -> rusqlite::Result<()> {
    // Expired tokens can never be used again; a replay of one is refused as unknown.
    conn.execute(
        "DELETE FROM refresh_tokens WHERE expires_at <= ?1",
        params![now],
    )?;
    conn.execute(
        "INSERT INTO refresh_tokens (token_hash, family_id, client_id, user_id, organization_id,
             audience, scope, issued_at, expires_at, family_expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            token_hash,
            t.family_id,
            t.client_id,
            t.user_id,
            t.organization_id,
            t.audience,
            t.scope,
            now,
            t.expires_at,
            t.family_expires_at
        ],
    )?;
    Ok(())
}

pub(super) fn refresh(conn: &Connection, token_hash: &str) -> rusqlite::Result<Option<Refresh>> {
    conn.query_row(
        "SELECT family_id, client_id, user_id, organization_id, audience, scope, expires_at,
                used_at, revoked_at, family_expires_at
         FROM refresh_tokens WHERE token_hash = ?1",
        params![token_hash],
        |r| {
            Ok(Refresh {
                family_id: r.get(0)?,
                client_id: r.get(1)?,
                user_id: r.get(2)?,
                organization_id: r.get(3)?,
                audience: r.get(4)?,
                scope: r.get(5)?,
                expires_at: r.get(6)?,
                used_at: r.get(7)?,
                revoked_at: r.get(8)?,
                family_expires_at: r.get(9)?,
            })
        },
    )
    .optional()
}

pub(super) fn mark_refresh_used(
    conn: &Connection,
    token_hash: &str,
    now: i64,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE refresh_tokens SET used_at = ?2 WHERE token_hash = ?1",
        params![token_hash, now],
    )?;
    Ok(())
}

/// Revokes every refresh token of `family_id`; returns how many were live.
pub(super) fn revoke_family(
    conn: &Connection,
    family_id: &str,
    now: i64,
) -> rusqlite::Result<usize> {
    conn.execute(
        "UPDATE refresh_tokens SET revoked_at = ?2 WHERE family_id = ?1 AND revoked_at IS NULL",
        params![family_id, now],
    )
}

/// A sign-in: one authorization code exchanged (see migration 0007).
#[derive(Debug, Clone)]
pub(super) struct SignIn {
    pub sid: String,
    pub user_id: String,
    pub client_id: String,
    pub browser_hash: Option<String>,
    pub auth_time: i64,
    pub ended_at: Option<i64>,
    pub forget_after: i64,
}

pub(super) fn insert_sign_in(conn: &Connection, s: &SignIn, now: i64) -> rusqlite::Result<()> {
    // Nothing of a sign-in past its `forget_after` can be valid: keep the table small.
    conn.execute(
        "DELETE FROM sign_ins WHERE forget_after <= ?1",
        params![now],
    )?;
    conn.execute(
        "INSERT INTO sign_ins (sid, user_id, client_id, browser_hash, auth_time, ended_at, forget_after)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            s.sid,
            s.user_id,
            s.client_id,
            s.browser_hash,
            s.auth_time,
            s.ended_at,
            s.forget_after
        ],
    )?;
    Ok(())
}

pub(super) fn sign_in(conn: &Connection, sid: &str) -> rusqlite::Result<Option<SignIn>> {
    conn.query_row(
        "SELECT sid, user_id, client_id, browser_hash, auth_time, ended_at, forget_after
         FROM sign_ins WHERE sid = ?1",
        params![sid],
        |r| {
            Ok(SignIn {
                sid: r.get(0)?,
                user_id: r.get(1)?,
                client_id: r.get(2)?,
                browser_hash: r.get(3)?,
                auth_time: r.get(4)?,
                ended_at: r.get(5)?,
                forget_after: r.get(6)?,
            })
        },
    )
    .optional()
}

/// Marks sign-in `sid` ended (the first end stands) and revokes its refresh
/// tokens; returns the sign-in's `forget_after`, `None` when no such sign-in is
/// recorded (a refresh family from before sign-ins had ids: only its refresh
/// tokens are revoked).
pub(super) fn end_sign_in(conn: &Connection, sid: &str, now: i64) -> rusqlite::Result<Option<i64>> {
    revoke_family(conn, sid, now)?;
    conn.query_row(
        "UPDATE sign_ins SET ended_at = COALESCE(ended_at, ?2) WHERE sid = ?1
         RETURNING forget_after",
        params![sid, now],
        |r| r.get(0),
    )
    .optional()
}

/// Every ended sign-in some token of which may still be valid: `(sid, forget_after)`.
pub(super) fn ended_sign_ins(conn: &Connection, now: i64) -> rusqlite::Result<Vec<(String, i64)>> {
    let mut stmt = conn.prepare(
        "SELECT sid, forget_after FROM sign_ins
         WHERE ended_at IS NOT NULL AND forget_after > ?1",
    )?;
    stmt.query_map(params![now], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

/// The first time a refresh family was used: when a family from before sign-ins
/// had ids began (its code was exchanged right after the password was checked).
pub(super) fn family_started(conn: &Connection, family_id: &str) -> rusqlite::Result<Option<i64>> {
    conn.query_row(
        "SELECT MIN(issued_at) FROM refresh_tokens WHERE family_id = ?1",
        params![family_id],
        |r| r.get(0),
    )
}

/// The user a browser is remembered as signed in as, and since when.
#[derive(Debug, Clone)]
pub(super) struct BrowserSignIn {
    pub user_id: String,
    pub auth_time: i64,
}

/// Remembers `browser_hash` as signed in as `user_id` (replacing whoever it was).
pub(super) fn remember_browser(
    conn: &Connection,
    browser_hash: &str,
    user_id: &str,
    auth_time: i64,
    expires_at: i64,
) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM browser_sign_ins WHERE expires_at <= ?1",
        params![auth_time],
    )?;
    conn.execute(
        "INSERT INTO browser_sign_ins (browser_hash, user_id, auth_time, expires_at)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (browser_hash) DO UPDATE SET
             user_id = excluded.user_id, auth_time = excluded.auth_time,
             expires_at = excluded.expires_at",
        params![browser_hash, user_id, auth_time, expires_at],
    )?;
    Ok(())
}

/// Who `browser_hash` is remembered as, unless that has expired.
pub(super) fn remembered_browser(
    conn: &Connection,
    browser_hash: &str,
    now: i64,
) -> rusqlite::Result<Option<BrowserSignIn>> {
    conn.query_row(
        "SELECT user_id, auth_time FROM browser_sign_ins
         WHERE browser_hash = ?1 AND expires_at > ?2",
        params![browser_hash, now],
        |r| {
            Ok(BrowserSignIn {
                user_id: r.get(0)?,
                auth_time: r.get(1)?,
            })
        },
    )
    .optional()
}

/// Forgets `browser_hash`'s sign-in (only if it is still `user_id`'s, when
/// given); how many rows went.
pub(super) fn forget_browser(
    conn: &Connection,
    browser_hash: &str,
    user_id: Option<&str>,
) -> rusqlite::Result<usize> {
    conn.execute(
        "DELETE FROM browser_sign_ins WHERE browser_hash = ?1 AND (?2 IS NULL OR user_id = ?2)",
        params![browser_hash, user_id],
    )
}
