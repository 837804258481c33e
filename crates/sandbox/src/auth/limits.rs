//! The login attempt limit, which holds under concurrency:
//!
//! - an attempt is **reserved before** the password is checked, in the same
//!   step as the lock check, so concurrent wrong passwords cannot slip past
//!   the count while argon2 runs ([`LoginLimiter::begin`]);
//! - failures count per account **and source address**: [`MAX_FAILURES`]
//!   within [`FAILURE_WINDOW`] lock that pair for [`LOCK_DURATION`], so knowing
//!   someone's email is not enough to lock them out from their own computer;
//! - every source together may fail [`ACCOUNT_MAX_FAILURES`] times per window
//!   before the account locks for all: a cap on the total guessing;
//! - a success clears its pair's failures, but never a lock set meanwhile;
//! - at most [`VERIFY_AT_ONCE`] password checks (argon2) run at once, and an
//!   attempt waits at most [`VERIFY_WAIT`] for its turn: the work an
//!   unauthenticated caller can cause is bounded.
//!
//! Kept in memory per sandbox process; keyed by the lowercased email, known or
//! not, so a lock reveals nothing about which accounts exist. The sign-in page
//! that reports it lives in `authorize.rs`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

/// Wrong passwords from one source allowed before the account locks for it.
pub const MAX_FAILURES: u32 = 5;
/// Wrong passwords from all sources together before the account locks for all.
pub const ACCOUNT_MAX_FAILURES: u32 = 50;
/// How long failures are counted from the first one.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);
/// How long a lock lasts.
pub const LOCK_DURATION: Duration = Duration::from_secs(5 * 60);
/// Password checks (argon2) running at once.
pub const VERIFY_AT_ONCE: usize = 2;
/// How long an attempt waits for its turn to be checked.
pub const VERIFY_WAIT: Duration = Duration::from_secs(10);
/// Counters tracked before stale ones are pruned.
const PRUNE_ABOVE: usize = 10_000;

#[derive(Debug, Clone, Copy)]
struct Counter {
    failures: u32,
    in_flight: u32,
    window_start: Instant,
    locked_until: Option<Instant>,
}

impl Counter {
    fn new(now: Instant) -> Self {
        Self {
            failures: 0,
            in_flight: 0,
            window_start: now,
            locked_until: None,
        }
    }

    /// Starts a new window when the old one (or its lock) is over.
    fn refresh(&mut self, now: Instant) {
        let lock_over = self.locked_until.is_some_and(|u| u <= now);
        if lock_over
            || (self.locked_until.is_none()
                && now.duration_since(self.window_start) >= FAILURE_WINDOW)
        {
            *self = Self {
                in_flight: self.in_flight,
                ..Self::new(now)
            };
        }
    }

    fn locked_for(&self, now: Instant) -> Option<Duration> {
        self.locked_until?
            .checked_duration_since(now)
            .filter(|d| !d.is_zero())
    }

    fn stale(&self, now: Instant) -> bool {
        self.in_flight == 0
            && self.locked_until.is_none_or(|u| u <= now)
            && now.duration_since(self.window_start) >= FAILURE_WINDOW
    }
}

#[derive(Debug, Default)]
struct Counters {
    pairs: HashMap<(String, IpAddr), Counter>,
    accounts: HashMap<String, Counter>,
}

/// Failed sign-in attempts per account and source.
#[derive(Debug)]
pub struct LoginLimiter {
    counters: Mutex<Counters>,
    verifying: Semaphore,
}

impl Default for LoginLimiter {
    fn default() -> Self {
        Self {
            counters: Mutex::default(),
            verifying: Semaphore::new(VERIFY_AT_ONCE),
        }
    }
}

/// Why an attempt may not go ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Locked (for this source, or for all): for this much longer.
    Locked(Duration),
    /// Too many checks waiting: try again shortly.
    Busy,
}

