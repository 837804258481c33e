//! Clinical lists as patches — allergies, medications, diagnoses — on a patient
//! (and a prescription's diagnoses): `add` resolves each entry against the catalog
//! (by id or code exactly; by name, one fit or the options to choose from, or kept
//! uncoded), `remove` and `update` act on entries on file (removing one that is
//! not on file is a no-op, noted), `none` clears the list.

use super::changes::{Changes, entity_option};
use super::types::{
    AllergiesPatch, ChangeCategory, ChangeOperation, DiagnosesPatch, EntityMatchType,
    MedicationHistoryStatus, MedicationsPatch,
};
use crate::catalog::Catalog;
use crate::catalog::resolve::{self, Found};
use crate::store::records::{EntryDoc, new_id};

/// Which list a patch is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Allergies,
    Medications,
    Diagnoses,
}

impl ListKind {
    fn label(self) -> &'static str {
        match self {
            Self::Allergies => "Allergy",
            Self::Medications => "Medication",
            Self::Diagnoses => "Diagnosis",
        }
    }

    fn thing(self) -> &'static str {
        match self {
            Self::Allergies => "allergen",
            Self::Medications => "medication",
            Self::Diagnoses => "diagnosis",
        }
    }

    fn code_field(self) -> &'static str {
        match self {
            Self::Allergies | Self::Medications => "rxNormId",
            Self::Diagnoses => "icd10Code",
        }
    }

    fn uncoded_prefix(self) -> &'static str {
        match self {
            Self::Allergies => "alg",
            Self::Medications => "med",
            Self::Diagnoses => "dx",
        }
    }
}

/// One entry of a patch, whatever the list.
#[derive(Debug, Clone, Default)]
pub struct EntryRef {
    pub id: Option<String>,
    pub name: Option<String>,
    pub code: Option<String>,
    pub status: Option<MedicationHistoryStatus>,
}

impl EntryRef {
    fn identifiers(&self) -> usize {
        [self.id.is_some(), self.name.is_some(), self.code.is_some()]
            .iter()
            .filter(|x| **x)
            .count()
    }

    fn describe(&self) -> &str {
        self.name
            .as_deref()
            .or(self.code.as_deref())
            .or(self.id.as_deref())
            .unwrap_or_default()
    }

    fn is_on_file(&self, entry: &EntryDoc) -> bool {
        let same = |a: &Option<String>, b: &str| {
            a.as_deref()
                .is_some_and(|a| a.trim().eq_ignore_ascii_case(b))
        };
        same(&self.id, &entry.id)
            || entry.code.as_deref().is_some_and(|c| same(&self.code, c))
            || same(&self.name, &entry.name)
    }
}

/// A patch of any list.
#[derive(Debug, Clone, Default)]
pub struct Patch {
    pub add: Vec<EntryRef>,
    pub update: Vec<EntryRef>,
    pub remove: Vec<EntryRef>,
    pub none: bool,
}

impl From<AllergiesPatch> for Patch {
    fn from(p: AllergiesPatch) -> Self {
        let refs = |v: Option<Vec<super::types::AllergyReferenceInput>>| {
            v.unwrap_or_default()
                .into_iter()
                .map(|r| EntryRef {
                    id: r.id.map(|i| i.0),
                    name: r.name,
                    code: r.rx_norm_id,
                    status: None,
                })
                .collect()
        };
        Self {
            add: refs(p.add),
            update: Vec::new(),
            remove: refs(p.remove),
            none: p.none == Some(true),
        }
    }
}

impl From<MedicationsPatch> for Patch {
    fn from(p: MedicationsPatch) -> Self {
        let refs = |v: Option<Vec<super::types::MedicationReferenceInput>>| {
            v.unwrap_or_default()
                .into_iter()
                .map(|r| EntryRef {
                    id: r.id.map(|i| i.0),
                    name: r.name,
                    code: r.rx_norm_id,
                    status: r.status,
                })
                .collect()
        };
        Self {
            add: refs(p.add),
            update: refs(p.update),
            remove: refs(p.remove),
            none: p.none == Some(true),
        }
    }
}

impl From<DiagnosesPatch> for Patch {
    fn from(p: DiagnosesPatch) -> Self {
        let refs = |v: Option<Vec<super::types::DiagnosisReferenceInput>>| {
            v.unwrap_or_default()
                .into_iter()
                .map(|r| EntryRef {
                    id: r.id.map(|i| i.0),
                    name: r.name,
                    code: r.icd10_code,
                    status: None,
                })
                .collect()
        };
        Self {
            add: refs(p.add),
            update: Vec::new(),
            remove: refs(p.remove),
            none: p.none == Some(true),
        }
    }
}

/// Where the patch sits in the input (`clinical.allergies`) and in which mutation.
#[derive(Debug, Clone, Copy)]
pub struct At<'a> {
    pub key: &'a str,
    pub operation: &'a str,
}

