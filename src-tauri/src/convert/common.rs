//! What every domain's conversions share: a `ClientError` as the one
//! [`CommandError`](crate::ipc::CommandError), and the network's changes and
//! choices as the UI's notes and options.

use rxdesk_client::ClientError;
use rxdesk_client::network::Choice;
use rxdesk_client::network::documents as net;

use crate::ipc::{
    ChangeNote, ChangeSeverity, ChangeStatus, ChoiceView, CommandError, OfferView, PriceKind,
    PriceView,
};

impl From<ClientError> for CommandError {
    fn from(e: ClientError) -> Self {
        match e {
            ClientError::SignedOut { message, .. } => Self::SignedOut { message },
            ClientError::Refused {
                code,
                message,
                required_permission,
            } => Self::Refused {
                code,
                message,
                required_permission,
            },
            ClientError::Invalid {
                code,
                message,
                field,
            } => Self::Invalid {
                code,
                message,
                field,
            },
            ClientError::NotFound { message } => Self::NotFound { message },
            ClientError::Network { message } | ClientError::Untrusted { message } => {
                Self::Network { message }
            }
            e @ ClientError::TimedOut { .. } => Self::Network {
                message: e.to_string(),
            },
            // Told as the kind of trouble the last attempt met, in the words
            // that name the attempts and the time.
            e @ ClientError::GaveUp { .. } => {
                let network = matches!(&e, ClientError::GaveUp { last, .. } if matches!(**last, ClientError::Network { .. }));
                let message = e.to_string();
                if network {
                    Self::Network { message }
                } else {
                    Self::Server { message }
                }
            }
            e @ ClientError::RateLimited { .. } => Self::Server {
                message: e.to_string(),
            },
            ClientError::Server { message, .. } | ClientError::Upstream { message, .. } => {
                Self::Server { message }
            }
            ClientError::Protocol { message } => Self::Protocol { message },
        }
    }
}

fn offer_view(offer: &net::PharmacyOffer) -> OfferView {
    OfferView {
        source: offer.source.clone(),
        promoted: offer.is_promoted,
        tags: offer
            .attribute_tags
            .iter()
            .map(|t| t.label.clone())
            .collect(),
        price: offer.price_summary.as_ref().map(|p| PriceView {
            kind: p.price_type.map(|kind| match kind {
                net::OfferPriceType::Cash => PriceKind::Cash,
                net::OfferPriceType::Insurance => PriceKind::Insurance,
                net::OfferPriceType::Membership => PriceKind::Membership,
            }),
            total: p.total_amount,
            retail: p.total_retail_amount,
            savings: p.total_savings,
        }),
        delivery: offer
            .prescription_delivery_estimates
            .iter()
            .map(|e| e.delivery_promise.clone())
            .collect(),
    }
}

pub fn choice_view(choice: &Choice) -> ChoiceView {
    ChoiceView {
        label: choice.display_name.clone(),
        reason: choice.reason.clone(),
        argument: choice.argument.clone(),
        value: choice.value.clone(),
        exact: choice.exact,
        offers: choice.offers.iter().map(offer_view).collect(),
    }
}

pub fn change_note(change: &net::Change) -> ChangeNote {
    ChangeNote {
        key: change.key.clone(),
        label: change.label.clone(),
        status: match change.status {
            net::ChangeStatus::Applied => ChangeStatus::Applied,
            net::ChangeStatus::Rejected => ChangeStatus::Rejected,
            net::ChangeStatus::Ambiguous => ChangeStatus::Ambiguous,
        },
        severity: match change.severity {
            net::ChangeSeverity::Info => ChangeSeverity::Info,
            net::ChangeSeverity::Advisory => ChangeSeverity::Advisory,
            net::ChangeSeverity::Blocking => ChangeSeverity::Blocking,
        },
        reason: change.reason.clone(),
        options: change.choices().iter().map(choice_view).collect(),
    }
}

pub fn change_notes(changes: &[net::Change]) -> Vec<ChangeNote> {
    changes.iter().map(change_note).collect()
}
