//! What the link layer is told to do ([`LinkSettings`]): latency with jitter, the
//! rates of each transient fault, per-operation overrides, the seed, the 429's
//! `Retry-After` and a token-endpoint outage. The same shape is read from the
//! fixture's `[link]` section (TOML), from `PUT /link` on the control endpoint
//! (JSON) and built from the command-line flags ([`parse_latency`],
//! [`apply_faults_spec`]). Validation lives here; deciding and injecting do not.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::operation::Operation;

/// The longest latency (or jitter) accepted, in milliseconds.
pub const MAX_LATENCY_MS: u32 = 60_000;
/// The longest token-endpoint outage accepted, in seconds (a day).
pub const MAX_OUTAGE_SECS: u32 = 86_400;
/// The longest `Retry-After` a 429 may carry, in seconds.
pub const MAX_RETRY_AFTER_SECS: u32 = 3_600;

/// A settings value that cannot be used: which field, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{field}`: {reason}")]
pub struct LinkError {
    pub field: String,
    pub reason: String,
}

impl LinkError {
    fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

/// A round trip's added delay: `ms` ± `jitter_ms`, drawn uniformly per request
/// (never below zero). Half is spent before the request reaches the network,
/// half after its answer leaves it.
///
/// Written as an object `{ ms, jitter_ms }` or as text: `clinic` (60 ± 20),
/// `hotspot` (150 ± 60), `off`, `60`, `60±20` (or `60+-20`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "LatencyInput")]
pub struct Latency {
    pub ms: u32,
    pub jitter_ms: u32,
}

impl Latency {
    /// No added delay.
    pub const OFF: Self = Self {
        ms: 0,
        jitter_ms: 0,
    };
    /// A clinic's office link: 60 ms ± 20 ms round trip.
    pub const CLINIC: Self = Self {
        ms: 60,
        jitter_ms: 20,
    };
    /// A phone's hotspot: 150 ms ± 60 ms round trip.
    pub const HOTSPOT: Self = Self {
        ms: 150,
        jitter_ms: 60,
    };

    pub fn is_off(self) -> bool {
        self.ms == 0 && self.jitter_ms == 0
    }

    fn validate(self, field: &str) -> Result<(), LinkError> {
        if self.ms > MAX_LATENCY_MS || self.jitter_ms > MAX_LATENCY_MS {
            return Err(LinkError::new(
                field,
                format!("at most {MAX_LATENCY_MS} ms (and as much jitter)"),
            ));
        }
        Ok(())
    }
}

impl fmt::Display for Latency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::OFF => f.write_str("off"),
            Self { ms, jitter_ms: 0 } => write!(f, "{ms} ms"),
            Self { ms, jitter_ms } => write!(f, "{ms} ms ± {jitter_ms} ms"),
        }
    }
}

impl FromStr for Latency {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        match text.to_ascii_lowercase().as_str() {
            "clinic" => return Ok(Self::CLINIC),
            "hotspot" => return Ok(Self::HOTSPOT),
            "off" | "none" => return Ok(Self::OFF),
            _ => {}
        }
        let number = |part: &str| -> Result<u32, String> {
            let part = part.trim();
            let part = part.strip_suffix("ms").unwrap_or(part).trim();
            part.parse::<u32>().map_err(|_| {
                format!(
                    "`{text}` is not a latency: write clinic, hotspot, off, or milliseconds such as 60 or 60±20"
                )
            })
        };
        let (ms, jitter) = match text.split_once('±').or_else(|| text.split_once("+-")) {
            Some((ms, jitter)) => (number(ms)?, number(jitter)?),
            None => (number(text)?, 0),
        };
        let latency = Self {
            ms,
            jitter_ms: jitter,
        };
        latency.validate("latency").map_err(|e| e.reason)?;
        Ok(latency)
    }
}

