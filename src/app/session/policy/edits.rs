//! The session's rules, labels and model changed from their overlays: `R` lists the rules
//! (remove or edit any one), `l` edits the labels, `C` lists the credentials' models. Each
//! overlay shows the change whole and asks; what it sends is checked against the session
//! as read now (a list changed meanwhile is not replaced) and goes as one keyed `PATCH`, a
//! person's action, like every policy write.

use super::super::SessionFront;
use super::super::overlay_msg::OverlayMsg;
use crate::session::Severity;
use crate::sessions::labels;
use crate::sessions::policy::PolicyChange;
use crate::ui::overlays::labels_editor::LabelsEditor;
use crate::ui::overlays::model_picker::ModelPicker;
use crate::ui::overlays::rules_list::{Replacement, RulesList};
use gobare_api::credentials::Credentials;
use gobare_api::session_patch::SessionPatch;
use std::collections::BTreeMap;

impl SessionFront {
    /// `R` in the panes.
    pub(in crate::app::session) fn act_open_rules(&mut self) {
        if self.refused_read_only() {
            return;
        }
        match self.current_rules() {
            None => self.notice_at(
                Severity::Warn,
                "the session holds a rule this client cannot read, and a change replaces the \
                 whole list: the rules are not changed from here"
                    .into(),
            ),
            Some(rules) => self.screen.open_overlay(Box::new(RulesList::new(rules))),
        }
    }

    /// `l` in the panes.
    pub(in crate::app::session) fn act_edit_labels(&mut self) {
        if self.refused_read_only() {
            return;
        }
        let now = self
            .session
            .session_object()
            .map(labels::of)
            .unwrap_or_default();
        self.screen.open_overlay(Box::new(LabelsEditor::new(now)));
    }

    /// `C` in the panes: the picker opens at once and fills when the credentials are read.
    pub(in crate::app::session) fn act_pick_model(&mut self) {
        if self.refused_read_only() {
            return;
        }
        let agent = self.session.session_object().map(|s| &s.agent);
        let model = agent.and_then(|a| a.model.clone());
        let credential = agent.and_then(|a| a.model_credential_id.clone());
        self.screen
            .open_overlay(Box::new(ModelPicker::loading(model, credential)));
        let client = self.client.clone();
        self.spawn_for_overlay(async move {
            OverlayMsg::CredentialsRead(
                client
                    .list_model_credentials()
                    .await
                    .map_err(|e| e.summary()),
            )
        });
    }

    pub(in crate::app::session) fn on_credentials_read(
        &mut self,
        result: Result<Credentials, String>,
    ) {
        if let Some(picker) = self.screen.overlay_as::<ModelPicker>() {
            picker.listed(result);
        }
    }

    /// `y` in the rules list: `to` is sent only while the session's rules are still the
    /// `from` the list showed.
    pub(in crate::app::session) fn act_replace_rules(&mut self, asked: Replacement) {
        let Replacement { from, to, change } = asked;
        self.screen.close_overlay();
        if self.current_rules().as_ref() != Some(&from) {
            self.notice_at(
                Severity::Warn,
                "the session's rules changed meanwhile: nothing sent (R shows them as they are)"
                    .into(),
            );
            return;
        }
        self.write_policy(SessionPatch::rules(to), change);
    }

    /// `y` in the labels editor.
    pub(in crate::app::session) fn act_set_labels(&mut self, set: BTreeMap<String, String>) {
        self.screen.close_overlay();
        self.write_policy(SessionPatch::labels(set.clone()), PolicyChange::Labels(set));
    }

    /// `y` in the model picker.
    pub(in crate::app::session) fn act_switch_model(&mut self, model: String, credential: String) {
        self.screen.close_overlay();
        self.write_policy(
            SessionPatch::model(model.clone(), credential.clone()),
            PolicyChange::Model { model, credential },
        );
    }
}
