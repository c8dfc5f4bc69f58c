//! Acting on the session from the loop: the intents that send (message, steer, cancel with
//! its confirmation, answers), history, the draft and send history on disk, the pending send
//! resumed at start, the "while you were away" notice and notifications.
//!
//! [`Acting`] holds the state; the `impl SessionFront` below is the glue the loop calls from
//! `dispatch`, `on_msg`, `on_fetched`, the key handler and housekeeping.

use super::SessionFront;
use super::msg::AppMsg;
use super::pending_sends::{PendingSends, SendKind};
use crate::app::shared::notifications::Notifier;
use crate::app::shared::required;
use crate::app::shared::saved_session::{
    LockOrRecover, SaveDone, SavedSession, SharedSavedSession, away_notice,
};
use crate::app::shared::saving::{SaveNews, StateSaver};
use crate::app::shared::sender::{self, SendEvent, SendReport, Sender};
use crate::app::shared::settings::Settings;
use crate::keys::mode::Confirm;
use crate::notify::NotifyTarget;
use crate::session::Severity;
use crate::store::StateStore;
use crate::ui::composer::History;
use crate::ui::prompt::PromptState;
use gobare_api::client::ApiClient;
use gobare_api::model::{
    Content, Event, EventPayload, Input, RequiredAction, RequiredActionKind, Session, Turn,
};
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// Said when a message still queued on the server is back in the box.
const QUEUED_RECALL: &str =
    "queued on the server — cannot be withdrawn; Ctrl+S sends it as a steer instead";
use tokio::sync::mpsc;

/// Everything the loop keeps for acting on one session.
/// The question or function call a draft answers.
#[derive(Debug, Clone)]
struct AnswerTarget {
    call_id: String,
    expires_at: Option<i64>,
}

pub(crate) struct Acting {
    sender: Sender<ApiClient>,
    /// `None` when nothing is kept on disk (the demo).
    saved_session: Option<SharedSavedSession>,
    /// When `memory` is written.
    saver: StateSaver,
    pub(crate) history: History,
    pub(crate) notifier: Notifier,
    /// Message and steer texts in flight, shown above the draft.
    pending: PendingSends,
    /// When a pending send's countdown next changes on screen.
    pending_redraw_at: Option<Instant>,
    /// The workspace state stored at the last visit, compared once with the first read.
    stored_workspace: Option<Option<String>>,
    /// Ctrl+O was pressed: the app ends and the caller shows the fleet.
    wants_picker: bool,
    /// F3 was pressed: the fleet is shown with its inbox open.
    wants_inbox: bool,
    /// The call the draft in the box was begun as an answer to.
    answering: Option<AnswerTarget>,
    /// Every input handed to the sender, in order (what the key tests check).
    #[cfg(test)]
    pub(crate) sent: Vec<Input>,
}

impl Acting {
    /// Starts the send executor; its events are forwarded to the loop as
    /// [`AppMsg::Action`].
    pub(crate) fn new(
        client: &ApiClient,
        session_id: &str,
        store: Option<&StateStore>,
        settings: &Settings,
        msgs: mpsc::UnboundedSender<AppMsg>,
    ) -> Acting {
        let saved_session = store.map(|s| SavedSession::open(s.clone(), session_id).shared());
        let (sender, mut events) = Sender::new(
            Arc::new(client.clone()),
            session_id,
            saved_session.clone(),
            sender::default_policy(),
        );
        crate::app::shared::jobs::spawn(crate::app::shared::jobs::Job::SendEvents, async move {
            while let Some(event) = events.recv().await {
                if msgs.send(AppMsg::Action(event)).is_err() {
                    break;
                }
            }
        });
        let (history, stored_workspace) = match &saved_session {
            Some(m) => {
                let m = m.lock_or_recover();
                (m.history(), Some(m.state().workspace_state.clone()))
            }
            None => (History::default(), None),
        };
        Acting {
            sender,
            saved_session,
            saver: StateSaver::default(),
            history,
            notifier: Notifier::new(
                settings.notify_when,
                NotifyTarget::from_env(),
                gobare_api::clock::unix_ms(),
            )
            .choosing(&settings.notify)
            .for_session(session_id),
            pending: PendingSends::default(),
            pending_redraw_at: None,
            stored_workspace,
            wants_picker: false,
            wants_inbox: false,
            answering: None,
            #[cfg(test)]
            sent: Vec::new(),
        }
    }

