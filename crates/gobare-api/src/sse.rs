//! Incremental server-sent-events parser (reference §7.2): bytes in, [`SseItem`]s out.
//!
//! Follows the WHATWG line grammar (LF, CRLF or bare CR; leading BOM; `:` comments; one space
//! stripped after the colon; `data:` lines joined with `\n`; `retry:` digits only) with one
//! deliberate deviation: a frame's `id` is only the `id:` line inside that frame, never
//! inherited, because the resume cursor must not be moved by transient frames (§7.4, §7.5).
//!
//! Chunks may split anywhere, even inside a UTF-8 character: only complete lines are
//! decoded (invalid UTF-8 lossily). A frame larger than the configured bound is discarded up
//! to its blank line and reported as [`SseItem::Oversized`]; the buffers never grow past it.

use crate::frame_data::FrameData;
use bytes::Bytes;
use memchr::{memchr, memchr2};
use std::borrow::Cow;

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
/// The longest line still read inside an oversized frame (enough for any `id:`).
const OVERSIZED_LINE_BYTES: usize = 64;

/// One dispatched frame (it had at least one `data:` line).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseFrame {
    /// The `id:` line of this frame only; `None` when the frame had none.
    pub id: Option<String>,
    /// The `event:` line, if any.
    pub event: Option<String>,
    /// All `data:` lines joined with `\n`.
    pub data: String,
}

/// What the parser emits, in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem {
    /// A frame with at least one `data:` line.
    Frame(SseFrame),
    /// A `retry:` line with only ASCII digits: the server's reconnect delay in ms.
    Retry(u64),
    /// A frame over the size bound was discarded; `bytes` counts its lines as received.
    Oversized {
        /// The discarded frame's size: its lines, each terminator counted as one byte.
        bytes: usize,
        /// Its `id:` line, kept so a discarded persisted event can be named by its seq.
        id: Option<String>,
    },
}

/// The parser state. Reuse one per connection; feed it every chunk in order.
#[derive(Debug)]
pub struct SseParser {
    max_frame_bytes: usize,
    /// Bytes of an incomplete line carried over from earlier chunks.
    partial: Vec<u8>,
    /// How many bytes of a leading BOM have been matched (3 = settled, BOM or not).
    bom_matched: usize,
    /// The previous chunk ended in CR: an LF at the start of the next one ends nothing.
    pending_cr: bool,
    /// Inside an over-long line: drop bytes up to the next line end.
    skipping_line: bool,
    /// The current frame exceeded the bound: drop lines up to the blank line.
    oversized: bool,
    /// Bytes of the current frame's lines so far (terminators counted as one byte).
    frame_bytes: usize,
    has_data: bool,
    /// The frame's data when it is not a single line still in the current chunk (`data_at`).
    data: String,
    /// The frame's only `data:` value so far, as a range of the current chunk: handed over
    /// without a copy when the frame ends in the same chunk.
    data_at: Option<(usize, usize)>,
    id: Field,
    event: Field,
    /// Any byte arrived (comments and pings included).
    any_byte_seen: bool,
    /// Complete lines so far, comments and blank lines included: the idle watchdog's
    /// signal (bytes are not: a comment trickled a byte at a time never ends a line).
    lines_seen: u64,
    /// A frame or a comment (the server's `: ping`) arrived: the server is speaking, not
    /// only a proxy holding the connection open (a `retry:` line alone says nothing).
    heard: bool,
}

impl SseParser {
    /// A parser that discards frames larger than `max_frame_bytes`.
    pub fn new(max_frame_bytes: usize) -> Self {
        SseParser {
            max_frame_bytes: max_frame_bytes.max(1),
            partial: Vec::new(),
            bom_matched: 0,
            pending_cr: false,
            skipping_line: false,
            oversized: false,
            frame_bytes: 0,
            has_data: false,
            data: String::new(),
            data_at: None,
            id: Field::default(),
            event: Field::default(),
            any_byte_seen: false,
            lines_seen: 0,
            heard: false,
        }
    }

    /// Whether a frame or a comment (a ping) has arrived.
    pub(crate) fn heard(&self) -> bool {
        self.heard
    }

    /// How many complete lines have arrived (comments, pings and blank lines included).
    pub(crate) fn lines_seen(&self) -> u64 {
        self.lines_seen
    }

    /// Whether any byte arrived at all (comments and pings included).
    pub(crate) fn any_byte_seen(&self) -> bool {
        self.any_byte_seen
    }

