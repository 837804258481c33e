-- The Network API's records (src/network, src/store/records.rs). Each record is a JSON
-- document (`doc`) beside the columns it is found by; the catalog is not stored (it is
-- read-only and kept in memory). Ids are a prefix and a ULID. `seq` keeps creation order.

CREATE TABLE network_patients (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL,
    first_key       TEXT,            -- lowercased first name
    last_key        TEXT,            -- lowercased last name
    date_of_birth   TEXT,            -- YYYY-MM-DD
    email_key       TEXT,            -- lowercased email
    phone           TEXT,
    doc             TEXT NOT NULL
);
CREATE INDEX network_patients_by_name ON network_patients (organization_id, last_key, first_key);
CREATE INDEX network_patients_by_dob ON network_patients (organization_id, date_of_birth);

CREATE TABLE network_prescriptions (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL,
    external_id     TEXT,
    patient_id      TEXT NOT NULL,
    treatment_id    TEXT NOT NULL,
    signed          INTEGER NOT NULL DEFAULT 0,
    doc             TEXT NOT NULL,
    UNIQUE (organization_id, external_id)
);
CREATE INDEX network_prescriptions_by_patient ON network_prescriptions (organization_id, patient_id, signed);

CREATE TABLE network_orders (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL,
    external_id     TEXT,
    patient_id      TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('DRAFT', 'SUBMITTED', 'CANCELED')),
    doc             TEXT NOT NULL,
    UNIQUE (organization_id, external_id)
);
CREATE INDEX network_orders_by_patient ON network_orders (organization_id, patient_id, state);

-- Which prescriptions sit on which order (kept with the order's doc, for the rule
-- "a prescription sits on at most one order that is not canceled").
CREATE TABLE network_order_items (
    order_id        TEXT NOT NULL REFERENCES network_orders (id),
    prescription_id TEXT NOT NULL,
    PRIMARY KEY (order_id, prescription_id)
);
CREATE INDEX network_order_items_by_prescription ON network_order_items (prescription_id);
