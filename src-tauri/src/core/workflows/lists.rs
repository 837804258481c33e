//! The work lists: "Recent patients", "Drafts awaiting signature", "Open
//! orders" and a patient's own prescriptions and orders — ids from the local
//! index, each record fetched live; an id the network no longer answers for is
//! dropped from the index and counted.

use std::collections::HashMap;

use futures::future::join_all;
use rxdesk_client::ClientError;
use rxdesk_client::network::Network;
use rxdesk_client::network::Outcome;

use super::AppCore;
use crate::convert::{order_view, prescription_view};
use crate::index::{LIST_LIMIT, Scope};
use crate::ipc::{
    CommandError, DraftRow, OrderState, OrderView, PatientWork, PrescriptionView, RecordKind,
    SigningState, WorkLists,
};

/// Orders not canceled: drafts and sent ones.
fn open(orders: Vec<OrderView>) -> Vec<OrderView> {
    orders
        .into_iter()
        .filter(|o| o.state != OrderState::Canceled)
        .collect()
}

/// How many recent prescriptions are looked at for drafts awaiting signature.
const DRAFTS_LOOKED_AT: usize = 50;

impl AppCore {
    /// The start screen's lists. Read as one batch: a session the network
    /// rejects is renewed silently and the batch read again.
    pub async fn work_lists(&self) -> Result<WorkLists, CommandError> {
        let (lists, _) = self
            .with_network_scoped("work_lists", |net, scope| async move {
                self.read_work_lists(&net, &scope).await
            })
            .await?;
        Ok(lists)
    }

    /// The open orders this workstation knows (drafts and sent ones), fetched
    /// live: what the pharmacy did shows in their `pharmacy` and `exceptions`.
    pub async fn open_orders(&self) -> Result<Vec<OrderView>, CommandError> {
        let (orders, _) = self
            .with_network_scoped("open_orders", |net, scope| async move {
                let ids = self.indexed(&scope, RecordKind::Order, LIST_LIMIT)?;
                let (orders, _) = self.fetch_orders(&net, &scope, &ids).await?;
                Ok::<_, CommandError>(open(orders))
            })
            .await?;
        Ok(orders)
    }

    async fn read_work_lists(
        &self,
        net: &Network,
        scope: &Scope,
    ) -> Result<WorkLists, CommandError> {
        let patient_ids = self.indexed(scope, RecordKind::Patient, LIST_LIMIT)?;
        let prescription_ids = self.indexed(scope, RecordKind::Prescription, DRAFTS_LOOKED_AT)?;
        let order_ids = self.indexed(scope, RecordKind::Order, LIST_LIMIT)?;
        // The three lists are independent: every Get of all three is sent at
        // once (one round trip on a slow link, not three).
        let (patients, prescriptions, orders) = futures::join!(
            join_all(
                patient_ids
                    .iter()
                    .map(|id| self.patient_row(net, scope, id))
            ),
            self.fetch_prescriptions(net, scope, &prescription_ids),
            self.fetch_orders(net, scope, &order_ids),
        );
        let mut dropped = 0;
        let mut recent_patients = Vec::new();
        for row in patients {
            match row? {
                Some(p) => recent_patients.push(p),
                None => dropped += 1,
            }
        }
        let mut names: HashMap<String, String> = recent_patients
            .iter()
            .map(|p| (p.id.clone(), p.name.clone()))
            .collect();

        let (prescriptions, gone) = prescriptions?;
        dropped += gone;
        let drafts: Vec<PrescriptionView> = prescriptions
            .into_iter()
            .filter(|p| p.signing != SigningState::Signed)
            .collect();
        let (orders, gone) = orders?;
        dropped += gone;
        // An order names its patient: no Get needed for those.
        for order in &orders {
            if let (Some(id), Some(name)) = (&order.patient_id, &order.patient_name) {
                names.entry(id.clone()).or_insert_with(|| name.clone());
            }
        }
        // The drafts' patients named nowhere else: each fetched once, together.
        let mut missing: Vec<&str> = drafts
            .iter()
            .filter_map(|d| d.patient_id.as_deref())
            .filter(|id| !names.contains_key(*id))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        let rows = join_all(missing.iter().map(|id| self.patient_row(net, scope, id))).await;
        for row in rows {
            if let Some(p) = row? {
                names.insert(p.id, p.name);
            }
        }
        let drafts = drafts
            .into_iter()
            .map(|prescription| DraftRow {
                patient_name: prescription
                    .patient_id
                    .as_ref()
                    .and_then(|id| names.get(id).cloned()),
                prescription,
            })
            .collect();
        let open_orders = open(orders);
        Ok(WorkLists {
            recent_patients,
            drafts,
            open_orders,
            dropped,
        })
    }

