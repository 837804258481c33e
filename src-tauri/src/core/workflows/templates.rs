//! Templates by name: the network has no list of templates, so the ones drafted
//! from at this workstation are kept in the local index with the names the
//! network answered (the template's own and its drug's) and offered as the user
//! types; an id pasted into the form is sent as it is. A template the network
//! refuses as unknown in the organization is no longer offered.

use rxdesk_client::network::documents::{Change, Prescription};

use super::AppCore;
use crate::convert::{refused_template, template_view, used_template};
use crate::index::Scope;
use crate::ipc::{CommandError, DraftForm, TemplateView};

/// How many templates are offered at once.
const OFFERED: usize = 10;

impl AppCore {
    /// The templates drafted from here, in this organization, whose name, drug
    /// or id holds `query`; the most recently used first (all of them, up to
    /// ten, for an empty query). Read from the local index only.
    pub async fn find_templates(&self, query: &str) -> Result<Vec<TemplateView>, CommandError> {
        let query = query.trim();
        crate::convert::plain_text("template", "The template", query)?;
        let (_, session, environment) = self.signed_in().await?;
        let scope = Scope {
            environment,
            organization: session.organization().id.clone(),
        };
        let found = self
            .index
            .templates(&scope, query, OFFERED)
            .map_err(|e| CommandError::app(e.to_string()))?;
        Ok(found.into_iter().map(template_view).collect())
    }

    /// A draft was saved from `form`: its template, if it came from one alone,
    /// is offered from now on. The index is a convenience: a failure to write
    /// it is logged, never a failed command.
    pub(super) fn template_used(
        &self,
        scope: &Scope,
        form: &DraftForm,
        saved: &Prescription,
        applied: &[Change],
    ) {
        let Some(template) = used_template(form, saved, applied) else {
            return;
        };
        if let Err(e) = self.index.remember_template(scope, &template) {
            tracing::warn!(error = %e, "local index not updated");
        }
    }

    /// A draft from `form` was not saved: a template the network does not know
    /// in this organization is no longer offered.
    pub(super) fn template_refused(&self, scope: &Scope, form: &DraftForm, unapplied: &[Change]) {
        let Some(id) = refused_template(form, unapplied) else {
            return;
        };
        if let Err(e) = self.index.forget_template(scope, &id) {
            tracing::warn!(error = %e, "local index not updated");
        }
    }
}
