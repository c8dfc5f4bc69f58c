use super::*;
use serde_json::json;

fn message(seq: u64, text: &str) -> Event {
    let data = json!({"type": "agent.message", "seq": seq, "payload": {"text": text}});
    Event::parse(&data.to_string()).expect("event")
}

fn all(snapshot: &Snapshot, query: &str) -> Vec<Hit> {
    let mut batches = Vec::new();
    assert!(snapshot.search(query, |hits| {
        batches.push(hits);
        true
    }));
    // Batches come newest first: put them back in order.
    batches.into_iter().rev().flatten().collect()
}

#[test]
fn finds_every_matching_event_case_insensitively_oldest_first() {
    let mut index = SearchIndex::default();
    index.push(1, &message(1, "Deploy the API"), Some(0));
    index.push(2, &message(2, "nothing here"), Some(1));
    index.push(3, &message(3, "the api is UP"), Some(2));
    let hits = all(&index.snapshot(), "API");
    assert_eq!(
        hits,
        vec![
            Hit {
                seq: 1,
                entry: Some(0)
            },
            Hit {
                seq: 3,
                entry: Some(2)
            }
        ]
    );
    assert!(all(&index.snapshot(), "").is_empty());
    assert!(all(&index.snapshot(), "absent").is_empty());
}

#[test]
fn no_match_spans_two_events_and_one_entry_is_one_hit() {
    let mut index = SearchIndex::default();
    index.push(1, &message(1, "ab"), Some(0));
    index.push(2, &message(2, "cd"), Some(1));
    assert!(all(&index.snapshot(), "bc").is_empty());
    // A tool call and its result show in the same entry: one hit, the newest event.
    index.push(3, &message(3, "cargo test"), Some(7));
    index.push(4, &message(4, "cargo test passed"), Some(7));
    assert_eq!(
        all(&index.snapshot(), "cargo"),
        vec![Hit {
            seq: 4,
            entry: Some(7)
        }]
    );
}

#[test]
fn a_replayed_seq_is_not_indexed_twice() {
    let mut index = SearchIndex::default();
    index.push(5, &message(5, "once"), None);
    index.push(5, &message(5, "once"), None);
    index.push(4, &message(4, "once"), None);
    assert_eq!(all(&index.snapshot(), "once").len(), 1);
}

#[test]
fn hits_stream_newest_chunk_first_and_a_stale_query_stops() {
    let mut index = SearchIndex::default();
    let text = "needle ".repeat(400);
    let n = 3 * CHUNK_BYTES / text.len() + 1;
    for seq in 1..=n as u64 {
        index.push(seq, &message(seq, &text), Some(seq));
    }
    let snapshot = index.snapshot();
    let mut first = None;
    let mut batches = 0;
    snapshot.search("needle", |hits| {
        first.get_or_insert(hits.last().expect("hits").seq);
        batches += 1;
        true
    });
    assert_eq!(first, Some(n as u64), "the newest hit comes first");
    assert!(batches >= 3, "{batches} batches");
    let mut calls = 0;
    assert!(!snapshot.search("needle", |_| {
        calls += 1;
        false
    }));
    assert_eq!(calls, 1, "cancelled after the first chunk");
}

#[test]
fn the_oldest_chunks_go_past_the_byte_limit() {
    let mut index = SearchIndex::with_max_bytes(2 * CHUNK_BYTES);
    let text = "x".repeat(4000);
    for seq in 1..=2000u64 {
        index.push(seq, &message(seq, &text), None);
    }
    assert!(index.bytes() < 4 * CHUNK_BYTES, "{}", index.bytes());
    assert!(index.dropped() > 0);
    assert_eq!(index.records() as u64 + index.dropped(), 2000);
}

#[test]
fn a_snapshot_is_unchanged_by_later_events() {
    let mut index = SearchIndex::default();
    index.push(1, &message(1, "alpha"), None);
    let before = index.snapshot();
    index.push(2, &message(2, "alpha again"), None);
    assert_eq!(all(&before, "alpha").len(), 1);
    assert_eq!(all(&index.snapshot(), "alpha").len(), 2);
}

#[test]
fn an_older_index_put_in_front_is_searched_with_moved_entry_ids() {
    let mut older = SearchIndex::default();
    older.push(1, &message(1, "the first match"), Some(0));
    older.push(2, &message(2, "no"), None);
    older.shift_entries(40);
    let mut index = SearchIndex::default();
    index.push(3, &message(3, "a later match"), Some(50));
    index.put_before(older);
    assert_eq!(
        all(&index.snapshot(), "match"),
        vec![
            Hit {
                seq: 1,
                entry: Some(40)
            },
            Hit {
                seq: 3,
                entry: Some(50)
            }
        ]
    );
    assert_eq!(index.records(), 3);
    assert!(!index.push(2, &message(2, "refused: not newer"), None));
    assert!(index.push(4, &message(4, "appended after"), None));
    assert_eq!(all(&index.snapshot(), "after").len(), 1);

    // An index with nothing of its own takes the older one whole, and appends after it.
    let mut older = SearchIndex::default();
    older.push(1, &message(1, "old"), None);
    let mut empty = SearchIndex::default();
    empty.put_before(older);
    assert!(empty.push(2, &message(2, "new"), None));
    assert_eq!(empty.records(), 2);
}
