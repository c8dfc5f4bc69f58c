use super::*;
use crate::store::event_log_writer::EventLogAppender;

fn envelope(seq: u64) -> String {
    format!(r#"{{"type":"user.message","seq":{seq},"payload":{{"text":"message {seq}"}}}}"#)
}

fn files() -> (tempfile::TempDir, EventLogFiles) {
    let dir = tempfile::tempdir().unwrap();
    let files = EventLogFiles::in_dir(dir.path(), "s1");
    (dir, files)
}

/// Everything the log replays, as (seq, json).
fn read_all(files: &EventLogFiles) -> (Recovered, Vec<(u64, String)>) {
    let mut out = Vec::new();
    let rec = recover(files, |seq, json| {
        out.push((seq, String::from_utf8(json.to_vec()).unwrap()))
    })
    .unwrap();
    (rec, out)
}

fn write_events(files: &EventLogFiles, seqs: impl IntoIterator<Item = u64>, max_bytes: u64) {
    let (rec, _) = read_all(files);
    let mut appender = EventLogAppender::start(files.clone(), &rec, max_bytes).unwrap();
    for seq in seqs {
        appender.append(seq, envelope(seq));
        if seq % 7 == 0 {
            appender.hand_off();
        }
    }
    appender.close();
    assert_eq!(
        appender.durable_seq(),
        appender.last_seq(),
        "closing syncs everything"
    );
}

fn expected(seqs: impl IntoIterator<Item = u64>) -> Vec<(u64, String)> {
    seqs.into_iter().map(|s| (s, envelope(s))).collect()
}

#[test]
fn the_record_format_is_fixed_and_its_checksum_is_ieee_crc32() {
    assert_eq!(
        crc32fast::hash(b"123456789"),
        0xCBF4_3926,
        "the IEEE check value"
    );
    let mut frame = Vec::new();
    encode(&mut frame, 42, envelope(42).as_bytes());
    // The frame a log written before keeps: zlib's crc32 over the seq's 8 LE bytes + JSON.
    assert_eq!(frame[0..4], 64u32.to_le_bytes(), "length");
    assert_eq!(frame[4..8], 0x66C7_7C77u32.to_le_bytes(), "checksum");
    assert_eq!(frame[8..16], 42u64.to_le_bytes(), "seq");
    assert_eq!(&frame[16..], envelope(42).as_bytes());
}

#[test]
fn records_round_trip_in_order() {
    let (_d, files) = files();
    write_events(&files, 1..=100, DEFAULT_MAX_BYTES);
    let (rec, got) = read_all(&files);
    assert_eq!(got, expected(1..=100));
    assert_eq!(rec.last_seq, Some(100));
    assert_eq!(rec.cut_bytes, 0);
    let per_event = fs::metadata(&files.current).unwrap().len() as f64 / 100.0;
    assert!(per_event < envelope(50).len() as f64 + 20.0, "{per_event}");
}

#[test]
fn a_torn_record_is_cut_and_fetched_again_without_a_duplicate() {
    let (_d, files) = files();
    write_events(&files, 1..=10, DEFAULT_MAX_BYTES);
    let len = fs::metadata(&files.current).unwrap().len();
    // A crash in the middle of writing record 10.
    OpenOptions::new()
        .write(true)
        .open(&files.current)
        .unwrap()
        .set_len(len - 5)
        .unwrap();
    let (rec, got) = read_all(&files);
    assert_eq!(got, expected(1..=9));
    assert_eq!(rec.last_seq, Some(9), "the stream resumes after 9");
    assert_eq!(
        rec.cut_bytes,
        (RECORD_HEADER + envelope(10).len() - 5) as u64
    );
    // The stream re-delivers 10 (and a replayed 9 is refused), then 11.
    write_events(&files, [9, 10, 11], DEFAULT_MAX_BYTES);
    let (rec, got) = read_all(&files);
    assert_eq!(got, expected(1..=11));
    assert_eq!(rec.cut_bytes, 0, "the cut was made on disk");
}

#[test]
fn garbage_after_the_last_record_is_cut() {
    let (_d, files) = files();
    write_events(&files, 1..=10, DEFAULT_MAX_BYTES);
    let garbage: Vec<u8> = (0..300u32).map(|i| (i * 131 % 251) as u8).collect();
    OpenOptions::new()
        .append(true)
        .open(&files.current)
        .unwrap()
        .write_all(&garbage)
        .unwrap();
    let (rec, got) = read_all(&files);
    assert_eq!(got, expected(1..=10), "nothing lost");
    assert_eq!(rec.cut_bytes, garbage.len() as u64);
    write_events(&files, [11], DEFAULT_MAX_BYTES);
    assert_eq!(read_all(&files).1, expected(1..=11));
}

#[test]
fn a_flipped_byte_ends_the_log_at_the_record_before() {
    let (_d, files) = files();
    write_events(&files, 1..=10, DEFAULT_MAX_BYTES);
    let mut bytes = fs::read(&files.current).unwrap();
    let record = RECORD_HEADER + envelope(1).len();
    // Inside record 5's JSON (records 1..=9 have the same length).
    bytes[MAGIC.len() + 4 * record + RECORD_HEADER + 3] ^= 0x20;
    fs::write(&files.current, &bytes).unwrap();
    let (rec, got) = read_all(&files);
    assert_eq!(got, expected(1..=4));
    assert_eq!(rec.last_seq, Some(4));
}

#[test]
fn a_repeated_or_older_seq_ends_the_log_there() {
    let (_d, files) = files();
    start_segment(&files.current).unwrap();
    let mut bytes = fs::read(&files.current).unwrap();
    for seq in [1, 2, 3, 3, 4] {
        encode(&mut bytes, seq, envelope(seq).as_bytes());
    }
    fs::write(&files.current, &bytes).unwrap();
    assert_eq!(read_all(&files).1, expected(1..=3));
}

#[test]
fn a_file_that_is_not_a_log_starts_afresh() {
    let (_d, files) = files();
    fs::write(&files.current, b"{\"cursor\": 12}").unwrap();
    let (rec, got) = read_all(&files);
    assert!(got.is_empty());
    assert_eq!(rec.last_seq, None);
    assert_eq!(fs::read(&files.current).unwrap(), MAGIC);
    write_events(&files, 1..=3, DEFAULT_MAX_BYTES);
    assert_eq!(read_all(&files).1, expected(1..=3));
}

#[test]
fn the_size_stays_bounded_and_the_newest_events_are_kept() {
    let (_d, files) = files();
    let max = 16 * 1024;
    write_events(&files, 1..=2_000, max);
    let size = |p: &Path| fs::metadata(p).map_or(0, |m| m.len());
    let chunk = 7 * (RECORD_HEADER + envelope(2_000).len()) as u64;
    assert!(
        size(&files.older) + size(&files.current) <= max + chunk,
        "{} + {}",
        size(&files.older),
        size(&files.current)
    );
    let (rec, got) = read_all(&files);
    let first = got[0].0;
    assert!(first > 1_000, "the oldest part was dropped: {first}");
    assert_eq!(got, expected(first..=2_000), "contiguous up to the newest");
    assert_eq!(rec.last_seq, Some(2_000));
}

#[test]
fn the_durable_seq_moves_only_once_records_are_synced() {
    let (_d, files) = files();
    write_events(&files, 1..=5, DEFAULT_MAX_BYTES);
    let (rec, _) = read_all(&files);
    let mut appender = EventLogAppender::start(files.clone(), &rec, DEFAULT_MAX_BYTES).unwrap();
    assert_eq!(
        appender.durable_seq(),
        Some(5),
        "what recovery kept is on disk"
    );
    assert!(appender.append(6, envelope(6)));
    assert!(!appender.append(6, envelope(6)), "never twice");
    assert!(!appender.append(2, envelope(2)), "never older");
    assert_eq!(appender.last_seq(), Some(6));
    assert_eq!(
        appender.durable_seq(),
        Some(5),
        "buffered, not written: the cursor must not pass 5"
    );
    appender.close();
    assert_eq!(appender.durable_seq(), Some(6));
    assert_eq!(read_all(&files).1, expected(1..=6));
}
