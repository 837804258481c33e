//! Building `Change`s and collecting them for one call ([`Changes`]), with the
//! all-or-nothing rule: when any input is blocking, [`Changes::roll_back`] turns
//! every applied change into a rejected one that names the input that failed.

use async_graphql::ID;

use super::types::{
    Change, ChangeCategory, ChangeDetail, ChangeOperation, ChangeOption, ChangeSeverity,
    ChangeStatus, ConfidenceLevel, EntityMatch, EntityMatchType, EntityResolutionDetail,
    FieldChangeDetail, GenericChangeOption, MatchReason, MatchReasonType, TextValue, TypedValue,
};

fn text(value: Option<&str>) -> Option<TypedValue> {
    value.map(|v| {
        TypedValue::TextValue(TextValue {
            display_value: v.to_owned(),
            value: v.to_owned(),
        })
    })
}

fn no_detail() -> ChangeDetail {
    ChangeDetail::FieldChangeDetail(FieldChangeDetail {
        previous_value: None,
        new_value: None,
    })
}

impl Change {
    /// A field set: `previous` → `new` (`ADDED` when there was none).
    pub fn field(
        key: impl Into<String>,
        label: &str,
        previous: Option<&str>,
        new: Option<&str>,
    ) -> Self {
        let operation = match (previous, new) {
            (None, _) => ChangeOperation::Added,
            (Some(_), None) => ChangeOperation::Removed,
            _ => ChangeOperation::Modified,
        };
        Self {
            key: key.into(),
            label: label.to_owned(),
            status: ChangeStatus::Applied,
            severity: ChangeSeverity::Info,
            reason: None,
            options: None,
            category: None,
            operation,
            detail: ChangeDetail::FieldChangeDetail(FieldChangeDetail {
                previous_value: text(previous),
                new_value: text(new),
            }),
        }
    }

    /// A name or code resolved to the catalog entry `id`.
    pub fn resolved(
        key: impl Into<String>,
        label: &str,
        input: Option<&str>,
        id: &str,
        operation: ChangeOperation,
    ) -> Self {
        Self {
            key: key.into(),
            label: label.to_owned(),
            status: ChangeStatus::Applied,
            severity: ChangeSeverity::Info,
            reason: None,
            options: None,
            category: None,
            operation,
            detail: ChangeDetail::EntityResolutionDetail(EntityResolutionDetail {
                input_text: input.map(str::to_owned),
                resolved_entity_id: Some(ID(id.to_owned())),
            }),
        }
    }

    /// An applied change worth showing (saved, but with advice).
    pub fn advisory(mut self, category: ChangeCategory, reason: impl Into<String>) -> Self {
        self.severity = ChangeSeverity::Advisory;
        self.category = Some(category);
        self.reason = Some(reason.into());
        self
    }

    /// An input that cannot be applied: fix it and send again.
    pub fn rejected(
        key: impl Into<String>,
        label: &str,
        category: ChangeCategory,
        reason: impl Into<String>,
    ) -> Self {
        Self {
            key: key.into(),
            label: label.to_owned(),
            status: ChangeStatus::Rejected,
            severity: ChangeSeverity::Blocking,
            reason: Some(reason.into()),
            options: None,
            category: Some(category),
            operation: ChangeOperation::Modified,
            detail: no_detail(),
        }
    }

    /// A name that fits several entries: choose one of `options` and send again.
    pub fn ambiguous(
        key: impl Into<String>,
        label: &str,
        input: Option<&str>,
        reason: impl Into<String>,
        options: Vec<ChangeOption>,
    ) -> Self {
        Self {
            key: key.into(),
            label: label.to_owned(),
            status: ChangeStatus::Ambiguous,
            severity: ChangeSeverity::Blocking,
            reason: Some(reason.into()),
            options: Some(options),
            category: Some(ChangeCategory::Disambiguation),
            operation: ChangeOperation::Added,
            detail: ChangeDetail::EntityResolutionDetail(EntityResolutionDetail {
                input_text: input.map(str::to_owned),
                resolved_entity_id: None,
            }),
        }
    }

    pub fn with_operation(mut self, operation: ChangeOperation) -> Self {
        self.operation = operation;
        self
    }

    pub fn is_blocking(&self) -> bool {
        self.severity == ChangeSeverity::Blocking
    }
}

/// An option naming a catalog entry: set `argument` to `value` in the input of
/// the `operation` mutation.
pub fn entity_option(
    operation: &str,
    argument: &str,
    id: &str,
    display_name: &str,
    match_type: EntityMatchType,
) -> ChangeOption {
    let (confidence, label, reason) = match match_type {
        EntityMatchType::ExactNameMatch => (
            ConfidenceLevel::High,
            "Exact name match",
            MatchReasonType::ExactNameMatch,
        ),
        EntityMatchType::RxnormCodeMatch => (
            ConfidenceLevel::High,
            "RxNorm code match",
            MatchReasonType::RxnormCodeMatch,
        ),
        EntityMatchType::FuzzyNameMatch => (
            ConfidenceLevel::Medium,
            "Name match",
            MatchReasonType::FuzzyNameMatch,
        ),
        EntityMatchType::DrugClassMatch => (
            ConfidenceLevel::Low,
            "Drug class match",
            MatchReasonType::DrugClassMatch,
        ),
    };
    ChangeOption::GenericChangeOption(GenericChangeOption {
        display_name: display_name.to_owned(),
        reason: None,
        operation: operation.to_owned(),
        argument: Some(argument.to_owned()),
        value: Some(id.to_owned()),
        entity_match: Some(EntityMatch {
            match_type,
            confidence: Some(confidence),
        }),
        match_reasons: Some(vec![MatchReason {
            kind: reason,
            label: Some(label.to_owned()),
            confidence: Some(confidence),
        }]),
    })
}

/// The changes of one call.
#[derive(Debug, Default)]
pub struct Changes {
    pub applied: Vec<Change>,
    pub unapplied: Vec<Change>,
}

impl Changes {
    /// Files `change` by its status.
    pub fn push(&mut self, change: Change) {
        if change.status == ChangeStatus::Applied {
            self.applied.push(change);
        } else {
            self.unapplied.push(change);
        }
    }

    /// True when an input blocks the call: nothing may be saved.
    pub fn blocked(&self) -> bool {
        self.unapplied.iter().any(Change::is_blocking)
    }

    /// All or nothing: every applied change becomes `REJECTED` (`INFO`), its
    /// reason naming the first input that blocked the call.
    pub fn roll_back(mut self) -> Self {
        let cause = self
            .unapplied
            .iter()
            .find(|c| c.is_blocking())
            .map_or_else(|| "another input".to_owned(), |c| format!("`{}`", c.key));
        for mut change in std::mem::take(&mut self.applied) {
            change.status = ChangeStatus::Rejected;
            change.severity = ChangeSeverity::Info;
            change.reason = Some(format!(
                "Not saved: nothing in this call was saved because {cause} could not be applied"
            ));
            self.unapplied.push(change);
        }
        self
    }
}

impl Change {
    /// The same change about another input path.
    pub fn with_key(mut self, key: &str) -> Self {
        self.key = key.to_owned();
        self
    }
}
