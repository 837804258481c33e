//! The network's webhook events: their types ([`EventType`]), the CloudEvents
//! envelope and each type's documented `data`, and [`emit`], which writes one into
//! the outbox inside the caller's transaction. What causes each event lives in
//! `crate::fulfillment`; sending them lives in [`super::delivery`].
//!
//! Every `data` carries the record's `id`, its `externalId` (`null` when none was
//! set) and the `patient` as `{ id, externalId }` (patients have no `externalId`
//! in this network, so it is `null`).

use rusqlite::Connection;
use serde::Serialize;

use super::outbox::{self, EventRow};
use crate::catalog::PharmacyEntry;
use crate::store::StoreError;

/// Every event type the network sends, by its documented name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    OrderCreated,
    OrderPlaced,
    OrderFulfillment,
    OrderRerouted,
    OrderCompleted,
    OrderCanceled,
    OrderError,
    PrescriptionCreated,
    PrescriptionDepleted,
    PrescriptionActive,
    PrescriptionCanceled,
}

impl EventType {
    pub const ALL: [Self; 11] = [
        Self::OrderCreated,
        Self::OrderPlaced,
        Self::OrderFulfillment,
        Self::OrderRerouted,
        Self::OrderCompleted,
        Self::OrderCanceled,
        Self::OrderError,
        Self::PrescriptionCreated,
        Self::PrescriptionDepleted,
        Self::PrescriptionActive,
        Self::PrescriptionCanceled,
    ];

    /// The CloudEvent `type`, e.g. `photon:order:placed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OrderCreated => "photon:order:created",
            Self::OrderPlaced => "photon:order:placed",
            Self::OrderFulfillment => "photon:order:fulfillment",
            Self::OrderRerouted => "photon:order:rerouted",
            Self::OrderCompleted => "photon:order:completed",
            Self::OrderCanceled => "photon:order:canceled",
            Self::OrderError => "photon:order:error",
            Self::PrescriptionCreated => "photon:prescription:created",
            Self::PrescriptionDepleted => "photon:prescription:depleted",
            Self::PrescriptionActive => "photon:prescription:active",
            Self::PrescriptionCanceled => "photon:prescription:canceled",
        }
    }

    /// The type named `name` (its full documented name).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == name.trim())
    }
}

/// `{ id, externalId }` of a patient or a prescription.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordRef {
    pub id: String,
    pub external_id: Option<String>,
}

impl RecordRef {
    /// A patient: the network keeps no `externalId` for patients.
    pub fn patient(id: &str) -> Self {
        Self {
            id: id.to_owned(),
            external_id: None,
        }
    }
}

/// The order an order event is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderSubject {
    pub organization: String,
    pub id: String,
    pub external_id: Option<String>,
    pub patient_id: String,
}

/// One fill of `photon:order:created`: a prescription on the order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fill {
    pub id: String,
    pub prescription: RecordRef,
}

/// The pharmacy of `photon:order:placed` and `photon:order:rerouted`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PharmacyData {
    pub id: String,
    pub name: String,
    pub phone: Option<String>,
    pub address: AddressData,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddressData {
    pub street1: String,
    pub street2: Option<String>,
    pub city: String,
    pub state: String,
    pub postal_code: String,
}

impl From<&PharmacyEntry> for PharmacyData {
    fn from(p: &PharmacyEntry) -> Self {
        Self {
            id: p.id.clone(),
            name: p.name.clone(),
            phone: p.phone.clone(),
            address: AddressData {
                street1: p.street1.clone(),
                street2: p.street2.clone(),
                city: p.city.clone(),
                state: p.state.clone(),
                postal_code: p.postal_code.clone(),
            },
        }
    }
}

/// `fulfillment` of `photon:order:fulfillment`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FulfillmentData {
    /// `PICK_UP` or `MAIL_ORDER`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `RECEIVED`, `READY`, `PICKED_UP`; `FILLING`, `SHIPPED`, `DELIVERED`.
    pub state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carrier: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracking_number: Option<String>,
}

