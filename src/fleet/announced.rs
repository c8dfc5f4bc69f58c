//! Which fleet news was already told: each required action and each failed turn once,
//! whatever a reconnect or a relisting brings back, and nothing of what already waited
//! when the fleet opened.

use std::collections::{HashSet, VecDeque};

/// Most ids each set remembers: a fleet left open for days on a busy organization sees
/// millions of calls and turns; the oldest are forgotten first (they will not come back).
const REMEMBERED: usize = 10_000;

/// Required actions and turns already told (or already there when the fleet opened).
#[derive(Debug, Default)]
pub(crate) struct Announced {
    calls: Remembered,
    turns: Remembered,
    /// Turns whose end the stream showed while the fleet watched: only those are news.
    ended_live: Remembered,
}

/// A set of ids that forgets its oldest past [`REMEMBERED`].
#[derive(Debug, Default)]
struct Remembered {
    ids: HashSet<String>,
    order: VecDeque<String>,
}

impl Remembered {
    fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// Whether `id` was new.
    fn insert(&mut self, id: String) -> bool {
        if self.ids.contains(&id) {
            return false;
        }
        if self.order.len() == REMEMBERED
            && let Some(oldest) = self.order.pop_front()
        {
            self.ids.remove(&oldest);
        }
        self.order.push_back(id.clone());
        self.ids.insert(id)
    }

    fn remove(&mut self, id: &str) -> bool {
        // The order keeps the id until it comes round; removing it from the set is enough.
        self.ids.remove(id)
    }
}

impl Announced {
    /// What waits at the first listing was waiting before the fleet opened: not news.
    pub(crate) fn already_waiting<'a>(&mut self, calls: impl IntoIterator<Item = &'a str>) {
        for call in calls {
            self.calls.insert(call.to_string());
        }
    }

    /// Whether required action `call_id` is news (true once).
    pub(crate) fn call(&mut self, call_id: &str) -> bool {
        !self.calls.contains(call_id) && self.calls.insert(call_id.to_string())
    }

    /// The stream showed turn `turn_id` end while the fleet watched.
    pub(crate) fn turn_ended(&mut self, turn_id: &str) {
        if !self.turns.contains(turn_id) {
            self.ended_live.insert(turn_id.to_string());
        }
    }

    /// Turn `turn_id` was read ended, `failed` or not: whether that is news (a failure,
    /// told once, and only of a turn the stream showed ending).
    pub(crate) fn turn_read(&mut self, turn_id: &str, failed: bool) -> bool {
        self.ended_live.remove(turn_id) && failed && self.turns.insert(turn_id.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_action_is_news_once_and_what_waited_at_the_opening_never() {
        let mut a = Announced::default();
        a.already_waiting(["c1"]);
        assert!(!a.call("c1"), "waited when the fleet opened");
        assert!(a.call("c2"));
        assert!(!a.call("c2"), "brought back by a reconnect");
    }

    #[test]
    fn a_failed_turn_is_news_once_and_only_when_seen_ending() {
        let mut a = Announced::default();
        assert!(!a.turn_read("t0", true), "failed before the fleet opened");
        a.turn_ended("t1");
        assert!(a.turn_read("t1", true));
        a.turn_ended("t1");
        assert!(
            !a.turn_read("t1", true),
            "its end replayed after a reconnect"
        );
        a.turn_ended("t2");
        assert!(!a.turn_read("t2", false), "completed");
        assert!(
            !a.turn_read("t2", true),
            "read again: not the end the stream showed"
        );
    }

    #[test]
    fn memory_is_bounded_however_long_the_fleet_stays_open() {
        let mut a = Announced::default();
        for i in 0..REMEMBERED + 100 {
            a.turn_ended(&format!("t{i}"));
            assert!(a.call(&format!("c{i}")));
        }
        assert_eq!(a.ended_live.ids.len(), REMEMBERED);
        assert!(a.calls.ids.len() <= REMEMBERED && a.calls.order.len() <= REMEMBERED);
        assert!(
            !a.call(&format!("c{}", REMEMBERED + 99)),
            "the newest are remembered"
        );
    }
}
