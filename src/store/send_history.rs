//! The texts sent from one session, oldest first: what the composer's ↑ walks through and
//! what the session file keeps. One rule for both, so a text browsable now is browsable
//! after a restart, and nothing kept on disk was skipped on screen.

use serde::{Deserialize, Serialize};

/// The most entries kept per session (the oldest go first). The session file holds them
/// all: at the API's largest message this stays under the file's read limit.
pub(crate) const SEND_HISTORY_LIMIT: usize = 200;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SendHistory(Vec<String>);

impl SendHistory {
    pub fn entries(&self) -> &[String] {
        &self.0
    }

    /// Records a text: not a blank one, not a repeat of the newest, at most
    /// [`SEND_HISTORY_LIMIT`] kept.
    pub(crate) fn push(&mut self, text: &str) {
        if text.trim().is_empty() || self.0.last().is_some_and(|l| l == text) {
            return;
        }
        self.0.push(text.to_string());
        let excess = self.0.len().saturating_sub(SEND_HISTORY_LIMIT);
        self.0.drain(..excess);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_and_repeats_are_skipped_and_the_oldest_go_first() {
        let mut h = SendHistory::default();
        for t in ["a", "a", "  \n", "", "b"] {
            h.push(t);
        }
        assert_eq!(h.entries(), ["a", "b"]);
        for i in 0..500 {
            h.push(&i.to_string());
        }
        assert_eq!(h.entries().len(), SEND_HISTORY_LIMIT);
        assert_eq!(h.entries().last().unwrap(), "499");
    }

    #[test]
    fn the_session_file_keeps_a_plain_list() {
        let mut h = SendHistory::default();
        h.push("hi");
        assert_eq!(serde_json::to_string(&h).unwrap(), r#"["hi"]"#);
        let back: SendHistory = serde_json::from_str(r#"["hi"]"#).unwrap();
        assert_eq!(back, h);
    }
}
