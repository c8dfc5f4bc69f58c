//! The local event log of a session's persisted events, as received: append-only, framed so a
//! torn or corrupt tail is detected, bounded in size by two segment files.
//!
//! A segment is [`MAGIC`] then records, each `len: u32 LE | crc32: u32 LE | seq: u64 LE |
//! envelope JSON (len bytes)`, the checksum covering `seq` and the JSON. Opening scans both
//! segments (older first) and cuts each back to its last good record: one that is torn (a
//! crash mid-write, a full disk), whose checksum fails (garbage) or whose `seq` does not
//! increase (never a duplicate) ends the segment there. What was cut is fetched again: the
//! stream resumes after the last seq kept. When the current segment reaches half the size
//! limit it becomes the older one (the previous older one is deleted), so the log never
//! holds more than about the limit and always holds the newest events.

use super::private_fs;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The first bytes of every segment (format and version).
pub const MAGIC: &[u8; 8] = b"GBEVLOG1";
/// Length, checksum and seq before each record's JSON.
pub const RECORD_HEADER: usize = 16;
/// The largest envelope kept; a larger one is not logged (it is still shown live).
pub const MAX_RECORD: usize = 32 << 20;
/// The default size limit of one session's event log (`[history] event_log_mib`).
pub const DEFAULT_MAX_BYTES: u64 = 64 << 20;

/// Appends one framed record to `out`.
pub fn encode(out: &mut Vec<u8>, seq: u64, json: &[u8]) {
    let seq_bytes = seq.to_le_bytes();
    let crc = checksum(&seq_bytes, json);
    out.reserve(RECORD_HEADER + json.len());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&seq_bytes);
    out.extend_from_slice(json);
}

/// CRC-32 (IEEE, the zlib polynomial) of a record's seq then JSON.
pub(crate) fn checksum(seq_bytes: &[u8; 8], json: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(seq_bytes);
    hasher.update(json);
    hasher.finalize()
}

/// Walks the records of `body` (a segment after its magic), calling `each(seq, json)` for
/// every good one whose seq is above `after` and increasing. Returns how many bytes of
/// `body` are good; everything past them is torn, corrupt or out of order.
pub fn scan(body: &[u8], mut after: Option<u64>, mut each: impl FnMut(u64, &[u8])) -> usize {
    let mut at = 0;
    while let Some(header) = body.get(at..at + RECORD_HEADER) {
        let len = u32::from_le_bytes(header[0..4].try_into().expect("4 bytes")) as usize;
        let crc = u32::from_le_bytes(header[4..8].try_into().expect("4 bytes"));
        let seq = u64::from_le_bytes(header[8..16].try_into().expect("8 bytes"));
        if len > MAX_RECORD || after.is_some_and(|a| seq <= a) {
            break;
        }
        let start = at + RECORD_HEADER;
        // The seq and the JSON lie side by side: one checksum over both, no copy.
        let Some(covered) = body.get(at + 8..start + len) else {
            break;
        };
        if crc32fast::hash(covered) != crc {
            break;
        }
        each(seq, &covered[8..]);
        after = Some(seq);
        at = start + len;
    }
    at
}

/// The two segment files of one session's log.
#[derive(Debug, Clone)]
pub struct EventLogFiles {
    pub(crate) older: PathBuf,
    pub(crate) current: PathBuf,
    /// The largest segment read: a larger file was not written by a log of this size limit.
    max_segment: u64,
}

impl EventLogFiles {
    /// `dir/<name>.old.log` and `dir/<name>.log`; `name` must already be a safe file name.
    /// The log is taken to have the default size limit.
    pub fn in_dir(dir: &Path, name: &str) -> EventLogFiles {
        EventLogFiles {
            older: dir.join(format!("{name}.old.log")),
            current: dir.join(format!("{name}.log")),
            max_segment: 0,
        }
        .limited(DEFAULT_MAX_BYTES)
    }

    /// The same files of a log that holds about `max_bytes`: a segment is at most half of
    /// that, or one batch of records past it (a batch is rarely more than a record).
    pub fn limited(mut self, max_bytes: u64) -> EventLogFiles {
        self.max_segment = max_bytes.saturating_add(MAX_RECORD as u64);
        self
    }

    /// The segment being appended to.
    pub fn current_segment(&self) -> &Path {
        &self.current
    }

    /// Bytes both segments take on disk.
    pub fn size_on_disk(&self) -> u64 {
        [&self.older, &self.current]
            .iter()
            .map(|p| fs::symlink_metadata(p).map_or(0, |m| m.len()))
            .sum()
    }
}

/// What opening a log found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Records replayed.
    pub records: u64,
    /// The last seq kept: the stream resumes after it.
    pub last_seq: Option<u64>,
    /// Bytes cut off (torn, corrupt or duplicate records), over both segments.
    pub cut_bytes: u64,
    /// The current segment's length after recovery (where appending continues).
    pub current_len: u64,
}

/// One kept record inside a segment's body: its seq and where its JSON is.
#[derive(Debug, Clone)]
struct Span {
    seq: u64,
    json: std::ops::Range<usize>,
}

/// A recovered log held in memory: both segments' good records, oldest first.
#[derive(Debug, Default)]
pub struct Loaded {
    pub recovered: Recovered,
    /// Each segment's bytes (from its magic on) and its kept records.
    segments: Vec<(Vec<u8>, Vec<Span>)>,
}

