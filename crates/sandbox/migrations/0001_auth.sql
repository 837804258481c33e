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
