//! The words an event family is told with, in one place per family: the transcript, the
//! Events pane, the screen-reader lines, search, the Markdown export and the send notices
//! all say them, so a decision reads "denied" everywhere (the export once said "refused"),
//! and a word changed here changes on every screen and in every file at once.

/// Approvals, questions and function calls: what the agent waits for.
pub(crate) mod decisions {
    /// An approval's verdict.
    pub(crate) fn verdict(approved: bool) -> &'static str {
        if approved { "approved" } else { "denied" }
    }

    /// Said of an approval asked as sensitive (it takes a second `y`).
    pub(crate) const SENSITIVE: &str = "sensitive";

    pub(crate) const APPROVAL_WAITING: &str = "waiting for approval";
    pub(crate) const ANSWER_WAITING: &str = "waiting for an answer";
    pub(crate) const RESULT_WAITING: &str = "waiting for your result";
    /// Read back from items, which record the request and never its outcome.
    pub(crate) const OUTCOME_NOT_IN_HISTORY: &str = "outcome not in the history";
    pub(crate) const ANSWER_NOT_IN_HISTORY: &str = "answer not in the history";

    /// A function call's result: `expired` when the call lapsed before anyone answered.
    pub(crate) fn function_outcome(success: bool, expired: bool) -> &'static str {
        match (success, expired) {
            (true, _) => "succeeded",
            (false, true) => "expired unanswered",
            (false, false) => "failed",
        }
    }
}

/// Messages waiting behind a running turn.
pub(crate) mod queue {
    /// The label a queued message carries until `message.dequeued`.
    pub(crate) fn queued(position: u32) -> String {
        format!("queued #{position}")
    }

    /// [`queued`], or just "queued" when the server gave no position.
    pub(crate) fn label(position: Option<u32>) -> String {
        position.map_or_else(|| "queued".into(), queued)
    }
}

#[cfg(test)]
mod tests {
    use super::decisions::*;

    #[test]
    fn a_lapsed_call_reads_expired_and_a_refusal_reads_denied() {
        assert_eq!(function_outcome(false, true), "expired unanswered");
        assert_eq!(function_outcome(true, true), "succeeded");
        assert_eq!(function_outcome(false, false), "failed");
        assert_eq!(verdict(false), "denied");
    }
}