/// A latency as the fixture or a `PUT` may write it.
#[derive(Deserialize)]
#[serde(untagged)]
enum LatencyInput {
    Text(String),
    Object(LatencyObject),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LatencyObject {
    ms: u32,
    #[serde(default)]
    jitter_ms: u32,
}

impl TryFrom<LatencyInput> for Latency {
    type Error = String;

    fn try_from(input: LatencyInput) -> Result<Self, Self::Error> {
        match input {
            LatencyInput::Text(text) => text.parse(),
            LatencyInput::Object(LatencyObject { ms, jitter_ms }) => Ok(Self { ms, jitter_ms }),
        }
    }
}

/// The transient faults the layer can inject, each a fraction of requests
/// (`0.05` = 5 %). They are exclusive: one request gets at most one, and the
/// rates add up to at most 1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FaultRates {
    /// `UpstreamServiceError` (`retryable: true`) in the mutation's result
    /// union; nothing is saved. Only the three mutations can answer it: on
    /// `ping`, the token endpoint and unclassified requests it injects nothing.
    pub upstream: f64,
    /// HTTP 502, as a gateway in front of the network answers it.
    pub http_502: f64,
    /// HTTP 503, as a gateway in front of the network answers it.
    pub http_503: f64,
    /// HTTP 429 with `Retry-After`.
    pub http_429: f64,
    /// The connection closes before the request reaches the network: nothing
    /// is applied.
    pub reset_before: f64,
    /// The request is applied (its transaction committed), then the
    /// connection closes before a byte of the answer is sent.
    pub reset_after: f64,
}

impl FaultRates {
    /// Every kind at `total / 6`: a plain "N % of requests fail" mix.
    pub fn spread(total: f64) -> Self {
        let each = total / 6.0;
        Self {
            upstream: each,
            http_502: each,
            http_503: each,
            http_429: each,
            reset_before: each,
            reset_after: each,
        }
    }

    /// `(name, rate)` of each kind, in the order a request's roll walks them.
    pub fn each(&self) -> [(&'static str, f64); 6] {
        [
            ("upstream", self.upstream),
            ("http_502", self.http_502),
            ("http_503", self.http_503),
            ("http_429", self.http_429),
            ("reset_before", self.reset_before),
            ("reset_after", self.reset_after),
        ]
    }

    fn set(&mut self, kind: &str, rate: f64) -> Result<(), String> {
        let slot = match kind {
            "upstream" => &mut self.upstream,
            "http_502" => &mut self.http_502,
            "http_503" => &mut self.http_503,
            "http_429" => &mut self.http_429,
            "reset_before" => &mut self.reset_before,
            "reset_after" => &mut self.reset_after,
            other => {
                return Err(format!(
                    "unknown fault `{other}` (upstream, http_502, http_503, http_429, reset_before, reset_after)"
                ));
            }
        };
        *slot = rate;
        Ok(())
    }

    pub fn is_off(&self) -> bool {
        self.each().iter().all(|(_, rate)| *rate == 0.0)
    }

    fn validate(&self, field: &str) -> Result<(), LinkError> {
        let mut sum = 0.0;
        for (kind, rate) in self.each() {
            if !(rate.is_finite() && (0.0..=1.0).contains(&rate)) {
                return Err(LinkError::new(
                    format!("{field}.{kind}"),
                    "a rate is a fraction from 0 to 1 (0.05 = 5 %)",
                ));
            }
            sum += rate;
        }
        if sum > 1.0 + 1e-9 {
            return Err(LinkError::new(
                field,
                format!("the rates add up to {sum}: at most 1 (one fault per request)"),
            ));
        }
        Ok(())
    }
}

/// An operation's own settings: each one given replaces the overall one for
/// that operation (its `faults` replace the overall rates whole).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OperationSettings {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<Latency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub faults: Option<FaultRates>,
}

