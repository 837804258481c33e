-- Clinical records and the catalog. Owned by the GraphQL API (src/api, src/store/{catalog,
-- patients,prescriptions,orders}.rs).
--
-- No foreign keys point at the auth tables (organizations, users): the fixture may be
-- re-applied on every start and must never be blocked by, or cascade into, clinical data.
-- What a record needs from elsewhere at the time it changes (the medication, the pharmacy,
-- the signing prescriber) is copied into it as a snapshot, so a changed catalog or fixture
-- never rewrites history. `seq` gives every record a stable creation order for cursors.

CREATE TABLE medications (
    id       TEXT PRIMARY KEY,
    name     TEXT NOT NULL,
    strength TEXT NOT NULL,
    form     TEXT NOT NULL,
    rxcui    TEXT,
    position INTEGER NOT NULL
);

CREATE TABLE pharmacies (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    phone       TEXT,
    street1     TEXT NOT NULL,
    street2     TEXT,
    city        TEXT NOT NULL,
    state       TEXT NOT NULL,
    postal_code TEXT NOT NULL,
    position    INTEGER NOT NULL
);

CREATE TABLE patients (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL,
    external_id     TEXT,
    first_name      TEXT NOT NULL,
    middle_name     TEXT,
    last_name       TEXT NOT NULL,
    date_of_birth   TEXT NOT NULL,          -- YYYY-MM-DD
    sex             TEXT NOT NULL CHECK (sex IN ('MALE', 'FEMALE', 'UNKNOWN')),
    gender          TEXT,
    email           TEXT,
    phone           TEXT,
    address         TEXT,                   -- JSON object, see store::Address
    created_at      TEXT NOT NULL,          -- RFC 3339 UTC
    UNIQUE (organization_id, external_id)
);
CREATE INDEX patients_by_org ON patients (organization_id, seq);

CREATE TABLE prescriptions (
    seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
    id                  TEXT NOT NULL UNIQUE,
    organization_id     TEXT NOT NULL,
    external_id         TEXT,
    patient_id          TEXT NOT NULL REFERENCES patients (id),
    state               TEXT NOT NULL CHECK (state IN ('DRAFT', 'ACTIVE', 'CANCELED')),
    treatment           TEXT NOT NULL,      -- JSON snapshot of the catalog medication
    dispense_as_written INTEGER NOT NULL,
    dispense_quantity   REAL NOT NULL,
    dispense_unit       TEXT NOT NULL,
    fills_allowed       INTEGER NOT NULL,
    days_supply         INTEGER NOT NULL,
    instructions        TEXT NOT NULL,
    notes               TEXT,
    effective_date      TEXT,
    expiration_date     TEXT,
    prescriber          TEXT,               -- JSON snapshot of the signer, set when signed
    written_at          TEXT,               -- set when signed
    created_at          TEXT NOT NULL,
    UNIQUE (organization_id, external_id)
);
CREATE INDEX prescriptions_by_org ON prescriptions (organization_id, seq);

CREATE TABLE orders (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL,
    external_id     TEXT,
    patient_id      TEXT NOT NULL REFERENCES patients (id),
    state           TEXT NOT NULL CHECK (state IN ('DRAFT', 'ROUTING', 'PLACED', 'CANCELED')),
    pharmacy        TEXT,                   -- JSON snapshot of the catalog pharmacy
    address         TEXT,                   -- JSON object
    created_at      TEXT NOT NULL,
    sent_at         TEXT,
    UNIQUE (organization_id, external_id)
);
CREATE INDEX orders_by_org ON orders (organization_id, seq);

CREATE TABLE fills (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    order_id        TEXT NOT NULL REFERENCES orders (id),
    prescription_id TEXT NOT NULL REFERENCES prescriptions (id),
    state           TEXT NOT NULL CHECK (state IN ('NEW', 'SENT', 'CANCELED'))
);
CREATE INDEX fills_by_order ON fills (order_id, seq);
