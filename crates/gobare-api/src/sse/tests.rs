use super::*;

fn parse(chunks: &[&[u8]]) -> Vec<SseItem> {
    let mut p = SseParser::new(1 << 20);
    let mut out = Vec::new();
    for c in chunks {
        p.feed(c, &mut out);
    }
    out
}

fn frame(id: Option<&str>, event: Option<&str>, data: &str) -> SseItem {
    SseItem::Frame(SseFrame {
        id: id.map(str::to_string),
        event: event.map(str::to_string),
        data: data.to_string(),
    })
}

#[test]
fn persisted_transient_and_ping_frames() {
    let s = b"id: 4812\nevent: agent.message\ndata: {\"seq\":4812}\n\nevent: agent.text\ndata: {\"seq\":null}\n\n: ping\n\n";
    assert_eq!(
        parse(&[s]),
        vec![
            frame(Some("4812"), Some("agent.message"), "{\"seq\":4812}"),
            frame(None, Some("agent.text"), "{\"seq\":null}"),
        ]
    );
}

#[test]
fn id_is_not_inherited_by_the_next_frame() {
    let out = parse(&[b"id: 7\ndata: a\n\ndata: b\n\n"]);
    assert_eq!(
        out,
        vec![frame(Some("7"), None, "a"), frame(None, None, "b")]
    );
}

#[test]
fn crlf_and_bare_cr_line_endings() {
    let want = vec![frame(Some("1"), None, "x"), frame(None, None, "y")];
    assert_eq!(parse(&[b"id: 1\r\ndata: x\r\n\r\ndata: y\r\n\r\n"]), want);
    assert_eq!(parse(&[b"id: 1\rdata: x\r\rdata: y\r\r"]), want);
}

#[test]
fn cr_at_chunk_end_then_lf_is_one_line_end() {
    // If the LF were a second line end it would dispatch "x" early with no id.
    let out = parse(&[b"data: x\r", b"\nid: 1\r", b"\n\r", b"\n"]);
    assert_eq!(out, vec![frame(Some("1"), None, "x")]);
}

#[test]
fn leading_bom_is_stripped_only_at_stream_start() {
    let out = parse(&[b"\xEF\xBB", b"\xBFdata: a\n\n\xEF\xBB\xBFdata: b\n\n"]);
    // The second BOM makes the line's field name "\u{feff}data", an unknown field.
    assert_eq!(out, vec![frame(None, None, "a")]);
}

#[test]
fn partial_bom_prefix_is_kept_as_line_bytes() {
    let out = parse(&[b"\xEF", b"x\n", b"data: a\n\n"]);
    assert_eq!(out, vec![frame(None, None, "a")]);
}

#[test]
fn comments_never_dispatch() {
    assert_eq!(parse(&[b": ping\n\n:\n\n: a\n: b\n\n"]), vec![]);
}

#[test]
fn multi_line_data_is_joined_with_lf() {
    let out = parse(&[b"data: {\"a\":\ndata:  1}\ndata\n\n"]);
    assert_eq!(out, vec![frame(None, None, "{\"a\":\n 1}\n")]);
}

#[test]
fn only_one_leading_space_is_stripped() {
    assert_eq!(parse(&[b"data:  two\n\n"]), vec![frame(None, None, " two")]);
    assert_eq!(parse(&[b"data:none\n\n"]), vec![frame(None, None, "none")]);
}

#[test]
fn field_without_colon_is_a_whole_line_name() {
    // "data" alone is a data line with an empty value: the frame dispatches with "".
    assert_eq!(parse(&[b"data\n\n"]), vec![frame(None, None, "")]);
    assert_eq!(
        parse(&[b"event\ndata: x\n\n"]),
        vec![frame(None, Some(""), "x")]
    );
}

#[test]
fn unknown_fields_are_ignored() {
    let out = parse(&[b"foo: bar\nDATA: no\ndata: yes\n\n"]);
    assert_eq!(out, vec![frame(None, None, "yes")]);
}

#[test]
fn retry_accepts_ascii_digits_only() {
    let out = parse(&[b"retry: 8000\nretry: 1.5\nretry: -1\nretry: \nretry: 12a\nretry:7\n\n"]);
    assert_eq!(out, vec![SseItem::Retry(8000), SseItem::Retry(7)]);
    // Too large for u64: ignored rather than wrapped.
    assert_eq!(parse(&[b"retry: 99999999999999999999999\n"]), vec![]);
}