    /// Parses one chunk, appending what it completes to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseItem>) {
        self.feed_with(chunk, &mut |item| out.push(item.into_owned()));
    }

    /// Parses one chunk, handing each item it completes to `each`, borrowed: a frame whose
    /// lines all arrived in this chunk is read in place, without a copy or an allocation.
    pub(crate) fn feed_with(&mut self, chunk: &[u8], each: &mut impl FnMut(SseRef<'_>)) {
        self.feed_lines(chunk, 0, false, each);
        self.end_chunk(chunk);
    }

    /// Like [`SseParser::feed_shared`] from `from` in `chunk`, stopping after the first line
    /// that leaves the parser between frames ([`SseParser::between_frames`]); returns where
    /// it stopped (`chunk.len()`: the chunk is read, and what an unfinished frame holds of
    /// it was copied). Feeding the rest of the chunk this way, or anything that reads as
    /// frames at that point, reads what one `feed_shared` of the whole chunk would.
    pub(crate) fn feed_shared_to_frame_end(
        &mut self,
        chunk: &Bytes,
        from: usize,
        each: &mut impl FnMut(SseRef<'_>),
    ) -> usize {
        let stopped = self.feed_lines(chunk, from, true, &mut |item| match item {
            SseRef::Frame(frame) => each(SseRef::Frame(SseFrameRef {
                chunk: Some(chunk),
                ..frame
            })),
            other => each(other),
        });
        if stopped == chunk.len() {
            self.end_chunk(chunk);
        }
        stopped
    }

    /// Whether the parser is between frames: no line, frame or BOM begun, nothing carried
    /// over. The next byte starts a frame's first line.
    pub(crate) fn between_frames(&self) -> bool {
        self.bom_matched == BOM.len()
            && !self.pending_cr
            && self.partial.is_empty()
            && !self.skipping_line
            && !self.oversized
            && self.frame_bytes == 0
            && !self.has_data
            && !self.id.set
            && !self.event.set
    }

    /// The frame bound this parser applies.
    pub(crate) fn max_frame_bytes(&self) -> usize {
        self.max_frame_bytes
    }

    /// Counts `lines` complete lines read past the parser (whole frames read elsewhere,
    /// between frames): the watchdog's signal.
    pub(crate) fn count_lines(&mut self, lines: u64) {
        self.any_byte_seen |= lines > 0;
        self.heard |= lines > 0;
        self.lines_seen += lines;
    }

    /// The chunk is read: what the unfinished frame holds of it must outlive it.
    fn end_chunk(&mut self, chunk: &[u8]) {
        self.id.spill(chunk);
        self.event.spill(chunk);
        if let Some((from, to)) = self.data_at.take() {
            push_lossy(&mut self.data, &chunk[from..to]);
        }
    }

    /// [`SseParser::feed_with`] of a shared chunk: a frame read in place can keep its data
    /// as a slice of it ([`SseFrameRef::data_owned`]) instead of a copy.
    pub(crate) fn feed_shared(&mut self, chunk: &Bytes, each: &mut impl FnMut(SseRef<'_>)) {
        self.feed_with(chunk, &mut |item| match item {
            SseRef::Frame(frame) => each(SseRef::Frame(SseFrameRef {
                chunk: Some(chunk),
                ..frame
            })),
            other => each(other),
        });
    }

    /// Reads the lines of `chunk[from..]`; with `stop_between_frames`, only up to the end of
    /// the first line after which the parser is [`SseParser::between_frames`]. Returns where
    /// it stopped.
    fn feed_lines(
        &mut self,
        chunk: &[u8],
        from: usize,
        stop_between_frames: bool,
        each: &mut impl FnMut(SseRef<'_>),
    ) -> usize {
        let mut rest = &chunk[from..];
        self.any_byte_seen |= !rest.is_empty();
        if self.bom_matched < BOM.len() {
            rest = self.strip_bom(rest);
            if self.bom_matched < BOM.len() {
                return chunk.len(); // still could be a BOM: wait for more bytes
            }
        }
        if self.pending_cr && !rest.is_empty() {
            self.pending_cr = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while !rest.is_empty() {
            let Some(end) = memchr2(b'\n', b'\r', rest) else {
                self.keep_partial(rest);
                return chunk.len();
            };
            self.lines_seen += 1;
            let after = if rest[end] == b'\r' {
                match rest.get(end + 1) {
                    Some(b'\n') => end + 2,
                    Some(_) => end + 1,
                    None => {
                        self.pending_cr = true;
                        end + 1
                    }
                }
            } else {
                end + 1
            };
            if self.skipping_line {
                self.skipping_line = false;
                self.count_spoiled(end + 1);
            } else if self.partial.is_empty() {
                let at = chunk.len() - rest.len();
                self.line(chunk, Some(at), &rest[..end], each);
            } else {
                let mut line = std::mem::take(&mut self.partial);
                line.extend_from_slice(&rest[..end]);
                self.line(chunk, None, &line, each);
                line.clear();
                self.partial = line; // keep the allocation
            }
            rest = &rest[after..];
            if stop_between_frames && self.between_frames() {
                return chunk.len() - rest.len();
            }
        }
        chunk.len()
    }

    /// Consumes leading BOM bytes; on a mismatch re-queues the matched prefix as line bytes.
    fn strip_bom<'a>(&mut self, mut rest: &'a [u8]) -> &'a [u8] {
        while self.bom_matched < BOM.len() {
            match rest.first() {
                None => return rest,
                Some(&b) if b == BOM[self.bom_matched] => {
                    self.bom_matched += 1;
                    rest = &rest[1..];
                }
                Some(_) => {
                    // Not a BOM: the bytes matched so far are the start of the first line.
                    self.partial.extend_from_slice(&BOM[..self.bom_matched]);
                    self.bom_matched = BOM.len();
                }
            }
        }
        rest
    }

    /// Buffers an incomplete line, or starts skipping it when it cannot fit the bound.
    fn keep_partial(&mut self, bytes: &[u8]) {
        if self.skipping_line {
            self.count_spoiled(bytes.len());
            return;
        }
        let kept = self.partial.len() + bytes.len();
        // In a frame already too large, short lines are still read: one may be its `id:`.
        let fits = if self.oversized {
            kept < OVERSIZED_LINE_BYTES
        } else {
            self.frame_bytes + kept < self.max_frame_bytes
        };
        if fits {
            self.partial.extend_from_slice(bytes);
            return;
        }
        // Too long to keep. A comment is dropped quietly; anything else spoils the frame.
        let is_comment = self.partial.first().or(bytes.first()) == Some(&b':');
        let dropped = self.partial.len() + bytes.len();
        self.partial.clear();
        self.partial.shrink_to(self.max_frame_bytes.min(64 << 10));
        self.skipping_line = true;
        if !is_comment {
            self.spoil_frame();
        }
        self.count_spoiled(dropped);
    }

    /// Adds bytes to an oversized frame's tally (a quietly skipped comment counts nothing).
    fn count_spoiled(&mut self, bytes: usize) {
        if self.oversized {
            self.frame_bytes = self.frame_bytes.saturating_add(bytes);
        }
    }

    /// The id is kept (it names what was lost); the data is freed.
    fn spoil_frame(&mut self) {
        self.oversized = true;
        self.has_data = false;
        self.data = String::new();
        self.data_at = None;
        self.event.clear();
    }

    /// Handles one complete line (without its terminator). `at` is where the line starts
    /// in `chunk` when it lies there (else it was joined from earlier chunks).
    fn line(
        &mut self,
        chunk: &[u8],
        at: Option<usize>,
        line: &[u8],
        each: &mut impl FnMut(SseRef<'_>),
    ) {
        if line.is_empty() {
            self.heard |= self.has_data || self.oversized;
            self.dispatch(chunk, each);
            return;
        }
        if line[0] == b':' {
            self.heard = true;
            return; // comment / keep-alive
        }
        if self.oversized {
            self.frame_bytes = self.frame_bytes.saturating_add(line.len() + 1);
            // The same bound as for a line still arriving, so the chunking never decides.
            if line.len() < OVERSIZED_LINE_BYTES
                && let Some(value) = line.strip_prefix(b"id:")
            {
                let value = value.strip_prefix(b" ").unwrap_or(value);
                if memchr(0, value).is_none() {
                    self.id.set(value, None);
                }
            }
            return;
        }
        if self.frame_bytes + line.len() + 1 > self.max_frame_bytes {
            self.frame_bytes += line.len() + 1;
            self.spoil_frame();
            return;
        }
        self.frame_bytes += line.len() + 1;
        let (name, value, value_at) = match memchr(b':', line) {
            Some(colon) => {
                let start = colon + 1 + usize::from(line.get(colon + 1) == Some(&b' '));
                (&line[..colon], &line[start..], at.map(|at| at + start))
            }
            None => (line, &b""[..], None),
        };
        // Where the value lies in the chunk, if it does.
        let span = value_at.map(|from| (from, from + value.len()));
        match name {
            b"data" => {
                if self.has_data {
                    if let Some((from, to)) = self.data_at.take() {
                        push_lossy(&mut self.data, &chunk[from..to]);
                    }
                    self.data.push('\n');
                    push_lossy(&mut self.data, value);
                } else if span.is_some() {
                    self.data_at = span;
                } else {
                    push_lossy(&mut self.data, value);
                }
                self.has_data = true;
            }
            // WHATWG: an id containing NUL is ignored.
            b"id" if memchr(0, value).is_none() => self.id.set(value, span),
            b"event" => self.event.set(value, span),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Digits only, so the text is ASCII; too large for u64 is ignored.
                if let Ok(ms) = std::str::from_utf8(value).unwrap_or("").parse() {
                    each(SseRef::Retry(ms));
                }
            }
            _ => {} // unknown fields are ignored
        }
    }

    fn dispatch(&mut self, chunk: &[u8], each: &mut impl FnMut(SseRef<'_>)) {
        if self.oversized {
            each(SseRef::Oversized {
                bytes: self.frame_bytes,
                id: self.id.get(chunk).map(Cow::into_owned),
            });
        } else if self.has_data {
            let data = match self.data_at.take() {
                Some((from, to)) => lossy(&chunk[from..to]),
                None => Cow::Borrowed(self.data.as_str()),
            };
            each(SseRef::Frame(SseFrameRef {
                id: self.id.get(chunk),
                event: self.event.get(chunk),
                data,
                chunk: None,
            }));
        }
        self.oversized = false;
        self.has_data = false;
        self.frame_bytes = 0;
        self.data.clear();
        self.data_at = None;
        self.id.clear();
        self.event.clear();
    }
}

/// A frame as [`SseParser::feed_with`] hands it over: borrowed from the chunk or the
/// parser (invalid UTF-8 read lossily, as [`SseFrame`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseFrameRef<'a> {
    pub(crate) id: Option<Cow<'a, str>>,
    pub(crate) event: Option<Cow<'a, str>>,
    pub(crate) data: Cow<'a, str>,
    /// The chunk the frame was read from, when it was fed shared
    /// ([`SseParser::feed_shared`]).
    pub(crate) chunk: Option<&'a Bytes>,
}

/// [`SseItem`], borrowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SseRef<'a> {
    Frame(SseFrameRef<'a>),
    Retry(u64),
    Oversized { bytes: usize, id: Option<String> },
}

impl SseFrameRef<'_> {
    /// The data to keep: a slice of the shared chunk when it lies there, else a copy.
    pub(crate) fn data_owned(&self) -> FrameData {
        FrameData::of(&self.data, self.chunk)
    }

    pub(crate) fn into_owned(self) -> SseFrame {
        SseFrame {
            id: self.id.map(Cow::into_owned),
            event: self.event.map(Cow::into_owned),
            data: self.data.into_owned(),
        }
    }
}

impl SseRef<'_> {
    fn into_owned(self) -> SseItem {
        match self {
            SseRef::Frame(frame) => SseItem::Frame(frame.into_owned()),
            SseRef::Retry(ms) => SseItem::Retry(ms),
            SseRef::Oversized { bytes, id } => SseItem::Oversized { bytes, id },
        }
    }
}

