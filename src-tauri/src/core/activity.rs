//! When the user last gave input, as the idle lock needs it. The UI reports
//! input (throttled) through `note_activity`; the core checks the time since on
//! every command that uses the session, and a stored session carries the time
//! of its last use, so that a restart cannot skip the lock.
//!
//! Two clocks are read and the longer idle time wins: the wall clock keeps
//! counting while the computer sleeps (a monotonic clock may not), and the
//! monotonic clock keeps counting when the wall clock is set back.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How often, at most, input is written to the stored session.
pub(crate) const SAVE_EVERY: Duration = Duration::from_secs(60);

/// A stored "last used" time this far in the future is not believed: the
/// session is treated as idle.
const FUTURE_TOLERANCE: Duration = Duration::from_secs(5 * 60);

/// The last input the app saw.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Activity {
    wall: SystemTime,
    mono: Instant,
    /// When it was last written with the stored session.
    saved: SystemTime,
}

impl Activity {
    /// Input now.
    pub(crate) fn now() -> Self {
        let wall = SystemTime::now();
        Self {
            wall,
            mono: Instant::now(),
            saved: wall,
        }
    }

    /// The user gave input.
    pub(crate) fn note(&mut self) {
        self.wall = SystemTime::now();
        self.mono = Instant::now();
    }

    /// How long without input, by whichever clock says longer.
    pub(crate) fn idle_for(&self) -> Duration {
        let wall = SystemTime::now()
            .duration_since(self.wall)
            .unwrap_or_default();
        wall.max(self.mono.elapsed())
    }

    /// Idle for `limit` or longer (a zero limit never is).
    pub(crate) fn is_idle(&self, limit: Duration) -> bool {
        !limit.is_zero() && self.idle_for() >= limit
    }

    /// The last input, in Unix seconds, to store with the session.
    pub(crate) fn unix(&self) -> u64 {
        unix(self.wall)
    }

    /// Whether input since the last write is worth writing now.
    pub(crate) fn needs_saving(&self) -> bool {
        self.wall.duration_since(self.saved).unwrap_or_default() >= SAVE_EVERY
    }

    /// It was just written.
    pub(crate) fn mark_saved(&mut self) {
        self.saved = self.wall;
    }
}

fn unix(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs()
}

/// Whether a session last used at `last` (Unix seconds) has been idle for
/// `limit` at `now`. A time in the future beyond clock skew is not believed.
pub(crate) fn idle_since(last: u64, now: u64, limit: Duration) -> bool {
    if limit.is_zero() {
        return false;
    }
    if last > now.saturating_add(FUTURE_TOLERANCE.as_secs()) {
        return true;
    }
    now.saturating_sub(last) >= limit.as_secs()
}

/// Now, in Unix seconds.
pub(crate) fn unix_now() -> u64 {
    unix(SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIFTEEN: Duration = Duration::from_secs(15 * 60);

    #[test]
    fn a_session_last_used_longer_ago_than_the_limit_is_idle() {
        assert!(idle_since(1_000, 1_000 + 15 * 60, FIFTEEN));
        assert!(!idle_since(1_000, 1_000 + 15 * 60 - 1, FIFTEEN));
    }

    #[test]
    fn no_limit_never_locks_and_a_last_use_in_the_future_is_not_believed() {
        assert!(!idle_since(0, u64::MAX / 2, Duration::ZERO));
        assert!(idle_since(10_000, 1_000, FIFTEEN));
        assert!(!idle_since(1_060, 1_000, FIFTEEN), "within clock skew");
    }

    #[test]
    fn fresh_input_is_not_idle_and_is_saved_at_most_once_a_minute() {
        let mut activity = Activity::now();
        activity.note();

        assert!(!activity.is_idle(FIFTEEN));
        assert!(!activity.is_idle(Duration::ZERO));
        assert!(!activity.needs_saving());
    }
}
