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
//! through the session's sender.

use std::collections::HashSet;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use gobare_api::model::{Input, RequiredActionKind};

use crate::fleet::inbox::{Gathered, InboxItem};
use crate::fleet::model::FleetModel;
use crate::keys::table::fleet_key;
use crate::session::actions::Actions;
use crate::ui::fleet_keys::{FleetKey, FleetScope};
use crate::ui::mode::Confirm;
use crate::ui::prompt::{PromptAction, PromptState};

mod draw;

/// Characters an answer typed on the answer line may have.
const REPLY_CHARS: usize = 4_000;

/// What a key in the inbox asks the caller to do.
#[derive(Debug, Clone, PartialEq)]
pub enum InboxAction {
    /// Send this answer to this session (the session's sender, its retry).
    Answer { session_id: String, input: Input },
    /// Open this session.
    Open(String),
    /// Back to the fleet.
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
    /// Calls whose answer is being sent: not answered twice, shown as sending.
    sending: HashSet<String>,
    message: Option<(String, bool)>,
    /// How long the last frame stays true (the next second of a countdown).
    true_for_ms: Option<i64>,
    /// The workspace lifetime deadlines are counted against.
    lifetime_ms: i64,
}

impl InboxView {
    pub fn new(lifetime_ms: i64) -> InboxView {
        let mut prompt = PromptState::default();
        prompt.set_back("back to the list");
        InboxView {
            gathered: Gathered::default(),
            selected: None,
            selected_index: 0,
            offset: 0,
            page_rows: 1,
            mode: InboxMode::List,
            prompt,
            sending: HashSet::new(),
            message: None,
            true_for_ms: None,
            lifetime_ms,
        }
    }

