-- Accounts and OAuth state. Owned by the authorization server (src/auth, src/fixture).
-- The GraphQL half reads organizations and users (names, roles, NPI) but never writes them.

CREATE TABLE organizations (
    id   TEXT PRIMARY KEY,
    name TEXT NOT NULL
);

CREATE TABLE roles (
    name        TEXT PRIMARY KEY,
    permissions TEXT NOT NULL          -- space-separated permissions
);

CREATE TABLE users (
    id            TEXT PRIMARY KEY,    -- stable id, the `sub` of user tokens
    email         TEXT NOT NULL UNIQUE COLLATE NOCASE,
    name          TEXT NOT NULL,
    role          TEXT NOT NULL REFERENCES roles(name),
    npi           TEXT,                -- required for prescribers
    password_hash TEXT NOT NULL        -- argon2 PHC string
);

CREATE TABLE user_organizations (
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    position        INTEGER NOT NULL,
    PRIMARY KEY (user_id, organization_id)
);

-- Application credentials: public clients (no secret) and where they may redirect.
CREATE TABLE applications (
    client_id TEXT PRIMARY KEY
);

CREATE TABLE application_organizations (
    client_id       TEXT NOT NULL REFERENCES applications(client_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    position        INTEGER NOT NULL,
    PRIMARY KEY (client_id, organization_id)
);

CREATE TABLE application_urls (
    client_id TEXT NOT NULL REFERENCES applications(client_id) ON DELETE CASCADE,
    url       TEXT NOT NULL,
    position  INTEGER NOT NULL,
    PRIMARY KEY (client_id, url)
);

-- Backend credentials: confidential clients of one organization (machine tokens).
CREATE TABLE backends (
    client_id       TEXT PRIMARY KEY,
    secret_hash     TEXT NOT NULL,     -- argon2 PHC string
    organization_id TEXT NOT NULL REFERENCES organizations(id)
);

-- A sign-in in progress: the validated authorization request, bound to the
-- browser that started it (a cookie) and, once the password checked out, to the user.
-- Times are Unix seconds.
CREATE TABLE pending_logins (
    id_hash         TEXT PRIMARY KEY,  -- SHA-256 (hex) of the id in the page's form
    browser_hash    TEXT NOT NULL,     -- SHA-256 (hex) of the browser cookie
    client_id       TEXT NOT NULL,
    redirect_uri    TEXT NOT NULL,
    state           TEXT,
    code_challenge  TEXT NOT NULL,
    audience        TEXT NOT NULL,
    scope           TEXT NOT NULL,     -- as requested, space-separated
    organization    TEXT,              -- the `organization` parameter, if any
    user_id         TEXT REFERENCES users(id) ON DELETE CASCADE,
    expires_at      INTEGER NOT NULL
);

-- One-time authorization codes (60 s), bound to client, redirect URI and PKCE challenge.
CREATE TABLE auth_codes (
    code_hash       TEXT PRIMARY KEY,  -- SHA-256 (hex) of the code; the code itself is never stored
    client_id       TEXT NOT NULL,
    redirect_uri    TEXT NOT NULL,
    code_challenge  TEXT NOT NULL,     -- S256
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    audience        TEXT NOT NULL,
    scope           TEXT NOT NULL,
    expires_at      INTEGER NOT NULL,
    used_at         INTEGER,
    family_id       TEXT               -- refresh token family issued from it, if any
);

-- Refresh tokens, rotated on every use. A family is the chain of one sign-in;
-- reusing a rotated token revokes the whole family.
CREATE TABLE refresh_tokens (
    token_hash      TEXT PRIMARY KEY,  -- SHA-256 (hex); the token itself is never stored
    family_id       TEXT NOT NULL,
    client_id       TEXT NOT NULL,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    audience        TEXT NOT NULL,
    scope           TEXT NOT NULL,
    issued_at       INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    used_at         INTEGER,
    revoked_at      INTEGER
);

CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id);