impl Loaded {
    /// Every kept record as `(seq, envelope JSON)`, oldest first.
    pub fn records(&self) -> impl Iterator<Item = (u64, &[u8])> {
        self.segments.iter().flat_map(|(bytes, spans)| {
            let body = &bytes[MAGIC.len()..];
            spans.iter().map(move |s| (s.seq, &body[s.json.clone()]))
        })
    }
}

/// Opens the log, cuts each segment back to its last good record and hands every kept
/// record to `each(seq, json)`, oldest first. A missing log reads as empty; a segment that
/// is not a log at all is started afresh.
pub fn recover(files: &EventLogFiles, mut each: impl FnMut(u64, &[u8])) -> io::Result<Recovered> {
    let loaded = load(files)?;
    for (seq, json) in loaded.records() {
        each(seq, json);
    }
    Ok(loaded.recovered)
}

/// [`recover`], keeping the records in memory (for a replay that picks which to decode).
pub fn load(files: &EventLogFiles) -> io::Result<Loaded> {
    load_and_repair(files, true)
}

/// The good records as they are on disk, changing nothing: for reading back while the
/// writer appends (a record it is writing reads as a torn tail, which must not be cut).
pub fn read(files: &EventLogFiles) -> io::Result<Loaded> {
    load_and_repair(files, false)
}

fn load_and_repair(files: &EventLogFiles, repair: bool) -> io::Result<Loaded> {
    let mut out = Loaded::default();
    for (path, is_current) in [(&files.older, false), (&files.current, true)] {
        let rec = &mut out.recovered;
        // A segment too large for this log is not one it wrote: it reads as no log.
        let mut too_large = 0;
        let bytes = match read_whole(path, files.max_segment) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) if e.kind() == io::ErrorKind::FileTooLarge => {
                too_large = fs::symlink_metadata(path).map_or(0, |m| m.len());
                Vec::new()
            }
            Err(e) => return Err(e),
        };
        let exists = fs::symlink_metadata(path).is_ok();
        let mut spans = Vec::new();
        let good = if bytes.starts_with(MAGIC) {
            let body = &bytes[MAGIC.len()..];
            let base = body.as_ptr() as usize;
            let good = scan(body, rec.last_seq, |seq, json| {
                let start = json.as_ptr() as usize - base;
                spans.push(Span {
                    seq,
                    json: start..start + json.len(),
                });
            });
            if let Some(last) = spans.last() {
                rec.records += spans.len() as u64;
                rec.last_seq = Some(last.seq);
            }
            MAGIC.len() + good
        } else {
            0
        };
        let len = bytes.len();
        if repair && (good < len || too_large > 0 || (is_current && good == 0)) {
            rec.cut_bytes += (len - good) as u64 + too_large;
            if good == 0 {
                if is_current || exists {
                    start_segment(path)?;
                }
            } else {
                let file = private_fs::open(path, OpenOptions::new().write(true))?;
                file.set_len(good as u64)?;
                file.sync_data()?;
            }
        }
        if is_current {
            rec.current_len = good.max(MAGIC.len()) as u64;
        }
        if !spans.is_empty() {
            out.segments.push((bytes, spans));
        }
    }
    Ok(out)
}

/// The whole file in one read, into a buffer of its size; one larger than `max` is an
/// error (`FileTooLarge`) before anything is read.
fn read_whole(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let file = private_fs::open_read(path)?;
    let len = file.metadata()?.len();
    if len > max {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("{} is larger than {max} bytes", path.display()),
        ));
    }
    // One more byte: the read that finds the end needs no bigger buffer.
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0) + 1);
    advise_huge_pages(&bytes);
    file.take(max).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Asks for huge pages behind a big buffer about to be filled: reading a log of tens of
/// megabytes otherwise takes a page fault per 4 KiB, most of the read's time.
#[cfg(target_os = "linux")]
fn advise_huge_pages(buf: &Vec<u8>) {
    const HUGE_PAGE: usize = 2 << 20;
    let start = buf.as_ptr() as usize;
    let from = start.next_multiple_of(HUGE_PAGE);
    let to = (start + buf.capacity()) / HUGE_PAGE * HUGE_PAGE;
    if to > from {
        // SAFETY: the range lies inside the buffer's own allocation, and the advice changes
        // only how its pages are backed, never their contents.
        unsafe {
            libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_buf: &Vec<u8>) {}

/// Creates (or empties) a segment holding only the magic.
pub(crate) fn start_segment(path: &Path) -> io::Result<()> {
    let mut options = OpenOptions::new();
    let mut file = private_fs::open(path, options.write(true).create(true).truncate(true))?;
    file.write_all(MAGIC)?;
    file.sync_data()
}

/// Opens the current segment for appending at `len` (what recovery kept).
pub(crate) fn open_for_append(path: &Path, len: u64) -> io::Result<File> {
    let mut file = private_fs::open(path, OpenOptions::new().write(true))?;
    file.seek(SeekFrom::Start(len))?;
    Ok(file)
}

/// The current segment becomes the older one (replacing it), and a new current starts.
pub(crate) fn rotate(files: &EventLogFiles) -> io::Result<()> {
    fs::rename(&files.current, &files.older)?;
    start_segment(&files.current)
}

mod find;
pub use find::find;

#[cfg(test)]
mod tests;
