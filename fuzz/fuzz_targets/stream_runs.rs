//! Frame runs on arbitrary bytes in arbitrary chunks: a connection read with runs reports
//! what the general path alone reports (the same frames, skips, anomalies, truncation,
//! cursor and lines seen), whatever the stream target, cursor, `created_at` reading and
//! frame bound; and its frames decoded by the consumer read as the stream's own decoding.
#![no_main]

use gobare_api::fuzzing::{decoding_later_agrees, stream_runs_agree};
use gobare_api::stream::{StreamOptions, StreamProfile, StreamTarget};
use libfuzzer_sys::fuzz_target;

/// The session of the reference's example events (`event-payloads.json`).
const OWN: &str = "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af";

fuzz_target!(|input: &[u8]| {
    // Byte 0 chooses the options, byte 1 the frame bound, bytes 2–7 the chunk sizes (in
    // turn); the rest is the stream.
    let (control, stream) = input.split_at(input.len().min(8));
    let flags = control.first().copied().unwrap_or(0);
    let max_frame_bytes = match control.get(1).copied().unwrap_or(0) {
        0 => 1 << 20,
        b => 64 + usize::from(b) * 4,
    };
    let options = StreamOptions {
        target: if flags & 1 != 0 {
            StreamTarget::Session(OWN.into())
        } else {
            StreamTarget::Org { root: None }
        },
        // The two profiles that read runs, with `created_at` and without.
        profile: if flags & 2 != 0 {
            StreamProfile::RECORDED
        } else {
            StreamProfile::PRINTED
        },
        // The example events' seqs start at 4801: 4802 makes the first two duplicates.
        from: [None, Some(0), Some(3), Some(4802)][usize::from(flags >> 2) & 3],
        replay_if_dropped_before_first_event: flags & 16 != 0,
        max_frame_bytes,
        ..StreamOptions::default()
    };
    let sizes = control.get(2..).unwrap_or_default();
    let mut chunks = Vec::new();
    let mut rest = stream;
    let mut i = 0;
    while !rest.is_empty() {
        // Under 128: long chunks (up to ~1 KiB, several frames each); from 128: 1–128 bytes.
        let size = match sizes.get(i % sizes.len().max(1)).copied().unwrap_or(127) {
            b @ 0..128 => 1 + usize::from(b) * 8,
            b => usize::from(b) - 127,
        };
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        chunks.push(chunk);
        rest = tail;
        i += 1;
    }
    if let Err(differs) = stream_runs_agree(&chunks, &options) {
        panic!("runs and the general path differ: {differs}");
    }
    if let Err(differs) = decoding_later_agrees(&chunks, &options) {
        panic!("decoding later and the stream's decoding differ: {differs}");
    }
});
