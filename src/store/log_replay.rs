//! Replaying the local event log at start, fast: each segment's records are decoded on a
//! helper thread, in chunks, while the caller applies the ones already decoded, in order.
//! Decoding is the larger half of a replay, so the first full frame of a long session
//! comes about as soon as applying alone would allow.

use super::event_log::{self, LogFiles, Recovered, Span};
use std::io;
use std::sync::mpsc;

/// Records decoded per message to the applying thread.
const CHUNK: usize = 1_024;
/// Decoded chunks waiting at most (bounds memory when applying is the slower half).
const QUEUED_CHUNKS: usize = 8;

/// [`event_log::recover`] with every record decoded by `decode(seq, json)` on a helper
/// thread and handed to `apply` on this one, oldest first.
pub fn recover_decoded<T: Send>(
    files: &LogFiles,
    decode: impl Fn(u64, &[u8]) -> T + Sync,
    mut apply: impl FnMut(T),
) -> io::Result<Recovered> {
    event_log::recover_spans(files, |body, spans| {
        decode_alongside(body, spans, &decode, &mut apply)
    })
}

fn decode_alongside<T: Send>(
    body: &[u8],
    spans: &[Span],
    decode: &(impl Fn(u64, &[u8]) -> T + Sync),
    apply: &mut impl FnMut(T),
) {
    let one = |span: &Span| decode(span.seq, &body[span.json.clone()]);
    if spans.len() <= CHUNK {
        spans.iter().map(one).for_each(apply);
        return;
    }
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<Vec<T>>(QUEUED_CHUNKS);
        let spawned = std::thread::Builder::new()
            .name("event-log-replay".into())
            .spawn_scoped(scope, move || {
                for chunk in spans.chunks(CHUNK) {
                    if tx.send(chunk.iter().map(one).collect()).is_err() {
                        return;
                    }
                }
            });
        match spawned {
            Ok(_) => rx.into_iter().flatten().for_each(&mut *apply),
            // No thread to be had: decode here.
            Err(_) => spans.iter().map(one).for_each(&mut *apply),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::log_writer::LogAppender;

    #[test]
    fn every_record_is_decoded_and_applied_once_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let files = LogFiles::in_dir(dir.path(), "s");
        let rec = event_log::recover(&files, |_, _| {}).unwrap();
        let mut log = LogAppender::start(files.clone(), &rec, u64::MAX).unwrap();
        let n = 10 * CHUNK as u64 + 7;
        for seq in 1..=n {
            log.append(seq, format!("{{\"n\":{seq}}}").as_bytes());
        }
        log.close();
        let mut applied = Vec::new();
        let rec = recover_decoded(
            &files,
            |seq, json| (seq, String::from_utf8(json.to_vec()).unwrap()),
            |item| applied.push(item),
        )
        .unwrap();
        assert_eq!(rec.records, n);
        let expected: Vec<(u64, String)> = (1..=n).map(|s| (s, format!("{{\"n\":{s}}}"))).collect();
        assert_eq!(applied, expected);
    }
}
