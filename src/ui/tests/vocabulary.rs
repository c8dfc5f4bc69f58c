//! One vocabulary: what search finds of each documented example event is what the
//! transcript shows of it and what the export writes of it, word for word.

use super::*;
use crate::export::markdown::MarkdownWriter;
use crate::export::turn_facts::TurnFacts;
use crate::search::extract::push_text;
use crate::search::fold::folded;

/// The Markdown export of `events` alone.
fn exported(events: &[Event]) -> String {
    let mut w = MarkdownWriter::new(Vec::new(), "s1", None, TurnFacts::unknown()).unwrap();
    for e in events {
        w.event(e).unwrap();
    }
    String::from_utf8(w.finish(events.len() as u64, None).unwrap().0).unwrap()
}

/// The searchable words of `text`: split where a person would not type on.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || "\"{}[],:".contains(c))
        .map(|w| w.trim_matches(|c: char| c.is_ascii_punctuation()))
        .filter(|w| w.chars().count() > 1)
}

#[test]
fn every_example_events_search_words_are_on_screen_and_in_the_export() {
    let mut missing = Vec::new();
    let mut checked = 0;
    for kind in EVENT_TYPES {
        let event = example(kind);
        let mut searchable = String::new();
        if !push_text(&mut searchable, &event) {
            continue;
        }
        checked += 1;
        let mut v = view();
        apply(&mut v, [event.clone()]);
        // Wide and tall enough that nothing wraps or scrolls away.
        let screen = folded(&render(&v, &mut zoomed(Pane::Transcript), 400, 120));
        let export = folded(&exported(std::slice::from_ref(&event)));
        for word in words(&searchable) {
            if !screen.contains(word) {
                missing.push(format!("{kind}: {word:?} is searchable but not on screen"));
            }
            if !export.contains(word) {
                missing.push(format!("{kind}: {word:?} is searchable but not exported"));
            }
        }
    }
    assert!(
        checked >= 10,
        "only {checked} example events have searchable text"
    );
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
