//! The fixture's `[fulfillment]` section (and `--fulfillment-step`): the simulated
//! pharmacy's pace, where a patient left to choose picks, and the rules that make
//! some orders hit the documented exceptions — a closed pharmacy (the order is
//! rerouted) and an order error with its reason. Checked against the catalog.

use std::collections::HashMap;
use std::time::Duration;

use crate::catalog::Catalog;
use crate::config::{SettingsError, SettingsRule};
use crate::fixture::FulfillmentSection;

/// The default time between two steps of a sent order: long enough to watch, short
/// enough for a demo.
pub const DEFAULT_STEP: Duration = Duration::from_secs(5);

/// What an error rule matches.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ErrorMatch {
    Pharmacy(String),
    Medication(String),
}

/// The simulated pharmacy's settings, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    pub step: Duration,
    pub patient_choice: Option<String>,
    closed: HashMap<String, String>,
    errors: Vec<(ErrorMatch, String)>,
}

impl Default for Rules {
    fn default() -> Self {
        Self {
            step: DEFAULT_STEP,
            patient_choice: None,
            closed: HashMap::new(),
            errors: Vec::new(),
        }
    }
}

impl Rules {
    /// Where an order at `pharmacy` goes when `pharmacy` is closed.
    pub fn reroute_for(&self, pharmacy: &str) -> Option<&str> {
        self.closed.get(pharmacy).map(String::as_str)
    }

    /// The reason of the first error rule an order at `pharmacy` holding
    /// `medications` meets.
    pub fn error_for(&self, pharmacy: &str, medications: &[String]) -> Option<&str> {
        self.errors
            .iter()
            .find(|(rule, _)| match rule {
                ErrorMatch::Pharmacy(id) => id == pharmacy,
                ErrorMatch::Medication(id) => medications.contains(id),
            })
            .map(|(_, reason)| reason.as_str())
    }
}

/// Checks `[fulfillment]` against the catalog; `step` (the flag) wins over the
/// section's `step_seconds`.
pub fn resolve(
    section: &FulfillmentSection,
    step: Option<Duration>,
    catalog: &Catalog,
) -> Result<Rules, SettingsError> {
    let fail = |entry: String, rule: SettingsRule| SettingsError {
        entry,
        rule,
        from_flag: false,
    };
    let pharmacy = |entry: &str, id: &str| -> Result<(), SettingsError> {
        match catalog.pharmacy(id) {
            Some(_) => Ok(()),
            None => Err(fail(
                entry.to_owned(),
                SettingsRule::Unknown {
                    what: "pharmacy",
                    reference: id.to_owned(),
                },
            )),
        }
    };
    let step = match (step, section.step_seconds) {
        (Some(flag), _) if flag.is_zero() => {
            return Err(SettingsError {
                entry: "--fulfillment-step".to_owned(),
                rule: SettingsRule::Invalid("the step must be at least 1 second".to_owned()),
                from_flag: true,
            });
        }
        (Some(flag), _) => flag,
        (None, Some(0)) => {
            return Err(fail(
                "[fulfillment]".to_owned(),
                SettingsRule::Invalid("step_seconds must be at least 1".to_owned()),
            ));
        }
        (None, Some(seconds)) => Duration::from_secs(seconds),
        (None, None) => DEFAULT_STEP,
    };
    if let Some(choice) = &section.patient_choice {
        pharmacy("[fulfillment] patient_choice", choice)?;
    }
    let mut closed = HashMap::new();
    for (i, rule) in section.closed.iter().enumerate() {
        let entry = format!("[[fulfillment.closed]] #{} ({})", i + 1, rule.pharmacy);
        pharmacy(&entry, &rule.pharmacy)?;
        pharmacy(&entry, &rule.reroute_to)?;
        if rule.pharmacy == rule.reroute_to {
            return Err(fail(
                entry,
                SettingsRule::Invalid("reroute_to must name another pharmacy".to_owned()),
            ));
        }
        if closed
            .insert(rule.pharmacy.clone(), rule.reroute_to.clone())
            .is_some()
        {
            return Err(fail(
                entry,
                SettingsRule::Invalid(format!("{} is listed as closed twice", rule.pharmacy)),
            ));
        }
    }
    for (i, rule) in section.closed.iter().enumerate() {
        if closed.contains_key(&rule.reroute_to) {
            return Err(fail(
                format!("[[fulfillment.closed]] #{} ({})", i + 1, rule.pharmacy),
                SettingsRule::Invalid(format!(
                    "reroute_to {} is closed too: reroute to an open pharmacy",
                    rule.reroute_to
                )),
            ));
        }
    }
    let mut errors = Vec::new();
    for (i, rule) in section.errors.iter().enumerate() {
        let entry = format!("[[fulfillment.errors]] #{}", i + 1);
        if rule.reason.trim().is_empty() {
            return Err(fail(
                entry,
                SettingsRule::Invalid("`reason` must not be empty".to_owned()),
            ));
        }
        let matched = match (&rule.pharmacy, &rule.medication) {
            (Some(id), None) => {
                pharmacy(&entry, id)?;
                ErrorMatch::Pharmacy(id.clone())
            }
            (None, Some(id)) => {
                if catalog.medication(id).is_none() {
                    return Err(fail(
                        entry,
                        SettingsRule::Unknown {
                            what: "medication",
                            reference: id.clone(),
                        },
                    ));
                }
                ErrorMatch::Medication(id.clone())
            }
            _ => {
                return Err(fail(
                    entry,
                    SettingsRule::Invalid(
                        "name exactly one of `pharmacy` or `medication`".to_owned(),
                    ),
                ));
            }
        };
        errors.push((matched, rule.reason.trim().to_owned()));
    }
    Ok(Rules {
        step,
        patient_choice: section.patient_choice.clone(),
        closed,
        errors,
    })
}