    /// Hands `input` to the send executor: the one way anything reaches the server.
    fn submit(&mut self, input: Input) -> sender::SendTicket {
        #[cfg(test)]
        self.sent.push(input.clone());
        self.sender.send(input)
    }

    /// Whether the app ended to show the fleet.
    pub(crate) fn wants_picker(&self) -> bool {
        self.wants_picker
    }

    /// Whether the fleet it ended for should open its inbox.
    pub(crate) fn wants_inbox(&self) -> bool {
        self.wants_inbox
    }

    pub(crate) fn saved_session(&self) -> Option<&SharedSavedSession> {
        self.saved_session.as_ref()
    }

    fn with_saved_session(&self, f: impl FnOnce(&mut SavedSession)) {
        if let Some(m) = &self.saved_session {
            f(&mut m.lock_or_recover());
        }
    }
}

fn text_of(input: &Input) -> Option<(SendKind, String)> {
    match input {
        Input::Message { content } => Some((SendKind::Message, content.text())),
        Input::Steer { content } => Some((SendKind::Steer, content.text())),
        Input::Context { content } => Some((SendKind::Context, content.text())),
        _ => None,
    }
}

/// What a send that did not take leaves in the input box.
#[derive(Debug, PartialEq)]
struct GivenBack {
    in_box: String,
    /// The newer draft, kept in the sent-messages history (one ↑ away).
    stashed: Option<String>,
}

/// Refused for sure: the text comes back before whatever was typed since. Unanswered (it
/// may have arrived): it comes back alone, so Enter sends exactly it again under the same
/// key (the server then replays instead of acting twice), and a newer draft waits in the
/// history rather than being joined to it under a new key.
fn given_back(text: &str, draft: &str, unanswered: bool) -> GivenBack {
    if draft.trim().is_empty() {
        return GivenBack {
            in_box: text.to_string(),
            stashed: None,
        };
    }
    if unanswered {
        return GivenBack {
            in_box: text.to_string(),
            stashed: Some(draft.to_string()),
        };
    }
    GivenBack {
        in_box: format!("{text}\n{draft}"),
        stashed: None,
    }
}

impl SessionFront {
    /// At start: the draft back in the box, and a send left unconfirmed by the last run
    /// re-sent with its key (delivered once) — or reported if it cannot be.
    pub(crate) fn acting_start(&mut self) {
        let Some(saved_session) = self.acting.saved_session().cloned() else {
            return;
        };
        let (draft, pending) = {
            let m = saved_session.lock_or_recover();
            (m.state().draft.clone(), m.pending_send().cloned())
        };
        // A draft equal to the pending text is that send, not a second message.
        let draft_is_pending = pending.as_ref().is_some_and(|p| p.text == draft);
        if !draft.is_empty() && self.screen.composer.is_empty() && !draft_is_pending {
            self.screen.composer.set_text(&draft);
        }
        if draft_is_pending {
            self.acting.with_saved_session(|m| m.set_draft(""));
        }
        if let Some(pending) = pending {
            match self.acting.sender.resume_pending(&pending) {
                Some(ticket) => {
                    let kind = match pending.kind.as_str() {
                        "input.steer" => SendKind::Steer,
                        _ => SendKind::Message,
                    };
                    self.acting.pending.add(ticket, kind, pending.text.clone());
                    self.act_pending_changed();
                    self.notice(Some(
                        "re-sending a message the last run could not confirm (same key: it \
                         arrives once)"
                            .into(),
                    ));
                }
                None => self.notice_at(
                    Severity::Error,
                    "a send left unconfirmed by the last run could not be resumed".into(),
                ),
            }
        }
    }

