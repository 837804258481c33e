//! Orders: a draft order for the patient with prescriptions, prescriptions
//! added or removed, a pharmacy chosen from the network's options (or left to
//! the patient), Send (refused with the network's reasons in place), Cancel.

use rxdesk_client::network::documents::{Order, OrderCandidate, PharmacyReferenceInput};
use rxdesk_client::network::{OrderChanges, Outcome, PharmacyMatches};

use super::{AppCore, ambiguity_note, idempotency_key, is_repeat, not_found, resumable_for};
use crate::convert::{change_notes, choice_view, order_view, pharmacy_reference};
use crate::index::Scope;
use crate::ipc::{
    CommandError, CreateKey, OrderOutcome, OrderView, PharmacyAnswer, PharmacySearch, RecordKind,
    Resumed,
};

impl AppCore {
    pub async fn get_order(&self, id: &str) -> Result<OrderView, CommandError> {
        let (outcome, scope) = self
            .with_network("get_order", |net| async move { net.get_order(id).await })
            .await?;
        match outcome {
            Outcome::Record {
                record: Some(o), ..
            } => Ok(self.opened_order(&scope, o)),
            Outcome::Record { unapplied, .. } => {
                self.forget(&scope, RecordKind::Order, id);
                Err(not_found("order", &unapplied))
            }
            Outcome::Ambiguous { reason, .. } => Err(CommandError::Protocol { message: reason }),
        }
    }

    pub(super) fn opened_order(&self, scope: &Scope, o: Order) -> OrderView {
        let view = order_view(o);
        self.remember(
            scope,
            RecordKind::Order,
            &view.id,
            view.patient_id.as_deref(),
        );
        view
    }

    fn order_outcome(
        &self,
        scope: &Scope,
        outcome: Outcome<Order, OrderCandidate>,
    ) -> OrderOutcome {
        match outcome {
            Outcome::Record {
                record: Some(o),
                unapplied,
                ..
            } => OrderOutcome::Saved {
                order: Box::new(self.opened_order(scope, o)),
                notes: change_notes(&unapplied),
                resumed: None,
            },
            Outcome::Record { unapplied, .. } => OrderOutcome::NotSaved {
                problems: change_notes(&unapplied),
            },
            Outcome::Ambiguous { reason, .. } => OrderOutcome::NotSaved {
                problems: vec![ambiguity_note("order", reason)],
            },
        }
    }

    /// A new draft order for the patient with these prescriptions, made under
    /// `key`. Sent again under the same key (the user's "Try again" after a lost
    /// answer) it answers the order the earlier attempt made; if the choice of
    /// prescriptions changed since, the difference is sent as an Update of
    /// that order: one order, and no edit silently dropped. An order of
    /// another patient answered for the key is refused, nothing sent.
    pub async fn draft_order(
        &self,
        patient_id: &str,
        prescription_ids: &[String],
        key: &CreateKey,
    ) -> Result<OrderOutcome, CommandError> {
        let key = idempotency_key(key)?;
        let key = &key;
        let (outcome, scope) = self
            .with_network("draft_order", |net| async move {
                net.draft_order(patient_id, prescription_ids, key).await
            })
            .await?;
        if !is_repeat(&outcome) {
            return Ok(self.order_outcome(&scope, outcome));
        }
        let Some(saved) = outcome.into_record() else {
            return Err(CommandError::Protocol {
                message: "the network answered a repeated order without it".into(),
            });
        };
        let saved = order_view(saved);
        resumable_for("order", saved.patient_id.as_deref(), patient_id)?;
        self.remember(
            &scope,
            RecordKind::Order,
            &saved.id,
            saved.patient_id.as_deref(),
        );
        tracing::info!("a new order's earlier attempt had saved it");
        let on: Vec<&str> = saved.prescriptions.iter().map(|p| p.id.as_str()).collect();
        let add: Vec<String> = prescription_ids
            .iter()
            .filter(|id| !on.contains(&id.as_str()))
            .cloned()
            .collect();
        let remove: Vec<String> = on
            .iter()
            .filter(|id| !prescription_ids.iter().any(|p| p == *id))
            .map(|id| (*id).to_owned())
            .collect();
        if add.is_empty() && remove.is_empty() {
            return Ok(OrderOutcome::Saved {
                order: Box::new(saved),
                notes: Vec::new(),
                resumed: Some(Resumed { updated: false }),
            });
        }
        let changes = OrderChanges {
            add,
            remove,
            pharmacy: None,
        };
        Ok(
            match self.update_order("draft_order", &saved.id, changes).await? {
                OrderOutcome::Saved { order, notes, .. } => OrderOutcome::Saved {
                    order,
                    notes,
                    resumed: Some(Resumed { updated: true }),
                },
                OrderOutcome::NotSaved { problems } => OrderOutcome::Saved {
                    order: Box::new(saved),
                    notes: problems,
                    resumed: Some(Resumed { updated: false }),
                },
            },
        )
    }