#[test]
fn frames_without_data_are_not_dispatched() {
    assert_eq!(
        parse(&[b"id: 5\nevent: x\n\ndata: y\n\n"]),
        vec![frame(None, None, "y")]
    );
}

#[test]
fn incomplete_frame_at_end_is_not_dispatched() {
    assert_eq!(parse(&[b"data: x\n"]), vec![]);
    assert_eq!(parse(&[b"data: x"]), vec![]);
}

#[test]
fn utf8_split_inside_a_character_and_invalid_bytes() {
    let s = "data: héllo ✓\n\n".as_bytes();
    let chunks: Vec<&[u8]> = s.chunks(1).collect();
    assert_eq!(parse(&chunks), vec![frame(None, None, "héllo ✓")]);
    assert_eq!(
        parse(&[b"data: a\xFFb\n\n"]),
        vec![frame(None, None, "a\u{FFFD}b")]
    );
}

#[test]
fn id_with_nul_is_ignored() {
    assert_eq!(
        parse(&[b"id: a\0b\ndata: x\n\n"]),
        vec![frame(None, None, "x")]
    );
}

#[test]
fn oversized_frame_is_reported_and_the_next_one_parses() {
    let mut p = SseParser::new(64);
    let mut out = Vec::new();
    let big = format!("id: 9\ndata: {}\n\n", "x".repeat(200));
    p.feed(big.as_bytes(), &mut out);
    p.feed(b"id: 10\ndata: ok\n\n", &mut out);
    assert_eq!(
        out,
        vec![
            SseItem::Oversized {
                bytes: 6 + 207,
                id: Some("9".into())
            },
            frame(Some("10"), None, "ok")
        ]
    );
}

#[test]
fn an_oversized_frame_keeps_its_id_wherever_the_line_is() {
    let mut p = SseParser::new(64);
    let mut out = Vec::new();
    let big = format!(
        "data: {}
id: 11

",
        "x".repeat(200)
    );
    for c in big.as_bytes().chunks(5) {
        p.feed(c, &mut out);
    }
    p.feed(
        b"data: transient

",
        &mut out,
    );
    assert_eq!(
        out,
        vec![
            SseItem::Oversized {
                bytes: 207 + 7,
                id: Some("11".into())
            },
            frame(None, None, "transient")
        ]
    );
}

#[test]
fn oversized_frame_split_in_small_chunks_never_buffers_past_the_bound() {
    let mut p = SseParser::new(64);
    let mut out = Vec::new();
    let big = format!(
        "data: a\ndata: {}\ndata: more\n\ndata: ok\n\n",
        "y".repeat(10_000)
    );
    for c in big.as_bytes().chunks(7) {
        p.feed(c, &mut out);
        assert!(p.partial.len() <= 64 && p.data.len() <= 64);
    }
    assert_eq!(out.len(), 2);
    assert!(matches!(out[0], SseItem::Oversized { bytes, .. } if bytes > 10_000));
    assert_eq!(out[1], frame(None, None, "ok"));
}

#[test]
fn long_comment_lines_are_skipped_quietly() {
    let mut p = SseParser::new(16);
    let s = format!(":{}\ndata: ok\n\n", "p".repeat(100));
    let mut out = Vec::new();
    for c in s.as_bytes().chunks(5) {
        p.feed(c, &mut out);
    }
    assert_eq!(out, vec![frame(None, None, "ok")]);
}

#[test]
fn bytes_seen_counts_pings() {
    let mut p = SseParser::new(1024);
    assert!(!p.any_byte_seen());
    let mut out = Vec::new();
    p.feed(b": ping\n\n", &mut out);
    assert!(out.is_empty());
    assert!(p.any_byte_seen());
}

mod any_chunking {
    use super::*;
    use proptest::prelude::*;

