//! Frames read a chunk at a time ([`StreamProfile::frame_runs`]): the persisted frames of a
//! chunk that are in the server's usual shape are found by a scan of the chunk and handed
//! over together, as the chunk and each frame's seq, `created_at` and data range
//! ([`FrameRun`]), instead of an update per frame.
//!
//! A frame is taken this way only when the general path (the SSE parser, then
//! [`Resume::on_frame_ref`]) would deliver it, undecoded, at the same seq with nothing else
//! to report; anything else (and whatever follows it up to the next frame's start) is left
//! to the general path, so the two take turns within a chunk.
//!
//! [`StreamProfile::frame_runs`]: super::StreamProfile::frame_runs

use super::resume::{NOT_DECODED, Resume};
use super::{QueueSlot, StreamFrame, decode_persisted};
use crate::event_decode::HeadAt;
use crate::frame_data::FrameData;
use crate::model::{DecodeError, Event};
use bytes::Bytes;

/// Persisted frames read from one chunk, in order: each one's seq and `data:` line as the
/// server sent it (a range of the chunk, which the run holds). Every `data` is one line of
/// printable ASCII (bytes `0x20..=0x7E`), so it prints as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameRun {
    chunk: Bytes,
    frames: Vec<RunFrame>,
    /// The run's share of the queue budget (see [`StreamFrame::slot`]).
    pub(crate) slot: QueueSlot,
}

/// One frame of a run: its seq, its `created_at` (when the stream reads it) and where its
/// `data:` value lies in the chunk (`end` is the position of the `\n` that ends it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RunFrame {
    seq: u64,
    created_at: Option<i64>,
    start: usize,
    end: usize,
    /// Where its head's parts lie in its data, when the stream read them all (its seq and
    /// `created_at` are then the head's).
    head: Option<HeadAt>,
}

/// Memory a run holds per frame besides the chunk.
pub(crate) const RUN_FRAME_BYTES: usize = std::mem::size_of::<RunFrame>();

impl FrameRun {
    pub(crate) fn new(chunk: Bytes, frames: Vec<RunFrame>) -> FrameRun {
        FrameRun {
            chunk,
            frames,
            slot: QueueSlot::default(),
        }
    }

    /// How many frames.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// The frames' seqs, in order (increasing).
    pub fn seqs(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.frames.iter().map(|f| f.seq)
    }

    /// Each frame's `data:` followed by `\n`, as received (slices of the chunk).
    pub fn lines(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        self.frames.iter().map(|f| &self.chunk[f.start..=f.end])
    }

    /// The frames' `created_at` (Unix ms) as the stream read them, in order.
    pub fn created_ats(&self) -> impl ExactSizeIterator<Item = Option<i64>> + '_ {
        self.frames.iter().map(|f| f.created_at)
    }

    /// Each frame's seq and its envelope decoded as [`StreamFrame::decode_in_place`]
    /// decodes it, read straight from the chunk: no frame is made on the way.
    pub fn events(&self) -> impl ExactSizeIterator<Item = (u64, Result<Event, DecodeError>)> + '_ {
        self.frames.iter().map(|f| (f.seq, self.event(f)))
    }

    /// `frame`'s envelope decoded: from where the stream found its head's parts when it
    /// kept them, else read whole.
    fn event(&self, frame: &RunFrame) -> Result<Event, DecodeError> {
        let data = ascii(&self.chunk[frame.start..frame.end]);
        let head = frame
            .head
            .and_then(|at| at.head(data, Some(frame.seq), frame.created_at));
        match head {
            Some(head) => Event::parse_with_head(data, head).map(|mut event| {
                event.seq = Some(frame.seq);
                event
            }),
            None => decode_persisted(data, frame.seq),
        }
    }

    /// Gives the run's share of the stream's queue budget back: for a consumer that
    /// queues runs in a bound of its own, so that they stop holding the stream up.
    pub fn release_share(&mut self) {
        self.slot = QueueSlot::default();
    }

    /// The bytes of [`FrameRun::lines`].
    pub fn line_bytes(&self) -> usize {
        self.frames.iter().map(|f| f.end + 1 - f.start).sum()
    }

    /// The frames as the general path delivers them (data as slices of the chunk, not
    /// decoded, `created_at` when the stream reads it), the run's queue share split among
    /// them as theirs would be.
    pub fn into_frames(self) -> RunFrames {
        RunFrames { run: self, next: 0 }
    }

    /// The frames of [`FrameRun::into_frames`], made where they are used and holding no
    /// share: the run keeps its whole share until it is dropped, so a consumer taking a
    /// run at once gives it back once, not a frame at a time.
    pub fn frames(&self) -> impl ExactSizeIterator<Item = StreamFrame> + '_ {
        self.frames
            .iter()
            .map(|frame| self.frame(frame, QueueSlot::default()))
    }

    /// `frame` as the general path delivers it, holding `slot`.
    fn frame(&self, frame: &RunFrame, slot: QueueSlot) -> StreamFrame {
        let text = ascii(&self.chunk[frame.start..frame.end]);
        StreamFrame {
            id: Some(frame.seq),
            data: FrameData::of(text, Some(&self.chunk)),
            event: Err(DecodeError(NOT_DECODED.into())),
            created_at: frame.created_at,
            slot,
        }
    }
}

