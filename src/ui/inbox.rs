//! The decision inbox on screen (`i` in the fleet, F3 anywhere): every pending approval,
//! question and function call of the fleet, soonest deadline first, each with its
//! countdown, its session and the request in one line; answered in place.
//!
//! Answering is the session's own: the selected action is handed to a [`PromptState`] as
//! the only action of its session's facts, so the same keys decide it with the same
//! safety — only in a visible deciding mode (Tab), a sensitive approval takes a second `y`
//! (an approval whose event the fleet never saw counts as sensitive: only the event says),
//! and no letter is ever both text and a decision (text is typed only on the answer line,
//! `t`). The answer goes back to the caller as an [`InboxAction::Answer`], which sends it
//! through the session's sender. An approval takes a note as a session's does: typed on
//! its own line (`t`, the inbox has no box), shown with the decision (`y approve + note`),
//! and sent after it as a steer.

use std::collections::HashSet;

use gobare_api::model::{Input, RequiredActionKind};

use crate::fleet::inbox::{Gathered, InboxItem};
use crate::fleet::model::FleetModel;
use crate::keys::fleet::FleetScope;
use crate::session::actions::Actions;
use crate::ui::prompt::PromptState;

mod columns;
mod draw;
mod keys;
mod note;

/// Characters an answer typed on the answer line may have.
const REPLY_CHARS: usize = 4_000;

/// What a key in the inbox asks the caller to do.
#[derive(Debug, Clone, PartialEq)]
pub enum InboxAction {
    /// Send this answer to this session (the session's sender, its retry), then the
    /// approval's note, if one was typed, as a steer.
    Answer {
        session_id: String,
        input: Input,
        note: Option<String>,
    },
    /// Open this session.
    Open(String),
    /// Back to the fleet, or to the session F3 opened it from (`InboxView::back_to`).
    Close,
    /// The inbox used the key, or ignored it.
    Consumed,
}

/// Where the inbox's keys go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum InboxMode {
    /// Moving in the list: letters are commands.
    #[default]
    List,
    /// The selected action has the keys.
    Deciding,
    /// The second `y` of a sensitive approval.
    Confirm,
    /// Typing an answer.
    Reply(String),
    /// Typing the selected approval's note.
    Note(String),
}

/// The inbox's view state: the items as last drawn, the selection (by session and call,
/// so it stays on its action as the order changes), the mode, the prompt's view state and
/// the answers in flight.
#[derive(Debug, Clone)]
pub struct InboxView {
    /// The items as last drawn, in order, kept from frame to frame.
    gathered: Gathered,
    /// (session, call) of the selected action.
    selected: Option<(String, String)>,
    selected_index: usize,
    offset: usize,
    page_rows: usize,
    mode: InboxMode,
    prompt: PromptState,
    /// The note typed for an approval: (its call, the text). Sent with that call's
    /// decision only.
    note: Option<(String, String)>,
    /// Calls whose answer is being sent: not answered twice, shown as sending.
    sending: HashSet<String>,
    message: Option<(String, bool)>,
    /// How long the last frame stays true (the next second of a countdown).
    true_for_ms: Option<i64>,
    /// The workspace lifetime deadlines are counted against.
    lifetime_ms: i64,
    /// The session F3 opened the inbox from: Esc goes back to it.
    back_to: Option<String>,
}

impl InboxView {
    pub fn new(lifetime_ms: i64) -> InboxView {
        let mut prompt = PromptState::default();
        prompt.set_back("back to the list");
        prompt.set_typed_with("t");
        InboxView {
            gathered: Gathered::default(),
            selected: None,
            selected_index: 0,
            offset: 0,
            page_rows: 1,
            mode: InboxMode::List,
            prompt,
            note: None,
            sending: HashSet::new(),
            message: None,
            true_for_ms: None,
            lifetime_ms,
            back_to: None,
        }
    }

    /// The session Esc goes back to (`None`: the fleet).
    pub(crate) fn back_to(&self) -> Option<&str> {
        self.back_to.as_deref()
    }

    pub(crate) fn set_back_to(&mut self, session_id: Option<String>) {
        self.back_to = session_id;
    }

    /// Which rows of the key table have the keys now.
    pub(crate) fn scope(&self) -> FleetScope {
        match self.mode {
            InboxMode::List => FleetScope::Inbox,
            InboxMode::Deciding => FleetScope::InboxDeciding,
            InboxMode::Confirm => FleetScope::InboxConfirm,
            InboxMode::Reply(_) => FleetScope::InboxReply,
            InboxMode::Note(_) => FleetScope::InboxNote,
        }
    }

