-- What happens after Send (src/clock.rs, src/fulfillment, src/webhooks): the test clock,
-- the simulated pharmacy's progress of each sent order, and the webhook outbox with its
-- delivery log. Times are Unix milliseconds; `*_ms` columns on the simulated clock
-- (real time plus the test clock's offset), `sent_at_ms` on real time.

-- The test clock: how far it has been advanced past real time. One row.
CREATE TABLE sim_clock (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    offset_ms INTEGER NOT NULL
);
INSERT INTO sim_clock (id, offset_ms) VALUES (1, 0);

-- One row per sent order: where the simulated pharmacy is with it. `stage` is the
-- last step taken; the next one is due one step after `since_ms`. Terminal stages
-- (HALTED, COMPLETED, CANCELED) are never due.
CREATE TABLE fulfillment_orders (
    order_id        TEXT PRIMARY KEY REFERENCES network_orders (id),
    organization_id TEXT NOT NULL,
    stage           TEXT NOT NULL CHECK (stage IN (
                        'CHOOSING', 'SENT', 'PLACED', 'REROUTED', 'HALTED',
                        'RECEIVED', 'READY', 'FILLING', 'SHIPPED', 'COMPLETED', 'CANCELED')),
    since_ms        INTEGER NOT NULL
);
CREATE INDEX fulfillment_orders_due ON fulfillment_orders (since_ms)
    WHERE stage NOT IN ('HALTED', 'COMPLETED', 'CANCELED');

-- The outbox: every event, written in the transaction of the change that caused it.
-- `body` is the CloudEvent exactly as it is sent (every copy and attempt the same
-- bytes). `fanned_out` turns 1 once a delivery per matching subscription exists.
CREATE TABLE webhook_events (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL,
    type            TEXT NOT NULL,
    subject         TEXT NOT NULL,
    time_ms         INTEGER NOT NULL,
    body            TEXT NOT NULL,
    fanned_out      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX webhook_events_to_fan_out ON webhook_events (seq) WHERE fanned_out = 0;
CREATE INDEX webhook_events_by_subject ON webhook_events (subject);

-- One row per (event, subscription, copy): copy 2 exists only when the event was chosen
-- to arrive twice. The subscription is named by its id; its URL and secret live in the
-- sandbox's configuration (a secret is never stored here).
CREATE TABLE webhook_deliveries (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    event_seq       INTEGER NOT NULL REFERENCES webhook_events (seq),
    subscription_id TEXT NOT NULL,
    copy            INTEGER NOT NULL DEFAULT 1,
    state           TEXT NOT NULL CHECK (state IN ('PENDING', 'DELIVERED', 'DROPPED', 'GAVE_UP')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    due_ms          INTEGER NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_ms) WHERE state = 'PENDING';

-- The delivery log: every attempt and its answer.
CREATE TABLE webhook_attempts (
    delivery_seq INTEGER NOT NULL REFERENCES webhook_deliveries (seq),
    attempt      INTEGER NOT NULL,
    sent_at_ms   INTEGER NOT NULL,
    status       INTEGER,            -- the HTTP status; NULL when no answer came
    error        TEXT,               -- why no answer came (refused, timed out, …)
    outcome      TEXT NOT NULL CHECK (outcome IN ('DELIVERED', 'RETRY', 'DROPPED', 'GAVE_UP')),
    PRIMARY KEY (delivery_seq, attempt)
);
