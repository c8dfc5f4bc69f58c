//! The search index: every persisted event's folded searchable text, appended as the event
//! is applied, in chunks that are shared (never copied) with a query running off the loop.
//! Bounded in bytes: past the limit the oldest chunks are dropped, as the local event log drops
//! its oldest segment.

use super::extract;
use super::fold::folded;
use gobare_api::model::Event;
use memchr::memmem::Finder;
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

/// Folded bytes per chunk: a query reports and checks for cancellation once per chunk.
pub const CHUNK_BYTES: usize = 512 * 1024;
/// The default most bytes the index may take (text and records): about 190,000 events of
/// a typical session (89 bytes each in the bench workload), next to the transcript's 24 MiB.
pub const DEFAULT_MAX_BYTES: usize = 16 << 20;
/// Between records, so no match spans two (folded text never contains it).
const SEPARATOR: char = '\0';
/// `Record::entry` when the event made or changed no transcript entry.
const NO_ENTRY: u64 = u64::MAX;

/// The transcript entry that shows an event just applied to `t`: the one it made (`t` had
/// `entries_before` entries before), else the call entry it changed.
pub(crate) fn entry_of_event(
    t: &crate::session::transcript::Transcript,
    entries_before: u64,
    call_id: Option<&str>,
) -> Option<u64> {
    if t.next_id() > entries_before {
        Some(t.next_id() - 1)
    } else {
        call_id.and_then(|id| t.entry_for_call(id))
    }
}

/// Where one event's text starts in its chunk, its seq and the transcript entry it shows in.
#[derive(Debug, Clone, Copy)]
struct Record {
    start: u32,
    seq: u64,
    entry: u64,
}

/// Folded text of consecutive events, oldest first.
#[derive(Debug, Clone, Default)]
pub struct Chunk {
    text: String,
    records: Vec<Record>,
}

impl Chunk {
    fn bytes(&self) -> usize {
        self.text.capacity() + self.records.capacity() * std::mem::size_of::<Record>()
    }
}

/// One matching event: its seq, and the transcript entry (by id) that shows it, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub seq: u64,
    pub entry: Option<u64>,
}

/// The index. Cheap to snapshot for a query ([`SearchIndex::snapshot`]).
#[derive(Debug)]
pub struct SearchIndex {
    /// Oldest first; the last one is still being appended to.
    chunks: VecDeque<Arc<Chunk>>,
    /// What the sealed chunks take (the open one is counted when sealed).
    sealed_bytes: usize,
    max_bytes: usize,
    /// Events dropped with the oldest chunks.
    dropped: u64,
    /// Seq of the newest event indexed (a replayed one is refused).
    last_seq: Option<u64>,
}

impl Default for SearchIndex {
    fn default() -> Self {
        SearchIndex::with_max_bytes(DEFAULT_MAX_BYTES)
    }
}

impl SearchIndex {
    /// An empty index taking at most about `max_bytes` (at least the newest chunk is kept).
    pub fn with_max_bytes(max_bytes: usize) -> Self {
        SearchIndex {
            chunks: VecDeque::new(),
            sealed_bytes: 0,
            max_bytes,
            dropped: 0,
            last_seq: None,
        }
    }

    /// Indexes persisted event `seq`, shown in transcript entry `entry`. Events without
    /// searchable text, and a seq not above the last one, add nothing. Returns whether it
    /// was indexed.
    pub fn push(&mut self, seq: u64, event: &Event, entry: Option<u64>) -> bool {
        if self.last_seq.is_some_and(|last| seq <= last) {
            return false;
        }
        if self
            .chunks
            .back()
            .is_none_or(|c| c.text.len() >= CHUNK_BYTES)
        {
            self.seal();
        }
        let open = Arc::make_mut(self.chunks.back_mut().expect("an open chunk"));
        let start = open.text.len();
        if !extract::push_text(&mut open.text, event) {
            return false;
        }
        open.text.push(SEPARATOR);
        open.records.push(Record {
            start: start as u32,
            seq,
            entry: entry.unwrap_or(NO_ENTRY),
        });
        self.last_seq = Some(seq);
        true
    }

    /// Event `seq`, the newest indexed, shows in transcript entry `entry` (known once the
    /// event is applied).
    pub fn set_entry(&mut self, seq: u64, entry: Option<u64>) {
        if let Some(open) = self.chunks.back_mut()
            && open.records.last().is_some_and(|r| r.seq == seq)
        {
            let open = Arc::make_mut(open);
            if let Some(last) = open.records.last_mut() {
                last.entry = entry.unwrap_or(NO_ENTRY);
            }
        }
    }