/// An `id:` or `event:` value of the frame being read: a range of the current chunk while
/// it lies there, else its own (reused) text.
#[derive(Debug, Default)]
struct Field {
    set: bool,
    at: Option<(usize, usize)>,
    text: String,
}

impl Field {
    /// A later line replaces an earlier one.
    fn set(&mut self, value: &[u8], at: Option<(usize, usize)>) {
        self.set = true;
        self.at = at;
        if at.is_none() {
            self.text.clear();
            push_lossy(&mut self.text, value);
        }
    }

    /// Copies the value out of `chunk`, which is about to go.
    fn spill(&mut self, chunk: &[u8]) {
        if let Some((from, to)) = self.at.take() {
            self.text.clear();
            push_lossy(&mut self.text, &chunk[from..to]);
        }
    }

    fn get<'a>(&'a self, chunk: &'a [u8]) -> Option<Cow<'a, str>> {
        if !self.set {
            return None;
        }
        Some(match self.at {
            Some((from, to)) => lossy(&chunk[from..to]),
            None => Cow::Borrowed(self.text.as_str()),
        })
    }

    fn clear(&mut self) {
        self.set = false;
        self.at = None;
        self.text.clear();
    }
}

/// Text of `bytes`, borrowed when it is valid UTF-8 (`from_utf8_lossy` alone checks byte
/// by byte, several times slower on the valid text that is the rule).
fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

fn push_lossy(into: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => into.push_str(s),
        Err(_) => into.push_str(&String::from_utf8_lossy(bytes)),
    }
}

#[cfg(test)]
mod tests;