/// Applies `patch` to `list`, recording a change per entry.
pub fn apply(
    catalog: &Catalog,
    kind: ListKind,
    at: At<'_>,
    list: &mut Vec<EntryDoc>,
    patch: Patch,
    changes: &mut Changes,
) {
    use super::types::Change;
    let label = kind.label();
    if patch.add.is_empty() && patch.update.is_empty() && patch.remove.is_empty() && !patch.none {
        changes.push(Change::rejected(
            at.key,
            label,
            ChangeCategory::InvalidInput,
            "An empty patch changes nothing: send add, remove, update or none (leave the field out to keep the list)",
        ));
        return;
    }
    if patch.none {
        if !patch.add.is_empty() || !patch.remove.is_empty() || !patch.update.is_empty() {
            changes.push(Change::rejected(
                format!("{}.none", at.key),
                label,
                ChangeCategory::InvalidInput,
                "`none: true` records that there are none: it cannot be combined with add, update or remove",
            ));
            return;
        }
        let before = list.len();
        list.clear();
        changes.push(
            Change::field(format!("{}.none", at.key), label, None, Some("none"))
                .with_operation(ChangeOperation::Removed)
                .advisory(
                    ChangeCategory::ConfirmationRequired,
                    format!("Recorded as none ({before} entries removed)"),
                ),
        );
        return;
    }
    for (i, entry) in patch.remove.iter().enumerate() {
        let key = format!("{}.remove.{i}", at.key);
        if entry.identifiers() != 1 {
            changes.push(one_identifier(&key, kind));
        } else if let Some(pos) = list.iter().position(|e| entry.is_on_file(e)) {
            let removed = list.remove(pos);
            changes.push(Change::field(key, label, Some(&removed.name), None));
        } else {
            // Not on file (or removed already by a call whose answer was lost):
            // the list already is what was asked for.
            let mut change =
                Change::field(key, label, None, None).with_operation(ChangeOperation::Removed);
            change.reason = Some(format!(
                "`{}` is not on file: nothing to remove",
                entry.describe()
            ));
            changes.push(change);
        }
    }
    for (i, entry) in patch.update.iter().enumerate() {
        let key = format!("{}.update.{i}", at.key);
        if entry.identifiers() != 1 {
            changes.push(one_identifier(&key, kind));
        } else if let Some(on_file) = list.iter_mut().find(|e| entry.is_on_file(e)) {
            let before = on_file.status.map(status_text);
            if entry.status.is_some() {
                on_file.status = entry.status;
            }
            changes.push(
                Change::field(key, label, before, on_file.status.map(status_text))
                    .with_operation(ChangeOperation::Modified),
            );
        } else {
            changes.push(Change::rejected(
                key,
                label,
                ChangeCategory::InvalidInput,
                format!(
                    "`{}` is not on file, so it cannot be updated",
                    entry.describe()
                ),
            ));
        }
    }
    for (i, entry) in patch.add.iter().enumerate() {
        let key = format!("{}.add.{i}", at.key);
        if entry.identifiers() != 1 {
            changes.push(one_identifier(&key, kind));
            continue;
        }
        match resolve_entry(catalog, kind, entry) {
            Resolved::One(mut doc, how) => {
                if list.iter().any(|e| e.id == doc.id) {
                    let mut change = Change::resolved(
                        &key,
                        label,
                        Some(entry.describe()),
                        &doc.id,
                        ChangeOperation::Added,
                    );
                    change.reason =
                        Some(format!("{} is on file already: nothing to add", doc.name));
                    changes.push(change);
                } else {
                    if kind == ListKind::Medications {
                        doc.status = Some(entry.status.unwrap_or(MedicationHistoryStatus::Unknown));
                    }
                    let change = Change::resolved(
                        &key,
                        label,
                        Some(entry.describe()),
                        &doc.id,
                        ChangeOperation::Added,
                    );
                    changes.push(if how == EntityMatchType::FuzzyNameMatch {
                        change.advisory(
                            ChangeCategory::Disambiguation,
                            format!("\"{}\" was taken as {}, the only catalog entry it fits: check it is the one meant", entry.describe(), doc.name),
                        )
                    } else {
                        change
                    });
                    list.push(doc);
                }
            }
            Resolved::Several(options) => {
                let n = options.len();
                let argument = format!("{key}.id");
                let options = options
                    .into_iter()
                    .map(|(id, name, m)| entity_option(at.operation, &argument, &id, &name, m))
                    .collect();
                changes.push(Change::ambiguous(
                    &key,
                    label,
                    Some(entry.describe()),
                    format!(
                        "\"{}\" matches {n} catalog entries: send again with one of the options' ids, or a more specific reference",
                        entry.describe()
                    ),
                    options,
                ));
            }
            Resolved::Unknown(reason) => {
                changes.push(Change::rejected(
                    &key,
                    label,
                    ChangeCategory::InvalidInput,
                    reason,
                ));
            }
            Resolved::Uncoded => {
                let name = entry.describe().trim().to_owned();
                let doc = EntryDoc {
                    id: new_id(kind.uncoded_prefix()),
                    name: name.clone(),
                    code: None,
                    coded: false,
                    status: (kind == ListKind::Medications)
                        .then(|| entry.status.unwrap_or(MedicationHistoryStatus::Unknown)),
                };
                changes.push(
                    Change::resolved(&key, label, Some(&name), &doc.id, ChangeOperation::Added).advisory(
                        ChangeCategory::CodingSpecificity,
                        format!(
                            "\"{name}\" matches no {} in the catalog: kept as written, uncoded, so screening cannot check it. Send a code ({}) when you have one",
                            kind.thing(),
                            kind.code_field()
                        ),
                    ),
                );
                list.push(doc);
            }
        }
    }
}

