//! Where the simulated pharmacy is with a sent order ([`Stage`], as stored in
//! `fulfillment_orders`), and the order an event is about ([`subject`]). Shared by
//! the Network API's hooks and the pharmacy's steps; depends on neither.

use crate::store::records::OrderDoc;
use crate::webhooks::events::OrderSubject;

/// Where the simulated pharmacy is with a sent order: the last step taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Sent without a pharmacy: the patient is choosing.
    Choosing,
    /// Sent with a pharmacy, not yet placed there.
    Sent,
    Placed,
    /// Moved to another pharmacy, not yet placed there.
    Rerouted,
    /// Hit an order error: it waits for a person (a new pharmacy, or canceling).
    Halted,
    Received,
    Ready,
    Filling,
    Shipped,
    Completed,
    Canceled,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Choosing => "CHOOSING",
            Self::Sent => "SENT",
            Self::Placed => "PLACED",
            Self::Rerouted => "REROUTED",
            Self::Halted => "HALTED",
            Self::Received => "RECEIVED",
            Self::Ready => "READY",
            Self::Filling => "FILLING",
            Self::Shipped => "SHIPPED",
            Self::Completed => "COMPLETED",
            Self::Canceled => "CANCELED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [
            Self::Choosing,
            Self::Sent,
            Self::Placed,
            Self::Rerouted,
            Self::Halted,
            Self::Received,
            Self::Ready,
            Self::Filling,
            Self::Shipped,
            Self::Completed,
            Self::Canceled,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }

    /// True once nothing more happens on its own.
    pub fn is_final(self) -> bool {
        matches!(self, Self::Halted | Self::Completed | Self::Canceled)
    }

    /// True before the order reached a pharmacy.
    pub fn is_before_placement(self) -> bool {
        matches!(self, Self::Choosing | Self::Sent)
    }
}

/// The order an event is about.
pub fn subject(order: &OrderDoc) -> OrderSubject {
    OrderSubject {
        organization: order.organization_id.clone(),
        id: order.id.clone(),
        external_id: order.external_id.clone(),
        patient_id: order.patient_id.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::Stage;

    #[test]
    fn every_stage_reads_back_from_its_name() {
        for stage in [
            Stage::Choosing,
            Stage::Sent,
            Stage::Placed,
            Stage::Rerouted,
            Stage::Halted,
            Stage::Received,
            Stage::Ready,
            Stage::Filling,
            Stage::Shipped,
            Stage::Completed,
            Stage::Canceled,
        ] {
            assert_eq!(Stage::parse(stage.as_str()), Some(stage));
        }
    }
}
