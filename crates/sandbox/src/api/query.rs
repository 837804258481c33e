//! The queries. Each list and record query checks its `read:` permission first and
//! reads only the caller's organization: another organization's ids read as null.

use async_graphql::{Context, ID, Object};

use super::errors::{ApiError, Permission, parts, require_read};
use super::pagination;
use super::trace::traced;
use super::types::{
    ActorKind, Me, Medication, MedicationFilter, Order, OrderConnection, OrderFilter, Organization,
    PageInfo, Patient, PatientConnection, PatientFilter, Pharmacy, Prescription,
    PrescriptionConnection, PrescriptionFilter,
};
use crate::store;

/// The root of all queries.
#[derive(Debug, Default)]
pub struct Query;

#[Object(name = "Query")]
impl Query {
    /// Health check; touches no records. Always "pong".
    async fn ping(&self) -> &'static str {
        "pong"
    }

    /// Who the token acts for.
    async fn me(&self, ctx: &Context<'_>) -> async_graphql::Result<Me> {
        traced("me", async {
            let (caller, db) = parts(ctx)?;
            let claims = caller.claims.clone();
            let (org_name, user) = db
                .call(move |conn| {
                    let org = store::clinical::organization_name(conn, &claims.org_id)?;
                    let user = if claims.is_machine() {
                        None
                    } else {
                        store::clinical::user_profile(conn, &claims.sub)?
                    };
                    Ok((org, user))
                })
                .await?;
            let organization = Organization {
                id: ID(caller.org().to_owned()),
                name: org_name.ok_or(ApiError::Internal("token for an unknown organization"))?,
            };
            let permissions = caller.claims.permissions.clone();
            Ok(if caller.is_machine() {
                Me {
                    kind: ActorKind::Machine,
                    id: ID(caller.claims.sub.clone()),
                    name: caller.claims.sub.clone(),
                    email: None,
                    role: None,
                    permissions,
                    organization,
                }
            } else {
                let user = user.ok_or(ApiError::Internal("token for an unknown user"))?;
                Me {
                    kind: ActorKind::User,
                    id: ID(user.id),
                    name: user.name,
                    email: Some(user.email),
                    role: Some(user.role),
                    permissions,
                    organization,
                }
            })
        })
        .await
    }

    #[graphql(complexity = "pagination::complexity(first, child_complexity)")]
    async fn patients(
        &self,
        ctx: &Context<'_>,
        filter: Option<PatientFilter>,
        after: Option<String>,
        first: Option<i32>,
    ) -> async_graphql::Result<PatientConnection> {
        traced("patients", async {
            let (caller, db) = parts(ctx)?;
            require_read(caller, Permission::ReadPatient)?;
            let page = pagination::page(after.as_deref(), first)?;
            let filter = filter.unwrap_or_default();
            let filter = store::patients::PatientFilter {
                name: filter.name,
                external_id: filter.external_id,
            };
            let org = caller.org().to_owned();
            let found = db
                .call(move |conn| store::patients::list(conn, &org, &filter, page))
                .await?;
            let page_info = PageInfo::of(&found);
            Ok(PatientConnection {
                nodes: found
                    .items
                    .into_iter()
                    .map(|(_, p)| Patient::from(p))
                    .collect(),
                page_info,
            })
        })
        .await
    }

    async fn patient(&self, ctx: &Context<'_>, id: ID) -> async_graphql::Result<Option<Patient>> {
        traced("patient", async {
            let (caller, db) = parts(ctx)?;
            require_read(caller, Permission::ReadPatient)?;
            let org = caller.org().to_owned();
            let found = db
                .call(move |conn| store::patients::get(conn, &org, &id))
                .await?;
            Ok(found.map(Patient::from))
        })
        .await
    }

    #[graphql(complexity = "pagination::complexity(first, child_complexity)")]
    async fn prescriptions(
        &self,
        ctx: &Context<'_>,
        filter: Option<PrescriptionFilter>,
        after: Option<String>,
        first: Option<i32>,
    ) -> async_graphql::Result<PrescriptionConnection> {
        traced("prescriptions", async {
            let (caller, db) = parts(ctx)?;
            require_read(caller, Permission::ReadPrescription)?;
            let page = pagination::page(after.as_deref(), first)?;
            let filter = filter.unwrap_or_default();
            let filter = store::prescriptions::PrescriptionFilter {
                patient_id: filter.patient_id.map(|id| id.0),
                state: filter.state.map(|s| s.as_str().to_owned()),
            };
            let org = caller.org().to_owned();
            let found = db
                .call(move |conn| store::prescriptions::list(conn, &org, &filter, page))
                .await?;
            let page_info = PageInfo::of(&found);
            Ok(PrescriptionConnection {
                nodes: found
                    .items
                    .into_iter()
                    .map(|(_, p)| Prescription(p))
                    .collect(),
                page_info,
            })
        })
        .await
    }

    async fn prescription(
        &self,
        ctx: &Context<'_>,
        id: ID,
    ) -> async_graphql::Result<Option<Prescription>> {
        traced("prescription", async {
            let (caller, db) = parts(ctx)?;
            require_read(caller, Permission::ReadPrescription)?;
            let org = caller.org().to_owned();
            let found = db
                .call(move |conn| store::prescriptions::get(conn, &org, &id))
                .await?;
            Ok(found.map(Prescription))
        })
        .await
    }

    #[graphql(complexity = "pagination::complexity(first, child_complexity)")]
    async fn orders(
        &self,
        ctx: &Context<'_>,
        filter: Option<OrderFilter>,
        after: Option<String>,
        first: Option<i32>,
    ) -> async_graphql::Result<OrderConnection> {
        traced("orders", async {
            let (caller, db) = parts(ctx)?;
            require_read(caller, Permission::ReadOrder)?;
            let page = pagination::page(after.as_deref(), first)?;
            let filter = filter.unwrap_or_default();
            let filter = store::orders::OrderFilter {
                patient_id: filter.patient_id.map(|id| id.0),
                state: filter.state.map(|s| s.as_str().to_owned()),
            };
            let org = caller.org().to_owned();
            let found = db
                .call(move |conn| store::orders::list(conn, &org, &filter, page))
                .await?;
            let page_info = PageInfo::of(&found);
            Ok(OrderConnection {
                nodes: found.items.into_iter().map(|(_, o)| Order(o)).collect(),
                page_info,
            })
        })
        .await
    }

    async fn order(&self, ctx: &Context<'_>, id: ID) -> async_graphql::Result<Option<Order>> {
        traced("order", async {
            let (caller, db) = parts(ctx)?;
            require_read(caller, Permission::ReadOrder)?;
            let org = caller.org().to_owned();
            let found = db
                .call(move |conn| store::orders::get(conn, &org, &id))
                .await?;
            Ok(found.map(Order))
        })
        .await
    }

    /// Case-insensitive search of the medication catalog by name. Needs `read:prescription`.
    #[graphql(complexity = "pagination::complexity(first, child_complexity)")]
    async fn medications(
        &self,
        ctx: &Context<'_>,
        filter: Option<MedicationFilter>,
        first: Option<i32>,
    ) -> async_graphql::Result<Vec<Medication>> {
        traced("medications", async {
            let (caller, db) = parts(ctx)?;
            require_read(caller, Permission::ReadPrescription)?;
            let limit = pagination::limit(first)?;
            let name = filter.and_then(|f| f.name);
            let found = db
                .call(move |conn| store::catalog::search_medications(conn, name.as_deref(), limit))
                .await?;
            Ok(found.into_iter().map(Medication::from).collect())
        })
        .await
    }

    /// Pharmacies whose name contains `name` (case-insensitive). Needs `read:order`.
    #[graphql(complexity = "pagination::complexity(first, child_complexity)")]
    async fn pharmacies(
        &self,
        ctx: &Context<'_>,
        name: Option<String>,
        first: Option<i32>,
    ) -> async_graphql::Result<Vec<Pharmacy>> {
        traced("pharmacies", async {
            let (caller, db) = parts(ctx)?;
            require_read(caller, Permission::ReadOrder)?;
            let limit = pagination::limit(first)?;
            let found = db
                .call(move |conn| store::catalog::search_pharmacies(conn, name.as_deref(), limit))
                .await?;
            Ok(found.into_iter().map(Pharmacy::from).collect())
        })
        .await
    }
}