    /// A stream of lines drawn from what matters to the parser: fields, comments, blank
    /// lines, each line ending, multi-byte and invalid UTF-8, NUL in an id.
    fn stream() -> impl Strategy<Value = Vec<u8>> {
        let value = prop::collection::vec(
            prop::sample::select(vec![
                &b"a"[..],
                b" ",
                b":",
                b"{\"seq\":7}",
                "é".as_bytes(),
                b"\xE2\x82",
                b"\xFF",
                b"\0",
                b"12",
            ]),
            0..6,
        )
        .prop_map(|parts| parts.concat());
        let line = (
            prop::sample::select(vec![
                &b"data: "[..],
                b"data:",
                b"data",
                b"id: ",
                b"id:",
                b"event: ",
                b"retry: ",
                b": ",
                b"",
                b"other: ",
            ]),
            value,
            prop::sample::select(vec![&b"\n"[..], b"\r\n", b"\r"]),
        )
            .prop_map(|(name, value, end)| {
                let mut line = name.to_vec();
                if !name.is_empty() {
                    line.extend_from_slice(&value);
                }
                line.extend_from_slice(end);
                line
            });
        prop::collection::vec(line, 0..40).prop_map(|lines| lines.concat())
    }

    fn items(max_frame_bytes: usize, chunks: &[&[u8]]) -> (Vec<SseItem>, u64) {
        let mut p = SseParser::new(max_frame_bytes);
        let mut out = Vec::new();
        for c in chunks {
            p.feed(c, &mut out);
        }
        (out, p.lines_seen())
    }

    /// [`items`] fed as shared chunks, each frame's data kept as [`SseFrameRef::data_owned`]
    /// gives it: (items, lines seen, how many frames hold a slice of their chunk).
    fn items_shared(max_frame_bytes: usize, chunks: &[&[u8]]) -> (Vec<SseItem>, u64, usize) {
        let mut p = SseParser::new(max_frame_bytes);
        let mut out = Vec::new();
        let mut sliced = 0;
        for c in chunks {
            let chunk = bytes::Bytes::copy_from_slice(c);
            p.feed_shared(&chunk, &mut |item| match item {
                SseRef::Frame(frame) => {
                    let data = frame.data_owned();
                    assert_eq!(*data, *frame.data);
                    sliced += usize::from(data.shares(&chunk));
                    out.push(SseItem::Frame(SseFrame {
                        data: data.into(),
                        ..frame.into_owned()
                    }));
                }
                other => out.push(other.into_owned()),
            });
        }
        (out, p.lines_seen(), sliced)
    }

    proptest! {
        /// Frames read in place from a chunk are the frames read from bytes that arrived
        /// one at a time (always copied): any chunking reads the same, and so does their
        /// data kept as a slice of a shared chunk.
        #[test]
        fn any_chunking_reads_the_same(
            bytes in stream(),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
            max_frame_bytes in prop::sample::select(vec![16usize, 64, 1 << 20]),
        ) {
            let one_by_one: Vec<&[u8]> = bytes.chunks(1).collect();
            let want = items(max_frame_bytes, &one_by_one);
            let mut at: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
            at.sort_unstable();
            let mut chunks = Vec::new();
            let mut from = 0;
            for cut in at {
                chunks.push(&bytes[from..cut]);
                from = cut;
            }
            chunks.push(&bytes[from..]);
            prop_assert_eq!(items(max_frame_bytes, &chunks), want.clone());
            let (shared, lines, _) = items_shared(max_frame_bytes, &chunks);
            prop_assert_eq!((shared, lines), want.clone());
            prop_assert_eq!(items(max_frame_bytes, &[&bytes]), want);
        }
    }

    /// A frame read whole from one chunk keeps its data as a slice of it; a frame split
    /// over chunks, or holding invalid UTF-8, holds a copy.
    #[test]
    fn data_read_in_place_is_a_slice_of_the_chunk() {
        let whole: &[u8] = b"id: 1\ndata: {\"a\":1}\n\n";
        let (_, _, sliced) = items_shared(1 << 20, &[whole]);
        assert_eq!(sliced, 1);
        let (items, _, sliced) = items_shared(1 << 20, &[&whole[..10], &whole[10..]]);
        assert_eq!((items.len(), sliced), (1, 0));
        let (_, _, sliced) = items_shared(1 << 20, &[b"data: \xFF\n\n"]);
        assert_eq!(sliced, 0);
    }
}