    /// The items as last drawn, in order.
    pub fn items(&self) -> &[InboxItem] {
        self.gathered.items()
    }

    /// The selected action: (session, call).
    pub fn selected(&self) -> Option<(&str, &str)> {
        self.selected
            .as_ref()
            .map(|(s, c)| (s.as_str(), c.as_str()))
    }

    /// A line for the user (`error` styles it as one); sanitized when drawn.
    pub fn set_message(&mut self, message: Option<String>, error: bool) {
        self.message = message.map(|m| (m, error));
    }

    /// How long the last frame stays true; `None`: until something changes.
    pub fn true_for(&self) -> Option<std::time::Duration> {
        self.true_for_ms
            .map(|ms| std::time::Duration::from_millis(ms.max(1) as u64))
    }

    /// Selects the soonest action, from the model as it is now (F3 from elsewhere).
    pub fn select_soonest(&mut self, model: &FleetModel, now: i64) {
        self.refresh(model, now);
        self.mode = InboxMode::List;
        self.select_at(0);
    }

    /// The next action after the selected one, soonest first, wrapping (F3 in the inbox).
    fn select_next(&mut self) {
        self.mode = InboxMode::List;
        let next = match self.current_index() {
            Some(i) if i + 1 < self.gathered.items().len() => i + 1,
            _ => 0,
        };
        self.select_at(next);
    }

    fn select_at(&mut self, index: usize) {
        let index = index.min(self.gathered.items().len().saturating_sub(1));
        self.selected_index = index;
        self.selected = self
            .gathered
            .items()
            .get(index)
            .map(|i| (i.session_id.clone(), i.call_id.clone()));
    }

    fn current_index(&self) -> Option<usize> {
        let (session, call) = self.selected.as_ref()?;
        if let Some(i) = self.gathered.items().get(self.selected_index)
            && i.session_id == *session
            && i.call_id == *call
        {
            return Some(self.selected_index);
        }
        self.gathered
            .items()
            .iter()
            .position(|i| i.session_id == *session && i.call_id == *call)
    }

    fn selected_item(&self) -> Option<&InboxItem> {
        self.current_index()
            .and_then(|i| self.gathered.items().get(i))
    }

    /// The items again, from `model` at `now`: the selection stays on its action, or —
    /// its action gone — on the one now at its place. Leaving the action it decided
    /// leaves the deciding mode.
    pub(crate) fn refresh(&mut self, model: &FleetModel, now: i64) {
        self.gathered.update(model, self.lifetime_ms, now);
        let items = self.gathered.items();
        self.sending
            .retain(|call| items.iter().any(|i| i.call_id == *call));
        match self.current_index() {
            Some(i) => self.selected_index = i,
            None => {
                if self.mode != InboxMode::List {
                    self.mode = InboxMode::List;
                    self.message = Some(("that one no longer waits".into(), false));
                }
                self.select_at(self.selected_index);
            }
        }
    }

    /// The selected action as its session's only one, as the prompt decides it.
    fn facts(&self, model: &FleetModel) -> Option<Actions> {
        let (session, call) = self.selected.as_ref()?;
        let mut facts = model.waits().get(session)?.actions.only(call)?;
        let approval = facts
            .pending()
            .first()
            .is_some_and(|a| a.kind == RequiredActionKind::Approval);
        if approval && !facts.knows_approval(call) {
            facts.mark_sensitive(call);
        }
        Some(facts)
    }

    /// The waits changed outside the model's versions (an answer's report settled one):
    /// gathered again at the next frame.
    pub(crate) fn regather(&mut self) {
        self.gathered.clear();
    }

    /// The send of `call_id`'s answer is over (accepted, refused or given up).
    pub(crate) fn send_over(&mut self, call_id: &str) {
        self.sending.remove(call_id);
        self.prompt.send_over(call_id);
    }

    /// Forgets the answers in flight (their reports went to a front that is gone).
    pub(crate) fn forget_sending(&mut self) {
        let calls: Vec<String> = self.sending.drain().collect();
        for call in calls {
            self.prompt.send_over(&call);
        }
    }

    /// The prompt's part, for the caller applying an answer's report.
    pub(crate) fn prompt_mut(&mut self) -> &mut PromptState {
        &mut self.prompt
    }
}

#[cfg(test)]
mod hint_walk;
#[cfg(test)]
mod tests;
