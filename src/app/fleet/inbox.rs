//! The decision inbox as part of the fleet's front: open or not, its view, and its
//! answers sent through each session's own [`Sender`] — the same client path, key per
//! answer and retry policy as an answer given inside the session — whose reports are handed
//! to the front (as its `FleetMsg::Answer`) and settle the action as a session's prompt
//! would ([`required::apply_answer_report`]).

use std::collections::HashMap;
use std::sync::Arc;

use crate::app::fleet::live::FleetLive;
use crate::app::shared::required;
use crate::app::shared::sender::{self, SendEvent, Sender};
use crate::session::Severity;
use crate::session::actions::answered_call;
use crate::ui::inbox::InboxView;
use gobare_api::client::ApiClient;
use gobare_api::model::Input;

/// The inbox kept with the fleet: open or not, and where it stood.
pub(crate) struct FleetInbox {
    pub(crate) view: InboxView,
    pub(crate) open: bool,
}

impl FleetInbox {
    pub(crate) fn new() -> FleetInbox {
        FleetInbox {
            view: InboxView::new(crate::deadline::workspace_lifetime_ms()),
            open: false,
        }
    }

    /// Opens it at the soonest deadline (F3, or `i`); `from_session`: F3 was pressed in
    /// that session, which Esc goes back to.
    pub(crate) fn open_at_soonest(&mut self, live: &FleetLive, from_session: Option<String>) {
        self.open = true;
        self.view.set_back_to(from_session);
        // What was said of an earlier answer is not news of this opening.
        self.view.set_message(None, false);
        self.view
            .select_soonest(&live.model(), gobare_api::clock::unix_ms());
    }

    /// Closes it: the session to go back to, when F3 opened it from one.
    pub(crate) fn close(&mut self) -> Option<String> {
        self.open = false;
        let back = self.view.back_to().map(str::to_string);
        self.view.set_back_to(None);
        back
    }

    /// One report of an answer's send: the action settles as in the session (a call
    /// nothing waits for any more leaves at once), and the outcome is said.
    pub(crate) fn on_answer(&mut self, session_id: &str, event: SendEvent, live: &FleetLive) {
        match event {
            SendEvent::Retrying { wait, .. } => {
                let secs = wait.as_secs_f32().ceil() as u64;
                self.view.set_message(
                    Some(format!("answer not sent yet — retrying in {secs} s")),
                    true,
                );
            }
            SendEvent::Settled(report) => {
                if let Some(waits) = live.model().waits_mut().get_mut(session_id) {
                    required::apply_answer_report(
                        self.view.prompt_mut(),
                        &mut waits.actions,
                        &report,
                    );
                }
                if let Some(call) = answered_call(&report.input) {
                    self.view.send_over(call);
                }
                self.view.regather();
                let outcome = &report.outcome;
                self.view.set_message(
                    Some(outcome.text.clone()),
                    outcome.severity >= Severity::Warn,
                );
            }
        }
    }
}

/// Where an answer's reports go, with its session: `false` once nobody listens.
pub(crate) type Reports = Arc<dyn Fn(String, SendEvent) -> bool + Send + Sync>;

/// Each answered session's sender, made on its first answer.
pub(crate) struct InboxAnswers {
    client: ApiClient,
    reports: Reports,
    senders: HashMap<String, Sender<ApiClient>>,
}

impl InboxAnswers {
    pub(crate) fn new(client: ApiClient, reports: Reports) -> InboxAnswers {
        InboxAnswers {
            client,
            reports,
            senders: HashMap::new(),
        }
    }

    /// Sends `input` to `session_id` as a session sends an answer: at once, under a key
    /// of its own, retried by the send policy.
    pub(crate) fn send(&mut self, session_id: &str, input: Input) {
        let sender = self
            .senders
            .entry(session_id.to_string())
            .or_insert_with(|| {
                let (sender, mut events) = Sender::new(
                    Arc::new(self.client.clone()),
                    session_id,
                    None,
                    sender::default_policy(),
                );
                let reports = self.reports.clone();
                let id = session_id.to_string();
                crate::app::shared::jobs::spawn(
                    crate::app::shared::jobs::Job::SendEvents,
                    async move {
                        while let Some(event) = events.recv().await {
                            if !reports(id.clone(), event) {
                                break;
                            }
                        }
                    },
                );
                sender
            });
        sender.send(input);
    }
}