/// A reserved attempt: finish it with [`Attempt::succeeded`] or
/// [`Attempt::failed`]; dropped unfinished (the caller went away mid-check), it
/// counts as a failure.
#[derive(Debug)]
pub struct Attempt {
    limiter: Arc<LoginLimiter>,
    account: String,
    source: IpAddr,
    done: bool,
}

impl LoginLimiter {
    /// Reserves an attempt for `account` from `source`: the lock check and the
    /// count are one step.
    pub fn begin(self: &Arc<Self>, account: &str, source: IpAddr) -> Result<Attempt, Refusal> {
        self.begin_at(account, source, Instant::now())
    }

    fn begin_at(
        self: &Arc<Self>,
        account: &str,
        source: IpAddr,
        now: Instant,
    ) -> Result<Attempt, Refusal> {
        let account = key(account);
        let mut counters = self.lock();
        if counters.pairs.len() + counters.accounts.len() > PRUNE_ABOVE {
            counters.pairs.retain(|_, c| !c.stale(now));
            counters.accounts.retain(|_, c| !c.stale(now));
        }
        let Counters { pairs, accounts } = &mut *counters;
        let total = accounts
            .entry(account.clone())
            .or_insert_with(|| Counter::new(now));
        total.refresh(now);
        let pair = pairs
            .entry((account.clone(), source))
            .or_insert_with(|| Counter::new(now));
        pair.refresh(now);
        if let Some(left) = total.locked_for(now).or_else(|| pair.locked_for(now)) {
            return Err(Refusal::Locked(left));
        }
        // Checks still running count as failures until they say otherwise.
        if pair.failures + pair.in_flight >= MAX_FAILURES
            || total.failures + total.in_flight >= ACCOUNT_MAX_FAILURES
        {
            return Err(Refusal::Busy);
        }
        pair.in_flight += 1;
        total.in_flight += 1;
        Ok(Attempt {
            limiter: Arc::clone(self),
            account,
            source,
            done: false,
        })
    }

    /// Waits for a turn to run a password check (bounded work): `None` when
    /// none came in time.
    pub async fn turn(&self) -> Option<tokio::sync::SemaphorePermit<'_>> {
        tokio::time::timeout(VERIFY_WAIT, self.verifying.acquire())
            .await
            .ok()
            .and_then(Result::ok)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Counters> {
        // Plain counters: a panic elsewhere cannot leave them inconsistent.
        self.counters.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn finish(
        &self,
        account: &str,
        source: IpAddr,
        success: bool,
        now: Instant,
    ) -> Option<Duration> {
        let mut counters = self.lock();
        let Counters { pairs, accounts } = &mut *counters;
        let mut locked = None;
        if let Some(pair) = pairs.get_mut(&(account.to_owned(), source)) {
            pair.in_flight = pair.in_flight.saturating_sub(1);
            if success {
                // Clears the count, never a lock set while this check ran.
                if pair.locked_for(now).is_none() {
                    pair.failures = 0;
                }
            } else {
                pair.failures += 1;
                if pair.failures >= MAX_FAILURES && pair.locked_for(now).is_none() {
                    pair.locked_until = Some(now + LOCK_DURATION);
                    locked = Some(LOCK_DURATION);
                }
            }
        }
        if let Some(total) = accounts.get_mut(account) {
            total.in_flight = total.in_flight.saturating_sub(1);
            if !success {
                total.failures += 1;
                if total.failures >= ACCOUNT_MAX_FAILURES && total.locked_for(now).is_none() {
                    total.locked_until = Some(now + LOCK_DURATION);
                    locked = Some(LOCK_DURATION);
                }
            }
        }
        locked
    }
}

impl Attempt {
    /// The password was right.
    pub fn succeeded(mut self) {
        self.done = true;
        self.limiter
            .finish(&self.account, self.source, true, Instant::now());
    }

