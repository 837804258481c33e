-- Sign-ins and the browsers remembered as signed in. Owned by src/auth.
--
-- A sign-in is one authorization code exchanged: its id is the `sid` claim of every
-- token it leads to, and the id of its refresh-token family. Ending it (sign-out,
-- revocation of either token, a replayed code or refresh token) revokes the family
-- and makes every access token carrying its `sid` refused, before they expire.
-- Rows are kept until no token of the sign-in can still be valid (`forget_after`).
-- No foreign key to users: an ended sign-in must stay ended whatever happens to
-- the account.
CREATE TABLE sign_ins (
    sid          TEXT PRIMARY KEY,     -- random, 256 bits; also refresh_tokens.family_id
    user_id      TEXT NOT NULL,
    client_id    TEXT NOT NULL,
    browser_hash TEXT,                 -- SHA-256 (hex) of the cookie of the browser that signed in
    auth_time    INTEGER NOT NULL,     -- when the user last typed their password (Unix seconds)
    ended_at     INTEGER,              -- set once; the sign-in's access tokens are refused from then on
    forget_after INTEGER NOT NULL      -- past this no token of the sign-in is valid anyway
);

CREATE INDEX sign_ins_ended ON sign_ins(ended_at) WHERE ended_at IS NOT NULL;

-- A browser that signed in with a password is remembered (as OpenID providers do):
-- a later authorization request from it skips the password unless it asks for a
-- fresh login (`prompt=login`, or `max_age` shorter than the time since).
CREATE TABLE browser_sign_ins (
    browser_hash TEXT PRIMARY KEY,     -- SHA-256 (hex) of the rxdesk_browser cookie
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    auth_time    INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);

-- When the password of a sign-in in progress, and of a code, was checked.
ALTER TABLE pending_logins ADD COLUMN auth_time INTEGER;
ALTER TABLE auth_codes ADD COLUMN auth_time INTEGER;
ALTER TABLE auth_codes ADD COLUMN browser_hash TEXT;
