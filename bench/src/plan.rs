//! How much a run measures: the full run of the issue (5 runs of everything
//! but cold start, 9; N = 1, 10, 100 drafts) or `--quick` (one run each, N = 1,
//! 10 and 20, ~500 API calls: it proves every row is produced, its numbers mean
//! little). The day's counts are [`Day`]'s (`--only day`).

use std::time::Duration;

pub use crate::day::Day;

#[derive(Debug, Clone)]
pub struct Plan {
    pub quick: bool,
    /// Runs of every figure (the median is taken over them) but cold start.
    pub runs: usize,
    /// Cold starts of each app: start-up is the noisiest figure on a shared
    /// machine, so its median is taken over more runs.
    pub cold_starts: usize,
    /// How long each load run of the API figure lasts.
    pub api_duration: Duration,
    /// API calls of the machine-token figure.
    pub token_calls: usize,
    /// Batch sizes of the signing figure, smallest (one) first.
    pub signing: Vec<usize>,
    /// How long the app idles before its memory is read.
    pub idle: Duration,
    /// The compressed day's work ([`crate::day`]).
    pub day: Day,
}

impl Plan {
    pub fn full() -> Self {
        Self {
            quick: false,
            runs: 5,
            cold_starts: 9,
            api_duration: Duration::from_secs(4),
            token_calls: 10_000,
            signing: vec![1, 10, 100],
            idle: Duration::from_secs(10),
            day: Day::full(),
        }
    }

    pub fn quick() -> Self {
        Self {
            quick: true,
            runs: 1,
            cold_starts: 1,
            api_duration: Duration::from_millis(500),
            token_calls: 512,
            signing: vec![1, 10, 20],
            idle: Duration::from_secs(3),
            day: Day::quick(),
        }
    }
}
