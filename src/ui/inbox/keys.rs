//! The inbox's keys, as the key table routes them for its mode: moving in the list,
//! deciding the selected action with the session's own prompt, the second `y` of a
//! sensitive approval, and the answer line.

use crate::ui::fleet::moved_to;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use gobare_api::model::{Input, RequiredActionKind};

use super::{InboxAction, InboxMode, InboxView, REPLY_CHARS};
use crate::fleet::model::FleetModel;
use crate::keys::fleet::FleetKey;
use crate::keys::mode::Confirm;
use crate::keys::table::fleet_key;
use crate::ui::prompt::PromptAction;

impl InboxView {
    /// A key, as the key table's rows for `Self::scope` route it.
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
            InboxMode::Note(text) => self.note_key(meant, text),
        }
    }

    /// A key no row has: text on the answer line; a word on Enter at the sensitive
    /// question; nothing elsewhere.
    fn unrouted(&mut self, key: KeyEvent) -> InboxAction {
        match &mut self.mode {
            InboxMode::Reply(text) | InboxMode::Note(text) => {
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
            moving => match moved_to(moving, index, page, last) {
                Some(target) => target,
                None => return InboxAction::Consumed,
            },
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
            FleetKey::Reply if self.approving(&facts) => {
                self.start_note();
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
                    self.message = None;
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
                self.message = Some((
                    "this key does not answer: y approves, n or Esc goes back".into(),
                    false,
                ));
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
        let note = self.take_note_for(&input);
        self.message = Some((
            if note.is_some() {
                "sending… (the note after it)"
            } else {
                "sending…"
            }
            .into(),
            false,
        ));
        self.sending.insert(call);
        InboxAction::Answer {
            session_id,
            input,
            note,
        }
    }
}
