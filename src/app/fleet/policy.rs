//! The fleet's changes of labels and approval modes: `l` sets one session's labels, `M`
//! (confirmed, naming how many) the mode of every session shown. Each is a keyed `PATCH`
//! per session, a person's action; the sessions answered replace the rows'.

use super::FleetFront;
use super::msg::FleetMsg;
use crate::sessions::policy::{self, MODE_TIMING};
use gobare_api::session_patch::{ApprovalMode, SessionPatch};
use std::collections::BTreeMap;

impl FleetFront {
    pub(super) fn set_labels(&mut self, id: String, labels: BTreeMap<String, String>) {
        let (client, retry) = (self.client.clone(), self.retry.clone());
        self.spawn("setting the labels…", async move {
            let patch = SessionPatch::labels(labels);
            FleetMsg::LabelsSet(Box::new(policy::send(&client, &retry, &id, &patch).await))
        });
    }

    pub(super) fn set_mode(&mut self, ids: Vec<String>, mode: ApprovalMode) {
        let (client, retry) = (self.client.clone(), self.retry.clone());
        let saying = format!("setting approval mode {mode} on {} sessions…", ids.len());
        self.spawn(&saying, async move {
            let patch = SessionPatch::mode(mode);
            let mut set = Vec::new();
            let mut refused = Vec::new();
            for id in ids {
                match policy::send(&client, &retry, &id, &patch).await {
                    Ok(session) => set.push(session),
                    Err(e) => refused.push(e.summary()),
                }
            }
            FleetMsg::ModeSet { mode, set, refused }
        });
    }

    /// What a fleet policy write ended with.
    pub(super) fn on_policy_msg(&mut self, msg: FleetMsg) {
        let view = &mut self.state.view;
        let live = &self.state.live;
        match msg {
            FleetMsg::LabelsSet(result) => match *result {
                Ok(session) => {
                    live.apply_session(&session);
                    view.set_message(Some("labels set".into()), false);
                }
                Err(e) => view.set_message(
                    Some(format!("could not set the labels: {}", e.summary())),
                    true,
                ),
            },
            FleetMsg::ModeSet { mode, set, refused } => {
                for session in &set {
                    live.apply_session(session);
                }
                match refused.first() {
                    None => view.set_message(
                        Some(format!(
                            "approval mode {mode} on {} sessions: {MODE_TIMING}",
                            set.len()
                        )),
                        false,
                    ),
                    Some(first) => view.set_message(
                        Some(format!(
                            "approval mode {mode} on {} sessions; {} refused: {first}",
                            set.len(),
                            refused.len()
                        )),
                        true,
                    ),
                }
            }
            _ => {}
        }
    }
}
