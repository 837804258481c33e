//! `Change`, what every upsert reports for each input: its status, severity and
//! category, the options to answer it with (generic or pharmacy), the match
//! reasons, and the before/after or resolution detail.

use cynic::Id;

use super::common::schema;
use super::pharmacy::PharmacyOffer;

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeStatus {
    Applied,
    Rejected,
    Ambiguous,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeSeverity {
    Info,
    Advisory,
    Blocking,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeOperation {
    Added,
    Modified,
    Removed,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
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

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfidenceLevel {
    Low,
    Medium,
    High,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityMatchType {
    ExactNameMatch,
    FuzzyNameMatch,
    RxnormCodeMatch,
    DrugClassMatch,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
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

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct Change {
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

#[derive(cynic::InlineFragments, Debug, Clone)]
pub enum ChangeOption {
    GenericChangeOption(GenericChangeOption),
    PharmacyChangeOption(PharmacyChangeOption),
    #[cynic(fallback)]
    Other(OtherChangeOption),
}

#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "ChangeOption")]
pub struct OtherChangeOption {
    pub display_name: String,
    pub reason: Option<String>,
    pub operation: String,
    pub argument: Option<String>,
    pub value: Option<String>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct GenericChangeOption {
    pub display_name: String,
    pub reason: Option<String>,
    pub operation: String,
    pub argument: Option<String>,
    pub value: Option<String>,
    #[cynic(rename = "match")]
    pub entity_match: Option<EntityMatch>,
    pub match_reasons: Option<Vec<MatchReason>>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PharmacyChangeOption {
    pub display_name: String,
    pub reason: Option<String>,
    pub operation: String,
    pub argument: Option<String>,
    pub value: Option<String>,
    #[cynic(rename = "match")]
    pub entity_match: Option<EntityMatch>,
    pub match_reasons: Option<Vec<MatchReason>>,
    pub offers: Vec<PharmacyOffer>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct EntityMatch {
    pub match_type: EntityMatchType,
    pub confidence: Option<ConfidenceLevel>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct MatchReason {
    #[cynic(rename = "type")]
    pub kind: MatchReasonType,
    pub label: Option<String>,
    pub confidence: Option<ConfidenceLevel>,
}

#[derive(cynic::InlineFragments, Debug, Clone)]
pub enum ChangeDetail {
    FieldChangeDetail(FieldChangeDetail),
    EntityResolutionDetail(EntityResolutionDetail),
    PharmacyResolutionDetail(PharmacyResolutionDetail),
    #[cynic(fallback)]
    Other,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct FieldChangeDetail {
    pub previous_value: Option<TypedValue>,
    pub new_value: Option<TypedValue>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct TypedValue {
    pub display_value: String,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct EntityResolutionDetail {
    pub input_text: Option<String>,
    pub resolved_entity_id: Option<Id>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PharmacyResolutionDetail {
    pub input_text: Option<String>,
    pub resolved_entity_id: Option<Id>,
    pub offers: Vec<PharmacyOffer>,
}
