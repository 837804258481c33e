//! `Change` and what hangs off it: options to choose from, match reasons, and the
//! before/after or resolution detail of one input.

// async-graphql's `#[graphql(field(name = …, ty = …))]` lists repeat `ty =` by design.
#![allow(clippy::duplicated_attributes)]

use async_graphql::{Enum, Interface, SimpleObject, Union};

use super::pharmacy::PharmacyOffer;

/// What happened to one input of a call.
#[derive(Debug, Clone, SimpleObject)]
pub struct Change {
    /// The input path, e.g. `demographic.phone`, `treatment`, `clinical.allergies.add.0`.
    pub key: String,
    pub label: String,
    pub status: ChangeStatus,
    pub severity: ChangeSeverity,
    pub reason: Option<String>,
    pub options: Option<Vec<ChangeOption>>,
    pub category: Option<ChangeCategory>,
    pub operation: ChangeOperation,
    pub detail: ChangeDetail,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum ChangeStatus {
    Applied,
    Rejected,
    Ambiguous,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum ChangeSeverity {
    Info,
    Advisory,
    Blocking,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum ChangeOperation {
    Added,
    Modified,
    Removed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum ChangeCategory {
    Disambiguation,
    ObsoleteReference,
    CodingSpecificity,
    CostSavings,
    ProductPreference,
    Safety,
    MissingInput,
    InvalidInput,
    ConfirmationRequired,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum ConfidenceLevel {
    Low,
    Medium,
    High,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum EntityMatchType {
    ExactNameMatch,
    FuzzyNameMatch,
    RxnormCodeMatch,
    DrugClassMatch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum MatchReasonType {
    ExactNameMatch,
    FuzzyNameMatch,
    RxnormCodeMatch,
    DrugClassMatch,
    Name,
    Address,
    LatLong,
    FulfillmentType,
    OpenAt,
    Email,
    Phone,
    NameAndDob,
    PartialName,
    DateOfBirth,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct MatchReason {
    #[graphql(name = "type")]
    pub kind: MatchReasonType,
    pub label: Option<String>,
    pub confidence: Option<ConfidenceLevel>,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct EntityMatch {
    pub match_type: EntityMatchType,
    pub confidence: Option<ConfidenceLevel>,
}

/// One way to answer a change: in the input of the `operation` mutation, set the
/// `argument` path to `value`, and send again.
#[derive(Debug, Clone, Interface)]
#[graphql(
    field(name = "display_name", ty = "&String"),
    field(name = "reason", ty = "&Option<String>"),
    field(name = "operation", ty = "&String"),
    field(name = "argument", ty = "&Option<String>"),
    field(name = "value", ty = "&Option<String>"),
    field(name = "match", method = "entity_match", ty = "&Option<EntityMatch>")
)]
pub enum ChangeOption {
    GenericChangeOption(GenericChangeOption),
    PharmacyChangeOption(PharmacyChangeOption),
}

#[derive(Debug, Clone, SimpleObject)]
pub struct GenericChangeOption {
    pub display_name: String,
    pub reason: Option<String>,
    pub operation: String,
    pub argument: Option<String>,
    pub value: Option<String>,
    #[graphql(name = "match")]
    pub entity_match: Option<EntityMatch>,
    pub match_reasons: Option<Vec<MatchReason>>,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct PharmacyChangeOption {
    pub display_name: String,
    pub reason: Option<String>,
    pub operation: String,
    pub argument: Option<String>,
    pub value: Option<String>,
    #[graphql(name = "match")]
    pub entity_match: Option<EntityMatch>,
    pub match_reasons: Option<Vec<MatchReason>>,
    pub offers: Vec<PharmacyOffer>,
}

#[derive(Debug, Clone, Union)]
pub enum ChangeDetail {
    FieldChangeDetail(FieldChangeDetail),
    EntityResolutionDetail(EntityResolutionDetail),
    PharmacyResolutionDetail(PharmacyResolutionDetail),
}

#[derive(Debug, Clone, SimpleObject)]
pub struct FieldChangeDetail {
    pub previous_value: Option<TypedValue>,
    pub new_value: Option<TypedValue>,
}

#[derive(Debug, Clone, Interface)]
#[graphql(field(name = "display_value", ty = "&String"))]
pub enum TypedValue {
    TextValue(TextValue),
    QuantityValue(QuantityValue),
}

#[derive(Debug, Clone, SimpleObject)]
pub struct TextValue {
    pub display_value: String,
    pub value: String,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct QuantityValue {
    pub display_value: String,
    pub value: f64,
    pub unit: String,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct EntityResolutionDetail {
    pub input_text: Option<String>,
    pub resolved_entity_id: Option<async_graphql::ID>,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct PharmacyResolutionDetail {
    pub input_text: Option<String>,
    pub resolved_entity_id: Option<async_graphql::ID>,
    pub offers: Vec<PharmacyOffer>,
}
