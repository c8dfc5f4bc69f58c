//! `follow`'s reads of how each turn ended: every ending seen live is read on its own (two
//! turns ending in one batch are two reads, not the newest alone), and read again a few
//! times while the turn resource does not say yet how it ended.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// Reads of one turn at most.
const ATTEMPTS: u32 = 4;
/// The wait before the first read again, doubled after each.
const FIRST_RETRY: Duration = Duration::from_millis(1500);

/// Which turns' outcomes were asked for, and when to ask again.
#[derive(Debug, Default)]
pub(crate) struct OutcomeReads {
    /// Turn id → (reads so far, when the next may go).
    asked: HashMap<String, (u32, Instant)>,
    /// Endings the history's list of turns answers (read once, after the replay).
    left_to_the_list: HashSet<String>,
}

impl OutcomeReads {
    /// The replay is over and the whole list of turns is being read: the endings missing
    /// now are the list's to fill.
    pub(crate) fn list_reads<'a>(&mut self, missing: impl Iterator<Item = &'a str>) {
        self.left_to_the_list.extend(missing.map(str::to_string));
    }

    /// The turns to read now, of those whose ending says no outcome yet (`missing`).
    pub(crate) fn due<'a>(
        &mut self,
        missing: impl Iterator<Item = &'a str>,
        now: Instant,
    ) -> Vec<String> {
        let missing: HashSet<&str> = missing.collect();
        self.asked.retain(|turn, _| missing.contains(turn.as_str()));
        let mut due = Vec::new();
        for turn in missing {
            if self.left_to_the_list.contains(turn) {
                continue;
            }
            match self.asked.get_mut(turn) {
                None => {
                    self.asked.insert(turn.to_string(), (1, now + FIRST_RETRY));
                    due.push(turn.to_string());
                }
                Some((reads, next)) if *reads < ATTEMPTS && now >= *next => {
                    *next = now + FIRST_RETRY * 2u32.pow(*reads);
                    *reads += 1;
                    due.push(turn.to_string());
                }
                Some(_) => {}
            }
        }
        due.sort();
        due
    }

    /// When a read again is next due.
    pub(crate) fn wake_at(&self) -> Option<Instant> {
        self.asked
            .values()
            .filter(|(reads, _)| *reads < ATTEMPTS)
            .map(|(_, next)| *next)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_endings_in_one_batch_are_two_reads_and_a_late_outcome_is_read_again() {
        let t0 = Instant::now();
        let mut reads = OutcomeReads::default();
        assert_eq!(
            reads.due(["t1", "t2"].into_iter(), t0),
            ["t1", "t2"],
            "each ending its own read"
        );
        assert!(reads.due(["t1", "t2"].into_iter(), t0).is_empty());
        // t2 read settled; t1 still said "working": read again once the wait is over.
        assert_eq!(reads.wake_at(), Some(t0 + FIRST_RETRY));
        assert_eq!(reads.due(["t1"].into_iter(), t0 + FIRST_RETRY), ["t1"]);
        let mut later = t0 + FIRST_RETRY;
        let mut total = 2;
        for _ in 0..10 {
            later += Duration::from_secs(60);
            total += reads.due(["t1"].into_iter(), later).len();
        }
        assert_eq!(total, ATTEMPTS as usize, "bounded");
    }

    #[test]
    fn the_historys_endings_are_left_to_the_list() {
        let mut reads = OutcomeReads::default();
        reads.list_reads(["old"].into_iter());
        assert_eq!(
            reads.due(["old", "new"].into_iter(), Instant::now()),
            ["new"]
        );
    }
}
