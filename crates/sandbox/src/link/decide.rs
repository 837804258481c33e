//! The decision for one request ([`Decision`]): how long it is delayed and which
//! fault, if any, it gets. It depends only on the seed, the operation and that
//! operation's request number: ChaCha8 seeded with the seed, one stream per
//! operation, one block per request — so a failing run replays with its seed,
//! and requests of other operations never shift an operation's sequence.

use std::time::Duration;

use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::operation::Operation;
use super::settings::{FaultRates, Latency};

/// A fault the rates can pick for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    Upstream,
    #[serde(rename = "http_502")]
    Http502,
    #[serde(rename = "http_503")]
    Http503,
    #[serde(rename = "http_429")]
    Http429,
    ResetBefore,
    ResetAfter,
}

impl Fault {
    /// In the order of [`FaultRates::each`].
    const ALL: [Self; 6] = [
        Self::Upstream,
        Self::Http502,
        Self::Http503,
        Self::Http429,
        Self::ResetBefore,
        Self::ResetAfter,
    ];
}

/// What the layer does to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// Spent before the request reaches the network.
    pub before: Duration,
    /// Spent after the answer leaves it.
    pub after: Duration,
    /// Whether a latency is configured for the operation (even when this
    /// request's draw came out at zero).
    pub delayed: bool,
    pub fault: Option<Fault>,
}

/// 32-bit words of the ChaCha stream each request may draw from.
const WORDS_PER_REQUEST: u128 = 16;

/// The decision for request number `n` (from 0) of `op`.
pub fn decide(seed: u64, op: Operation, n: u64, latency: Latency, rates: &FaultRates) -> Decision {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(op.index() as u64);
    rng.set_word_pos(u128::from(n) * WORDS_PER_REQUEST);
    let roll: f64 = rng.r#gen();
    let jitter: f64 = rng.r#gen();

    let mut fault = None;
    let mut threshold = 0.0;
    for (kind, (_, rate)) in Fault::ALL.into_iter().zip(rates.each()) {
        threshold += rate;
        if rate > 0.0 && roll < threshold {
            fault = Some(kind);
            break;
        }
    }

    let base = f64::from(latency.ms);
    let spread = f64::from(latency.jitter_ms) * (jitter * 2.0 - 1.0);
    let total_ms = (base + spread).max(0.0);
    let total = Duration::from_secs_f64(total_ms / 1000.0);
    let before = total / 2;
    Decision {
        before,
        after: total.saturating_sub(before),
        delayed: !latency.is_off(),
        fault,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sequence(seed: u64, op: Operation, rates: &FaultRates) -> Vec<Option<Fault>> {
        (0..200)
            .map(|n| decide(seed, op, n, Latency::OFF, rates).fault)
            .collect()
    }

    #[test]
    fn the_same_seed_replays_the_same_decisions() {
        let rates = FaultRates::spread(0.6);
        assert_eq!(
            sequence(7, Operation::Ping, &rates),
            sequence(7, Operation::Ping, &rates)
        );
        assert_ne!(
            sequence(7, Operation::Ping, &rates),
            sequence(8, Operation::Ping, &rates)
        );
        assert_ne!(
            sequence(7, Operation::Ping, &rates),
            sequence(7, Operation::Get, &rates),
            "each operation has its own sequence"
        );
    }

    #[test]
    fn rates_are_honoured_roughly_and_zero_means_never() {
        let rates = FaultRates {
            http_503: 0.25,
            ..FaultRates::default()
        };
        let hits = (0..4000)
            .filter(|n| {
                decide(1, Operation::Get, *n, Latency::OFF, &rates)
                    .fault
                    .is_some()
            })
            .count();
        assert!((800..1200).contains(&hits), "{hits} of 4000 at 25 %");
        assert!((0..4000).all(|n| {
            decide(1, Operation::Get, n, Latency::OFF, &FaultRates::default())
                .fault
                .is_none()
        }));
        let all = FaultRates {
            reset_after: 1.0,
            ..FaultRates::default()
        };
        assert!(
            (0..100).all(|n| decide(1, Operation::Get, n, Latency::OFF, &all).fault
                == Some(Fault::ResetAfter))
        );
    }

    #[test]
    fn latency_stays_within_its_jitter_and_is_split_around_the_call() {
        for n in 0..500 {
            let d = decide(
                3,
                Operation::Ping,
                n,
                Latency::CLINIC,
                &FaultRates::default(),
            );
            let total = d.before + d.after;
            assert!(
                total >= Duration::from_millis(40) && total <= Duration::from_millis(80),
                "{total:?}"
            );
            assert!(d.delayed);
            assert!(d.after >= d.before);
        }
    }
}