    /// The question or function call the box's text would answer: the one shown, when it
    /// takes text.
    fn answerable(&self) -> Option<&RequiredAction> {
        PromptState::current(self.session.actions()).filter(|a| {
            matches!(
                a.kind,
                RequiredActionKind::Question | RequiredActionKind::FunctionCall
            )
        })
    }

    /// Whether Enter in the box answers (the title says "Enter answer"): a question or
    /// function call waits and the draft was begun for it (or there is none yet). A draft
    /// begun before it appeared stays a message: a decision never takes keys typed before it.
    pub(crate) fn enter_answers(&self) -> bool {
        let Some(action) = self.answerable() else {
            return false;
        };
        match &self.acting.answering {
            Some(target) => target.call_id == action.call_id,
            None => self.screen.composer.is_empty(),
        }
    }

    /// Enter: an answer to the question or function call the draft was begun for, else
    /// `input.message`. The text leaves the box for the pending line above it: what is typed
    /// next is a new draft, and a send that does not take gives its text back. A draft whose
    /// call went away (expired, answered elsewhere) stays in the box, and says so: the next
    /// Enter sends it as a message. Unchanged text that is already queued asks first: a
    /// queued message cannot be withdrawn, so a second one would be a duplicate.
    pub(crate) fn act_send(&mut self, text: String) {
        if let Some(target) = self.acting.answering.take() {
            let still_there = self
                .answerable()
                .is_some_and(|a| a.call_id == target.call_id);
            if !still_there {
                let expired = target
                    .expires_at
                    .is_some_and(|t| t <= gobare_api::clock::unix_ms());
                let what = if expired {
                    "the call expired — Enter sends this as a message"
                } else {
                    "what this answered no longer waits — Enter sends this as a message"
                };
                self.notice_at(Severity::Warn, what.into());
                return;
            }
            if !self.act_answer_with_text(text) {
                // Refused text stays in the box, still an answer: Enter never turns it into
                // a message behind the question.
                self.acting.answering = Some(target);
            }
            return;
        }
        // Nothing withdraws a queued message (§6.4): the same text again is a second one.
        if self.session.turn_running() && self.session.transcript().waiting_queue().holds(&text) {
            self.screen.ask(Confirm::QueueAgain);
            return;
        }
        self.send_message(text);
    }

    fn send_message(&mut self, text: String) {
        self.send_text(
            Input::Message {
                content: Content::Text(text),
            },
            true,
        );
    }

    /// After an approval's decision: the box's text, if any, goes to the agent at once as a
    /// steer (the parked turn reads it now; a message would only queue behind it).
    pub(crate) fn act_note_after_decision(&mut self) {
        if self.screen.composer.is_empty() {
            return;
        }
        let note = self.screen.composer.text().trim().to_string();
        self.acting.answering = None;
        self.act_steer(note);
    }

    /// Enter in the deciding mode with text in the box: the text answers what is shown.
    /// Returns whether it went out as the answer.
    pub(crate) fn act_answer_with_box(&mut self) -> bool {
        let text = self.screen.composer.text();
        if self.answerable().is_none() {
            self.notice(Some("this waits for y or n: text cannot answer it".into()));
            return false;
        }
        self.acting.answering = None;
        self.act_answer_with_text(text.trim().to_string())
    }

