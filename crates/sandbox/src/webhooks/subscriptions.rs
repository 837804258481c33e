//! Webhook subscriptions: an organization's URL, the event types it wants (all, or
//! some) and its shared secret. They come from the fixture (`[[webhooks]]`), the
//! command line (`--webhook`) or, at runtime, [`super::Webhooks::subscribe`]; they
//! are kept in memory (a secret is never written to the database). A subscription's
//! id is derived from its organization and URL, so it is the same after a restart
//! and pending deliveries find it again.

use sha2::{Digest as _, Sha256};
use url::Url;

use super::events::EventType;
use crate::config::WebhookSecret;

/// Which events a subscription receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventFilter {
    All,
    Only(Vec<EventType>),
}

impl EventFilter {
    pub fn matches(&self, kind: &str) -> bool {
        match self {
            Self::All => true,
            Self::Only(kinds) => kinds.iter().any(|k| k.as_str() == kind),
        }
    }

    /// Reads a list of documented type names (`photon:order:placed`, …); an empty
    /// list, or `all`, is every type.
    pub fn parse(names: &[String]) -> Result<Self, String> {
        if names.is_empty() || names.iter().any(|n| n.trim() == "all") {
            return Ok(Self::All);
        }
        names
            .iter()
            .map(|name| {
                EventType::parse(name).ok_or_else(|| {
                    let known: Vec<&str> = EventType::ALL.iter().map(|t| t.as_str()).collect();
                    format!(
                        "unknown event type `{name}` (use `all` or any of {})",
                        known.join(", ")
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Self::Only)
    }

    /// The type names, or `["all"]`.
    pub fn names(&self) -> Vec<&'static str> {
        match self {
            Self::All => vec!["all"],
            Self::Only(kinds) => kinds.iter().map(|k| k.as_str()).collect(),
        }
    }
}

/// One subscription.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    id: String,
    pub organization: String,
    pub url: Url,
    pub events: EventFilter,
    pub secret: WebhookSecret,
}

/// Why a subscription was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubscriptionError {
    #[error("`{0}` is not an absolute http(s) URL")]
    InvalidUrl(String),
    #[error(
        "`{0}` is not on this machine: webhooks go to loopback addresses (127.0.0.1, [::1], localhost) unless remote targets are allowed"
    )]
    NotLoopback(String),
    #[error("a webhook needs a non-empty shared secret: the network signs every request with it")]
    NoSecret,
    #[error("{0}")]
    Events(String),
    #[error("unknown organization `{0}`")]
    UnknownOrganization(String),
}

impl Subscription {
    /// Checks and builds a subscription. `allow_remote` lets the URL leave this
    /// machine.
    pub fn new(
        organization: impl Into<String>,
        url: &str,
        events: EventFilter,
        secret: WebhookSecret,
        allow_remote: bool,
    ) -> Result<Self, SubscriptionError> {
        let organization = organization.into();
        let parsed = Url::parse(url.trim())
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
            .ok_or_else(|| SubscriptionError::InvalidUrl(url.to_owned()))?;
        if !allow_remote && !is_loopback(&parsed) {
            return Err(SubscriptionError::NotLoopback(url.to_owned()));
        }
        if secret.expose().is_empty() {
            return Err(SubscriptionError::NoSecret);
        }
        let digest = Sha256::digest(format!("{organization}\n{parsed}").as_bytes());
        let id = format!("whk_{}", hex::encode(&digest[..8]));
        Ok(Self {
            id,
            organization,
            url: parsed,
            events,
            secret,
        })
    }

    /// `whk_` and 16 hex digits of the organization and URL.
    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn wants(&self, organization: &str, kind: &str) -> bool {
        self.organization == organization && self.events.matches(kind)
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn subscribe(url: &str, allow_remote: bool) -> Result<Subscription, SubscriptionError> {
        Subscription::new(
            "org_maple",
            url,
            EventFilter::All,
            WebhookSecret::new("s"),
            allow_remote,
        )
    }

    #[test]
    fn only_loopback_targets_are_accepted_unless_remote_ones_are_allowed() {
        for url in [
            "http://127.0.0.1:9000/hooks",
            "http://localhost:9000/",
            "http://[::1]:9000/",
        ] {
            assert!(subscribe(url, false).is_ok(), "{url}");
        }
        for url in ["https://hooks.example.org/photon", "http://10.0.0.2/"] {
            assert_eq!(
                subscribe(url, false),
                Err(SubscriptionError::NotLoopback(url.to_owned()))
            );
            assert!(subscribe(url, true).is_ok(), "{url}");
        }
    }

    #[test]
    fn a_subscription_keeps_its_id_across_restarts() {
        let a = subscribe("http://127.0.0.1:9000/hooks", false).unwrap();
        let b = subscribe("http://127.0.0.1:9000/hooks", false).unwrap();
        assert_eq!(a.id(), b.id());
        assert!(a.id().starts_with("whk_"));
        assert_ne!(
            a.id(),
            subscribe("http://127.0.0.1:9001/hooks", false)
                .unwrap()
                .id()
        );
    }

    #[test]
    fn unknown_event_types_are_named() {
        let error = EventFilter::parse(&["photon:order:shipped".into()]).unwrap_err();
        assert!(error.contains("photon:order:shipped"), "{error}");
        assert_eq!(
            EventFilter::parse(&["photon:order:placed".into()]).unwrap(),
            EventFilter::Only(vec![EventType::OrderPlaced])
        );
        assert_eq!(EventFilter::parse(&[]).unwrap(), EventFilter::All);
    }
}
