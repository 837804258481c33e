-- A log of the Network API's state changes that matter for duplicates: records
-- created, prescriptions signed, orders sent and canceled. Written by triggers, so
-- every row commits (or rolls back) with the change it records, whatever code made
-- it. `rxdesk-sandbox audit` (src/audit.rs) reads it; nothing else does.

CREATE TABLE network_events (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    at              TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    organization_id TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('patient_created', 'prescription_created',
                        'prescription_signed', 'order_created', 'order_submitted', 'order_canceled')),
    record_id       TEXT NOT NULL,
    external_id     TEXT
);
CREATE INDEX network_events_by_record ON network_events (record_id, kind);

CREATE TRIGGER network_patient_created AFTER INSERT ON network_patients
BEGIN
    INSERT INTO network_events (organization_id, kind, record_id)
    VALUES (NEW.organization_id, 'patient_created', NEW.id);
END;

CREATE TRIGGER network_prescription_created AFTER INSERT ON network_prescriptions
BEGIN
    INSERT INTO network_events (organization_id, kind, record_id, external_id)
    VALUES (NEW.organization_id, 'prescription_created', NEW.id, NEW.external_id);
END;

-- A signature is written: the prescription becomes signed, or a signed one gets
-- another signing date or signer (a second signature).
CREATE TRIGGER network_prescription_signed AFTER UPDATE ON network_prescriptions
WHEN NEW.signed = 1 AND (OLD.signed = 0
    OR json_extract(OLD.doc, '$.signed_at') IS NOT json_extract(NEW.doc, '$.signed_at')
    OR json_extract(OLD.doc, '$.signed_by') IS NOT json_extract(NEW.doc, '$.signed_by'))
BEGIN
    INSERT INTO network_events (organization_id, kind, record_id, external_id)
    VALUES (NEW.organization_id, 'prescription_signed', NEW.id, NEW.external_id);
END;

CREATE TRIGGER network_order_created AFTER INSERT ON network_orders
BEGIN
    INSERT INTO network_events (organization_id, kind, record_id, external_id)
    VALUES (NEW.organization_id, 'order_created', NEW.id, NEW.external_id);
END;

-- An order is sent: it becomes SUBMITTED, or its submission time is written again.
CREATE TRIGGER network_order_submitted AFTER UPDATE ON network_orders
WHEN NEW.state = 'SUBMITTED' AND (OLD.state IS NOT 'SUBMITTED'
    OR json_extract(OLD.doc, '$.submitted_at') IS NOT json_extract(NEW.doc, '$.submitted_at'))
BEGIN
    INSERT INTO network_events (organization_id, kind, record_id, external_id)
    VALUES (NEW.organization_id, 'order_submitted', NEW.id, NEW.external_id);
END;

CREATE TRIGGER network_order_canceled AFTER UPDATE ON network_orders
WHEN NEW.state = 'CANCELED' AND OLD.state IS NOT 'CANCELED'
BEGIN
    INSERT INTO network_events (organization_id, kind, record_id, external_id)
    VALUES (NEW.organization_id, 'order_canceled', NEW.id, NEW.external_id);
END;