    /// Whether the box's text, as it is, would answer the decision shown (Enter while
    /// deciding): any text for a function call or an open question, an option's words for
    /// a question that takes only those.
    pub(crate) fn box_answers(&self) -> bool {
        let text = self.screen.composer.text();
        let Some(action) = self.answerable() else {
            return false;
        };
        if text.trim().is_empty() {
            return false;
        }
        let question = self.session.actions().question(action);
        action.kind == RequiredActionKind::FunctionCall
            || question.free_text_allowed()
            || question
                .options
                .iter()
                .any(|o| o.trim().eq_ignore_ascii_case(text.trim()))
    }

    /// Whether `text` went out as the answer.
    fn act_answer_with_text(&mut self, text: String) -> bool {
        if self.refused_read_only() {
            return false;
        }
        match self
            .screen
            .prompt
            .answer_with_text(self.session.actions(), &text)
        {
            Some(answer) => {
                self.act_answer(answer);
                self.screen.composer.clear();
                self.acting.with_saved_session(|m| m.set_draft(""));
                true
            }
            None => {
                let options = PromptState::current(self.session.actions())
                    .map(|a| self.session.actions().question(a).options)
                    .unwrap_or_default();
                let options: Vec<String> = options
                    .iter()
                    .map(|o| format!("“{}”", gobare_api::text::line(o)))
                    .collect();
                self.notice_at(
                    Severity::Warn,
                    format!(
                        "takes only one of its options: {} · Tab picks · your text stays",
                        options.join(", ")
                    ),
                );
                false
            }
        }
    }

    /// The first message of a new session, given on the command line (the box is not
    /// its source, so whatever is typed there stays).
    pub(crate) fn act_send_first(&mut self, text: String) {
        self.send_text(
            Input::Message {
                content: Content::Text(text),
            },
            false,
        );
    }

    /// Ctrl+S: `input.steer` (a 409 when nothing runs is explained, never converted).
    pub(crate) fn act_steer(&mut self, text: String) {
        self.send_text(
            Input::Steer {
                content: Content::Text(text),
            },
            true,
        );
    }

    /// Ctrl+T: information for the agent that starts no turn (a running agent reads it
    /// now, a sleeping one at its next turn).
    pub(crate) fn act_context(&mut self, text: String) {
        self.send_text(
            Input::Context {
                content: Content::Text(text),
            },
            true,
        );
    }

    /// One Enter, one send: the box (`from_box`) empties at once so that nothing typed from
    /// now on can change or repeat this send.
    pub(crate) fn send_text(&mut self, input: Input, from_box: bool) {
        let Some((kind, text)) = text_of(&input) else {
            return;
        };
        if self.refused_read_only() {
            return;
        }
        let ticket = self.acting.submit(input);
        self.acting.pending.add(ticket, kind, text);
        if from_box {
            self.screen.composer.clear();
            self.acting.with_saved_session(|m| m.set_draft(""));
            self.screen.follow_transcript();
        }
        self.act_pending_changed();
        self.notice(Some("sending…".into()));
    }

    /// The pending sends shown above the draft, and when their countdown next changes.
    fn act_pending_changed(&mut self) {
        let now = Instant::now();
        self.screen
            .composer
            .set_pending(self.acting.pending.labels(now));
        self.acting.pending_redraw_at = self.acting.pending.next_change(now);
        self.request_frame();
    }

    /// When the pending sends' countdown must be redrawn; `None` when none runs.
    pub(crate) fn act_pending_due_at(&self) -> Option<Instant> {
        self.acting.pending_redraw_at
    }

    /// Redraws the countdown of a send waiting out a `Retry-After`, if due.
    pub(crate) fn act_pending_tick(&mut self, now: Instant) {
        if self.acting.pending_redraw_at.is_some_and(|at| at <= now) {
            self.act_pending_changed();
        }
    }

    /// An answer to a required action, from the prompt's keys or text.
    pub(crate) fn act_answer(&mut self, answer: Input) {
        if self.refused_read_only() {
            return;
        }
        self.acting.submit(answer);
    }

