//! The statistics every figure is reported with: the median of the runs with
//! their min and max, the ratio of Rx Desk to its reference, and the verdict
//! against the target. Pure functions, no I/O.

use serde::{Deserialize, Serialize};

/// Runs of one measurement, summarised.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// How many runs were measured.
    pub runs: usize,
}

impl Summary {
    /// The median (the mean of the middle two for an even count), min and max
    /// of `samples`; `None` when there is none or one is not a number.
    pub fn of(samples: &[f64]) -> Option<Self> {
        if samples.is_empty() || samples.iter().any(|s| !s.is_finite()) {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        Some(Self {
            median,
            min: sorted[0],
            max: sorted[n - 1],
            runs: n,
        })
    }

    /// Whether min ≤ median ≤ max, all finite, and at least one run.
    pub fn is_well_formed(&self) -> bool {
        [self.median, self.min, self.max]
            .iter()
            .all(|v| v.is_finite())
            && self.min <= self.median
            && self.median <= self.max
            && self.runs >= 1
    }
}

/// The `q`-quantile (0..=1) of `samples` by the nearest-rank method.
pub fn percentile(samples: &[f64], q: f64) -> Option<f64> {
    if samples.is_empty() || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    // Nearest rank: the smallest value with at least q of the samples at or below it.
    let rank = (q * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// Rx Desk's median over the reference's median; `None` for a zero reference.
pub fn ratio(app: &Summary, reference: &Summary) -> Option<f64> {
    (reference.median != 0.0).then(|| app.median / reference.median)
}

/// What a figure has to meet.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Target {
    /// Rx Desk / reference ≤ value.
    RatioAtMost(f64),
    /// Rx Desk / reference ≥ value.
    RatioAtLeast(f64),
    /// Rx Desk's median < value (in the figure's unit).
    Below(f64),
    /// Rx Desk's every run = value.
    Exactly(f64),
    /// No target: reported only.
    Report,
}

impl Target {
    /// The target as the table shows it.
    pub fn describe(&self, unit: &str) -> String {
        match self {
            Self::RatioAtMost(r) => format!("≤ {r}×"),
            Self::RatioAtLeast(r) => format!("≥ {:.0} %", r * 100.0),
            Self::Below(v) => format!("< {v} {unit}"),
            Self::Exactly(v) => format!("exactly {v}"),
            Self::Report => "report it".into(),
        }
    }

    /// Met, missed, or reported only.
    pub fn verdict(&self, app: &Summary, ratio: Option<f64>) -> Verdict {
        let met = match *self {
            Self::RatioAtMost(limit) => ratio.map(|r| r <= limit),
            Self::RatioAtLeast(limit) => ratio.map(|r| r >= limit),
            Self::Below(limit) => Some(app.median < limit),
            // Every run, not just the median: one extra token request is a miss.
            Self::Exactly(v) => Some(app.min == v && app.max == v),
            Self::Report => return Verdict::Reported,
        };
        match met {
            Some(true) => Verdict::Met,
            _ => Verdict::Missed,
        }
    }
}

/// A figure against its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Met,
    Missed,
    Reported,
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self {
            Self::Met => "met",
            Self::Missed => "**missed**",
            Self::Reported => "reported",
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn summary(samples: &[f64]) -> Summary {
        Summary::of(samples).unwrap()
    }

    #[test]
    fn the_median_of_an_odd_count_is_the_middle_run() {
        let s = summary(&[5.0, 1.0, 3.0, 9.0, 2.0]);
        assert_eq!((s.median, s.min, s.max, s.runs), (3.0, 1.0, 9.0, 5));
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(summary(&[4.0, 1.0, 2.0, 10.0]).median, 3.0);
    }

    #[test]
    fn no_runs_or_a_nan_run_give_no_summary() {
        assert_eq!(Summary::of(&[]), None);
        assert_eq!(Summary::of(&[1.0, f64::NAN]), None);
    }

    #[test]
    fn a_summary_with_min_above_median_is_malformed() {
        let bad = Summary {
            median: 1.0,
            min: 2.0,
            max: 3.0,
            runs: 3,
        };
        assert!(!bad.is_well_formed());
        assert!(summary(&[1.0, 2.0]).is_well_formed());
    }

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let samples: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&samples, 0.5), Some(50.0));
        assert_eq!(percentile(&samples, 0.99), Some(99.0));
        assert_eq!(percentile(&samples, 1.0), Some(100.0));
        assert_eq!(percentile(&[7.0], 0.99), Some(7.0));
        assert_eq!(percentile(&[], 0.5), None);
    }

    #[test]
    fn the_ratio_is_of_the_medians_and_none_for_a_zero_reference() {
        assert_eq!(ratio(&summary(&[3.0]), &summary(&[2.0])), Some(1.5));
        assert_eq!(ratio(&summary(&[3.0]), &summary(&[0.0])), None);
    }

    #[test]
    fn ratio_targets_are_met_at_the_limit_and_missed_past_it() {
        let app = summary(&[1.0]);
        assert_eq!(
            Target::RatioAtMost(1.5).verdict(&app, Some(1.5)),
            Verdict::Met
        );
        assert_eq!(
            Target::RatioAtMost(1.5).verdict(&app, Some(1.51)),
            Verdict::Missed
        );
        assert_eq!(
            Target::RatioAtLeast(0.5).verdict(&app, Some(0.49)),
            Verdict::Missed
        );
        assert_eq!(
            Target::RatioAtMost(1.5).verdict(&app, None),
            Verdict::Missed
        );
    }

    #[test]
    fn exactly_one_is_missed_when_any_run_differs() {
        assert_eq!(
            Target::Exactly(1.0).verdict(&summary(&[1.0, 1.0, 1.0]), None),
            Verdict::Met
        );
        assert_eq!(
            Target::Exactly(1.0).verdict(&summary(&[1.0, 1.0, 2.0]), None),
            Verdict::Missed
        );
    }

    #[test]
    fn an_absolute_limit_is_strict_and_report_only_has_no_verdict() {
        assert_eq!(
            Target::Below(5.0).verdict(&summary(&[5.0]), None),
            Verdict::Missed
        );
        assert_eq!(
            Target::Below(5.0).verdict(&summary(&[4.9]), None),
            Verdict::Met
        );
        assert_eq!(
            Target::Report.verdict(&summary(&[4.9]), None),
            Verdict::Reported
        );
    }
}
