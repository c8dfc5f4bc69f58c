//! Which approvals were asked as sensitive, and the one rule about it: a call once known
//! sensitive stays so. A later copy without the flag (a listing, an item read back from the
//! history, a replayed event) never lowers the bar to a single `y` while it waits. The live decisions
//! ([`super::actions::Actions`]) and the transcript both keep their calls in one of these.

use std::collections::HashSet;

/// Call ids of approvals asked as sensitive.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SensitiveCalls(HashSet<String>);

impl SensitiveCalls {
    /// What a source says of `call_id`; whether it is sensitive now (said so here or before).
    pub(crate) fn note(&mut self, call_id: &str, sensitive: bool) -> bool {
        if sensitive {
            if !self.0.contains(call_id) {
                self.0.insert(call_id.to_string());
            }
            return true;
        }
        self.0.contains(call_id)
    }

    /// The call was answered: nothing of it is left to decide.
    pub(crate) fn forget(&mut self, call_id: &str) {
        self.0.remove(call_id);
    }

    pub(crate) fn contains(&self, call_id: &str) -> bool {
        self.0.contains(call_id)
    }
}

#[cfg(test)]
mod tests {
    use super::SensitiveCalls;

    #[test]
    fn once_sensitive_a_flagless_copy_does_not_lower_the_bar() {
        let mut calls = SensitiveCalls::default();
        assert!(!calls.note("c1", false), "not said: not sensitive");
        assert!(calls.note("c1", true));
        assert!(calls.note("c1", false), "a later copy without the flag");
        assert!(calls.contains("c1"));
        assert!(!calls.contains("c2"));
    }
}
