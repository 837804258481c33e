//! The workstation's clock against the network's: [`WallClock`] (what the client
//! reads as "now", normally the system clock) and [`ClockOffset`] (how far it
//! is from the network's, measured at sign-in).
//!
//! Nothing the client decides depends on the two clocks agreeing: renewal runs
//! on monotonic time, an expiry is compared with the same clock that set it, and
//! a fresh login's `auth_time` is compared with the network's own `iat`
//! (`signin::fresh_login_problem`). What a wrong clock still spoils is what a
//! person reads — times on records, "expires at" — so a session keeps the offset
//! its sign-in measured and [`ClockOffset::is_wrong`] says when it is beyond
//! [`CLOCK_LEEWAY`]. What does not live here: monotonic deadlines (`retry`,
//! `token`), the sandbox's simulated clock.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// How far the workstation's clock may be from the network's before the app
/// says it is wrong. Sign-in and renewal work beyond it too; it bounds what a
/// person may read off a wrong clock.
pub const CLOCK_LEEWAY: Duration = Duration::from_secs(15 * 60);

/// What the client reads as the wall-clock "now": the system clock, or — in
/// tests and the bench only — a clock set wrong by a fixed amount, the one thing
/// about a workstation a test cannot change for real.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WallClock {
    /// Seconds added to the system clock.
    off_by: i64,
}

impl WallClock {
    /// The system clock.
    pub fn system() -> Self {
        Self::default()
    }

    /// A workstation clock `seconds` ahead of true time (behind when negative).
    pub fn off_by(seconds: i64) -> Self {
        Self { off_by: seconds }
    }

    /// Now, in Unix seconds.
    pub fn unix_now(&self) -> u64 {
        let system = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        system.saturating_add_signed(self.off_by)
    }
}

/// How far the network's clock is from the workstation's, in seconds: positive
/// when the network is ahead (the workstation's clock is slow).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ClockOffset(i64);

impl ClockOffset {
    /// The offset between a network time and the workstation's time read at
    /// the same moment (Unix seconds each).
    pub(crate) fn between(network: u64, workstation: u64) -> Self {
        let network = i64::try_from(network).unwrap_or(i64::MAX);
        let workstation = i64::try_from(workstation).unwrap_or(i64::MAX);
        Self(network.saturating_sub(workstation))
    }

    /// Seconds the network's clock is ahead of the workstation's (negative: behind).
    pub fn network_ahead_secs(&self) -> i64 {
        self.0
    }

    /// True when the workstation's clock is further than [`CLOCK_LEEWAY`] from
    /// the network's, either way.
    pub fn is_wrong(&self) -> bool {
        self.0.unsigned_abs() > CLOCK_LEEWAY.as_secs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_set_ahead_reads_later_than_the_system_clock() {
        let system = WallClock::system().unix_now();

        let ahead = WallClock::off_by(600).unix_now();

        assert!((599..=601).contains(&(ahead - system)));
    }

    #[test]
    fn ten_minutes_either_way_is_within_the_leeway() {
        assert!(!ClockOffset::between(1_000_600, 1_000_000).is_wrong());
        assert!(!ClockOffset::between(1_000_000, 1_000_600).is_wrong());
    }

    #[test]
    fn beyond_the_leeway_either_way_the_clock_is_wrong() {
        let leeway = CLOCK_LEEWAY.as_secs();

        assert!(ClockOffset::between(1_000_000 + leeway + 1, 1_000_000).is_wrong());
        assert!(ClockOffset::between(1_000_000, 1_000_000 + leeway + 1).is_wrong());
    }

    #[test]
    fn a_slow_workstation_clock_means_the_network_is_ahead() {
        assert_eq!(
            ClockOffset::between(1_000_600, 1_000_000).network_ahead_secs(),
            600
        );
    }
}
