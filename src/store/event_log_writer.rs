//! Writing the local event log off the loop: the app collects records as they arrive
//! ([`EventLogAppender::append`]: the envelope's bytes, shared with the chunk they came in, no
//! copy), hands them over when a batch of stream updates is done
//! ([`EventLogAppender::hand_off`]), and a thread of its own frames (checksum and copy), writes,
//! syncs and rotates.
//! [`EventLogAppender::durable_seq`] is the last seq known to be on disk: the stored cursor is
//! never ahead of it, so a crash loses at most an unwritten tail, which the stream
//! re-fetches.

use super::event_log::{self, EventLogFiles, MAX_RECORD, Recovered};
use bytes::Bytes;
use std::fs::File;
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;

/// The app's end of the log: the records of the batch so far and the writer thread.
#[derive(Debug)]
pub struct EventLogAppender {
    /// (seq, envelope JSON), oldest first.
    pending: Vec<(u64, Bytes)>,
    /// The last seq appended (handed over or not).
    last_seq: Option<u64>,
    writer: Option<Writer>,
    /// `seq + 1` of the last record synced to disk; 0 when none.
    durable: Arc<AtomicU64>,
}

#[derive(Debug)]
struct Writer {
    tx: mpsc::Sender<Chunk>,
    thread: JoinHandle<()>,
}

#[derive(Debug)]
struct Chunk {
    records: Vec<(u64, Bytes)>,
    last_seq: u64,
}

impl EventLogAppender {
    /// Starts writing after what [`event_log::recover`] kept. The log holds at most about
    /// `max_bytes` (two segments of half of it each).
    pub fn start(files: EventLogFiles, recovered: &Recovered, max_bytes: u64) -> io::Result<Self> {
        let file = event_log::open_for_append(&files.current, recovered.current_len)?;
        let durable = Arc::new(AtomicU64::new(recovered.last_seq.map_or(0, |s| s + 1)));
        let (tx, rx) = mpsc::channel();
        let segment_limit = (max_bytes / 2).max(event_log::MAGIC.len() as u64 + 1);
        let state = WriterState {
            files,
            file,
            len: recovered.current_len,
            segment_limit,
            durable: durable.clone(),
            framed: Vec::new(),
        };
        let thread = std::thread::Builder::new()
            .name("event-log".into())
            .spawn(move || state.run(rx))?;
        Ok(EventLogAppender {
            pending: Vec::new(),
            last_seq: recovered.last_seq,
            writer: Some(Writer { tx, thread }),
            durable,
        })
    }

    /// Keeps one persisted envelope for the next hand-off (the writer frames it). Skips
    /// (returns `false`) an event at or below the last seq appended, and one too large to
    /// keep.
    pub fn append(&mut self, seq: u64, json: impl Into<Bytes>) -> bool {
        let json = json.into();
        if self.last_seq.is_some_and(|last| seq <= last) || json.len() > MAX_RECORD {
            return false;
        }
        self.pending.push((seq, json));
        self.last_seq = Some(seq);
        true
    }

    /// The last seq appended (on disk or still buffered).
    pub fn last_seq(&self) -> Option<u64> {
        self.last_seq
    }

    /// Gives the buffered records to the writer thread.
    pub fn hand_off(&mut self) {
        let (Some(writer), Some(last_seq)) = (&self.writer, self.last_seq) else {
            return;
        };
        if self.pending.is_empty() {
            return;
        }
        // The next batch is likely the size of this one (a catch-up's are thousands of
        // records): one allocation for it instead of a chain of doubling copies.
        let next = Vec::with_capacity(self.pending.len());
        let records = std::mem::replace(&mut self.pending, next);
        if writer.tx.send(Chunk { records, last_seq }).is_err() {
            tracing::warn!("the event log writer stopped; events are no longer appended");
            self.writer = None;
        }
    }

    /// The last seq synced to disk.
    pub fn durable_seq(&self) -> Option<u64> {
        self.durable.load(Ordering::Acquire).checked_sub(1)
    }

    /// Hands over what is buffered and waits until it is on disk (at quit).
    pub fn close(&mut self) {
        self.hand_off();
        if let Some(Writer { tx, thread }) = self.writer.take() {
            drop(tx);
            let _ = thread.join();
        }
    }
}

impl Drop for EventLogAppender {
    fn drop(&mut self) {
        self.close();
    }
}

/// The largest framing buffer kept for the next chunk; a larger one (a huge batch, a huge
/// record) is freed once written.
const MAX_KEPT_FRAMED: usize = 4 << 20;

struct WriterState {
    files: EventLogFiles,
    file: File,
    len: u64,
    segment_limit: u64,
    durable: Arc<AtomicU64>,
    /// The records of one chunk framed, reused from chunk to chunk.
    framed: Vec<u8>,
}

impl WriterState {
    fn run(mut self, rx: mpsc::Receiver<Chunk>) {
        while let Ok(first) = rx.recv() {
            // Whatever queued up meanwhile goes in the same sync.
            let mut last_seq = first.last_seq;
            let mut result = self.write_chunk(first);
            while result.is_ok()
                && let Ok(next) = rx.try_recv()
            {
                last_seq = next.last_seq;
                result = self.write_chunk(next);
            }
            if let Err(e) = result.and_then(|()| self.file.sync_data()) {
                // The durable seq stays where it was: the cursor does not pass it, and the
                // next start re-fetches from there.
                tracing::warn!("cannot write the event log, no longer appending: {e}");
                return;
            }
            self.durable.store(last_seq + 1, Ordering::Release);
        }
    }

    /// Frames a chunk's records and writes them. The chunks the envelopes are slices of
    /// are let go here, once framed.
    fn write_chunk(&mut self, chunk: Chunk) -> io::Result<()> {
        let mut framed = std::mem::take(&mut self.framed);
        framed.clear();
        for (seq, json) in chunk.records {
            event_log::encode(&mut framed, seq, &json);
        }
        let result = self.write(&framed);
        if framed.capacity() <= MAX_KEPT_FRAMED {
            self.framed = framed;
        }
        result
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.len + bytes.len() as u64 > self.segment_limit
            && self.len > event_log::MAGIC.len() as u64
        {
            self.file.sync_data()?;
            event_log::rotate(&self.files)?;
            self.file = event_log::open_for_append(&self.files.current, 0)?;
            self.len = event_log::MAGIC.len() as u64;
            use std::io::Seek;
            self.file.seek(io::SeekFrom::End(0))?;
        }
        self.file.write_all(bytes)?;
        self.len += bytes.len() as u64;
        Ok(())
    }
}