    pub async fn change_order_prescriptions(
        &self,
        id: &str,
        add: &[String],
        remove: &[String],
    ) -> Result<OrderOutcome, CommandError> {
        self.update_order(
            "change_order_prescriptions",
            id,
            OrderChanges {
                add: add.to_vec(),
                remove: remove.to_vec(),
                pharmacy: None,
            },
        )
        .await
    }

    /// Chooses the pharmacy by id, or leaves the choice to the patient.
    pub async fn choose_pharmacy(
        &self,
        order_id: &str,
        pharmacy_id: Option<&str>,
    ) -> Result<OrderOutcome, CommandError> {
        let reference = pharmacy_id.map(|p| PharmacyReferenceInput {
            id: Some(cynic::Id::new(p)),
            ..Default::default()
        });
        self.update_order(
            "choose_pharmacy",
            order_id,
            OrderChanges {
                pharmacy: Some(reference),
                ..Default::default()
            },
        )
        .await
    }

    async fn update_order(
        &self,
        name: &'static str,
        id: &str,
        changes: OrderChanges,
    ) -> Result<OrderOutcome, CommandError> {
        let (outcome, scope) = self
            .with_network(name, |net| {
                let changes = changes.clone();
                async move { net.update_order(id, changes).await }
            })
            .await?;
        Ok(self.order_outcome(&scope, outcome))
    }

    /// Pharmacies for the order: by name, near a place, by fulfilment.
    pub async fn find_pharmacies(
        &self,
        order_id: &str,
        search: &PharmacySearch,
    ) -> Result<PharmacyAnswer, CommandError> {
        let reference = pharmacy_reference(search)?;
        let (matches, scope) = self
            .with_network("find_pharmacies", |net| {
                let reference = reference.clone();
                async move { net.find_pharmacies(order_id, reference).await }
            })
            .await?;
        Ok(match matches {
            PharmacyMatches::Chosen(order) => PharmacyAnswer::Chosen {
                order: Box::new(self.opened_order(&scope, *order)),
            },
            PharmacyMatches::Options(choices) => PharmacyAnswer::Options {
                options: choices.iter().map(choice_view).collect(),
            },
            PharmacyMatches::Nothing(changes) => PharmacyAnswer::Nothing {
                reasons: change_notes(&changes),
            },
        })
    }

    /// Sends the order; when the network will not, its reasons are the notes.
    pub async fn send_order(&self, id: &str) -> Result<OrderOutcome, CommandError> {
        let (outcome, scope) = self
            .with_network("send_order", |net| async move { net.send_order(id).await })
            .await?;
        Ok(self.order_outcome(&scope, outcome))
    }

    pub async fn cancel_order(&self, id: &str) -> Result<OrderOutcome, CommandError> {
        let (outcome, scope) = self
            .with_network(
                "cancel_order",
                |net| async move { net.cancel_order(id).await },
            )
            .await?;
        Ok(self.order_outcome(&scope, outcome))
    }
}