/// The frames of a [`FrameRun`], one at a time.
#[derive(Debug)]
pub struct RunFrames {
    run: FrameRun,
    next: usize,
}

impl Iterator for RunFrames {
    type Item = StreamFrame;

    fn next(&mut self) -> Option<StreamFrame> {
        let frame = *self.run.frames.get(self.next)?;
        self.next += 1;
        let data_bytes = frame.end - frame.start;
        // The last frame frees the chunk: it takes what is left.
        let slot = if self.next == self.run.frames.len() {
            std::mem::take(&mut self.run.slot)
        } else {
            self.run
                .slot
                .split_off(data_bytes + super::FRAME_OVERHEAD_BYTES)
        };
        Some(self.run.frame(&frame, slot))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.run.frames.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for RunFrames {}

/// Reads frames from `chunk[from..]` while they are exactly `id: DIGITS`, optionally
/// `event: TYPE`, `data: JSON` and a blank line, each line ended by `\n`, `TYPE` and `JSON`
/// printable ASCII, within `max_frame_bytes`, and [`Resume::deliver_agreeing`] delivers
/// them (which moves the cursor). Call it only where the parser is between frames. Returns
/// where it stopped (the start of the first frame it left, or the chunk's end) and how many
/// lines it read.
pub(crate) fn scan(
    chunk: &[u8],
    from: usize,
    max_frame_bytes: usize,
    resume: &mut Resume,
    frames: &mut Vec<RunFrame>,
) -> (usize, u64) {
    let mut at = from;
    let mut lines = 0;
    while let Some(frame) = usual_frame(&chunk[at..], max_frame_bytes) {
        let data = &chunk[at + frame.data.0..at + frame.data.1];
        let event = frame
            .event
            .map(|(from, to)| ascii(&chunk[at + from..at + to]));
        let id_text = ascii(&chunk[at + 4..at + 4 + frame.id_digits]);
        let Some(agreed) = resume.deliver_agreeing(frame.id, id_text, event, ascii(data)) else {
            break;
        };
        frames.push(RunFrame {
            seq: agreed.seq,
            created_at: agreed.created_at,
            start: at + frame.data.0,
            end: at + frame.data.1,
            head: agreed.head,
        });
        at += frame.len;
        lines += 3 + u64::from(event.is_some());
    }
    (at, lines)
}

/// A frame [`scan`] may take: where its parts lie, relative to its start.
struct UsualFrame {
    id: u64,
    /// How many digits the `id:` line has (after `id: `).
    id_digits: usize,
    event: Option<(usize, usize)>,
    data: (usize, usize),
    /// Its bytes, the blank line included.
    len: usize,
}

/// `rest` starts with a frame of [`scan`]'s shape (its `id:` at most 19 digits).
fn usual_frame(rest: &[u8], max_frame_bytes: usize) -> Option<UsualFrame> {
    let digits = rest.strip_prefix(b"id: ")?;
    let count = digits
        .iter()
        .take(20)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if count == 0 || count > 19 || digits.get(count) != Some(&b'\n') {
        return None;
    }
    let id = digits[..count].iter().try_fold(0u64, |n, &d| {
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })?;
    let mut at = 4 + count + 1;
    let event = match rest[at..].strip_prefix(b"event: ") {
        Some(value) => {
            let end = printable_prefix(value);
            if value.get(end) != Some(&b'\n') {
                return None;
            }
            let from = at + 7;
            at = from + end + 1;
            Some((from, from + end))
        }
        None => None,
    };
    let value = rest[at..].strip_prefix(b"data: ")?;
    // One pass finds the line's end and checks what is before it.
    let end = printable_prefix(value);
    let data = (at + 6, at + 6 + end);
    if value.get(end) != Some(&b'\n') || value.get(end + 1) != Some(&b'\n') {
        return None;
    }
    // Each line and its end counted, as the parser bounds a frame; the blank line is not.
    let len = data.1 + 2;
    (len - 1 <= max_frame_bytes).then_some(UsualFrame {
        id,
        id_digits: count,
        event,
        data,
        len,
    })
}

/// How many bytes at the start are printable ASCII, so a line's end and the check of what
/// comes before it are one pass: 64 bytes at a time, each block turned into a mask of its
/// bytes out of range (SSE2, part of every x86-64), whose lowest bit is the answer.
#[cfg(target_arch = "x86_64")]
fn printable_prefix(bytes: &[u8]) -> usize {
    use std::arch::x86_64::{
        _mm_add_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    let (blocks, rest) = bytes.as_chunks::<64>();
    for (i, block) in blocks.iter().enumerate() {
        let mut out_of_range = 0u64;
        for (j, lane) in block.as_chunks::<16>().0.iter().enumerate() {
            // SAFETY: SSE2 is always there on x86-64; the load reads the 16 bytes of `lane`.
            let printable = unsafe {
                // 0x20..=0x7E moves to 0x80..=0xDE: as signed bytes, those below -33.
                let moved =
                    _mm_add_epi8(_mm_loadu_si128(lane.as_ptr().cast()), _mm_set1_epi8(0x60));
                _mm_movemask_epi8(_mm_cmplt_epi8(moved, _mm_set1_epi8(-33))) as u16
            };
            out_of_range |= u64::from(!printable) << (j * 16);
        }
        if out_of_range != 0 {
            return i * 64 + out_of_range.trailing_zeros() as usize;
        }
    }
    let at = blocks.len() * 64;
    at + rest
        .iter()
        .position(|b| b.wrapping_sub(0x20) >= 0x5F)
        .unwrap_or(rest.len())
}

/// How many bytes at the start are printable ASCII, so a line's end and the check of what
/// comes before it are one pass: 64-byte blocks, then 16-byte ones, are checked by a
/// branch-free fold that vectorizes (one branch a block), and only the 16 bytes that hold
/// the first byte out of range are looked at one by one.
#[cfg(not(target_arch = "x86_64"))]
fn printable_prefix(bytes: &[u8]) -> usize {
    fn printable<const N: usize>(block: &[u8; N]) -> bool {
        block
            .iter()
            .fold(true, |ok, &b| ok & (b.wrapping_sub(0x20) < 0x5F))
    }
    let mut at = 0;
    for block in bytes.as_chunks::<64>().0 {
        if !printable(block) {
            break;
        }
        at += 64;
    }
    for block in bytes[at..].as_chunks::<16>().0 {
        if !printable(block) {
            break;
        }
        at += 16;
    }
    let rest = &bytes[at..];
    at + rest
        .iter()
        .position(|b| b.wrapping_sub(0x20) >= 0x5F)
        .unwrap_or(rest.len())
}

/// Text of bytes [`printable_prefix`] accepted (a run's data is only such bytes).
fn ascii(bytes: &[u8]) -> &str {
    debug_assert!(bytes.is_ascii());
    // SAFETY: every caller passes bytes `printable_prefix` accepted (in `scan`, or when
    // a run made by it is read): ASCII, valid UTF-8.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length around both block sizes, with a byte of each kind at each place; every
    /// byte value at places in and across blocks.
    #[test]
    fn printable_prefix_ends_at_the_first_byte_out_of_range() {
        for len in 0..160 {
            for at in 0..len {
                for b in [0u8, b'\n', 0x1F, 0x20, b'a', 0x7E, 0x7F, 0x80, 0xFF] {
                    let mut bytes = vec![b'x'; len];
                    bytes[at] = b;
                    let expected = if (0x20..=0x7E).contains(&b) { len } else { at };
                    assert_eq!(printable_prefix(&bytes), expected, "{len} {at} {b}");
                }
            }
            assert_eq!(printable_prefix(&vec![b'~'; len]), len);
        }
        for b in 0..=u8::MAX {
            for at in [0, 15, 16, 63, 64, 100] {
                let mut bytes = vec![b' '; 130];
                bytes[at] = b;
                let expected = if (0x20..=0x7E).contains(&b) { 130 } else { at };
                assert_eq!(printable_prefix(&bytes), expected, "{at} {b}");
            }
        }
    }
}
