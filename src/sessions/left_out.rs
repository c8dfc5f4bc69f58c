//! What a read of the sessions left out because it could not be decoded: whole sessions,
//! required actions of sessions that were read, turns. Counted and said in one sentence by
//! `list`, `inbox` and `report`, which then exit 1: a script must not take the output as
//! whole.

use gobare_api::model::Session;
use gobare_api::text;
use gobare_api::unreadable::Unreadable;

/// Reasons quoted in the sentence; the rest are counted.
const REASONS_SHOWN: usize = 3;
/// Characters of one quoted reason (the decoder's words may quote server text).
const REASON_CHARS: usize = 160;

/// Entries left out, each with the session it belongs to where it is part of one.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct LeftOut {
    sessions: Vec<Unreadable>,
    /// (session id, the action)
    actions: Vec<(String, Unreadable)>,
    /// (session id, the turn)
    turns: Vec<(String, Unreadable)>,
}

impl LeftOut {
    /// What a session list left out: the sessions it could not read, and the required
    /// actions of those it read.
    pub(crate) fn of_list(unreadable: &[Unreadable], sessions: &[Session]) -> LeftOut {
        let actions = sessions
            .iter()
            .flat_map(|s| {
                let unread = s.required_actions.unreadable();
                unread.iter().map(|a| (s.id.clone(), a.clone()))
            })
            .collect();
        LeftOut {
            sessions: unreadable.to_vec(),
            actions,
            turns: Vec::new(),
        }
    }

    /// Turns of `session_id` left out of a read.
    pub(crate) fn add_turns(&mut self, session_id: &str, turns: &[Unreadable]) {
        let of = turns.iter().map(|t| (session_id.to_string(), t.clone()));
        self.turns.extend(of);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.sessions.is_empty() && self.actions.is_empty() && self.turns.is_empty()
    }

    /// `1 session and 2 required actions could not be read (session without a readable id:
    /// missing field `id`; required action of session 3f9c…: missing field `call_id`; …)`,
    /// sanitized; `None` when nothing was left out.
    pub(crate) fn sentence(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let counted: Vec<String> = [
            (self.sessions.len(), "session", "sessions"),
            (self.actions.len(), "required action", "required actions"),
            (self.turns.len(), "turn", "turns"),
        ]
        .into_iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|(n, one, many)| format!("{n} {}", if n == 1 { one } else { many }))
        .collect();
        let reasons: Vec<String> = self
            .sessions
            .iter()
            .map(|s| s.to_string())
            .chain(self.actions.iter().map(|(sid, a)| of_session(sid, a)))
            .chain(self.turns.iter().map(|(sid, t)| of_session(sid, t)))
            .collect();
        let mut quoted: Vec<String> = reasons
            .iter()
            .take(REASONS_SHOWN)
            .map(|r| text::one_line(r, REASON_CHARS))
            .collect();
        if reasons.len() > REASONS_SHOWN {
            quoted.push(format!("{} more in the log", reasons.len() - REASONS_SHOWN));
        }
        Some(format!(
            "{} could not be read ({})",
            join_and(&counted),
            quoted.join("; ")
        ))
    }
}

/// `required action c1 of session 3f9c…: missing field `turn_id``.
fn of_session(session_id: &str, entry: &Unreadable) -> String {
    let id = entry
        .id
        .as_deref()
        .map(|id| format!(" {id}"))
        .unwrap_or_default();
    format!(
        "{}{id} of session {session_id}: {}",
        entry.entry, entry.reason
    )
}

/// `a`, `a and b`, `a, b and c`.
fn join_and(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn unreadable(entry: &'static str, id: Option<&str>, reason: &str) -> Unreadable {
        Unreadable {
            entry,
            id: id.map(str::to_string),
            reason: reason.into(),
        }
    }

    #[test]
    fn nothing_left_out_says_nothing() {
        assert_eq!(LeftOut::default().sentence(), None);
        let s: Session = serde_json::from_value(json!({"id": "s", "status": "idle"})).unwrap();
        assert_eq!(LeftOut::of_list(&[], &[s]).sentence(), None);
    }

    #[test]
    fn every_kind_is_counted_and_the_first_reasons_quoted_inert() {
        let waiting: Session = serde_json::from_value(json!({
            "id": "s2", "status": "requires_action",
            "required_actions": [{"type": "approval", "turn_id": "t"}],
        }))
        .unwrap();
        let lost = [
            unreadable("session", None, "missing field `id`"),
            unreadable("session", Some("s9\u{1b}]52;c;x\u{7}"), "invalid type"),
        ];
        let mut left = LeftOut::of_list(&lost, &[waiting]);
        left.add_turns(
            "s3",
            &[unreadable("turn", Some("t1"), "missing field `status`")],
        );
        let said = left.sentence().unwrap();
        assert!(
            said.starts_with("2 sessions, 1 required action and 1 turn could not be read ("),
            "{said}"
        );
        assert!(said.contains("session without a readable id: missing field `id`"));
        assert!(said.contains("required action of session s2: missing field `call_id`"));
        assert!(said.contains("1 more in the log"), "{said}");
        assert!(
            !said.contains('\u{1b}') && !said.contains('\u{7}'),
            "{said:?}"
        );
    }
}
