//! Which operation a request is ([`Operation`]), told from the request alone: the
//! token endpoint by its path, a Network API call by the classifier the server
//! hands the link's step (`crate::network::classify_graphql`: the document's
//! first field and the call its input is, as the network itself classifies it).
//! The link layer stands below the network: it names the operations and never
//! imports the network. Nothing here looks anything up.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One kind of call, as the link layer targets and counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// `POST /oauth/token`, whatever the grant.
    Token,
    /// `query { ping }`.
    Ping,
    /// A Get `{ id }` of a patient, prescription or order.
    Get,
    /// A patient Sync (no `id`): matching, adding, searching.
    PatientSync,
    /// A patient Update (`id` and fields).
    PatientUpdate,
    /// A drug look-up (`treatment` without a patient).
    PrescriptionLookup,
    /// A draft Sync (with a patient, without an `id`).
    PrescriptionDraft,
    /// A prescription Update (`id` and fields).
    PrescriptionUpdate,
    /// A signature (`signing` present).
    PrescriptionSign,
    /// An order Sync (without an `id`).
    OrderDraft,
    /// An order Update (`id` and prescriptions or a pharmacy chosen by id).
    OrderUpdate,
    /// `state: SUBMITTED`.
    OrderSend,
    /// `state: CANCELED`.
    OrderCancel,
    /// `{ id, pharmacy: { pharmacy: { name | near | … } } }` without a pharmacy id.
    PharmacySearch,
    /// Anything else sent to `/graphql` (introspection, a body that does not parse).
    Other,
}

impl Operation {
    /// Every operation, in a fixed order (its index seeds the operation's stream).
    pub const ALL: [Self; 15] = [
        Self::Token,
        Self::Ping,
        Self::Get,
        Self::PatientSync,
        Self::PatientUpdate,
        Self::PrescriptionLookup,
        Self::PrescriptionDraft,
        Self::PrescriptionUpdate,
        Self::PrescriptionSign,
        Self::OrderDraft,
        Self::OrderUpdate,
        Self::OrderSend,
        Self::OrderCancel,
        Self::PharmacySearch,
        Self::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Token => "token",
            Self::Ping => "ping",
            Self::Get => "get",
            Self::PatientSync => "patient_sync",
            Self::PatientUpdate => "patient_update",
            Self::PrescriptionLookup => "prescription_lookup",
            Self::PrescriptionDraft => "prescription_draft",
            Self::PrescriptionUpdate => "prescription_update",
            Self::PrescriptionSign => "prescription_sign",
            Self::OrderDraft => "order_draft",
            Self::OrderUpdate => "order_update",
            Self::OrderSend => "order_send",
            Self::OrderCancel => "order_cancel",
            Self::PharmacySearch => "pharmacy_search",
            Self::Other => "other",
        }
    }

    /// The position in [`Operation::ALL`].
    pub fn index(self) -> usize {
        Self::ALL
            .iter()
            .position(|o| *o == self)
            .unwrap_or_default()
    }

    /// Whether the answer can be an `UpstreamServiceError` (the three mutations).
    pub fn is_mutation(self) -> bool {
        !matches!(self, Self::Token | Self::Ping | Self::Other)
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Operation {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|o| o.as_str() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|o| o.as_str()).collect();
                format!("unknown operation `{text}` ({})", names.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn names_read_back() {
        for op in Operation::ALL {
            assert_eq!(op.as_str().parse::<Operation>(), Ok(op));
            assert_eq!(
                serde_json::to_value(op).unwrap_or_default(),
                json!(op.as_str())
            );
        }
    }
}
