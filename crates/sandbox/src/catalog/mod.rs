//! The Network API's catalog: medications (with ingredients and classes),
//! allergens, screening rules, ICD-10 diagnoses and pharmacies, plus the
//! organizations' templates. Built in (`builtin.toml`); a fixture that lists one
//! of the tables replaces that table. [`Catalog::build`] merges and validates them
//! (every reference resolves, ids are unique) and keeps them in memory: the catalog
//! is read-only while the sandbox runs. Name and code resolution lives in
//! [`resolve`], pharmacy search in [`pharmacies`]. The rows of each table, as
//! written in TOML, are the fixture's (`crate::fixture::tables`, re-exported here):
//! the catalog depends on the fixture, never the other way.

pub mod pharmacies;
pub mod resolve;

use std::collections::{HashMap, HashSet};

pub use crate::fixture::tables::{
    AllergenEntry, CatalogTables, DiagnosisEntry, MedicationEntry, PatientSeed, PharmacyEntry,
    PriceEntry, PriceKind, RuleKind, ScreeningRuleEntry, TemplateDispense, TemplateEntry,
    diagnosis_id,
};
use crate::fixture::{Fixture, FixtureError, Rule};

/// The built-in catalog (see `builtin.toml`).
pub const BUILTIN_TOML: &str = include_str!("builtin.toml");
/// How the built-in catalog is named in messages.
pub const BUILTIN_FILE: &str = "<built-in catalog>";

/// The catalog in force, indexed. Cheap to share behind an `Arc`.
#[derive(Debug, Default)]
pub struct Catalog {
    pub medications: Vec<MedicationEntry>,
    pub allergens: Vec<AllergenEntry>,
    pub rules: Vec<ScreeningRuleEntry>,
    pub diagnoses: Vec<DiagnosisEntry>,
    pub pharmacies: Vec<PharmacyEntry>,
    pub prices: Vec<PriceEntry>,
    pub templates: Vec<TemplateEntry>,
    medication_index: HashMap<String, usize>,
    allergen_index: HashMap<String, usize>,
    pharmacy_index: HashMap<String, usize>,
}

impl Catalog {
    /// The built-in tables with the fixture's in place of those it lists, and the
    /// fixture's templates; every reference checked.
    pub fn build(fixture: &Fixture) -> Result<Self, FixtureError> {
        let builtin: CatalogTables = toml::from_str(BUILTIN_TOML).map_err(|e| FixtureError {
            file: BUILTIN_FILE.to_owned(),
            entry: "the file".to_owned(),
            rule: Rule::Syntax(e.message().to_owned()),
        })?;
        let own = fixture;
        let pick = |own_is_empty: bool| {
            if own_is_empty {
                BUILTIN_FILE.to_owned()
            } else {
                fixture.file.clone()
            }
        };
        let files = Files {
            medications: pick(own.medications.is_empty()),
            allergens: pick(own.allergens.is_empty()),
            rules: pick(own.screening_rules.is_empty()),
            diagnoses: pick(own.diagnoses.is_empty()),
            pharmacies: pick(own.pharmacies.is_empty()),
            prices: pick(own.prices.is_empty()),
            fixture: fixture.file.clone(),
        };
        fn choose<T: Clone>(own: &[T], builtin: Vec<T>) -> Vec<T> {
            if own.is_empty() {
                builtin
            } else {
                own.to_vec()
            }
        }
        let mut catalog = Self {
            medications: choose(&own.medications, builtin.medications),
            allergens: choose(&own.allergens, builtin.allergens),
            rules: choose(&own.screening_rules, builtin.screening_rules),
            diagnoses: choose(&own.diagnoses, builtin.diagnoses),
            pharmacies: choose(&own.pharmacies, builtin.pharmacies),
            prices: own.prices.clone(),
            templates: fixture.templates.clone(),
            ..Self::default()
        };
        catalog.medication_index = index(&catalog.medications, |m| &m.id);
        catalog.pharmacy_index = index(&catalog.pharmacies, |p| &p.id);
        if own.prices.is_empty() {
            // The built-in prices, for the pharmacies and medications in force: a
            // fixture with a catalog of its own keeps those that still fit.
            catalog.prices = builtin
                .prices
                .into_iter()
                .filter(|p| {
                    catalog.pharmacy(&p.pharmacy).is_some()
                        && catalog.medication(&p.medication).is_some()
                })
                .collect();
        }
        catalog.allergen_index = index(&catalog.allergens, |a| &a.id);
        catalog.validate(fixture, &files)?;
        Ok(catalog)
    }

