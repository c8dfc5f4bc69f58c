//! Which turn the Markdown export is writing: the section open, the prompt that waits for
//! its turn's heading (its `user.message` comes before `turn.started`, §8), the number each
//! turn got, and the turn's todo list, kept to its final state.

use super::turn_facts::FastMap;
use gobare_api::model::TodoItem;

/// The sections of one export, as its events open and close them.
#[derive(Default)]
pub(crate) struct Sections {
    /// Turn sections opened so far (the last one's number).
    opened: u64,
    /// The turn being written.
    pub(crate) open: Option<OpenTurn>,
    /// A message seen outside a turn, written under the next turn's heading.
    pub(crate) prompt: Option<Prompt>,
    /// Turn id → its section's number.
    numbers: FastMap<String, u64>,
}

/// The turn whose section is being written.
pub(crate) struct OpenTurn {
    pub(crate) id: String,
    pub(crate) number: u64,
    /// Its prompt is written: a later message in it is a steer.
    pub(crate) asked: bool,
    /// The text of the dequeued message that prompted it, whose `user.message` repeats it.
    pub(crate) dequeued: Option<String>,
    pub(crate) todos: Option<TodoTrack>,
}

/// A message waiting for its turn.
pub(crate) struct Prompt {
    pub(crate) text: String,
    pub(crate) at: Option<i64>,
    /// It waited in the queue (`message.dequeued`).
    pub(crate) queued: bool,
    /// Its `user.message` was seen too (a dequeued message's repeats it).
    pub(crate) echoed: bool,
}

impl Sections {
    /// The number of turn `id`'s section, once opened.
    pub(crate) fn number_of(&self, id: &str) -> Option<u64> {
        self.numbers.get(id).copied()
    }

    /// Opens a section for turn `id` and gives its number; the pending prompt, if any,
    /// belongs to it (written by the caller).
    pub(crate) fn open(&mut self, id: &str) -> (u64, Option<Prompt>) {
        self.opened += 1;
        let number = self.opened;
        self.numbers.insert(id.to_string(), number);
        let prompt = self.prompt.take();
        let dequeued = prompt
            .as_ref()
            .filter(|p| p.queued && !p.echoed)
            .map(|p| p.text.clone());
        self.open = Some(OpenTurn {
            id: id.to_string(),
            number,
            asked: prompt.is_some(),
            dequeued,
            todos: None,
        });
        (number, prompt)
    }
}

/// A turn's todo list: the first one reported (to say what changed) and the latest.
pub(crate) struct TodoTrack {
    /// The first list's labels, once a later list replaced it (until then the latest is
    /// the first, and nothing changed).
    first: Option<Vec<String>>,
    pub(crate) last: Vec<TodoItem>,
    /// When the latest was reported.
    pub(crate) at: Option<i64>,
}

impl TodoTrack {
    pub(crate) fn new(items: &[TodoItem], at: Option<i64>) -> TodoTrack {
        TodoTrack {
            first: None,
            last: items.to_vec(),
            at,
        }
    }

    pub(crate) fn update(&mut self, items: &[TodoItem], at: Option<i64>) {
        let last = std::mem::replace(&mut self.last, items.to_vec());
        if self.first.is_none() {
            self.first = Some(last.into_iter().map(|i| i.label).collect());
        }
        self.at = at;
    }

    /// Labels in the final list that the first lacked, in the final list's order.
    pub(crate) fn added(&self) -> Vec<&str> {
        let Some(first) = &self.first else {
            return Vec::new();
        };
        self.last
            .iter()
            .map(|i| i.label.as_str())
            .filter(|l| !first.iter().any(|f| f == l))
            .collect()
    }

    /// Labels of the first list the final one lacks, in the first list's order.
    pub(crate) fn dropped(&self) -> Vec<&str> {
        let Some(first) = &self.first else {
            return Vec::new();
        };
        first
            .iter()
            .map(String::as_str)
            .filter(|f| !self.last.iter().any(|i| i.label == *f))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(labels: &[&str]) -> Vec<TodoItem> {
        labels
            .iter()
            .map(|l| TodoItem {
                label: l.to_string(),
                status: "pending".into(),
            })
            .collect()
    }

    #[test]
    fn the_final_list_says_what_was_added_and_dropped() {
        let mut track = TodoTrack::new(&items(&["read", "patch", "test"]), Some(1));
        assert!(
            track.added().is_empty() && track.dropped().is_empty(),
            "one list"
        );
        track.update(&items(&["read", "test", "report"]), Some(2));
        track.update(&items(&["read", "patch", "report", "tidy"]), Some(3));
        assert_eq!(track.added(), ["report", "tidy"]);
        assert_eq!(track.dropped(), ["test"]);
        assert_eq!(track.at, Some(3));
        assert_eq!(track.last.len(), 4);
    }

    #[test]
    fn a_turn_takes_the_waiting_prompt_and_its_number() {
        let mut sections = Sections {
            prompt: Some(Prompt {
                text: "next".into(),
                at: None,
                queued: true,
                echoed: false,
            }),
            ..Sections::default()
        };
        let (number, prompt) = sections.open("turn_a");
        assert_eq!(number, 1);
        assert_eq!(prompt.unwrap().text, "next");
        let open = sections.open.as_ref().unwrap();
        assert!(open.asked);
        assert_eq!(open.dequeued.as_deref(), Some("next"));
        let (number, prompt) = sections.open("turn_b");
        assert_eq!((number, prompt.is_none()), (2, true));
        assert!(!sections.open.as_ref().unwrap().asked);
        assert_eq!(sections.number_of("turn_a"), Some(1));
        assert_eq!(sections.number_of("turn_c"), None);
    }
}