/// Everything the link layer does. The default is off: no latency, no fault,
/// no outage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinkSettings {
    /// Every operation's latency, unless its own is given.
    pub latency: Latency,
    /// Every operation's fault rates, unless its own are given.
    pub faults: FaultRates,
    /// Per-operation overrides, by operation name (`prescription_sign`, …).
    pub operations: BTreeMap<Operation, OperationSettings>,
    /// The decision for a request depends only on this seed, the operation and
    /// that operation's request count: the same seed replays the same faults.
    pub seed: u64,
    /// The `Retry-After` of an injected 429, in seconds.
    pub retry_after_secs: u32,
    /// The token endpoint answers 503 for this many seconds from when these
    /// settings are applied (start-up, or the `PUT`).
    pub token_outage_secs: u32,
}

impl Default for LinkSettings {
    fn default() -> Self {
        Self {
            latency: Latency::OFF,
            faults: FaultRates::default(),
            operations: BTreeMap::new(),
            seed: 0,
            retry_after_secs: 1,
            token_outage_secs: 0,
        }
    }
}

impl LinkSettings {
    /// Checks every value; the first bad one is named.
    pub fn validate(&self) -> Result<(), LinkError> {
        self.latency.validate("latency")?;
        self.faults.validate("faults")?;
        for (op, settings) in &self.operations {
            if let Some(latency) = settings.latency {
                latency.validate(&format!("operations.{op}.latency"))?;
            }
            if let Some(faults) = &settings.faults {
                faults.validate(&format!("operations.{op}.faults"))?;
            }
        }
        if !(1..=MAX_RETRY_AFTER_SECS).contains(&self.retry_after_secs) {
            return Err(LinkError::new(
                "retry_after_secs",
                format!("from 1 to {MAX_RETRY_AFTER_SECS} seconds"),
            ));
        }
        if self.token_outage_secs > MAX_OUTAGE_SECS {
            return Err(LinkError::new(
                "token_outage_secs",
                format!("at most {MAX_OUTAGE_SECS} seconds"),
            ));
        }
        Ok(())
    }

    /// True when the settings inject nothing (the outage aside).
    pub fn is_quiet(&self) -> bool {
        self.latency.is_off()
            && self.faults.is_off()
            && self.operations.values().all(|o| {
                o.latency.is_none_or(Latency::is_off)
                    && o.faults.as_ref().is_none_or(FaultRates::is_off)
            })
    }

    /// The latency `op` gets.
    pub fn latency_of(&self, op: Operation) -> Latency {
        self.operations
            .get(&op)
            .and_then(|o| o.latency)
            .unwrap_or(self.latency)
    }

    /// The fault rates `op` gets.
    pub fn faults_of(&self, op: Operation) -> FaultRates {
        self.operations
            .get(&op)
            .and_then(|o| o.faults)
            .unwrap_or(self.faults)
    }
}

/// Parses a fraction: `5%` or `0.05`.
fn parse_rate(text: &str) -> Result<f64, String> {
    let text = text.trim();
    let rate = match text.strip_suffix('%') {
        Some(percent) => percent.trim().parse::<f64>().map(|p| p / 100.0),
        None => text.parse::<f64>(),
    }
    .map_err(|_| format!("`{text}` is not a rate: write 5% or 0.05"))?;
    if rate.is_finite() && (0.0..=1.0).contains(&rate) {
        Ok(rate)
    } else {
        Err(format!("`{text}`: a rate is from 0 to 100 %"))
    }
}

/// Applies a `--faults` specification to `settings`: comma-separated items,
/// each `RATE` (spread evenly over the six kinds), `KIND=RATE`, `OP:RATE` or
/// `OP:KIND=RATE`; a rate is `5%` or `0.05`. An operation named here gets its
/// own rates (starting from none). Example: `2%,prescription_sign:reset_after=50%`.
pub fn apply_faults_spec(settings: &mut LinkSettings, spec: &str) -> Result<(), String> {
    for item in spec.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (op, rest) = match item.split_once(':') {
            Some((op, rest)) => {
                let op: Operation = op.trim().parse()?;
                (Some(op), rest)
            }
            None => (None, item),
        };
        let rates = match op {
            Some(op) => settings
                .operations
                .entry(op)
                .or_default()
                .faults
                .get_or_insert_with(FaultRates::default),
            None => &mut settings.faults,
        };
        match rest.split_once('=') {
            Some((kind, rate)) => rates.set(kind.trim(), parse_rate(rate)?)?,
            None => *rates = FaultRates::spread(parse_rate(rest)?),
        }
    }
    settings.validate().map_err(|e| e.to_string())
}