    /// The patient's prescriptions and orders this workstation knows, fetched live.
    pub async fn patient_work(&self, patient_id: &str) -> Result<PatientWork, CommandError> {
        let (work, _) = self
            .with_network_scoped("patient_work", |net, scope| async move {
                self.read_patient_work(&net, &scope, patient_id).await
            })
            .await?;
        Ok(work)
    }

    async fn read_patient_work(
        &self,
        net: &Network,
        scope: &Scope,
        patient_id: &str,
    ) -> Result<PatientWork, CommandError> {
        let prescription_ids = self
            .index
            .for_patient(scope, RecordKind::Prescription, patient_id)
            .map_err(|e| CommandError::app(e.to_string()))?;
        let order_ids = self
            .index
            .for_patient(scope, RecordKind::Order, patient_id)
            .map_err(|e| CommandError::app(e.to_string()))?;
        // Independent: every Get sent at once.
        let (prescriptions, orders) = futures::join!(
            self.fetch_prescriptions(net, scope, &prescription_ids),
            self.fetch_orders(net, scope, &order_ids),
        );
        let ((prescriptions, _), (orders, _)) = (prescriptions?, orders?);
        Ok(PatientWork {
            prescriptions,
            orders,
        })
    }

    fn indexed(
        &self,
        scope: &Scope,
        kind: RecordKind,
        limit: usize,
    ) -> Result<Vec<String>, CommandError> {
        self.index
            .recent(scope, kind, limit)
            .map(|entries| entries.into_iter().map(|e| e.id).collect())
            .map_err(|e| CommandError::app(e.to_string()))
    }

    /// The prescriptions still on the network, and how many ids were dropped.
    async fn fetch_prescriptions(
        &self,
        net: &Network,
        scope: &Scope,
        ids: &[String],
    ) -> Result<(Vec<PrescriptionView>, u32), CommandError> {
        let answers = join_all(ids.iter().map(|id| net.get_prescription(id))).await;
        self.still_there(
            scope,
            RecordKind::Prescription,
            ids,
            answers,
            prescription_view,
        )
    }

    /// The orders still on the network, and how many ids were dropped.
    async fn fetch_orders(
        &self,
        net: &Network,
        scope: &Scope,
        ids: &[String],
    ) -> Result<(Vec<OrderView>, u32), CommandError> {
        let answers = join_all(ids.iter().map(|id| net.get_order(id))).await;
        self.still_there(scope, RecordKind::Order, ids, answers, order_view)
    }

    /// The records Gets found, shown; the ids that found nothing dropped from
    /// the index and counted.
    fn still_there<R, C, V>(
        &self,
        scope: &Scope,
        kind: RecordKind,
        ids: &[String],
        answers: Vec<Result<Outcome<R, C>, ClientError>>,
        show: impl Fn(R) -> V,
    ) -> Result<(Vec<V>, u32), CommandError> {
        let mut found = Vec::new();
        let mut dropped = 0;
        for (id, answer) in ids.iter().zip(answers) {
            match answer?.into_record() {
                Some(record) => found.push(show(record)),
                None => {
                    self.forget(scope, kind, id);
                    dropped += 1;
                }
            }
        }
        Ok((found, dropped))
    }
}
