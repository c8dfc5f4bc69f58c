//! An approval's note in the inbox, as a session takes one: a session's box text goes
//! along with `y` or `n` as a steer; the inbox has no box, so `t` opens a line for the
//! note, Enter keeps it (the prompt then says `y approve + note · n deny + note`), and the
//! decision sends it after the approval. A note belongs to the call it was typed for.

use gobare_api::model::{Input, RequiredActionKind};

use super::{InboxAction, InboxMode, InboxView, REPLY_CHARS};
use crate::keys::fleet::FleetKey;
use crate::session::actions::Actions;

impl InboxView {
    /// Whether the action decided is an approval (whose `t` types a note).
    pub(super) fn approving(&self, facts: &Actions) -> bool {
        facts
            .pending()
            .first()
            .is_some_and(|a| a.kind == RequiredActionKind::Approval)
    }

    /// `t` on an approval: the note line, holding the note typed before for it.
    pub(super) fn start_note(&mut self) {
        let kept = self.note_for_selected().unwrap_or_default().to_string();
        self.message = None;
        self.mode = InboxMode::Note(kept);
    }

    /// A key on the note line.
    pub(super) fn note_key(&mut self, key: FleetKey, mut text: String) -> InboxAction {
        match key {
            FleetKey::Cancel => {
                self.set_note(None);
                self.mode = InboxMode::Deciding;
                return InboxAction::Consumed;
            }
            FleetKey::Done => {
                let kept = text.trim().to_string();
                self.set_note((!kept.is_empty()).then_some(kept));
                self.mode = InboxMode::Deciding;
                return InboxAction::Consumed;
            }
            FleetKey::Erase => {
                text.pop();
            }
            FleetKey::EraseAll => text.clear(),
            _ => {}
        }
        text.truncate(
            text.char_indices()
                .nth(REPLY_CHARS)
                .map_or(text.len(), |(i, _)| i),
        );
        self.mode = InboxMode::Note(text);
        InboxAction::Consumed
    }

    /// The note kept for the selected action, if it has one.
    pub(crate) fn note_for_selected(&self) -> Option<&str> {
        let (_, call) = self.selected.as_ref()?;
        let (noted, text) = self.note.as_ref()?;
        (noted == call).then_some(text.as_str())
    }

    fn set_note(&mut self, text: Option<String>) {
        let call = self.selected.as_ref().map(|(_, call)| call.clone());
        self.note = call.zip(text);
    }

    /// The note to send after `input`: an approval's own, taken (a question's answer or a
    /// function's result carries none).
    pub(super) fn take_note_for(&mut self, input: &Input) -> Option<String> {
        let Input::Approval { call_id, .. } = input else {
            return None;
        };
        match self.note.take() {
            Some((call, text)) if call == *call_id => Some(text),
            other => {
                self.note = other;
                None
            }
        }
    }
}
