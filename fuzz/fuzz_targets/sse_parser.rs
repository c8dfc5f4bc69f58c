//! The SSE parser on arbitrary bytes, fed in arbitrary chunks: never panics, and the
//! chunking never changes the frames (compared with the same bytes fed in one piece).
#![no_main]

use gobare_api::sse::{SseItem, SseParser};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    // The first bytes choose the chunk sizes and the frame bound; the rest is the stream.
    let (control, stream) = input.split_at(input.len().min(8));
    let max = 64 + control.first().copied().unwrap_or(0) as usize * 16;
    let mut whole = Vec::new();
    SseParser::new(max).feed(stream, &mut whole);

    let mut parser = SseParser::new(max);
    let mut chunked = Vec::new();
    let mut rest = stream;
    let mut i = 0;
    while !rest.is_empty() {
        let size = 1 + control.get(i % control.len().max(1)).copied().unwrap_or(1) as usize % 17;
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        parser.feed(chunk, &mut chunked);
        rest = tail;
        i += 1;
    }
    // An `Oversized` item's byte tally counts lines as received and may vary with the
    // chunking; that a frame was dropped, and where, may not.
    let tally_free = |items: Vec<SseItem>| -> Vec<SseItem> {
        items
            .into_iter()
            .map(|i| match i {
                SseItem::Oversized { id, .. } => SseItem::Oversized { bytes: 0, id },
                other => other,
            })
            .collect()
    };
    assert_eq!(
        tally_free(whole),
        tally_free(chunked),
        "chunking changed the frames"
    );
});