    /// The password was wrong: the lock's duration when this failure set one.
    pub fn failed(mut self) -> Option<Duration> {
        self.done = true;
        self.limiter
            .finish(&self.account, self.source, false, Instant::now())
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        if !self.done {
            self.limiter
                .finish(&self.account, self.source, false, Instant::now());
        }
    }
}

fn key(account: &str) -> String {
    account.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const HOME: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 7));
    const ELSEWHERE: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 9));

    fn limiter() -> Arc<LoginLimiter> {
        Arc::new(LoginLimiter::default())
    }

    #[test]
    fn the_fifth_failure_locks_the_account_for_that_source() {
        let l = limiter();
        for _ in 1..MAX_FAILURES {
            assert_eq!(l.begin("Ada@Maple.example", HOME).unwrap().failed(), None);
        }
        assert_eq!(
            l.begin("ada@maple.example", HOME).unwrap().failed(),
            Some(LOCK_DURATION)
        );
        assert!(matches!(
            l.begin("ADA@maple.example", HOME),
            Err(Refusal::Locked(_))
        ));
        assert!(l.begin("ben@birch.example", HOME).is_ok());
    }

    #[test]
    fn concurrent_wrong_passwords_cannot_bypass_the_lock() {
        let l = limiter();
        // Twenty checks begun before any finished: only five may run.
        let begun: Vec<_> = (0..20).map(|_| l.begin("a@b.c", HOME)).collect();
        let running: Vec<_> = begun.into_iter().filter_map(Result::ok).collect();
        assert_eq!(running.len(), MAX_FAILURES as usize);
        for attempt in running {
            attempt.failed();
        }
        assert!(matches!(l.begin("a@b.c", HOME), Err(Refusal::Locked(_))));
    }

    #[test]
    fn a_success_finishing_after_a_lock_leaves_the_lock() {
        let l = limiter();
        let t0 = Instant::now();
        let success = l.begin_at("a@b.c", HOME, t0).unwrap();
        for _ in 1..MAX_FAILURES {
            let a = l.begin_at("a@b.c", HOME, t0).unwrap();
            l.finish(&a.account, a.source, false, t0);
            std::mem::forget(a);
        }
        // Lock the pair directly, as a failure elsewhere would have.
        l.lock()
            .pairs
            .get_mut(&("a@b.c".to_owned(), HOME))
            .unwrap()
            .locked_until = Some(t0 + LOCK_DURATION);

        success.succeeded();

        assert!(matches!(
            l.begin_at("a@b.c", HOME, t0),
            Err(Refusal::Locked(_))
        ));
    }

    #[test]
    fn another_source_is_not_locked_out_by_failures_from_one() {
        let l = limiter();
        for _ in 0..MAX_FAILURES {
            l.begin("ada@maple.example", ELSEWHERE).unwrap().failed();
        }
        assert!(matches!(
            l.begin("ada@maple.example", ELSEWHERE),
            Err(Refusal::Locked(_))
        ));

        assert!(l.begin("ada@maple.example", HOME).is_ok());
    }

    #[test]
    fn many_failures_from_many_sources_lock_the_account_for_all() {
        let l = limiter();
        for i in 0..ACCOUNT_MAX_FAILURES {
            let source = IpAddr::V4(std::net::Ipv4Addr::new(198, 51, 100, (i % 250) as u8));
            l.begin("ada@maple.example", source).unwrap().failed();
        }

        assert!(matches!(
            l.begin("ada@maple.example", HOME),
            Err(Refusal::Locked(_))
        ));
    }

    #[test]
    fn failures_outside_the_window_start_a_new_count() {
        let l = limiter();
        let t0 = Instant::now();
        for _ in 1..MAX_FAILURES {
            let a = l.begin_at("a@b.c", HOME, t0).unwrap();
            l.finish(&a.account, a.source, false, t0);
            std::mem::forget(a);
        }
        let later = t0 + FAILURE_WINDOW;
        let a = l.begin_at("a@b.c", HOME, later).unwrap();
        assert_eq!(l.finish(&a.account, a.source, false, later), None);
        std::mem::forget(a);
    }
}
