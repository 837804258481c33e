-- A sign-in's refresh tokens (one family, rotated) end together at an absolute
-- deadline, however often they are rotated: the session lifetime.
-- Rows from before have none; their own expiry stands.
ALTER TABLE refresh_tokens ADD COLUMN family_expires_at INTEGER;