    /// Ctrl+O: leave for the fleet (the draft is saved on the way out).
    pub(crate) fn act_open_picker(&mut self) {
        if self.spoken.is_some() {
            self.notice(Some(
                "the fleet is full-screen; in this mode `gobare-tui list` lists the sessions"
                    .into(),
            ));
            return;
        }
        self.acting.wants_picker = true;
        self.quit();
    }

    /// F3: the fleet's inbox, at the soonest deadline (Ctrl+O's way out, then the inbox).
    pub(crate) fn act_next_decision(&mut self) {
        self.act_open_picker();
        self.acting.wants_inbox = self.acting.wants_picker;
    }

    /// Ctrl+X: ask first (finished work is kept, §6.4); with nothing running, say so.
    pub(crate) fn act_cancel(&mut self) {
        if self.refused_read_only() {
            return;
        }
        if self.session.turn_running() {
            self.screen.ask(Confirm::CancelTurn);
        } else {
            self.notice_at(Severity::Warn, "nothing is running to cancel".into());
        }
    }

    /// The answer to the confirmation in the input area.
    pub(crate) fn act_confirmed(&mut self, confirm: Confirm, yes: bool) {
        match (confirm, yes) {
            (Confirm::CancelTurn, true) => {
                self.acting.submit(Input::Cancel {});
                self.notice(Some("cancelling the turn…".into()));
            }
            (Confirm::CancelTurn, false) => self.notice(Some("not cancelled".into())),
            (Confirm::Quit { .. }, true) => self.quit(),
            (Confirm::Quit { .. }, false) => self.notice(None),
            (Confirm::ApproveSensitive { call_id }, true) => {
                self.enter_decided();
                if let Some(input) = self
                    .screen
                    .prompt
                    .approve_confirmed(self.session.actions(), &call_id)
                {
                    self.act_answer(input);
                    self.act_note_after_decision();
                }
            }
            (Confirm::PublishPreview, true) => self.act_preview(true),
            (Confirm::UnpublishPreview, true) => self.act_preview(false),
            (Confirm::PublishPreview | Confirm::UnpublishPreview, false) => {
                self.notice(Some("preview left as it was".into()));
            }
            (Confirm::ApproveSensitive { .. }, false) => {
                self.notice(Some("not approved: y to approve, n to deny".into()));
            }
            (Confirm::QueueAgain, true) => {
                let text = self.screen.composer.text().trim().to_string();
                self.send_message(text);
            }
            (Confirm::QueueAgain, false) => {
                self.notice(Some(QUEUED_RECALL.into()));
            }
            (
                Confirm::RuleFromApproval {
                    call_id,
                    approve,
                    rule,
                    ..
                },
                true,
            ) => self.act_rule_confirmed(&call_id, approve, rule),
            (Confirm::RuleFromApproval { .. }, false) => {
                self.notice(Some("nothing decided, no rule added".into()));
            }
            (Confirm::SetMode(mode), true) => self.act_mode_confirmed(mode),
            (Confirm::SetMode(_), false) => {
                self.notice(Some("approval mode left as it was".into()))
            }
            (Confirm::RemoveRule(rule), true) => self.act_remove_confirmed(rule),
            (Confirm::RemoveRule(_), false) => self.notice(Some("the rule stays".into())),
        }
        self.request_frame();
    }

    /// Up/Down at the first/last line of the box.
    pub(crate) fn act_history(&mut self, older: bool) {
        let current = self.screen.composer.text();
        let text = if older {
            self.acting.history.older(&current)
        } else {
            self.acting.history.newer()
        };
        if let Some(text) = text {
            self.screen.composer.set_text(&text);
            self.act_draft_changed();
            if self.session.transcript().waiting_queue().holds(&text) {
                self.notice_at(Severity::Warn, QUEUED_RECALL.into());
            }
        }
    }

    /// After any edit of the box: the draft is saved (rate-limited, its text read then).
    pub(crate) fn act_draft_changed(&mut self) {
        self.acting
            .with_saved_session(SavedSession::note_draft_edited);
        if self.screen.composer.is_empty() {
            self.acting.answering = None;
        }
    }

