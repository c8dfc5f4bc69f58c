//! An approval's note from the inbox, held until its decision is taken: the note goes to
//! the session as a steer only once the server accepted the approval, so it always lands
//! after the decision (sent at once beside it, it could land first); a refused decision
//! sends no note.

use std::collections::HashMap;

use crate::app::shared::sender::SendEvent;
use crate::session::actions::answered_call;
use gobare_api::model::{Content, Input};

/// Notes waiting for their decision, by call id.
#[derive(Debug, Default)]
pub(crate) struct HeldNotes {
    notes: HashMap<String, String>,
}

/// What became of a held note when its decision settled.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NoteAfter {
    /// The decision was taken: send this steer.
    Send(Input),
    /// The decision was not taken: the note is dropped, and said so.
    Dropped,
}

impl HeldNotes {
    /// Holds `note` until `decision` settles.
    pub(crate) fn hold(&mut self, decision: &Input, note: String) {
        if let Some(call) = answered_call(decision) {
            self.notes.insert(call.to_string(), note);
        }
    }

    /// A send's report: the note held for its decision, if any, now that it settled.
    pub(crate) fn settled(&mut self, event: &SendEvent) -> Option<NoteAfter> {
        let SendEvent::Settled(report) = event else {
            return None;
        };
        let note = self.notes.remove(answered_call(&report.input)?)?;
        Some(if report.accepted() {
            NoteAfter::Send(Input::Steer {
                content: Content::Text(note),
            })
        } else {
            NoteAfter::Dropped
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::shared::send_outcome::{SendFailure, accepted};
    use crate::app::shared::sender::{SendReport, SendTicket};

    fn settled(input: Input, taken: bool) -> SendEvent {
        let reply: gobare_api::model::InputAccepted =
            serde_json::from_value(serde_json::json!({"status": "accepted"})).unwrap();
        let outcome = accepted(&input, &reply);
        let result = if taken {
            Ok(reply)
        } else {
            Err(SendFailure {
                code: None,
                status: Some(409),
                message: "no".into(),
                request_id: None,
                retry_after_secs: None,
            })
        };
        SendEvent::Settled(Box::new(SendReport {
            ticket: SendTicket(1),
            outcome,
            input,
            key: "k".into(),
            text: None,
            recovered: false,
            attempts: 1,
            result,
            unanswered: false,
        }))
    }

    fn approval(call: &str) -> Input {
        Input::Approval {
            call_id: call.into(),
            approved: true,
        }
    }

    #[test]
    fn a_note_goes_only_after_its_own_decision_is_taken() {
        let mut notes = HeldNotes::default();
        notes.hold(&approval("c1"), "only in /tmp".into());
        assert_eq!(notes.settled(&settled(approval("c2"), true)), None);
        assert_eq!(
            notes.settled(&settled(approval("c1"), true)),
            Some(NoteAfter::Send(Input::Steer {
                content: Content::Text("only in /tmp".into())
            }))
        );
        assert_eq!(notes.settled(&settled(approval("c1"), true)), None, "once");
        notes.hold(&approval("c3"), "x".into());
        assert_eq!(
            notes.settled(&settled(approval("c3"), false)),
            Some(NoteAfter::Dropped)
        );
    }
}
