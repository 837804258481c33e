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
    /// Set once the password checked out.
    pub user_id: Option<String>,
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
             code_challenge, audience, scope, organization, user_id, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
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
            p.expires_at
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
                organization, user_id, expires_at
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
            })
        },
    )
    .optional()
}

pub(super) fn set_pending_user(
    conn: &Connection,
    id_hash: &str,
    user_id: &str,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE pending_logins SET user_id = ?2 WHERE id_hash = ?1",
        params![id_hash, user_id],
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
    pub family_id: Option<String>,
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
             organization_id, audience, scope, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            code_hash,
            c.client_id,
            c.redirect_uri,
            c.code_challenge,
            c.user_id,
            c.organization_id,
            c.audience,
            c.scope,
            c.expires_at
        ],
    )?;
    Ok(())
}

pub(super) fn code(conn: &Connection, code_hash: &str) -> rusqlite::Result<Option<Code>> {
    conn.query_row(
        "SELECT client_id, redirect_uri, code_challenge, user_id, organization_id, audience, scope,
                expires_at, used_at, family_id
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