    pub fn medication(&self, id: &str) -> Option<&MedicationEntry> {
        self.medication_index.get(id).map(|&i| &self.medications[i])
    }

    pub fn allergen(&self, id: &str) -> Option<&AllergenEntry> {
        self.allergen_index.get(id).map(|&i| &self.allergens[i])
    }

    pub fn pharmacy(&self, id: &str) -> Option<&PharmacyEntry> {
        self.pharmacy_index.get(id).map(|&i| &self.pharmacies[i])
    }

    /// The price of `medication` at `pharmacy`, when the catalog has one.
    pub fn price(&self, pharmacy: &str, medication: &str) -> Option<&PriceEntry> {
        self.prices
            .iter()
            .find(|p| p.pharmacy == pharmacy && p.medication == medication)
    }

    pub fn diagnosis_by_code(&self, code: &str) -> Option<&DiagnosisEntry> {
        self.diagnoses
            .iter()
            .find(|d| d.icd10_code.eq_ignore_ascii_case(code))
    }

    pub fn diagnosis(&self, id: &str) -> Option<&DiagnosisEntry> {
        self.diagnoses.iter().find(|d| d.id() == id)
    }

    /// The organization's template `id`.
    pub fn template(&self, organization: &str, id: &str) -> Option<&TemplateEntry> {
        self.templates
            .iter()
            .find(|t| t.id == id && t.organization == organization)
    }

