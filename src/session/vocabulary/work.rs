//! What the agent does: tool calls and their results, file changes, its todo list,
//! compaction, its errors, MCP servers.

use super::or_unknown;
use gobare_api::model::{ChangeKind, TodoItem};
use std::fmt::Display;

/// A tool call's result as the export and the Events pane write it.
pub(crate) fn tool_outcome(cancelled: bool, is_error: bool) -> &'static str {
    if cancelled {
        "cancelled"
    } else if is_error {
        "error"
    } else {
        "ok"
    }
}

/// A failed tool call's result as the screen reader says it and search finds it.
pub(crate) const TOOL_FAILED: &str = "failed";

/// What happened to a file, as a verb (`changed` for a kind this build does not know).
pub(crate) fn file_verb(change: &ChangeKind) -> &'static str {
    match change {
        ChangeKind::Created => "created",
        ChangeKind::Deleted => "deleted",
        ChangeKind::Modified => "modified",
        ChangeKind::Other(_) => "changed",
    }
}

/// An agent's error, as a label.
pub(crate) const ERROR: &str = "error";
pub(crate) const ERROR_HEADING: &str = "Error";

/// The agent's context, compacted.
pub(crate) const COMPACTED: &str = "context compacted";

/// `12000 → 3000 tokens` (`?` for a count not given).
pub(crate) fn compaction_tokens(before: Option<u64>, after: Option<u64>) -> impl Display {
    std::fmt::from_fn(move |f| write!(f, "{} → {} tokens", or_unknown(before), or_unknown(after)))
}

/// [`compaction_tokens`] said without the arrow a synthesizer spells out.
pub(crate) fn compaction_tokens_spoken(before: Option<u64>, after: Option<u64>) -> impl Display {
    std::fmt::from_fn(move |f| {
        write!(
            f,
            "from {} to {} tokens",
            or_unknown(before),
            or_unknown(after)
        )
    })
}

/// `MCP server github unavailable: token expired`, from the cleaned name and reason.
pub(crate) fn mcp_unavailable(name: impl Display, reason: impl Display) -> impl Display {
    std::fmt::from_fn(move |f| write!(f, "MCP server {name} unavailable: {reason}"))
}

/// A todo item's status settled as done (`completed` is what some agents say).
pub(crate) fn todo_done(status: &str) -> bool {
    matches!(status, "done" | "completed")
}

/// How many items of a todo list are done.
pub(crate) fn todos_done(items: &[TodoItem]) -> usize {
    items.iter().filter(|i| todo_done(&i.status)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_done_in_either_word_counts_as_done() {
        let item = |status: &str| TodoItem {
            label: "x".into(),
            status: status.into(),
        };
        let items = [item("done"), item("completed"), item("pending")];
        assert_eq!(todos_done(&items), 2);
        assert_eq!(compaction_tokens(Some(9), None).to_string(), "9 → ? tokens");
    }
}
