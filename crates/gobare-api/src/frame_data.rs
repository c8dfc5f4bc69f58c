//! [`FrameData`]: a frame's `data:` text, sharing the received chunk when it lay there.

use bytes::Bytes;
use std::fmt;
use std::ops::Deref;

/// A frame's `data:` text as the server sent it. A frame read in place holds a slice of
/// the chunk it arrived in (no copy, no allocation); any other is its own text. Reads as
/// a `str`.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct FrameData(
    /// Always the bytes of a `str`: every constructor takes them from one.
    Bytes,
);

impl FrameData {
    /// `text` as a slice of `chunk` when it lies inside it, else copied.
    pub(crate) fn of(text: &str, chunk: Option<&Bytes>) -> FrameData {
        match chunk {
            Some(chunk) if lies_in(text.as_bytes(), chunk) => {
                FrameData(chunk.slice_ref(text.as_bytes()))
            }
            _ => FrameData::from(text),
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // SAFETY: the bytes were taken whole from a `str` (see the constructors) and
        // `Bytes` never changes them.
        unsafe { std::str::from_utf8_unchecked(&self.0) }
    }

    /// The bytes, shared (no copy): for writing them out.
    pub fn into_bytes(self) -> Bytes {
        self.0
    }

    /// Whether these bytes are a slice of `chunk`'s memory.
    pub(crate) fn shares(&self, chunk: &[u8]) -> bool {
        !self.0.is_empty() && lies_in(&self.0, chunk)
    }
}

/// Whether `part` is a non-empty range of `whole`'s memory (an address comparison only).
fn lies_in(part: &[u8], whole: &[u8]) -> bool {
    let whole = whole.as_ptr_range();
    let part = part.as_ptr_range();
    !part.is_empty() && whole.start <= part.start && part.end <= whole.end
}

impl Deref for FrameData {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for FrameData {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<[u8]> for FrameData {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<String> for FrameData {
    fn from(text: String) -> Self {
        FrameData(Bytes::from(text))
    }
}

impl From<&str> for FrameData {
    fn from(text: &str) -> Self {
        FrameData(Bytes::copy_from_slice(text.as_bytes()))
    }
}

impl From<FrameData> for String {
    fn from(data: FrameData) -> Self {
        data.as_str().to_owned()
    }
}

impl PartialEq<str> for FrameData {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for FrameData {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for FrameData {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl fmt::Debug for FrameData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for FrameData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_inside_the_chunk_is_shared_and_other_text_copied() {
        let chunk = Bytes::from_static(b"id: 1\ndata: {\"a\":1}\n\n");
        let text = std::str::from_utf8(&chunk[12..19]).unwrap();
        let data = FrameData::of(text, Some(&chunk));
        assert_eq!(data, "{\"a\":1}");
        assert!(data.shares(&chunk));
        let elsewhere = String::from("{\"a\":1}");
        let copied = FrameData::of(&elsewhere, Some(&chunk));
        assert_eq!(copied, data);
        assert!(!copied.shares(&chunk));
        assert!(!FrameData::of(text, None).shares(&chunk));
        assert!(!FrameData::of("", Some(&chunk)).shares(&chunk));
    }
}