    fn validate(&self, fixture: &Fixture, files: &Files) -> Result<(), FixtureError> {
        let fail = |file: &str, entry: String, rule: Rule| FixtureError {
            file: file.to_owned(),
            entry,
            rule,
        };
        let mut terms: HashSet<&str> = HashSet::new();
        let mut ids = HashSet::new();
        for (i, m) in self.medications.iter().enumerate() {
            let entry = format!("[[medications]] #{} ({})", i + 1, m.id);
            if m.id.trim().is_empty() || m.name.trim().is_empty() {
                return Err(fail(&files.medications, entry, Rule::EmptyField("id/name")));
            }
            if m.ingredients.is_empty() {
                return Err(fail(
                    &files.medications,
                    entry,
                    Rule::EmptyField("ingredients"),
                ));
            }
            if !ids.insert(m.id.as_str()) {
                return Err(fail(
                    &files.medications,
                    entry,
                    Rule::DuplicateId(m.id.clone()),
                ));
            }
            terms.extend(m.terms());
        }
        let known_medication = |id: &Option<String>| match id {
            Some(id) if self.medication(id).is_none() => Err(Rule::UnknownReference {
                what: "medication",
                reference: id.clone(),
            }),
            _ => Ok(()),
        };
        let known_term = |term: &str| {
            if terms.contains(term) {
                Ok(())
            } else {
                Err(Rule::UnknownReference {
                    what: "ingredient or class of any medication",
                    reference: term.to_owned(),
                })
            }
        };
        let mut ids = HashSet::new();
        for (i, a) in self.allergens.iter().enumerate() {
            let entry = format!("[[allergens]] #{} ({})", i + 1, a.id);
            let mut check = || -> Result<(), Rule> {
                if !ids.insert(a.id.as_str()) {
                    return Err(Rule::DuplicateId(a.id.clone()));
                }
                if a.covers.is_empty() {
                    return Err(Rule::EmptyField("covers"));
                }
                a.covers.iter().try_for_each(|t| known_term(t))?;
                known_medication(&a.alternative)
            };
            check().map_err(|r| fail(&files.allergens, entry, r))?;
        }
        let mut codes = HashSet::new();
        for (i, d) in self.diagnoses.iter().enumerate() {
            let entry = format!("[[diagnoses]] #{} ({})", i + 1, d.icd10_code);
            if !is_icd10(&d.icd10_code) {
                return Err(fail(
                    &files.diagnoses,
                    entry,
                    Rule::InvalidValue(format!("`{}` is not an ICD-10 code", d.icd10_code)),
                ));
            }
            if !codes.insert(d.icd10_code.to_ascii_uppercase()) {
                return Err(fail(
                    &files.diagnoses,
                    entry,
                    Rule::DuplicateId(d.icd10_code.clone()),
                ));
            }
        }
        for (i, r) in self.rules.iter().enumerate() {
            let entry = format!("[[screening_rules]] #{}", i + 1);
            let check = || -> Result<(), Rule> {
                let [first, second] = r.between.as_slice() else {
                    return Err(Rule::InvalidValue(
                        "`between` names exactly two things".into(),
                    ));
                };
                match r.kind {
                    RuleKind::Drug => known_term(first)?,
                    RuleKind::Condition => {
                        if !self
                            .diagnoses
                            .iter()
                            .any(|d| d.icd10_code.starts_with(first.as_str()))
                        {
                            return Err(Rule::UnknownReference {
                                what: "ICD-10 prefix of any diagnosis",
                                reference: first.clone(),
                            });
                        }
                    }
                }
                known_term(second)?;
                if r.description.trim().is_empty() {
                    return Err(Rule::EmptyField("description"));
                }
                known_medication(&r.alternative)
            };
            check().map_err(|rule| fail(&files.rules, entry, rule))?;
        }
        let mut ids = HashSet::new();
        for (i, p) in self.pharmacies.iter().enumerate() {
            let entry = format!("[[pharmacies]] #{} ({})", i + 1, p.id);
            let mut check = || -> Result<(), Rule> {
                if !ids.insert(p.id.as_str()) {
                    return Err(Rule::DuplicateId(p.id.clone()));
                }
                if p.fulfillment_types.is_empty() {
                    return Err(Rule::EmptyField("fulfillment_types"));
                }
                if !(-90.0..=90.0).contains(&p.latitude) || !(-180.0..=180.0).contains(&p.longitude)
                {
                    return Err(Rule::InvalidValue("latitude/longitude out of range".into()));
                }
                Ok(())
            };
            check().map_err(|r| fail(&files.pharmacies, entry, r))?;
        }
        let mut priced = HashSet::new();
        for (i, p) in self.prices.iter().enumerate() {
            let entry = format!("[[prices]] #{} ({} at {})", i + 1, p.medication, p.pharmacy);
            let mut check = || -> Result<(), Rule> {
                if self.pharmacy(&p.pharmacy).is_none() {
                    return Err(Rule::UnknownReference {
                        what: "pharmacy",
                        reference: p.pharmacy.clone(),
                    });
                }
                if self.medication(&p.medication).is_none() {
                    return Err(Rule::UnknownReference {
                        what: "medication",
                        reference: p.medication.clone(),
                    });
                }
                if !(p.total.is_finite() && p.retail.is_finite()) || p.total < 0.0 {
                    return Err(Rule::InvalidValue(
                        "`total` and `retail` are amounts in dollars, not below 0".into(),
                    ));
                }
                if p.retail < p.total {
                    return Err(Rule::InvalidValue(
                        "`retail` (the list price) cannot be below `total` (what the patient pays)"
                            .into(),
                    ));
                }
                if !priced.insert((p.pharmacy.as_str(), p.medication.as_str())) {
                    return Err(Rule::InvalidValue(
                        "that medication already has a price at that pharmacy".into(),
                    ));
                }
                Ok(())
            };
            check().map_err(|r| fail(&files.prices, entry, r))?;
        }
        let orgs: HashSet<&str> = fixture
            .organizations
            .iter()
            .map(|o| o.id.as_str())
            .collect();
        let known_org = |org: &str| {
            if orgs.contains(org) {
                Ok(())
            } else {
                Err(Rule::UnknownOrganization(org.to_owned()))
            }
        };
        let mut ids = HashSet::new();
        for (i, t) in self.templates.iter().enumerate() {
            let entry = format!("[[templates]] #{} ({})", i + 1, t.id);
            let mut check = || -> Result<(), Rule> {
                if !ids.insert(t.id.as_str()) {
                    return Err(Rule::DuplicateId(t.id.clone()));
                }
                known_org(&t.organization)?;
                known_medication(&Some(t.treatment.clone()))?;
                if t.dispense.quantity <= 0.0 || !(1..=365).contains(&t.dispense.days_supply) {
                    return Err(Rule::InvalidValue(
                        "dispense needs a quantity above 0 and 1–365 days of supply".into(),
                    ));
                }
                Ok(())
            };
            check().map_err(|r| fail(&files.fixture, entry, r))?;
        }
        for (i, p) in fixture.patients.iter().enumerate() {
            let entry = format!("[[patients]] #{} ({} {})", i + 1, p.first, p.last);
            let check = || -> Result<(), Rule> {
                known_org(&p.organization)?;
                if p.first.trim().is_empty() || p.last.trim().is_empty() {
                    return Err(Rule::EmptyField("first/last"));
                }
                if crate::wire::Date::parse(&p.date_of_birth).is_none() {
                    return Err(Rule::InvalidValue(format!(
                        "date_of_birth `{}` is not YYYY-MM-DD",
                        p.date_of_birth
                    )));
                }
                if !matches!(p.sex.as_str(), "MALE" | "FEMALE" | "UNKNOWN") {
                    return Err(Rule::InvalidValue(format!(
                        "sex `{}` is not MALE, FEMALE or UNKNOWN",
                        p.sex
                    )));
                }
                if let Some(phone) = &p.phone
                    && !crate::validate::is_phone(phone)
                {
                    return Err(Rule::InvalidValue(format!("phone `{phone}` is not E.164")));
                }
                for a in &p.allergies {
                    if self.allergen(a).is_none() {
                        return Err(Rule::UnknownReference {
                            what: "allergen",
                            reference: a.clone(),
                        });
                    }
                }
                for m in &p.medications {
                    known_medication(&Some(m.clone()))?;
                }
                for d in &p.diagnoses {
                    if self.diagnosis_by_code(d).is_none() {
                        return Err(Rule::UnknownReference {
                            what: "diagnosis",
                            reference: d.clone(),
                        });
                    }
                }
                Ok(())
            };
            check().map_err(|r| fail(&files.fixture, entry, r))?;
        }
        Ok(())
    }
}

