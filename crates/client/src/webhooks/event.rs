//! A verified webhook event, typed: the CloudEvents envelope ([`Event`]) and each
//! documented type's `data` ([`EventData`]). A type this version does not know is
//! kept whole as [`EventData::Other`], so a network that adds one does not break a
//! receiver. Reading only; checking the signature lives in `verify.rs`.

use serde::Deserialize;
use time::OffsetDateTime;

use super::error::WebhookError;

/// One event, as the network sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Unique per event: the key to skip duplicates by ([`super::Deduplicator`]).
    pub id: String,
    /// When it happened: compare it to tell which of two events is the latest
    /// (they may arrive in any order).
    pub time: OffsetDateTime,
    /// The id of the record it is about (`ord_…`, `rx_…`).
    pub subject: String,
    /// The organization, `org:<id>`.
    pub source: String,
    pub data: EventData,
}

impl Event {
    /// The event's `type`, e.g. `photon:order:placed`.
    pub fn kind(&self) -> &str {
        self.data.kind()
    }

    /// Reads a CloudEvent JSON body (after its signature was checked).
    pub fn parse(body: &[u8]) -> Result<Self, WebhookError> {
        #[derive(Deserialize)]
        struct Envelope {
            id: String,
            #[serde(rename = "type")]
            kind: String,
            specversion: String,
            #[serde(with = "time::serde::rfc3339")]
            time: OffsetDateTime,
            subject: String,
            source: String,
            #[serde(default)]
            data: serde_json::Value,
        }
        let malformed = |e: serde_json::Error| WebhookError::MalformedEvent(e.to_string());
        let envelope: Envelope = serde_json::from_slice(body).map_err(malformed)?;
        if envelope.specversion != "1.0" {
            return Err(WebhookError::MalformedEvent(format!(
                "CloudEvents specversion {} (1.0 expected)",
                envelope.specversion
            )));
        }
        let data = EventData::from_parts(&envelope.kind, envelope.data).map_err(malformed)?;
        Ok(Self {
            id: envelope.id,
            time: envelope.time,
            subject: envelope.subject,
            source: envelope.source,
            data,
        })
    }
}

/// The documented `data` of each event type.
#[derive(Debug, Clone, PartialEq)]
pub enum EventData {
    /// `photon:order:created`: an order was sent; each prescription is a fill.
    OrderCreated(OrderCreated),
    /// `photon:order:placed`: the order was sent to a pharmacy (again after a reroute).
    OrderPlaced(OrderAtPharmacy),
    /// `photon:order:fulfillment`: the pharmacy made progress.
    OrderFulfillment(OrderFulfillment),
    /// `photon:order:rerouted`: the order moved to another pharmacy (the new one).
    OrderRerouted(OrderAtPharmacy),
    /// `photon:order:completed`: picked up or delivered.
    OrderCompleted(RecordEvent),
    /// `photon:order:canceled`.
    OrderCanceled(RecordEvent),
    /// `photon:order:error`: something needs attention; `reason` says what.
    OrderError(OrderError),
    /// `photon:prescription:created`: a draft became an active prescription.
    PrescriptionCreated(PrescriptionCreated),
    /// `photon:prescription:depleted`: every fill it allows is on an order.
    PrescriptionDepleted(RecordEvent),
    /// `photon:prescription:active`: a depleted prescription has a fill again.
    PrescriptionActive(RecordEvent),
    /// `photon:prescription:canceled`: it can no longer be filled.
    PrescriptionCanceled(RecordEvent),
    /// A type this version does not know, with its `data` as sent.
    Other {
        kind: String,
        data: serde_json::Value,
    },
}

impl EventData {
    /// The event `type`.
    pub fn kind(&self) -> &str {
        match self {
            Self::OrderCreated(_) => "photon:order:created",
            Self::OrderPlaced(_) => "photon:order:placed",
            Self::OrderFulfillment(_) => "photon:order:fulfillment",
            Self::OrderRerouted(_) => "photon:order:rerouted",
            Self::OrderCompleted(_) => "photon:order:completed",
            Self::OrderCanceled(_) => "photon:order:canceled",
            Self::OrderError(_) => "photon:order:error",
            Self::PrescriptionCreated(_) => "photon:prescription:created",
            Self::PrescriptionDepleted(_) => "photon:prescription:depleted",
            Self::PrescriptionActive(_) => "photon:prescription:active",
            Self::PrescriptionCanceled(_) => "photon:prescription:canceled",
            Self::Other { kind, .. } => kind,
        }
    }

    fn from_parts(kind: &str, data: serde_json::Value) -> Result<Self, serde_json::Error> {
        use serde_json::from_value as read;
        Ok(match kind {
            "photon:order:created" => Self::OrderCreated(read(data)?),
            "photon:order:placed" => Self::OrderPlaced(read(data)?),
            "photon:order:fulfillment" => Self::OrderFulfillment(read(data)?),
            "photon:order:rerouted" => Self::OrderRerouted(read(data)?),
            "photon:order:completed" => Self::OrderCompleted(read(data)?),
            "photon:order:canceled" => Self::OrderCanceled(read(data)?),
            "photon:order:error" => Self::OrderError(read(data)?),
            "photon:prescription:created" => Self::PrescriptionCreated(read(data)?),
            "photon:prescription:depleted" => Self::PrescriptionDepleted(read(data)?),
            "photon:prescription:active" => Self::PrescriptionActive(read(data)?),
            "photon:prescription:canceled" => Self::PrescriptionCanceled(read(data)?),
            other => Self::Other {
                kind: other.to_owned(),
                data,
            },
        })
    }
}

