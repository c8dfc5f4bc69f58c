//! Approvals, questions and function calls: what the agent waits for.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lapsed_call_reads_expired_and_a_refusal_reads_denied() {
        assert_eq!(function_outcome(false, true), "expired unanswered");
        assert_eq!(function_outcome(true, true), "succeeded");
        assert_eq!(function_outcome(false, false), "failed");
        assert_eq!(verdict(false), "denied");
    }
}