/// `data` of `photon:prescription:created`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrescriptionCreated {
    pub id: String,
    pub external_id: Option<String>,
    pub treatment_id: String,
    pub prescriber_id: Option<String>,
    pub instructions: String,
    pub notes: String,
    pub dispense_quantity: Option<f64>,
    pub dispense_unit: Option<String>,
    pub dispense_as_written: bool,
    pub fills_allowed: i64,
    pub refills_allowed: i64,
    pub days_supply: Option<i32>,
    pub effective_date: String,
    pub expiration_date: String,
    pub patient: RecordRef,
}

/// An event about to be written to the outbox: its type, what it is about and its
/// `data`, and when it happened on the simulated clock.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub kind: EventType,
    pub organization: String,
    /// The id of the record the event is about.
    pub subject: String,
    pub time_ms: i64,
    pub data: serde_json::Value,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OrderData<'a, E: Serialize> {
    id: &'a str,
    external_id: Option<&'a str>,
    #[serde(flatten)]
    extra: E,
    patient: RecordRef,
}

#[derive(Serialize)]
struct Nothing {}

impl OrderSubject {
    fn event<E: Serialize>(&self, kind: EventType, time_ms: i64, extra: E) -> NewEvent {
        let data = OrderData {
            id: &self.id,
            external_id: self.external_id.as_deref(),
            extra,
            patient: RecordRef::patient(&self.patient_id),
        };
        NewEvent {
            kind,
            organization: self.organization.clone(),
            subject: self.id.clone(),
            time_ms,
            data: serde_json::to_value(data).unwrap_or_default(),
        }
    }

    /// `photon:order:created`: sent, with one fill per prescription.
    pub fn created(&self, time_ms: i64, pharmacy_id: Option<&str>, fills: Vec<Fill>) -> NewEvent {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Created<'a> {
            pharmacy_id: Option<&'a str>,
            fills: Vec<Fill>,
        }
        self.event(
            EventType::OrderCreated,
            time_ms,
            Created { pharmacy_id, fills },
        )
    }

    /// `photon:order:placed`: sent to `pharmacy`.
    pub fn placed(&self, time_ms: i64, pharmacy: &PharmacyEntry) -> NewEvent {
        self.with_pharmacy(EventType::OrderPlaced, time_ms, pharmacy)
    }

    /// `photon:order:rerouted`: moved to `pharmacy`.
    pub fn rerouted(&self, time_ms: i64, pharmacy: &PharmacyEntry) -> NewEvent {
        self.with_pharmacy(EventType::OrderRerouted, time_ms, pharmacy)
    }

    fn with_pharmacy(&self, kind: EventType, time_ms: i64, pharmacy: &PharmacyEntry) -> NewEvent {
        #[derive(Serialize)]
        struct With {
            pharmacy: PharmacyData,
        }
        self.event(
            kind,
            time_ms,
            With {
                pharmacy: pharmacy.into(),
            },
        )
    }

    /// `photon:order:fulfillment`: one step of the pharmacy.
    pub fn fulfillment(&self, time_ms: i64, fulfillment: FulfillmentData) -> NewEvent {
        #[derive(Serialize)]
        struct With {
            fulfillment: FulfillmentData,
        }
        self.event(EventType::OrderFulfillment, time_ms, With { fulfillment })
    }

    /// `photon:order:completed`: picked up or delivered.
    pub fn completed(&self, time_ms: i64) -> NewEvent {
        self.event(EventType::OrderCompleted, time_ms, Nothing {})
    }

    /// `photon:order:canceled`.
    pub fn canceled(&self, time_ms: i64) -> NewEvent {
        self.event(EventType::OrderCanceled, time_ms, Nothing {})
    }

    /// `photon:order:error`, with a reason for a person to read.
    pub fn error(&self, time_ms: i64, reason: &str) -> NewEvent {
        #[derive(Serialize)]
        struct With<'a> {
            reason: &'a str,
        }
        self.event(EventType::OrderError, time_ms, With { reason })
    }
}

/// The prescription a prescription event is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrescriptionSubject {
    pub organization: String,
    pub id: String,
    pub external_id: Option<String>,
    pub patient_id: String,
}