    /// The open chunk is done; a new one starts. Old chunks go past the limit.
    fn seal(&mut self) {
        self.seal_last();
        self.drop_over_limit();
        self.chunks.push_back(Arc::new(Chunk {
            text: String::with_capacity(CHUNK_BYTES + extract::RECORD_MAX + 1),
            records: Vec::with_capacity(CHUNK_BYTES / 128),
        }));
    }

    /// Shrinks the open chunk to its text and counts it as sealed.
    fn seal_last(&mut self) {
        if let Some(last) = self.chunks.back_mut() {
            let c = Arc::make_mut(last);
            c.text.shrink_to_fit();
            c.records.shrink_to_fit();
            self.sealed_bytes += c.bytes();
        }
    }

    fn drop_over_limit(&mut self) {
        while self.sealed_bytes > self.max_bytes && self.chunks.len() > 1 {
            let old = self.chunks.pop_front().expect("an old chunk");
            self.sealed_bytes -= old.bytes();
            self.dropped += old.records.len() as u64;
        }
    }

    /// Puts `older` (the index of the events before every one indexed here) in front;
    /// past the limit its oldest chunks go.
    pub fn put_before(&mut self, mut older: SearchIndex) {
        older.seal_last();
        if self.chunks.is_empty() {
            self.chunks.push_back(Arc::default());
        }
        for chunk in older.chunks.into_iter().rev() {
            if !chunk.records.is_empty() {
                self.chunks.push_front(chunk);
            }
        }
        self.sealed_bytes += older.sealed_bytes;
        self.dropped += older.dropped;
        self.last_seq = self.last_seq.max(older.last_seq);
        self.drop_over_limit();
    }

    /// Moves every entry id up by `offset` (an index built against a transcript of its own,
    /// whose entries take higher ids in the app's).
    pub fn shift_entries(&mut self, offset: u64) {
        for chunk in &mut self.chunks {
            for r in &mut Arc::make_mut(chunk).records {
                if r.entry != NO_ENTRY {
                    r.entry += offset;
                }
            }
        }
    }

    /// The most bytes the index may take.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// Bytes the index takes (text and records, capacity included).
    pub fn bytes(&self) -> usize {
        self.sealed_bytes + self.chunks.back().map_or(0, |c| c.bytes())
    }

    /// Events indexed and still kept.
    pub fn records(&self) -> usize {
        self.chunks.iter().map(|c| c.records.len()).sum()
    }

    /// Events dropped with the oldest chunks (older than anything searchable).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// What a query reads: the chunks as they are now, shared, not copied.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            chunks: self.chunks.iter().cloned().collect(),
        }
    }
}

/// The index at one moment, for one query (it can run on another thread).
#[derive(Debug, Clone)]
pub struct Snapshot {
    chunks: Vec<Arc<Chunk>>,
}

impl Snapshot {
    /// Finds `query` (case-insensitive), one hit per transcript entry (its newest event;
    /// an event shown in no entry is a hit of its own). Hands `each` the hits chunk by
    /// chunk, newest chunk first, each batch oldest first; `each` returns `false` to stop
    /// (a newer query replaced this one). Returns whether it ran to the end.
    pub fn search(&self, query: &str, mut each: impl FnMut(Vec<Hit>) -> bool) -> bool {
        let needle = folded(query);
        if needle.is_empty() {
            return true;
        }
        let finder = Finder::new(needle.as_bytes());
        let mut entries_seen = HashSet::new();
        for chunk in self.chunks.iter().rev() {
            let hits = chunk_hits(chunk, &finder, &mut entries_seen);
            if !each(hits) {
                return false;
            }
        }
        true
    }
}

fn chunk_hits(chunk: &Chunk, finder: &Finder, entries_seen: &mut HashSet<u64>) -> Vec<Hit> {
    let text = chunk.text.as_bytes();
    let records = &chunk.records;
    let mut matched = Vec::new();
    let mut at = 0;
    while let Some(found) = finder.find(&text[at..]) {
        let offset = at + found;
        let i = records.partition_point(|r| r.start as usize <= offset) - 1;
        matched.push(i);
        // One hit per record: go on from the next one.
        match records.get(i + 1) {
            Some(next) => at = next.start as usize,
            None => break,
        }
    }
    // Newest first, so an entry's newest event is the one kept.
    let mut hits: Vec<Hit> = matched
        .iter()
        .rev()
        .filter_map(|&i| {
            let r = records[i];
            let entry = (r.entry != NO_ENTRY).then_some(r.entry);
            match entry {
                Some(e) if !entries_seen.insert(e) => None,
                _ => Some(Hit { seq: r.seq, entry }),
            }
        })
        .collect();
    hits.reverse();
    hits
}

#[cfg(test)]
mod tests;