fn status_text(status: MedicationHistoryStatus) -> &'static str {
    match status {
        MedicationHistoryStatus::Active => "ACTIVE",
        MedicationHistoryStatus::Historical => "HISTORICAL",
        MedicationHistoryStatus::Unknown => "UNKNOWN",
    }
}

fn one_identifier(key: &str, kind: ListKind) -> super::types::Change {
    super::types::Change::rejected(
        key,
        kind.label(),
        ChangeCategory::InvalidInput,
        format!(
            "Name each entry by exactly one of id, {} or name",
            kind.code_field()
        ),
    )
}

enum Resolved {
    One(EntryDoc, EntityMatchType),
    /// `(id, name, how it matched)` of each fitting entry.
    Several(Vec<(String, String, EntityMatchType)>),
    Unknown(String),
    Uncoded,
}

fn resolve_entry(catalog: &Catalog, kind: ListKind, entry: &EntryRef) -> Resolved {
    let thing = kind.thing();
    match kind {
        ListKind::Allergies => {
            let doc = |a: &crate::catalog::AllergenEntry| EntryDoc {
                id: a.id.clone(),
                name: a.name.clone(),
                code: a.rx_norm_id.clone(),
                coded: true,
                status: None,
            };
            let found = if let Some(id) = &entry.id {
                catalog.allergen(id).map_or(Found::Nothing, |a| {
                    Found::One(a, EntityMatchType::ExactNameMatch)
                })
            } else if let Some(code) = &entry.code {
                resolve::by_code(
                    &catalog.allergens,
                    code,
                    |a| a.rx_norm_id.as_deref(),
                    EntityMatchType::RxnormCodeMatch,
                )
            } else {
                resolve::by_name(&catalog.allergens, entry.describe(), |a| &a.name)
            };
            finish(found, entry, thing, doc, |a| (a.id.clone(), a.name.clone()))
        }
        ListKind::Medications => {
            let doc = |m: &crate::catalog::MedicationEntry| EntryDoc {
                id: m.id.clone(),
                name: m.name.clone(),
                code: m.rx_norm_id.clone(),
                coded: true,
                status: None,
            };
            let found = if let Some(id) = &entry.id {
                catalog.medication(id).map_or(Found::Nothing, |m| {
                    Found::One(m, EntityMatchType::ExactNameMatch)
                })
            } else if let Some(code) = &entry.code {
                resolve::by_code(
                    &catalog.medications,
                    code,
                    |m| m.rx_norm_id.as_deref(),
                    EntityMatchType::RxnormCodeMatch,
                )
            } else {
                resolve::by_name(&catalog.medications, entry.describe(), |m| &m.name)
            };
            finish(found, entry, thing, doc, |m| (m.id.clone(), m.name.clone()))
        }
        ListKind::Diagnoses => {
            let doc = |d: &crate::catalog::DiagnosisEntry| EntryDoc {
                id: d.id(),
                name: d.name.clone(),
                code: Some(d.icd10_code.clone()),
                coded: true,
                status: None,
            };
            let found = if let Some(id) = &entry.id {
                catalog.diagnosis(id).map_or(Found::Nothing, |d| {
                    Found::One(d, EntityMatchType::ExactNameMatch)
                })
            } else if let Some(code) = &entry.code {
                catalog.diagnosis_by_code(code).map_or(Found::Nothing, |d| {
                    Found::One(d, EntityMatchType::ExactNameMatch)
                })
            } else {
                resolve::by_name(&catalog.diagnoses, entry.describe(), |d| &d.name)
            };
            finish(found, entry, thing, doc, |d| {
                (d.id(), format!("{} {}", d.icd10_code, d.name))
            })
        }
    }
}

fn finish<T>(
    found: Found<'_, T>,
    entry: &EntryRef,
    thing: &str,
    doc: impl Fn(&T) -> EntryDoc,
    option: impl Fn(&T) -> (String, String),
) -> Resolved {
    match found {
        Found::One(item, m) => Resolved::One(doc(item), m),
        Found::Several(items) => Resolved::Several(
            items
                .into_iter()
                .map(|(item, m)| {
                    let (id, name) = option(item);
                    (id, name, m)
                })
                .collect(),
        ),
        Found::Nothing if entry.name.is_some() => Resolved::Uncoded,
        Found::Nothing => Resolved::Unknown(format!(
            "No {thing} in the catalog has the {} `{}`",
            if entry.id.is_some() { "id" } else { "code" },
            entry.describe()
        )),
    }
}