/// Parses a `--link` value (see [`Latency`]'s text forms).
pub fn parse_latency(text: &str) -> Result<Latency, String> {
    text.parse()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn latencies_are_read_from_presets_and_milliseconds() {
        assert_eq!(parse_latency("clinic").unwrap(), Latency::CLINIC);
        assert_eq!(parse_latency("Hotspot").unwrap(), Latency::HOTSPOT);
        assert_eq!(parse_latency("off").unwrap(), Latency::OFF);
        assert_eq!(
            parse_latency("80").unwrap(),
            Latency {
                ms: 80,
                jitter_ms: 0
            }
        );
        for text in ["80±10", "80+-10", "80ms ± 10ms"] {
            assert_eq!(
                parse_latency(text).unwrap(),
                Latency {
                    ms: 80,
                    jitter_ms: 10
                },
                "{text}"
            );
        }
        for bad in ["fast", "-5", "80±", "70000"] {
            assert!(parse_latency(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_total_rate_is_spread_over_the_six_faults() {
        let mut settings = LinkSettings::default();
        apply_faults_spec(&mut settings, "6%").unwrap();
        for (kind, rate) in settings.faults.each() {
            assert!((rate - 0.01).abs() < 1e-12, "{kind}: {rate}");
        }
    }

    #[test]
    fn a_faults_spec_sets_kinds_overall_and_per_operation() {
        let mut settings = LinkSettings::default();
        apply_faults_spec(
            &mut settings,
            "http_429=0.1, prescription_sign:reset_after=50%, ping:4%",
        )
        .unwrap();
        assert!((settings.faults.http_429 - 0.1).abs() < 1e-12);
        let sign = settings.faults_of(Operation::PrescriptionSign);
        assert!((sign.reset_after - 0.5).abs() < 1e-12);
        assert_eq!(
            sign.http_429, 0.0,
            "an operation's rates replace the overall ones"
        );
        assert!((settings.faults_of(Operation::Ping).upstream - 0.04 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn bad_faults_specs_are_refused_with_a_reason() {
        for bad in [
            "lots",
            "timeout=5%",
            "sign:reset_after=5%",
            "reset_after=150%",
            "reset_after=60%,reset_before=60%",
        ] {
            let mut settings = LinkSettings::default();
            assert!(apply_faults_spec(&mut settings, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn settings_read_from_toml_and_json_alike() {
        let toml_text = r#"
latency = "clinic"
seed = 7
[faults]
http_503 = 0.05
[operations.prescription_sign]
latency = { ms = 10, jitter_ms = 2 }
faults = { reset_after = 0.5 }
"#;
        let from_toml: LinkSettings = toml::from_str(toml_text).unwrap();
        let json = serde_json::to_string(&from_toml).unwrap();
        let from_json: LinkSettings = serde_json::from_str(&json).unwrap();
        assert_eq!(from_toml, from_json);
        assert_eq!(from_toml.latency, Latency::CLINIC);
        assert_eq!(
            from_toml.latency_of(Operation::PrescriptionSign),
            Latency {
                ms: 10,
                jitter_ms: 2
            }
        );
        assert_eq!(from_toml.retry_after_secs, 1, "defaults fill the rest");
        from_toml.validate().unwrap();
    }

    #[test]
    fn unknown_fields_and_operations_are_refused() {
        assert!(toml::from_str::<LinkSettings>("latnecy = \"clinic\"").is_err());
        assert!(toml::from_str::<LinkSettings>("[operations.sign]\nlatency = \"off\"").is_err());
    }
}