    /// After a key or paste into the box: a draft begun now (the box was empty) answers what
    /// waits now, and nothing that comes later.
    pub(crate) fn act_draft_typed(&mut self, was_empty: bool) {
        self.act_draft_changed();
        if was_empty && !self.screen.composer.is_empty() {
            self.acting.answering = self.answerable().map(|a| AnswerTarget {
                call_id: a.call_id.clone(),
                expires_at: a.expires_at,
            });
        }
    }

    /// One report from the send executor.
    pub(crate) fn on_action(&mut self, event: SendEvent) {
        match event {
            SendEvent::Retrying { ticket, wait, .. } => {
                self.acting.pending.retrying(ticket, Instant::now() + wait);
                self.act_pending_changed();
                let secs = wait.as_secs_f32().ceil() as u64;
                self.notice_at(
                    Severity::Warn,
                    format!("send failed — retrying in {secs} s"),
                );
            }
            SendEvent::Settled(report) => self.on_send_settled(*report),
        }
        self.request_frame();
    }

    pub(crate) fn on_send_settled(&mut self, report: SendReport) {
        self.acting.sender.note_settled(&report);
        if self.acting.pending.settled(report.ticket).is_some() {
            self.act_pending_changed();
        }
        if let (Some(text), true) = (&report.text, report.accepted()) {
            self.acting.history.push(text);
            self.silence.on_sent(Instant::now());
        }
        let mut stashed_draft = false;
        if let (Some(text), true) = (&report.text, report.outcome.keep_draft) {
            let draft = self.screen.composer.text();
            let back = given_back(text, &draft, report.unanswered);
            if let Some(stashed) = &back.stashed {
                // Like a sent text, a stashed draft is one ↑ away after a restart too.
                self.acting.history.push(stashed);
                self.acting.with_saved_session(|m| m.push_history(stashed));
                stashed_draft = true;
            }
            self.screen.composer.set_text(&back.in_box);
            self.act_draft_changed();
        }
        required::apply_answer_report(&mut self.screen.prompt, self.session.actions_mut(), &report);
        if let Some((severity, text)) =
            settled_notice(&report, stashed_draft, self.session.turn_running())
        {
            self.notice_at(severity, text);
        }
    }

    /// Each persisted or transient event: sensitive approvals are remembered across restarts.
    pub(crate) fn act_on_event(&mut self, event: &Event) {
        match &event.payload {
            EventPayload::ApprovalRequested(a) if a.sensitive => {
                self.acting
                    .with_saved_session(|m| m.set_sensitive(&a.tool_call_id, true));
            }
            EventPayload::ApprovalResolved(r) => {
                self.acting
                    .with_saved_session(|m| m.set_sensitive(&r.tool_call_id, false));
            }
            // The call the draft was typed for ended unanswered: said now, not at Enter.
            EventPayload::ToolResolved(f)
                if !f.success
                    && self
                        .acting
                        .answering
                        .as_ref()
                        .is_some_and(|t| t.call_id == f.tool_call_id) =>
            {
                self.notice_at(
                    Severity::Warn,
                    "the call expired — your text stays; Enter sends it as a message".into(),
                );
            }
            _ => {}
        }
    }

    /// At start: approvals the last run saw asked as sensitive stay sensitive (the history
    /// the server gives back does not carry the flag).
    pub(crate) fn act_restore_sensitive(&mut self) {
        let calls = self
            .acting
            .saved_session()
            .map(|m| m.lock_or_recover().sensitive_calls().clone())
            .unwrap_or_default();
        self.session.know_sensitive(&calls);
    }

