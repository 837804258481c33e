//! What every document shares: the cynic `schema` module (registered by
//! `build.rs`), the scalars, the request metadata, the errors of any call, the
//! address input (a patient's, or where to look for a pharmacy), the `ping` query,
//! and [`call_shape!`], which declares the named operations of each record kind.

#[cynic::schema("network")]
pub(crate) mod schema {}

/// `YYYY-MM-DD`.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq)]
pub struct Date(pub String);

/// RFC 3339.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq)]
pub struct DateTime(pub String);

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestSource {
    DirectApi,
    WebApp,
    EmbeddableComponent,
    McpConnector,
    LlmAgent,
}

#[derive(cynic::QueryFragment, Debug, Clone, PartialEq, Eq)]
pub struct UnauthorizedError {
    pub code: String,
    pub message: String,
    pub required_permission: Option<String>,
}

#[derive(cynic::QueryFragment, Debug, Clone, PartialEq, Eq)]
pub struct UpstreamServiceError {
    pub code: String,
    pub message: String,
    pub service: String,
    pub retryable: bool,
}

#[derive(cynic::InputObject, Debug, Clone)]
pub struct RequestMetadata {
    pub source: RequestSource,
    pub client: Option<String>,
    pub source_version: Option<String>,
    pub request_id: Option<String>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct AddressInput {
    pub street1: Option<String>,
    pub street2: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
}

/// `{ ping }`: tests a token; touches no records.
#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "Query")]
pub struct Ping {
    pub ping: Option<String>,
}

/// One named operation per call shape, all selecting the same shared fragments.
macro_rules! call_shape {
    ($($shape:ident => $field:ident: $result:ty, $variables:literal, $arguments:tt;)*) => {$(
        #[derive(cynic::QueryFragment, Debug, Clone)]
        #[cynic(graphql_type = "Mutation", variables = $variables)]
        pub struct $shape {
            #[arguments $arguments]
            pub $field: $result,
        }
    )*};
}
pub(super) use call_shape;

// Patient data: `Debug` prints ids and states only.
crate::redacted_debug! {
    AddressInput {  }
}
