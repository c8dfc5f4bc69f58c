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

use memchr::{memchr, memchr2};

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
    data: String,
    id: Option<String>,
    event: Option<String>,
    /// Any byte arrived (comments and pings included).
    any_byte_seen: bool,
    /// Complete lines so far, comments and blank lines included: the idle watchdog's
    /// signal (bytes are not: a comment trickled a byte at a time never ends a line).
    lines_seen: u64,
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
            id: None,
            event: None,
            any_byte_seen: false,
            lines_seen: 0,
        }
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
        self.any_byte_seen |= !chunk.is_empty();
        let mut rest = chunk;
        if self.bom_matched < BOM.len() {
            rest = self.strip_bom(rest);
            if self.bom_matched < BOM.len() {
                return; // still could be a BOM: wait for more bytes
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
                return;
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
                self.line(&rest[..end], out);
            } else {
                let mut line = std::mem::take(&mut self.partial);
                line.extend_from_slice(&rest[..end]);
                self.line(&line, out);
                line.clear();
                self.partial = line; // keep the allocation
            }
            rest = &rest[after..];
        }
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
        self.event = None;
    }

    /// Handles one complete line (without its terminator).
    fn line(&mut self, line: &[u8], out: &mut Vec<SseItem>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
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
                    self.id = Some(lossy(value));
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
        let (name, value) = match memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                let value = value.strip_prefix(b" ").unwrap_or(value);
                (&line[..colon], value)
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.has_data = true;
                push_lossy(&mut self.data, value);
            }
            // WHATWG: an id containing NUL is ignored.
            b"id" if memchr(0, value).is_none() => self.id = Some(lossy(value)),
            b"event" => self.event = Some(lossy(value)),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Digits only, so the text is ASCII; too large for u64 is ignored.
                if let Ok(ms) = std::str::from_utf8(value).unwrap_or("").parse() {
                    out.push(SseItem::Retry(ms));
                }
            }
            _ => {} // unknown fields are ignored
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseItem>) {
        if self.oversized {
            out.push(SseItem::Oversized {
                bytes: self.frame_bytes,
                id: self.id.take(),
            });
        } else if self.has_data {
            out.push(SseItem::Frame(SseFrame {
                id: self.id.take(),
                event: self.event.take(),
                data: std::mem::take(&mut self.data),
            }));
        }
        self.oversized = false;
        self.has_data = false;
        self.frame_bytes = 0;
        self.data.clear();
        self.id = None;
        self.event = None;
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn push_lossy(into: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => into.push_str(s),
        Err(_) => into.push_str(&String::from_utf8_lossy(bytes)),
    }
}

#[cfg(test)]
mod tests;
