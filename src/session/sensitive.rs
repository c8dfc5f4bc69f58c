//! Which approvals were asked as sensitive, and the one rule about it: a call once known
//! sensitive stays so until it is answered. A later copy without the flag (a listing, an item
//! read back from the history, a replayed event) never lowers the bar to a single `y` while it
//! waits. One set per session: the live decisions ([`super::actions::Actions`]) own it, the
//! transcript reads and adds to it while applying, and the app's memory keeps a copy on disk
//! for the next run (neither the items nor the session resource carry the flag).

use serde::{Deserialize, Serialize};

/// How many calls are kept: only waiting approvals matter, and a session has a handful; the
/// oldest goes first past this.
const MAX_CALLS: usize = 64;

/// Call ids of approvals asked as sensitive, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct SensitiveCalls(Vec<String>);

impl SensitiveCalls {
    /// What a source says of `call_id`; whether it is sensitive now (said so here or before).
    pub(crate) fn note(&mut self, call_id: &str, sensitive: bool) -> bool {
        if self.contains(call_id) {
            return true;
        }
        if sensitive {
            if self.0.len() >= MAX_CALLS {
                self.0.remove(0);
            }
            self.0.push(call_id.to_string());
        }
        sensitive
    }

    /// The call was answered: nothing of it is left to decide. Whether it was known.
    pub(crate) fn forget(&mut self, call_id: &str) -> bool {
        let before = self.0.len();
        self.0.retain(|c| c != call_id);
        self.0.len() != before
    }

    pub(crate) fn contains(&self, call_id: &str) -> bool {
        self.0.iter().any(|c| c == call_id)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_CALLS, SensitiveCalls};

    #[test]
    fn once_sensitive_a_flagless_copy_does_not_lower_the_bar() {
        let mut calls = SensitiveCalls::default();
        assert!(!calls.note("c1", false), "not said: not sensitive");
        assert!(calls.note("c1", true));
        assert!(calls.note("c1", false), "a later copy without the flag");
        assert!(calls.contains("c1"));
        assert!(!calls.contains("c2"));
        assert!(calls.forget("c1"), "answered");
        assert!(!calls.note("c1", false), "nothing left to decide");
        assert!(!calls.forget("c1"));
    }

    #[test]
    fn the_oldest_goes_first_past_the_bound() {
        let mut calls = SensitiveCalls::default();
        for i in 0..=MAX_CALLS {
            calls.note(&format!("c{i}"), true);
        }
        assert!(!calls.contains("c0"));
        assert!(calls.contains("c1"));
        assert!(calls.contains(&format!("c{MAX_CALLS}")));
    }

    #[test]
    fn on_disk_it_is_the_list_of_call_ids_it_always_was() {
        let mut calls = SensitiveCalls::default();
        calls.note("a", true);
        calls.note("b", true);
        let json = serde_json::to_string(&calls).unwrap();
        assert_eq!(json, r#"["a","b"]"#);
        assert_eq!(
            serde_json::from_str::<SensitiveCalls>(&json).unwrap(),
            calls
        );
    }
}
