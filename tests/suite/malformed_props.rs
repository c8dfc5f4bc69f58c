//! The proptest versions of the two fuzz targets (`fuzz/fuzz_targets/*`), run by
//! `cargo test`: arbitrary bytes through the SSE parser in arbitrary chunks with a small
//! frame bound, and arbitrary (mutated) event payloads decoded, applied and drawn.

use gobare_api::model::Event;
use gobare_api::sse::{SseItem, SseParser};
use gobare_tui::session::{Session, Update};
use gobare_tui::ui::{Pane, Screen, theme::Theme};
use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::Value;

fn examples() -> Vec<Value> {
    let all: Value =
        serde_json::from_str(include_str!("../../assets/event-payloads.json")).unwrap();
    all.as_object()
        .unwrap()
        .values()
        .filter(|v| v.get("object").and_then(Value::as_str) == Some("event"))
        .cloned()
        .collect()
}

/// Bytes that look like SSE often enough to reach deep states, raw noise otherwise.
fn sse_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"data: ".to_vec()),
        Just(b"id: 7".to_vec()),
        Just(b"event: x".to_vec()),
        Just(b"retry: 99".to_vec()),
        Just(b": ping".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(vec![0xef, 0xbb, 0xbf]),
        Just(vec![0xe2, 0x82]), // half a UTF-8 character
        proptest::collection::vec(any::<u8>(), 0..40),
        "[a-z{}\":, ]{0,60}".prop_map(String::into_bytes),
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

/// An example event with one field replaced by an arbitrary JSON value.
fn mutated_event() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,40}".prop_map(Value::from),
    ];
    let value = leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-zA-Z_]{1,10}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    let n = examples().len();
    (0..n, any::<prop::sample::Index>(), value, any::<bool>()).prop_map(
        move |(i, which, replacement, in_payload)| {
            let mut ev = examples()[i].clone();
            let target = if in_payload {
                ev.get_mut("payload").filter(|p| p.is_object())
            } else {
                None
            };
            let target = match target {
                Some(t) => t,
                None => &mut ev,
            };
            if let Value::Object(map) = target {
                let keys: Vec<String> = map.keys().cloned().collect();
                if !keys.is_empty() {
                    let k = which.get(&keys).clone();
                    map.insert(k, replacement);
                }
            }
            ev.to_string()
        },
    )
}

/// The size an `Oversized` item reports counts the lines as they were received, so it may
/// differ with the chunking; that the frame was dropped, and where, may not.
fn tally_free(items: Vec<SseItem>) -> Vec<SseItem> {
    items
        .into_iter()
        .map(|i| match i {
            SseItem::Oversized { id, .. } => SseItem::Oversized { bytes: 0, id },
            other => other,
        })
        .collect()
}

fn draw_all(view: &Session) {
    let mut ui = Screen::new();
    ui.toggle_nearest_expandable(view);
    let theme = Theme::default();
    let mut term = Terminal::new(TestBackend::new(90, 30)).unwrap();
    term.draw(|f| ui.draw(f, view, &theme, None)).unwrap();
    for pane in Pane::ALL {
        ui.navigate(pane);
        ui.set_zoomed(true);
        term.draw(|f| ui.draw(f, view, &theme, None)).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The `sse_parser` fuzz target: never panics; chunking never changes the items, also
    /// with a frame bound small enough to be hit.
    #[test]
    fn sse_parser_any_bytes_any_chunking(
        bytes in sse_bytes(),
        cuts in proptest::collection::vec(1usize..17, 1..8),
        max in 16usize..400,
    ) {
        let mut whole = Vec::new();
        SseParser::new(max).feed(&bytes, &mut whole);
        let mut parser = SseParser::new(max);
        let mut chunked = Vec::new();
        let mut rest = &bytes[..];
        let mut i = 0;
        while !rest.is_empty() {
            let (chunk, tail) = rest.split_at(cuts[i % cuts.len()].min(rest.len()));
            parser.feed(chunk, &mut chunked);
            rest = tail;
            i += 1;
        }
        prop_assert_eq!(tally_free(whole), tally_free(chunked));
    }

    /// The `decode_apply` fuzz target: mutated example events and raw lines decode (or
    /// fail to), apply and draw without a panic; skipped ones are counted.
    #[test]
    fn decode_apply_draw_never_panics(
        events in proptest::collection::vec(mutated_event(), 1..12),
        noise in proptest::collection::vec(".{0,80}", 0..4),
        seqs in proptest::collection::vec(prop::option::of(0u64..50), 1..12),
    ) {
        let mut view = Session::new("s").with_origin("props", true);
        let mut failed = 0u64;
        let lines = events.iter().cloned().chain(noise);
        for (i, line) in lines.enumerate() {
            let line = match (serde_json::from_str::<Value>(&line), seqs.get(i)) {
                (Ok(mut v), Some(seq)) if v.is_object() => {
                    v["seq"] = serde_json::json!(seq);
                    v.to_string()
                }
                _ => line,
            };
            match Event::parse(&line) {
                Ok(ev) => { view.apply(Update::Event(ev)); }
                Err(e) => {
                    failed += 1;
                    view.apply(Update::Skipped { reason: e.0.into_owned() });
                }
            }
        }
        prop_assert_eq!(view.skipped(), failed);
        draw_all(&view);
    }
}
