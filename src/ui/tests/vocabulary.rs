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

/// The words a family shares come from its vocabulary module, so each example event's
/// phrase reads the same in the transcript, the screen reader's line, the export and (where
/// the Events pane writes it) the Events summary.
#[test]
fn a_familys_words_read_alike_on_screen_spoken_exported_and_in_the_events_pane() {
    use crate::session::vocabulary::{decisions, work, workspace};
    use crate::ui::screen_reader::words::entry_words;
    let tokens = work::compaction_tokens(Some(182_000), Some(41_000)).to_string();
    // (event, phrase, also in the screen reader's words, also in the Events summary): the
    // spoken line says the token counts without the arrow.
    let cases = [
        ("agent.compaction", work::COMPACTED.to_string(), true, false),
        ("agent.compaction", tokens, false, true),
        ("mcp.unavailable", "MCP server".to_string(), true, false),
        (
            "preview.ready",
            workspace::PREVIEW_READY.to_string(),
            true,
            false,
        ),
        (
            "workspace.recovery_failed",
            workspace::RECOVERY_FAILED.to_string(),
            true,
            false,
        ),
        (
            "approval.resolved",
            decisions::verdict(false).to_string(),
            true,
            true,
        ),
        (
            "tool.resolved",
            decisions::function_outcome(true, false).to_string(),
            true,
            true,
        ),
    ];
    let mut missing = Vec::new();
    for (kind, phrase, spoken_too, in_summary) in cases {
        let event = example(kind);
        let mut v = view();
        apply(&mut v, [event.clone()]);
        let screen = render(&v, &mut zoomed(Pane::Transcript), 400, 120);
        let spoken: Vec<String> = v
            .transcript()
            .entries()
            .iter()
            .filter_map(|e| entry_words(&e.kind))
            .flatten()
            .collect();
        let export = exported(std::slice::from_ref(&event));
        let summary: Vec<&str> = v
            .recent_events()
            .rows()
            .iter()
            .map(|r| r.summary.as_str())
            .collect();
        let mut check = |surface: &str, text: &str| {
            if !text.contains(phrase.as_str()) {
                missing.push(format!("{kind}: {phrase:?} not in the {surface}: {text:?}"));
            }
        };
        check("transcript", &screen);
        if spoken_too {
            check("screen reader's words", &spoken.join("\n"));
        }
        check("export", &export);
        if in_summary {
            check("Events summary", &summary.join("\n"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
