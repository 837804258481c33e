//! The fixture's `[[webhooks]]` and `[webhook_delivery]` sections and the
//! command line's `--webhook*` flags, checked and merged into the subscriptions and
//! the [`DeliveryPolicy`] the delivery worker runs with.

use std::time::Duration;

use sha2::{Digest as _, Sha256};

use super::subscriptions::{EventFilter, Subscription};
use crate::config::{AfterSendFlags, SettingsError, SettingsRule, WebhookSecret};
use crate::fixture::{DeliverySection, WebhookEntry};

/// How the delivery worker sends and retries.
#[derive(Debug, Clone, PartialEq)]
pub struct DeliveryPolicy {
    pub timeout: Duration,
    pub first_retry: Duration,
    pub max_retry: Duration,
    pub max_attempts: u32,
    pub duplicate_share: f64,
    pub seed: u64,
    /// How late an event chosen to arrive twice is delivered: one and a half steps
    /// of the simulated pharmacy, so that the event after it arrives first.
    pub hold: Duration,
}

impl DeliveryPolicy {
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
    pub const DEFAULT_FIRST_RETRY: Duration = Duration::from_secs(1);
    pub const DEFAULT_MAX_RETRY: Duration = Duration::from_secs(300);
    pub const DEFAULT_MAX_ATTEMPTS: u32 = 8;

    /// The wait after `attempts` failed attempts: the first retry's wait, doubled
    /// each time, never more than `max_retry`.
    pub fn retry_after(&self, attempts: u32) -> Duration {
        let doublings = attempts.saturating_sub(1).min(31);
        self.first_retry
            .saturating_mul(1_u32 << doublings)
            .min(self.max_retry)
    }

    /// True when the event with outbox number `event_seq` is one of the seeded
    /// share delivered twice and late. The same seed chooses the same events.
    pub fn delivers_twice(&self, event_seq: i64) -> bool {
        if self.duplicate_share <= 0.0 {
            return false;
        }
        let mut hasher = Sha256::new();
        hasher.update(self.seed.to_le_bytes());
        hasher.update(event_seq.to_le_bytes());
        let digest = hasher.finalize();
        let mut first = [0_u8; 8];
        first.copy_from_slice(&digest[..8]);
        #[allow(clippy::cast_precision_loss)]
        let draw = u64::from_le_bytes(first) as f64 / u64::MAX as f64;
        draw < self.duplicate_share
    }
}

/// The subscriptions and delivery policy a sandbox starts with.
#[derive(Debug, Clone)]
pub struct WebhookSettings {
    pub subscriptions: Vec<Subscription>,
    pub policy: DeliveryPolicy,
    pub allow_remote: bool,
}

