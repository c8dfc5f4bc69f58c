//! What a notification is about: the kinds `[notify] on` chooses among, and the event a
//! `[notify] command` receives as JSON on its stdin.

use serde::Serialize;

/// The kinds of news, as `[notify] on` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum NotifyKind {
    /// The agent asks for permission.
    Approval,
    /// The agent asks a person a question.
    Question,
    /// The agent waits for a function's result.
    FunctionCall,
    /// A turn ended `failed`.
    TurnFailed,
    /// A turn ended `completed`.
    TurnCompleted,
    /// A turn ended `cancelled`.
    TurnCancelled,
    /// The workspace was reclaimed (`destroyed`) or its rebuild gave up.
    WorkspaceReclaimed,
    /// A function call's `expires_at` is within `[notify] deadline_minutes`.
    Deadline,
    /// A session's sandbox time passed `[budget] sandbox_minutes`.
    Budget,
}

impl NotifyKind {
    /// Every kind, in the order docs/configuration.md lists them.
    pub(crate) const ALL: [NotifyKind; 9] = [
        NotifyKind::Approval,
        NotifyKind::Question,
        NotifyKind::FunctionCall,
        NotifyKind::TurnFailed,
        NotifyKind::TurnCompleted,
        NotifyKind::TurnCancelled,
        NotifyKind::WorkspaceReclaimed,
        NotifyKind::Deadline,
        NotifyKind::Budget,
    ];

    /// The name `[notify] on` and the JSON's `event` use.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            NotifyKind::Approval => "approval",
            NotifyKind::Question => "question",
            NotifyKind::FunctionCall => "function_call",
            NotifyKind::TurnFailed => "turn_failed",
            NotifyKind::TurnCompleted => "turn_completed",
            NotifyKind::TurnCancelled => "turn_cancelled",
            NotifyKind::WorkspaceReclaimed => "workspace_reclaimed",
            NotifyKind::Deadline => "deadline",
            NotifyKind::Budget => "budget",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<NotifyKind> {
        NotifyKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The kind of a required action.
    /// The agent waits on the person (a decision), rather than telling them something.
    pub(crate) fn is_need(self) -> bool {
        matches!(
            self,
            NotifyKind::Approval | NotifyKind::Question | NotifyKind::FunctionCall
        )
    }

    pub(crate) fn of_action(kind: &gobare_api::model::RequiredActionKind) -> NotifyKind {
        use gobare_api::model::RequiredActionKind as K;
        match kind {
            K::Approval => NotifyKind::Approval,
            K::Question => NotifyKind::Question,
            K::FunctionCall | K::Other(_) => NotifyKind::FunctionCall,
        }
    }

    /// The kind of what a session waits on, as the fleet knows it.
    pub(crate) fn of_needs(needs: crate::session::attention::Needs) -> NotifyKind {
        use crate::session::attention::Needs;
        match needs {
            Needs::Approval => NotifyKind::Approval,
            Needs::Question => NotifyKind::Question,
            Needs::FunctionCall => NotifyKind::FunctionCall,
        }
    }
}

/// One piece of news as a `[notify] command` reads it on stdin: one JSON object, one line.
/// `session_title` and `text` come from the server by way of the sanitizer (one line,
/// printable); nothing here is ever put on the command's command line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct NotifyEvent {
    pub(crate) event: NotifyKind,
    pub(crate) session_id: String,
    pub(crate) session_title: String,
    /// The sentence the terminal notification shows.
    pub(crate) text: String,
    /// When the app decided to tell it (Unix ms).
    pub(crate) at: i64,
    /// The call's deadline (Unix ms), for `deadline` and the decisions that have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) expires_at: Option<i64>,
    /// How many pieces of news this one stands for (the fleet gathers what comes close
    /// together into one; the session and the first are named).
    pub(crate) count: usize,
    /// How many sessions need the person as it is told (the fleet's one count, what its
    /// header, inbox and the terminal's title say); absent without a fleet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) need_you: Option<usize>,
    /// Runs of the command that could not start since the last one that did (too many
    /// still running): counted here, not lost without a word.
    pub(crate) skipped: u64,
}

impl NotifyEvent {
    pub(crate) fn new(
        event: NotifyKind,
        session_id: &str,
        session_title: &str,
        text: &str,
    ) -> NotifyEvent {
        use gobare_api::text::one_line;
        NotifyEvent {
            event,
            session_id: one_line(session_id, 100),
            session_title: one_line(session_title, 200),
            text: one_line(text, 300),
            at: gobare_api::clock::unix_ms(),
            expires_at: None,
            count: 1,
            need_you: None,
            skipped: 0,
        }
    }

    /// The object as one line of JSON, newline-terminated.
    pub(crate) fn to_json_line(&self) -> Vec<u8> {
        let json = serde_json::to_string(self).unwrap_or_default();
        // The command may log or forward it: credentials in the text are not its to keep.
        let mut line = crate::redact::redact(&json).into_owned().into_bytes();
        line.push(b'\n');
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_name() {
        for kind in NotifyKind::ALL {
            assert_eq!(NotifyKind::parse(kind.as_str()), Some(kind));
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::json!(kind.as_str())
            );
        }
        assert_eq!(NotifyKind::parse("turn_ended"), None);
    }

    #[test]
    fn the_json_is_one_sanitized_line() {
        let mut e = NotifyEvent::new(
            NotifyKind::Deadline,
            "s1",
            "fix\nthe \u{1b}[2Jexport",
            "lookup_order expires in 4m",
        );
        e.expires_at = Some(42);
        let line = e.to_json_line();
        assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1);
        let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["event"], "deadline");
        assert_eq!(v["expires_at"], 42);
        assert!(!v["session_title"].as_str().unwrap().contains('\u{1b}'));
        assert!(!v["session_title"].as_str().unwrap().contains('\n'));
    }

    #[test]
    fn credentials_in_the_json_are_redacted() {
        let e = NotifyEvent::new(
            NotifyKind::Approval,
            "s1",
            "deploy with sk-proj-abcdefghijklmnopqrstuvwx",
            "run aws s3 cp --key AKIAIOSFODNN7EXAMPLE and ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        );
        let line = String::from_utf8(e.to_json_line()).unwrap();
        for secret in [
            "sk-proj-abcdefghijklmnopqrstuvwx",
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        ] {
            assert!(!line.contains(secret), "{secret} in {line}");
        }
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert!(v["text"].as_str().unwrap().contains("[redacted]"), "{v}");
    }
}