    /// A fresh read of the session: notifications, the workspace state kept, and once, how
    /// it changed while the user was away.
    pub(crate) fn act_on_session(&mut self, session: &Session) {
        let title =
            crate::sessions::first_message::title(session).unwrap_or_else(|| self.session_name());
        if let Some(bytes) = self.acting.notifier.actions_refreshed(
            &session.required_actions,
            &title,
            Instant::now(),
        ) {
            self.write_notification(&bytes);
        }
        let current = session.environment.state.as_ref();
        if let Some(stored) = self.acting.stored_workspace.take()
            && let Some(line) = away_notice(stored.as_deref(), current)
        {
            self.notice(Some(line));
        }
        self.acting
            .with_saved_session(|m| m.set_workspace_state(current));
    }

    /// A turn read after `turn.ended`.
    pub(crate) fn act_on_turn(&mut self, turn: &Turn) {
        let title = self.session_name();
        if let Some(bytes) = self
            .acting
            .notifier
            .turn_fetched(turn, &title, Instant::now())
        {
            self.write_notification(&bytes);
        }
    }

    /// The session's own news held within its window, told as one once the window is over.
    pub(crate) fn act_own_news_due(&mut self, now: Instant) {
        if let Some(bytes) = self.acting.notifier.own_due(now) {
            self.write_notification(&bytes);
        }
    }

    /// A session in the fleet behind came to need the user: announced unless it is this
    /// one (its own read of the session announces it).
    pub(crate) fn act_on_fleet_news(&mut self, news: &crate::fleet::news::FleetNews) {
        use crate::notify::kind::NotifyKind as K;
        // What it waits on and how its turns end, this session's own reads tell; its
        // clock's alarms come from the fleet.
        let own = matches!(
            news.kind,
            K::Approval | K::Question | K::FunctionCall | K::TurnFailed
        );
        if news.id == self.session_id && news.count == 1 && own {
            return;
        }
        if let Some(bytes) = self.acting.notifier.fleet_news(news) {
            self.write_notification(&bytes);
        }
    }

    /// How a notification names this session: its title, else its first message, else
    /// its id's start (sanitized, one line).
    pub(crate) fn session_name(&self) -> String {
        if let Some(title) = self.session.title().filter(|t| !t.trim().is_empty()) {
            return gobare_api::text::one_line(title, 60);
        }
        let first = self
            .session
            .transcript()
            .entries()
            .iter()
            .find_map(|e| match &e.kind {
                crate::session::transcript::EntryKind::User { text } => Some(text.clone()),
                _ => None,
            });
        match first {
            Some(text) => gobare_api::text::one_line(&text, 60),
            None => format!(
                "session {}",
                gobare_api::text::one_line(&self.session_id, 8)
            ),
        }
    }

    pub(crate) fn act_on_focus(&mut self, focused: bool) {
        self.acting.notifier.set_focused(focused);
        self.away_focus(focused, Instant::now());
    }

    pub(crate) fn write_notification(&mut self, bytes: &[u8]) {
        let backend = self.tui.backend_mut();
        if let Err(e) = backend.write_all(bytes).and_then(|()| backend.flush()) {
            tracing::warn!(error = %e, "could not write a notification");
        }
    }

    /// The stream cursor, kept with the rest of the session's state.
    pub(crate) fn act_cursor(&mut self, cursor: Option<u64>) {
        if let Some(seq) = cursor {
            self.acting.with_saved_session(|m| m.set_cursor(seq));
        }
    }

    /// When the session state must next be written.
    pub(crate) fn act_save_due_at(&self, now: Instant) -> Option<Instant> {
        let dirty = self.acting.saved_session()?.lock_or_recover().is_dirty();
        self.acting.saver.due_at(now, dirty)
    }

