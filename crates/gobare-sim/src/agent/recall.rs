//! What the scripted agent remembers of the conversation: its replies name the session's
//! earlier message, so a second round reads as following the first.

use gobare_api::model::{Item, ItemKind};

/// The longest quote of an earlier message, in characters.
const QUOTE_CHARS: usize = 80;

/// The user's message before the one this turn answers (the latest is the turn's own),
/// on one line and cut to [`QUOTE_CHARS`]; `None` on a session's first message.
pub(crate) fn earlier_message(items: &[Item]) -> Option<String> {
    let mut asked = items
        .iter()
        .rev()
        .filter(|i| i.kind == ItemKind::Message && i.role.as_deref() == Some("user"));
    asked.next()?;
    let earlier = asked.next()?;
    let line = earlier
        .content
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut quote: String = line.chars().take(QUOTE_CHARS).collect();
    if line.chars().count() > QUOTE_CHARS {
        quote.push('…');
    }
    Some(quote)
}

/// The turn's closing reply, followed by a line that names the earlier message.
pub(crate) fn follow_up(reply: &str, earlier: &str) -> String {
    format!("{reply}\n\n_This follows on from your earlier message, “{earlier}”._")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(role: &str, text: &str) -> Item {
        serde_json::from_value(serde_json::json!({
            "object": "item", "id": "item_1", "session_id": "s", "type": "message",
            "role": role, "content": text,
        }))
        .unwrap()
    }

    #[test]
    fn the_message_before_the_current_one_is_quoted_on_one_line() {
        assert_eq!(earlier_message(&[said("user", "first")]), None);
        let items = [
            said("user", "Fix the\nexport"),
            said("assistant", "Done."),
            said("user", "Now the import"),
        ];
        assert_eq!(earlier_message(&items).as_deref(), Some("Fix the export"));
        let long = "x".repeat(100);
        let items = [said("user", &long), said("user", "again")];
        let quote = earlier_message(&items).unwrap();
        assert_eq!(quote.chars().count(), QUOTE_CHARS + 1);
        assert!(follow_up("Done.", &quote).starts_with("Done.\n\n"));
    }
}