    /// Which rows of the key table have the keys now.
    pub(crate) fn scope(&self) -> FleetScope {
        match self.mode {
            InboxMode::List => FleetScope::Inbox,
            InboxMode::Deciding => FleetScope::InboxDeciding,
            InboxMode::Confirm => FleetScope::InboxConfirm,
            InboxMode::Reply(_) => FleetScope::InboxReply,
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

    /// A key, as the key table's rows for [`Self::scope`] route it.
    pub fn handle_key(&mut self, key: KeyEvent, model: &FleetModel) -> InboxAction {
        if key.kind == KeyEventKind::Release {
            return InboxAction::Consumed;
        }
        let Some(meant) = fleet_key(self.scope(), key.code, key.modifiers) else {
            return self.unrouted(key);
        };
        if meant == FleetKey::NextDecision {
            self.select_next();
            return InboxAction::Consumed;
        }
        match std::mem::take(&mut self.mode) {
            InboxMode::List => self.list_key(meant),
            InboxMode::Deciding => self.deciding_key(meant, key, model),
            InboxMode::Confirm => self.confirm_key(meant, model),
            InboxMode::Reply(text) => self.reply_key(meant, text, model),
        }
    }

    /// A key no row has: text on the answer line; a word on Enter at the sensitive
    /// question; nothing elsewhere.
    fn unrouted(&mut self, key: KeyEvent) -> InboxAction {
        match &mut self.mode {
            InboxMode::Reply(text) => {
                if let KeyCode::Char(c) = key.code
                    && !key
                        .modifiers
                        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
                    && text.chars().count() < REPLY_CHARS
                {
                    text.push(c);
                }
            }
            InboxMode::Confirm => {
                let why = Confirm::ApproveSensitive {
                    call_id: String::new(),
                }
                .enter_refusal();
                self.message = Some((why.into(), false));
            }
            _ => {}
        }
        InboxAction::Consumed
    }

    fn list_key(&mut self, key: FleetKey) -> InboxAction {
        let last = self.gathered.items().len().saturating_sub(1);
        let index = self.current_index().unwrap_or(self.selected_index);
        let page = self.page_rows.max(1);
        let target = match key {
            FleetKey::Back => return InboxAction::Close,
            FleetKey::Open => {
                return self.selected_item().map_or(InboxAction::Consumed, |i| {
                    InboxAction::Open(i.session_id.clone())
                });
            }
            FleetKey::Decide => {
                self.decide();
                return InboxAction::Consumed;
            }
            FleetKey::Up => index.saturating_sub(1),
            FleetKey::Down => index + 1,
            FleetKey::PageUp => index.saturating_sub(page),
            FleetKey::PageDown => index + page,
            FleetKey::Top => 0,
            FleetKey::Bottom => last,
            _ => return InboxAction::Consumed,
        };
        self.message = None;
        self.select_at(target);
        InboxAction::Consumed
    }

    /// Tab: the selected action gets the keys, if it can be answered here and now.
    fn decide(&mut self) {
        let Some(item) = self.selected_item() else {
            self.message = Some(("nothing waits on you".into(), false));
            return;
        };
        let why_not = if self.sending.contains(&item.call_id) {
            Some("its answer is being sent")
        } else if !item.answerable {
            Some("its listing is being read (the answer names its turn): a moment")
        } else {
            None
        };
        match why_not {
            Some(why) => self.message = Some((why.into(), false)),
            None => {
                self.message = None;
                self.mode = InboxMode::Deciding;
            }
        }
    }

    fn deciding_key(&mut self, key: FleetKey, raw: KeyEvent, model: &FleetModel) -> InboxAction {
        self.mode = InboxMode::Deciding;
        let Some(facts) = self.facts(model) else {
            self.mode = InboxMode::List;
            self.message = Some(("that one no longer waits".into(), false));
            return InboxAction::Consumed;
        };
        match key {
            FleetKey::Back => {
                self.mode = InboxMode::List;
                InboxAction::Consumed
            }
            FleetKey::Reply => {
                let takes_text = facts.pending().first().is_some_and(|a| match a.kind {
                    RequiredActionKind::FunctionCall => true,
                    RequiredActionKind::Question => facts
                        .listed()
                        .next()
                        .is_some_and(|l| facts.question(l).free_text_allowed()),
                    _ => false,
                });
                if takes_text {
                    self.mode = InboxMode::Reply(String::new());
                } else {
                    self.message = Some((
                        "this one takes y or n, or one of its options: no typed answer".into(),
                        false,
                    ));
                }
                InboxAction::Consumed
            }
            FleetKey::Answer => match self.prompt.handle_key(&facts, raw) {
                PromptAction::Answer(input) => self.answered(input),
                PromptAction::ConfirmSensitive(_) => {
                    self.mode = InboxMode::Confirm;
                    InboxAction::Consumed
                }
                PromptAction::Explain(why) => {
                    self.message = Some((why.into(), false));
                    InboxAction::Consumed
                }
                PromptAction::Consumed | PromptAction::NotMine => InboxAction::Consumed,
            },
            _ => InboxAction::Consumed,
        }
    }

    fn confirm_key(&mut self, key: FleetKey, model: &FleetModel) -> InboxAction {
        match key {
            FleetKey::Yes => {
                let input = self.facts(model).and_then(|facts| {
                    let call = facts.pending().first()?.call_id.clone();
                    self.prompt.approve_confirmed(&facts, &call)
                });
                match input {
                    Some(input) => self.answered(input),
                    None => {
                        self.message = Some(("that one no longer waits".into(), false));
                        InboxAction::Consumed
                    }
                }
            }
            FleetKey::No => {
                self.mode = InboxMode::Deciding;
                self.message = Some(("not approved: y to approve, n to deny".into(), false));
                InboxAction::Consumed
            }
            _ => {
                self.mode = InboxMode::Confirm;
                InboxAction::Consumed
            }
        }
    }

    fn reply_key(&mut self, key: FleetKey, mut text: String, model: &FleetModel) -> InboxAction {
        match key {
            FleetKey::Cancel => {
                self.mode = InboxMode::Deciding;
                return InboxAction::Consumed;
            }
            FleetKey::Erase => {
                text.pop();
            }
            FleetKey::EraseAll => text.clear(),
            FleetKey::Done => {
                let input = self
                    .facts(model)
                    .and_then(|facts| self.prompt.answer_with_text(&facts, text.trim()));
                if let Some(input) = input {
                    return self.answered(input);
                }
                self.message = Some((
                    "not an answer it takes: type one of its options, or Esc".into(),
                    true,
                ));
            }
            _ => {}
        }
        self.mode = InboxMode::Reply(text);
        InboxAction::Consumed
    }

    /// An answer leaves for the server; the list gets the keys back (a second `y` pressed
    /// in haste decides nothing there).
    fn answered(&mut self, input: Input) -> InboxAction {
        self.mode = InboxMode::List;
        let Some((session_id, call)) = self.selected.clone() else {
            return InboxAction::Consumed;
        };
        self.sending.insert(call);
        self.message = Some(("sending…".into(), false));
        InboxAction::Answer { session_id, input }
    }
}

#[cfg(test)]
mod tests;