/// `{ id, externalId }` of a patient or a prescription.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordRef {
    pub id: String,
    #[serde(default)]
    pub external_id: Option<String>,
}

/// The `data` every event has: the record, its `externalId`, the patient.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordEvent {
    pub id: String,
    #[serde(default)]
    pub external_id: Option<String>,
    pub patient: RecordRef,
}

/// `photon:order:created`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderCreated {
    pub id: String,
    #[serde(default)]
    pub external_id: Option<String>,
    /// The pharmacy chosen before sending; `None` while the patient chooses.
    #[serde(default)]
    pub pharmacy_id: Option<String>,
    pub patient: RecordRef,
    #[serde(default)]
    pub fills: Vec<Fill>,
}

/// A prescription on a sent order.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Fill {
    pub id: String,
    pub prescription: RecordRef,
}

/// `photon:order:placed` and `photon:order:rerouted`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderAtPharmacy {
    pub id: String,
    #[serde(default)]
    pub external_id: Option<String>,
    pub patient: RecordRef,
    pub pharmacy: Pharmacy,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Pharmacy {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub phone: Option<String>,
    #[serde(default)]
    pub address: Option<Address>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    #[serde(default)]
    pub street1: Option<String>,
    #[serde(default)]
    pub street2: Option<String>,
    #[serde(default)]
    pub city: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default)]
    pub postal_code: Option<String>,
}

/// `photon:order:fulfillment`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderFulfillment {
    pub id: String,
    #[serde(default)]
    pub external_id: Option<String>,
    pub patient: RecordRef,
    pub fulfillment: Fulfillment,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fulfillment {
    #[serde(rename = "type")]
    pub kind: FulfillmentType,
    pub state: FulfillmentState,
    /// When the pharmacy provides it.
    #[serde(default)]
    pub carrier: Option<String>,
    /// When the pharmacy provides it.
    #[serde(default)]
    pub tracking_number: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FulfillmentType {
    PickUp,
    /// Delivered to the patient.
    MailOrder,
    /// A type this version does not know.
    #[serde(other)]
    Other,
}

impl FulfillmentType {
    /// As the network writes it: `PICK_UP`, `MAIL_ORDER`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PickUp => "PICK_UP",
            Self::MailOrder => "MAIL_ORDER",
            Self::Other => "OTHER",
        }
    }
}

/// The pharmacy's step, in order: pick-up `Received`, `Ready`, `PickedUp`;
/// mail order `Filling`, `Shipped`, `Delivered`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FulfillmentState {
    /// The pharmacy confirmed it can fill the order.
    Received,
    /// Waiting for pickup.
    Ready,
    PickedUp,
    Filling,
    Shipped,
    Delivered,
    /// A state this version does not know.
    #[serde(other)]
    Other,
}

impl FulfillmentState {
    /// As the network writes it: `RECEIVED`, `PICKED_UP`, …
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Received => "RECEIVED",
            Self::Ready => "READY",
            Self::PickedUp => "PICKED_UP",
            Self::Filling => "FILLING",
            Self::Shipped => "SHIPPED",
            Self::Delivered => "DELIVERED",
            Self::Other => "OTHER",
        }
    }
}

/// `photon:order:error`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderError {
    pub id: String,
    #[serde(default)]
    pub external_id: Option<String>,
    /// What went wrong, for a person to read.
    pub reason: String,
    pub patient: RecordRef,
}

/// `photon:prescription:created`.
#[derive(Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrescriptionCreated {
    pub id: String,
    #[serde(default)]
    pub external_id: Option<String>,
    /// The drug's catalog id.
    pub treatment_id: String,
    /// The prescriber who signed it.
    #[serde(default)]
    pub prescriber_id: Option<String>,
    #[serde(default)]
    pub instructions: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default)]
    pub dispense_quantity: Option<f64>,
    #[serde(default)]
    pub dispense_unit: Option<String>,
    #[serde(default)]
    pub dispense_as_written: Option<bool>,
    /// How many times it can be filled in all (`refills_allowed` + 1).
    #[serde(default)]
    pub fills_allowed: Option<u32>,
    #[serde(default)]
    pub refills_allowed: Option<u32>,
    #[serde(default)]
    pub days_supply: Option<u32>,
    /// `YYYY-MM-DD`: from when it is valid.
    #[serde(default)]
    pub effective_date: Option<String>,
    /// `YYYY-MM-DD`: until when it is valid.
    #[serde(default)]
    pub expiration_date: Option<String>,
    pub patient: RecordRef,
}

// The sig and notes are patient data: `Debug` shows ids only.
crate::redacted_debug! {
    PrescriptionCreated { id, external_id, treatment_id, prescriber_id }
}