impl PrescriptionSubject {
    fn bare(&self, kind: EventType, time_ms: i64) -> NewEvent {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Bare<'a> {
            id: &'a str,
            external_id: Option<&'a str>,
            patient: RecordRef,
        }
        let data = Bare {
            id: &self.id,
            external_id: self.external_id.as_deref(),
            patient: RecordRef::patient(&self.patient_id),
        };
        NewEvent {
            kind,
            organization: self.organization.clone(),
            subject: self.id.clone(),
            time_ms,
            data: serde_json::to_value(data).unwrap_or_default(),
        }
    }

    /// `photon:prescription:created`: signed, with its documented fields.
    pub fn created(&self, time_ms: i64, data: &PrescriptionCreated) -> NewEvent {
        NewEvent {
            kind: EventType::PrescriptionCreated,
            organization: self.organization.clone(),
            subject: self.id.clone(),
            time_ms,
            data: serde_json::to_value(data).unwrap_or_default(),
        }
    }

    /// `photon:prescription:depleted`: every fill it allows is on an order.
    pub fn depleted(&self, time_ms: i64) -> NewEvent {
        self.bare(EventType::PrescriptionDepleted, time_ms)
    }

    /// `photon:prescription:active`: a depleted prescription has a fill again.
    pub fn active(&self, time_ms: i64) -> NewEvent {
        self.bare(EventType::PrescriptionActive, time_ms)
    }
}

/// The CloudEvents envelope, in the documented field order.
#[derive(Serialize)]
struct Envelope<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    specversion: &'static str,
    datacontenttype: &'static str,
    time: String,
    subject: &'a str,
    source: String,
    data: &'a serde_json::Value,
}

/// The CloudEvent JSON of `event` under the id `id`: the exact bytes every
/// delivery of it sends.
pub fn body(id: &str, event: &NewEvent) -> String {
    let envelope = Envelope {
        id,
        kind: event.kind.as_str(),
        specversion: "1.0",
        datacontenttype: "application/json",
        time: crate::clock::rfc3339_ms(event.time_ms),
        subject: &event.subject,
        source: format!("org:{}", event.organization),
        data: &event.data,
    };
    // A struct of strings and a JSON value always serializes.
    serde_json::to_string(&envelope).unwrap_or_default()
}

/// Writes `event` into the outbox, in the caller's transaction: it is sent once
/// that transaction commits, and never if it rolls back. Answers the event's id.
pub fn emit(conn: &Connection, event: &NewEvent) -> Result<String, StoreError> {
    let id = ulid::Ulid::new().to_string();
    outbox::insert_event(
        conn,
        &EventRow {
            id: &id,
            organization: &event.organization,
            kind: event.kind.as_str(),
            subject: &event.subject,
            time_ms: event.time_ms,
            body: &body(&id, event),
        },
    )?;
    tracing::debug!(event = %id, kind = event.kind.as_str(), subject = %event.subject, "webhook event recorded");
    Ok(id)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn order() -> OrderSubject {
        OrderSubject {
            organization: "org_maple".into(),
            id: "ord_1".into(),
            external_id: Some("x-1".into()),
            patient_id: "pat_1".into(),
        }
    }

    #[test]
    fn an_event_is_a_cloudevent_in_the_documented_shape() {
        let event = order().completed(1_791_421_200_000);

        let body: serde_json::Value = serde_json::from_str(&body("01EVENT", &event)).unwrap();

        assert_eq!(
            body,
            serde_json::json!({
                "id": "01EVENT",
                "type": "photon:order:completed",
                "specversion": "1.0",
                "datacontenttype": "application/json",
                "time": "2026-10-08T01:00:00.000Z",
                "subject": "ord_1",
                "source": "org:org_maple",
                "data": {
                    "id": "ord_1",
                    "externalId": "x-1",
                    "patient": { "id": "pat_1", "externalId": null }
                }
            })
        );
    }

    #[test]
    fn every_type_reads_back_from_its_name() {
        for kind in EventType::ALL {
            assert_eq!(EventType::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(EventType::parse("photon:order:shipped"), None);
    }
}