    /// Starts writing the session state on a blocking thread if a write is due.
    pub(crate) fn act_save(&mut self, now: Instant) {
        let Some(saved_session) = self.acting.saved_session().cloned() else {
            return;
        };
        let mut m = saved_session.lock_or_recover();
        if !self.acting.saver.is_due(now, m.is_dirty()) {
            return;
        }
        m.sync_draft(|| self.screen.composer.text());
        let Some(job) = m.save_job() else {
            return;
        };
        drop(m);
        let msgs = self.msgs.clone();
        self.acting.saver.start(now, job, move |done| {
            let _ = msgs.send(AppMsg::StateSaved(done));
        });
    }

    /// A write started by [`Self::act_save`] ended.
    pub(crate) fn on_state_saved(&mut self, done: SaveDone) {
        let Some(saved_session) = self.acting.saved_session().cloned() else {
            return;
        };
        let news = self
            .acting
            .saver
            .finished(done, &mut saved_session.lock_or_recover());
        match news {
            Some(SaveNews::Failing(line)) => self.notice_at(Severity::Error, line),
            Some(SaveNews::Recovered) => {
                self.notice(Some("state saved again — the draft is on disk".into()));
            }
            None => {}
        }
    }

    /// Writes the session state now, on this thread (on exit); what it could not write.
    pub(crate) fn act_flush(&mut self) -> Option<crate::app::shared::unsaved::Unsaved> {
        let text = || self.screen.composer.text();
        let mut unsaved = None;
        self.acting.with_saved_session(|m| {
            m.sync_draft(text);
            if let Err(e) = m.flush() {
                tracing::warn!("cannot save the session state on exit: {e}");
                unsaved = Some(m.unsaved(&e));
            }
        });
        unsaved
    }
}

/// What the status bar says of a settled send, if anything. The cancel's 202 can come after
/// `turn.ended`: "cancelling…" would then describe a turn that is over, and the
/// transcript's separator already says how it ended.
fn settled_notice(
    report: &SendReport,
    stashed_draft: bool,
    turn_running: bool,
) -> Option<(Severity, String)> {
    if matches!(report.input, Input::Cancel {}) && report.accepted() && !turn_running {
        return None;
    }
    let mut text = report.outcome.text.clone();
    if report.recovered {
        text = format!("your unconfirmed message: {text}");
    }
    if stashed_draft {
        text.push_str(" · your newer draft is one ↑ away");
    }
    if report.outcome.severity >= Severity::Warn || report.unanswered {
        tracing::info!(outcome = %text, "send settled");
    }
    Some((report.outcome.severity, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cancel_report() -> SendReport {
        let input = Input::Cancel {};
        let reply: gobare_api::model::InputAccepted =
            serde_json::from_value(serde_json::json!({"status": "accepted"})).unwrap();
        SendReport {
            ticket: sender::SendTicket(1),
            outcome: crate::app::shared::send_outcome::accepted(&input, &reply),
            input,
            key: "k".into(),
            text: None,
            recovered: false,
            attempts: 1,
            result: Ok(reply),
            unanswered: false,
        }
    }

    #[test]
    fn a_cancel_accepted_after_its_turn_ended_says_nothing() {
        let report = cancel_report();
        let (_, text) = settled_notice(&report, false, true).expect("turn still running");
        assert!(text.starts_with("cancelling"), "{text}");
        assert_eq!(settled_notice(&report, false, false), None);
    }

    #[test]
    fn a_refused_send_comes_back_before_the_newer_draft() {
        let back = given_back("first", "second", false);
        assert_eq!(back.in_box, "first\nsecond");
        assert_eq!(back.stashed, None);
    }

    /// Joined to the draft it would go out under a new key, and if the first attempt did
    /// arrive, its text twice: alone it is the same text, so the same key.
    #[test]
    fn an_unanswered_send_comes_back_alone_and_the_newer_draft_waits_in_history() {
        let back = given_back("first", "second", true);
        assert_eq!(back.in_box, "first");
        assert_eq!(back.stashed.as_deref(), Some("second"));
        let alone = given_back("first", "  ", true);
        assert_eq!((alone.in_box.as_str(), alone.stashed), ("first", None));
    }
}