/// Which file each table came from, for messages.
struct Files {
    medications: String,
    allergens: String,
    rules: String,
    diagnoses: String,
    pharmacies: String,
    prices: String,
    fixture: String,
}

fn index<T>(items: &[T], id: impl Fn(&T) -> &String) -> HashMap<String, usize> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| (id(item).clone(), i))
        .collect()
}

/// `A00`–`Z99`, optionally a dot and up to four more characters.
fn is_icd10(code: &str) -> bool {
    let bytes = code.as_bytes();
    bytes.len() >= 3
        && bytes[0].is_ascii_uppercase()
        && bytes[1].is_ascii_digit()
        && bytes[2].is_ascii_alphanumeric()
        && match code.get(3..) {
            None | Some("") => true,
            Some(rest) => {
                rest.starts_with('.')
                    && (2..=5).contains(&rest.len())
                    && rest[1..].bytes().all(|b| b.is_ascii_alphanumeric())
            }
        }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn icd10_codes_are_recognised() {
        for good in ["E11.9", "I10", "N18.30", "J45.909", "Z33.1"] {
            assert!(is_icd10(good), "{good}");
        }
        for bad in ["E1", "11.9", "e11.9", "E11.", "E11.12345"] {
            assert!(!is_icd10(bad), "{bad}");
        }
    }

    #[test]
    fn the_builtin_catalog_is_valid_and_large_enough() {
        let fixture = crate::fixture::load(&crate::config::FixtureSource::Demo).unwrap();
        let catalog = Catalog::build(&fixture).unwrap();
        assert!(catalog.medications.len() >= 60);
        assert!(catalog.allergens.len() >= 8);
        assert!(catalog.rules.len() >= 12);
        assert!(catalog.pharmacies.len() >= 10);
        for org in ["org_maple", "org_birch"] {
            assert_eq!(
                catalog
                    .templates
                    .iter()
                    .filter(|t| t.organization == org)
                    .count(),
                2
            );
        }
    }
}
