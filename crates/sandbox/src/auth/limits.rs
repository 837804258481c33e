//! The login attempt limit: after [`MAX_FAILURES`] wrong passwords for one
//! account within [`FAILURE_WINDOW`], that account cannot sign in for
//! [`LOCK_DURATION`] (even with the right password). Kept in memory per sandbox
//! process; keyed by the lowercased email, known or not, so a lock reveals
//! nothing about which accounts exist. The sign-in page that reports it lives
//! in `authorize.rs`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Wrong passwords allowed before the account locks.
pub const MAX_FAILURES: u32 = 5;
/// How long failures are counted from the first one.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);
/// How long a locked account stays locked.
pub const LOCK_DURATION: Duration = Duration::from_secs(5 * 60);
/// Accounts tracked before stale entries are pruned.
const PRUNE_ABOVE: usize = 10_000;

#[derive(Debug, Clone, Copy)]
struct Account {
    failures: u32,
    window_start: Instant,
    locked_until: Option<Instant>,
}

/// Failed sign-in attempts per account.
#[derive(Debug, Default)]
pub struct LoginLimiter {
    accounts: Mutex<HashMap<String, Account>>,
}

impl LoginLimiter {
    /// How much longer `account` stays locked, if it is.
    pub fn locked_for(&self, account: &str) -> Option<Duration> {
        self.locked_for_at(account, Instant::now())
    }

    /// Counts a wrong password; returns the lock's duration when this failure locked it.
    pub fn record_failure(&self, account: &str) -> Option<Duration> {
        self.record_failure_at(account, Instant::now())
    }

    /// Clears the failures of `account` after a successful sign-in.
    pub fn record_success(&self, account: &str) {
        self.lock().remove(&key(account));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Account>> {
        // The map holds plain counters: a panic elsewhere cannot leave it inconsistent.
        self.accounts.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn locked_for_at(&self, account: &str, now: Instant) -> Option<Duration> {
        let until = self.lock().get(&key(account))?.locked_until?;
        until.checked_duration_since(now).filter(|d| !d.is_zero())
    }

    fn record_failure_at(&self, account: &str, now: Instant) -> Option<Duration> {
        let mut accounts = self.lock();
        if accounts.len() > PRUNE_ABOVE {
            accounts.retain(|_, a| {
                a.locked_until.is_some_and(|u| u > now)
                    || now.duration_since(a.window_start) < FAILURE_WINDOW
            });
        }
        let entry = accounts.entry(key(account)).or_insert(Account {
            failures: 0,
            window_start: now,
            locked_until: None,
        });
        let expired_lock = entry.locked_until.is_some_and(|u| u <= now);
        if expired_lock || now.duration_since(entry.window_start) >= FAILURE_WINDOW {
            *entry = Account {
                failures: 0,
                window_start: now,
                locked_until: None,
            };
        }
        entry.failures += 1;
        if entry.failures >= MAX_FAILURES && entry.locked_until.is_none() {
            entry.locked_until = Some(now + LOCK_DURATION);
            return Some(LOCK_DURATION);
        }
        None
    }
}

fn key(account: &str) -> String {
    account.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fifth_failure_locks_the_account_for_the_lock_duration() {
        let limiter = LoginLimiter::default();
        let t0 = Instant::now();
        for _ in 1..MAX_FAILURES {
            assert_eq!(limiter.record_failure_at("Ada@Maple.example", t0), None);
        }
        assert_eq!(limiter.locked_for_at("ada@maple.example", t0), None);
        assert_eq!(
            limiter.record_failure_at("ada@maple.example", t0),
            Some(LOCK_DURATION)
        );
        assert_eq!(
            limiter.locked_for_at("ADA@maple.example", t0),
            Some(LOCK_DURATION)
        );
        assert_eq!(limiter.locked_for_at("ben@birch.example", t0), None);
        assert_eq!(
            limiter.locked_for_at("ada@maple.example", t0 + LOCK_DURATION),
            None
        );
    }

    #[test]
    fn failures_outside_the_window_start_a_new_count() {
        let limiter = LoginLimiter::default();
        let t0 = Instant::now();
        for _ in 1..MAX_FAILURES {
            limiter.record_failure_at("a@b.c", t0);
        }
        assert_eq!(
            limiter.record_failure_at("a@b.c", t0 + FAILURE_WINDOW),
            None
        );
    }

    #[test]
    fn success_clears_the_failures() {
        let limiter = LoginLimiter::default();
        let t0 = Instant::now();
        for _ in 1..MAX_FAILURES {
            limiter.record_failure_at("a@b.c", t0);
        }
        limiter.record_success("a@b.c");
        assert_eq!(limiter.record_failure_at("a@b.c", t0), None);
    }
}