/// Checks the fixture's sections and the flags (flags win) against the fixture's
/// organizations. `step` is the simulated pharmacy's step.
pub fn resolve(
    entries: &[WebhookEntry],
    section: &DeliverySection,
    flags: &AfterSendFlags,
    step: Duration,
    organizations: &[String],
) -> Result<WebhookSettings, SettingsError> {
    let fixture_fail = |entry: String, rule: SettingsRule| SettingsError {
        entry,
        rule,
        from_flag: false,
    };
    let share = flags
        .duplicate_share
        .or(section.duplicate_share)
        .unwrap_or(0.0);
    if !(0.0..=1.0).contains(&share) {
        let rule = SettingsRule::Invalid(format!(
            "duplicate_share must be between 0.0 and 1.0, not {share}"
        ));
        return Err(SettingsError {
            entry: if flags.duplicate_share.is_some() {
                "--webhook-duplicates".to_owned()
            } else {
                "[webhook_delivery]".to_owned()
            },
            rule,
            from_flag: flags.duplicate_share.is_some(),
        });
    }
    let positive = |value: Option<u64>, name: &str| -> Result<Option<u64>, SettingsError> {
        match value {
            Some(0) => Err(fixture_fail(
                "[webhook_delivery]".to_owned(),
                SettingsRule::Invalid(format!("{name} must be at least 1")),
            )),
            other => Ok(other),
        }
    };
    let timeout = positive(section.timeout_seconds, "timeout_seconds")?
        .map_or(DeliveryPolicy::DEFAULT_TIMEOUT, Duration::from_secs);
    let first_retry = positive(section.first_retry_ms, "first_retry_ms")?
        .map_or(DeliveryPolicy::DEFAULT_FIRST_RETRY, Duration::from_millis);
    let max_retry = positive(section.max_retry_seconds, "max_retry_seconds")?
        .map_or(DeliveryPolicy::DEFAULT_MAX_RETRY, Duration::from_secs)
        .max(first_retry);
    let max_attempts = match section.max_attempts {
        Some(0) => {
            return Err(fixture_fail(
                "[webhook_delivery]".to_owned(),
                SettingsRule::Invalid("max_attempts must be at least 1".to_owned()),
            ));
        }
        Some(n) => n,
        None => DeliveryPolicy::DEFAULT_MAX_ATTEMPTS,
    };
    let policy = DeliveryPolicy {
        timeout,
        first_retry,
        max_retry,
        max_attempts,
        duplicate_share: share,
        seed: flags.seed.or(section.seed).unwrap_or(0),
        hold: step.saturating_mul(3) / 2,
    };
    let allow_remote = flags.allow_remote_webhooks || section.allow_remote.unwrap_or(false);

    let mut subscriptions: Vec<Subscription> = Vec::new();
    let mut add = |subscription: Subscription, entry: String, from_flag: bool| {
        if subscriptions.iter().any(|s| s.id() == subscription.id()) {
            return Err(SettingsError {
                entry,
                rule: SettingsRule::Invalid(format!(
                    "{} is subscribed for {} already",
                    subscription.url, subscription.organization
                )),
                from_flag,
            });
        }
        subscriptions.push(subscription);
        Ok(())
    };
    for (i, entry) in entries.iter().enumerate() {
        let name = format!("[[webhooks]] #{} ({})", i + 1, entry.url);
        let fail = |rule| fixture_fail(name.clone(), rule);
        if !organizations.contains(&entry.organization) {
            return Err(fail(SettingsRule::Unknown {
                what: "organization",
                reference: entry.organization.clone(),
            }));
        }
        let events =
            EventFilter::parse(&entry.events).map_err(|e| fail(SettingsRule::Invalid(e)))?;
        let secret = WebhookSecret::new(entry.secret.clone().unwrap_or_default());
        let subscription = Subscription::new(
            entry.organization.clone(),
            &entry.url,
            events,
            secret,
            allow_remote,
        )
        .map_err(|e| fail(SettingsRule::Invalid(e.to_string())))?;
        add(subscription, name.clone(), false)?;
    }
    for (organization, url) in &flags.webhooks {
        let name = format!("--webhook {organization}={url}");
        let fail = |rule| SettingsError {
            entry: name.clone(),
            rule,
            from_flag: true,
        };
        if !organizations.contains(organization) {
            return Err(fail(SettingsRule::Unknown {
                what: "organization",
                reference: organization.clone(),
            }));
        }
        let events = EventFilter::parse(&flags.webhook_events)
            .map_err(|e| fail(SettingsRule::Invalid(e)))?;
        let secret = flags
            .webhook_secret
            .clone()
            .unwrap_or_else(|| WebhookSecret::new(""));
        let subscription =
            Subscription::new(organization.clone(), url, events, secret, allow_remote)
                .map_err(|e| fail(SettingsRule::Invalid(e.to_string())))?;
        add(subscription, name.clone(), true)?;
    }
    Ok(WebhookSettings {
        subscriptions,
        policy,
        allow_remote,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn policy(share: f64) -> DeliveryPolicy {
        DeliveryPolicy {
            timeout: DeliveryPolicy::DEFAULT_TIMEOUT,
            first_retry: Duration::from_secs(1),
            max_retry: Duration::from_secs(60),
            max_attempts: 8,
            duplicate_share: share,
            seed: 7,
            hold: Duration::from_secs(3),
        }
    }

    #[test]
    fn retries_back_off_exponentially_up_to_the_bound() {
        let waits: Vec<u64> = (1..=9)
            .map(|n| policy(0.0).retry_after(n).as_secs())
            .collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
    }

    #[test]
    fn the_same_seed_chooses_the_same_events_for_duplicates() {
        let chosen = |p: &DeliveryPolicy| -> Vec<i64> {
            (1..=200).filter(|seq| p.delivers_twice(*seq)).collect()
        };
        let first = chosen(&policy(0.25));
        assert_eq!(first, chosen(&policy(0.25)));
        assert!((25..=75).contains(&first.len()), "{}", first.len());
        assert!(chosen(&policy(0.0)).is_empty());
        assert_eq!(chosen(&policy(1.0)).len(), 200);
    }
}
