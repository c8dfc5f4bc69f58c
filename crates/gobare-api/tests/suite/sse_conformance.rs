//! Any chunking of an SSE stream yields the same items as feeding it whole, for LF, CRLF and
//! CR line endings, with and without a BOM; and the items match what was written.

use gobare_api::sse::{SseFrame, SseItem, SseParser};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Block {
    Frame {
        id: Option<String>,
        event: Option<String>,
        data: Vec<String>,
    },
    Comment(String),
    Retry(u32),
}

fn text() -> impl Strategy<Value = String> {
    "[^\r\n\u{0}]{0,24}"
}

fn block() -> impl Strategy<Value = Block> {
    prop_oneof![
        6 => (
            proptest::option::of(text()),
            proptest::option::of(text()),
            proptest::collection::vec(text(), 0..4)
        )
            .prop_map(|(id, event, data)| Block::Frame { id, event, data }),
        1 => text().prop_map(Block::Comment),
        1 => any::<u32>().prop_map(Block::Retry),
    ]
}

/// Writes the blocks with one line ending; returns the bytes and the items they must yield.
fn render(blocks: &[Block], eol: &str, bom: bool) -> (Vec<u8>, Vec<SseItem>) {
    let mut s = String::new();
    let mut want = Vec::new();
    if bom {
        s.push('\u{FEFF}');
    }
    for b in blocks {
        match b {
            Block::Frame { id, event, data } => {
                if let Some(id) = id {
                    s += &format!("id: {id}{eol}");
                }
                if let Some(ev) = event {
                    s += &format!("event:{ev}{eol}");
                }
                for d in data {
                    s += &format!("data: {d}{eol}");
                }
                s += eol;
                if !data.is_empty() {
                    want.push(SseItem::Frame(SseFrame {
                        id: id.clone(),
                        event: event.clone(),
                        // "event:" has no space, so a value's own leading space is stripped.
                        data: data.join("\n"),
                    }));
                    if let (Some(ev), SseItem::Frame(f)) = (event, want.last_mut().unwrap()) {
                        f.event = Some(ev.strip_prefix(' ').unwrap_or(ev).to_string());
                    }
                }
            }
            Block::Comment(c) => s += &format!(":{c}{eol}"),
            Block::Retry(ms) => {
                s += &format!("retry: {ms}{eol}");
                want.push(SseItem::Retry(u64::from(*ms)));
            }
        }
    }
    (s.into_bytes(), want)
}

fn feed_chunks(bytes: &[u8], cuts: &[usize]) -> Vec<SseItem> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    let mut p = SseParser::new(1 << 20);
    let mut out = Vec::new();
    let mut start = 0;
    for c in cuts.into_iter().chain([bytes.len()]) {
        p.feed(&bytes[start..c], &mut out);
        start = c;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_chunking_yields_the_written_items(
        blocks in proptest::collection::vec(block(), 0..12),
        eol in prop_oneof![Just("\n"), Just("\r\n"), Just("\r")],
        bom in any::<bool>(),
        cuts in proptest::collection::vec(any::<usize>(), 0..40),
    ) {
        let (bytes, want) = render(&blocks, eol, bom);
        let whole = feed_chunks(&bytes, &[]);
        prop_assert_eq!(&whole, &want);
        prop_assert_eq!(&feed_chunks(&bytes, &cuts), &want);
    }

    #[test]
    fn single_byte_feeding_matches_whole(
        blocks in proptest::collection::vec(block(), 0..6),
        eol in prop_oneof![Just("\n"), Just("\r\n"), Just("\r")],
    ) {
        let (bytes, want) = render(&blocks, eol, true);
        let mut p = SseParser::new(1 << 20);
        let mut out = Vec::new();
        for b in &bytes {
            p.feed(std::slice::from_ref(b), &mut out);
        }
        prop_assert_eq!(out, want);
    }

    #[test]
    fn oversized_frames_are_reported_identically_under_any_chunking(
        sizes in proptest::collection::vec(0usize..300, 1..8),
        cuts in proptest::collection::vec(any::<usize>(), 0..40),
    ) {
        let mut s = String::new();
        for (i, n) in sizes.iter().enumerate() {
            s += &format!("id: {i}\r\ndata: {}\r\n\r\n", "x".repeat(*n));
        }
        let bytes = s.into_bytes();
        let run = |cuts: &[usize]| {
            let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
            cuts.sort_unstable();
            let mut p = SseParser::new(128);
            let mut out = Vec::new();
            let mut start = 0;
            for c in cuts.into_iter().chain([bytes.len()]) {
                p.feed(&bytes[start..c], &mut out);
                start = c;
            }
            out
        };
        let whole = run(&[]);
        prop_assert_eq!(whole.len(), sizes.len());
        for (item, n) in whole.iter().zip(&sizes) {
            // Lines count with one terminator byte: "id: i" (6) + "data: " + value (7 + n).
            let fits = 6 + 7 + n <= 128;
            prop_assert_eq!(matches!(item, SseItem::Frame(_)), fits, "n = {}", n);
        }
        prop_assert_eq!(run(&cuts), whole);
    }
}
