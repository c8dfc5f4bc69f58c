//! Snapshots of search on screen: matches marked in the transcript and the Events rows (the
//! current one apart), the search bar with its count, a match whose entry left memory, and
//! a jump that scrolls an old match into view. Marks: `‹…›` a match, `«…»` the current one
//! (the NO_COLOR theme's underline and reverse, so they show without colour too).

use crate::keys::mode::Mode;
use crate::search::Hit;
use crate::session::Session;
use crate::ui::pane::Pane;
use crate::ui::screen::Screen;
use crate::ui::tests::{apply, ev, navigating, view};
use crate::ui::theme::Theme;
use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Modifier;
use serde_json::json;

/// The frame as text with the search's marks around matched cells.
fn render_marked(v: &Session, ui: &mut Screen, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    let theme = Theme::no_color();
    term.draw(|f| ui.draw(f, v, &theme, None)).unwrap();
    let buf = term.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        let mut mark = None;
        for x in 0..w {
            let cell = &buf[(x, y)];
            let m = cell.modifier;
            let now = if m.contains(Modifier::UNDERLINED | Modifier::REVERSED) {
                Some(('«', '»'))
            } else if m.contains(Modifier::UNDERLINED) {
                Some(('‹', '›'))
            } else {
                None
            };
            if now != mark {
                if let Some((_, close)) = mark {
                    out.push(close);
                }
                if let Some((open, _)) = now {
                    out.push(open);
                }
                mark = now;
            }
            out.push_str(cell.symbol());
        }
        if let Some((_, close)) = mark {
            out.push(close);
        }
        out.push('\n');
    }
    out
}

fn session() -> Session {
    let mut v = view();
    apply(
        &mut v,
        [
            ev(
                "user.message",
                Some(1),
                json!({"text": "Why does the Export job fail?"}),
            ),
            ev("turn.started", Some(2), json!({"turnId": "turn_1"})),
            ev(
                "agent.tool_call",
                Some(3),
                json!({"toolCallId": "c1", "toolName": "bash", "args": {"command": "grep -r export src"}}),
            ),
            ev(
                "agent.tool_result",
                Some(4),
                json!({"toolCallId": "c1", "toolName": "bash", "summary": "src/export.ts: retry without backoff"}),
            ),
            ev(
                "agent.message",
                Some(5),
                json!({"text": "The export handler retries on 502 without a backoff."}),
            ),
            ev("turn.ended", Some(6), json!({"turnId": "turn_1"})),
        ],
    );
    v
}

/// Hits as the index reports them for "export": entries 0 (message), 1 (the tool call,
/// its result being the newest event) and 2 (the answer).
fn export_hits() -> Vec<Hit> {
    [(1, 0), (4, 1), (5, 2)]
        .into_iter()
        .map(|(seq, entry)| Hit {
            seq,
            entry: Some(entry),
        })
        .collect()
}

#[test]
fn matches_are_marked_in_the_transcript_and_events_rows() {
    let v = session();
    let mut ui = navigating(Pane::Transcript);
    let g = ui.search.start("EXPORT");
    ui.search.add(g, export_hits(), true);
    // `n` once: from the newest match to the one before it (the tool call).
    ui.search.step(true);
    let out = render_marked(&v, &mut ui, 100, 24);
    assert!(
        out.contains("«"),
        "the current match is marked apart:\n{out}"
    );
    assert!(
        out.contains("/EXPORT 2/3"),
        "the count is in the status bar:\n{out}"
    );
    assert_snapshot!("search_marks_matches", out);
}

#[test]
fn the_search_bar_counts_while_typing() {
    let v = session();
    let mut ui = navigating(Pane::Transcript);
    ui.modes.set_for_test(Mode::Search);
    let g = ui.search.start("backoff");
    ui.search.add(
        g,
        vec![Hit {
            seq: 5,
            entry: Some(2),
        }],
        false,
    );
    let out = render_marked(&v, &mut ui, 100, 24);
    assert!(out.contains("search: backoff▏  1/1+"), "{out}");
    assert_snapshot!("search_bar_while_typing", out);
}

#[test]
fn a_match_no_longer_in_memory_says_so() {
    let mut v = Session::new("s").with_transcript_budget(4_000);
    apply(
        &mut v,
        (1..=200).map(|i| {
            ev(
                "user.message",
                Some(i),
                json!({"text": format!("message {i}")}),
            )
        }),
    );
    assert!(v.transcript().dropped() > 0);
    let mut ui = navigating(Pane::Transcript);
    ui.modes.set_for_test(Mode::Search);
    let g = ui.search.start("message 1");
    ui.search.add(
        g,
        vec![Hit {
            seq: 1,
            entry: Some(0),
        }],
        true,
    );
    ui.search.oldest_not_kept = true;
    let out = render_marked(&v, &mut ui, 140, 24);
    assert!(out.contains("1/1 · not in memory (event 1)"), "{out}");
    assert!(out.contains("the oldest events are not searched"), "{out}");
}

#[test]
fn jumping_to_a_match_scrolls_it_into_view() {
    let mut v = view();
    apply(
        &mut v,
        (1..=100).map(|i| {
            let text = if i == 10 {
                "the needle is here".to_string()
            } else {
                format!("message {i}")
            };
            ev("user.message", Some(i), json!({ "text": text }))
        }),
    );
    let mut ui = navigating(Pane::Transcript);
    let bottom = render_marked(&v, &mut ui, 100, 24);
    assert!(!bottom.contains("needle"), "{bottom}");
    let g = ui.search.start("needle");
    let hit = ui.search.add(
        g,
        vec![Hit {
            seq: 10,
            entry: Some(9),
        }],
        true,
    );
    assert_eq!(hit.map(|h| h.entry), Some(Some(9)));
    ui.transcript.reveal(9);
    let out = render_marked(&v, &mut ui, 100, 24);
    assert!(out.contains("«needle»"), "{out}");
    assert_snapshot!("search_jump_scrolls_to_the_match", out);
}
