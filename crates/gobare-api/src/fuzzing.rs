//! Seams for the fuzz targets in `fuzz/` (feature `fuzzing`, off in every other build):
//! the stream task's reading of a connection, otherwise private to the crate.

use crate::stream::StreamOptions;
use bytes::Bytes;

/// Reads `chunks` as one connection opened with `options` twice, with frame runs and by
/// the general path alone (see [`StreamOptions::frame_runs`]). `Ok`: how many runs were
/// handed over, everything reported being the same both ways; `Err`: what differed.
pub fn stream_runs_agree(chunks: &[&[u8]], options: &StreamOptions) -> Result<usize, String> {
    let chunks: Vec<Bytes> = chunks.iter().map(|c| Bytes::copy_from_slice(c)).collect();
    crate::stream::compare::runs_agree(&chunks, options)
}

/// Reads `chunks` as one connection opened with `options` twice: decoded by the stream,
/// and undecoded in runs then decoded by the consumer
/// ([`crate::stream::StreamFrame::decode_in_place`], as the app and the exports do). `Ok`:
/// the same frames, skips, anomalies, truncation, end and cursor both ways.
pub fn decoding_later_agrees(chunks: &[&[u8]], options: &StreamOptions) -> Result<(), String> {
    let chunks: Vec<Bytes> = chunks.iter().map(|c| Bytes::copy_from_slice(c)).collect();
    crate::stream::compare::decoding_later_agrees(&chunks, options)
}
