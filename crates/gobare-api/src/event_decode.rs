//! Decoding one event envelope: [`Event::parse`].
//!
//! The lenient decode reads the payload as raw text first and parses it again as its type:
//! two scans of most of the bytes. When `type` comes before `payload` (as the reference
//! writes it, §7.3) the type is known when the payload is reached, so a first pass decodes
//! it in place. Anything that pass refuses (a payload that does not fit its type, an array
//! envelope, a duplicate key) is left to the lenient decode, which decides what such an
//! event becomes: the first pass never accepts what the lenient one would read differently.

use crate::model::{DecodeError, Event, EventPayload, event_type, lenient_i64, lenient_u64};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// The envelope as it is on the wire, payload left unparsed.
#[derive(Deserialize)]
struct WireEnvelope<'a> {
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    internal_type: Option<String>,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default, deserialize_with = "lenient_u64")]
    seq: Option<u64>,
    #[serde(default, deserialize_with = "lenient_i64")]
    created_at: Option<i64>,
    #[serde(default, borrow)]
    payload: Option<&'a RawValue>,
    // `gobare.replay_truncated` carries these at the top level in the prose docs.
    #[serde(default, deserialize_with = "lenient_u64")]
    from_seq: Option<u64>,
    #[serde(default)]
    note: Option<String>,
}

impl Event {
    /// Decodes one `data:` document. Fails only when it is not a JSON object with a string
    /// `type`; a payload that does not fit its type yields [`EventPayload::Unknown`].
    pub fn parse(data: &str) -> Result<Event, DecodeError> {
        let data = crate::json::str_without_lone_surrogates(data);
        match envelope(&data).and_then(Event::from_one_pass) {
            Some(event) => Ok(event),
            None => Event::parse_lenient(&data),
        }
    }

    /// The decode that decides every case: the payload read raw, then as its type.
    pub(crate) fn parse_lenient(data: &str) -> Result<Event, DecodeError> {
        let wire: WireEnvelope<'_> =
            serde_json::from_str(data).map_err(|e| DecodeError(e.to_string().into()))?;
        let kind = wire
            .kind
            .ok_or_else(|| DecodeError("envelope has no \"type\"".into()))?;
        let payload = EventPayload::decode(&kind, wire.payload);
        Ok(Event {
            kind: event_type(kind),
            internal_type: wire.internal_type.map(event_type),
            session_id: wire.session_id.as_deref().map(shared_session_id),
            seq: wire.seq,
            created_at: wire.created_at,
            payload,
        }
        .with_top_level_truncation(wire.from_seq, wire.note))
    }

    /// The event the one pass read, or `None` for the lenient decode to decide.
    fn from_one_pass(wire: Envelope<'_>) -> Option<Event> {
        let kind = wire.kind?;
        let payload = match wire.payload {
            Payload::Decoded(payload) => payload,
            Payload::Raw(raw) => EventPayload::decode(&kind, Some(raw)),
            Payload::Absent => EventPayload::decode(&kind, None),
        };
        Some(
            Event {
                kind,
                internal_type: wire.internal_type,
                session_id: wire.session_id,
                seq: wire.seq,
                created_at: wire.created_at,
                payload,
            }
            .with_top_level_truncation(wire.from_seq, wire.note),
        )
    }

    /// A truncation notice takes `from_seq` and `note` from the top level when its payload
    /// lacks them (the prose docs put them there).
    fn with_top_level_truncation(mut self, from_seq: Option<u64>, note: Option<String>) -> Event {
        if let EventPayload::ReplayTruncated(t) = &mut self.payload {
            if t.from_seq.is_none() {
                t.from_seq = from_seq;
            }
            if t.note.is_none() {
                t.note = note;
            }
        }
        self
    }
}

/// The envelope's fields as this pass read them.
struct Envelope<'a> {
    kind: Option<Cow<'static, str>>,
    internal_type: Option<Cow<'static, str>>,
    session_id: Option<Arc<str>>,
    seq: Option<u64>,
    created_at: Option<i64>,
    from_seq: Option<u64>,
    note: Option<String>,
    payload: Payload<'a>,
}

/// The payload: decoded in place, or kept raw when it came before `type`.
enum Payload<'a> {
    Absent,
    Raw(&'a RawValue),
    Decoded(EventPayload),
}

/// One pass over `data`; `None` where the lenient decode must decide.
fn envelope(data: &str) -> Option<Envelope<'_>> {
    if let Some(envelope) = reference_layout(data) {
        return Some(envelope);
    }
    let mut de = serde_json::Deserializer::from_str(data);
    let envelope = de.deserialize_map(EnvelopeVisitor).ok()?;
    de.end().ok()?;
    Some(envelope)
}

/// An envelope's head as the reference writes it, compact and in its order (§7.3):
/// `{"object":"event","type":…,"internal_type":…,"session_id":…,"seq":…,"created_at":…,"payload":…}`
/// (`internal_type`, `session_id` and `created_at` may be absent), read by matching that
/// layout: the head's strings and numbers are taken as they stand. `None` at the first
/// difference (an escape or a control character in a head string, a number that is not
/// plain digits, any other member, spacing): a general parse then reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReferenceHead<'a> {
    pub(crate) kind: &'a str,
    pub(crate) internal_type: Option<&'a str>,
    pub(crate) session_id: Option<&'a str>,
    pub(crate) seq: Option<u64>,
    pub(crate) created_at: Option<i64>,
    /// The text after `"payload":` but for the closing brace: the payload when it is
    /// exactly one JSON value, which the caller checks.
    pub(crate) payload: &'a str,
}

impl<'a> ReferenceHead<'a> {
    pub(crate) fn read(data: &'a str) -> Option<ReferenceHead<'a>> {
        let mut head = Layout(data.strip_prefix(r#"{"object":"event","type":"#)?);
        let kind = head.string()?;
        let mut optional_string = |key: &str| match head.key(key) {
            true => head.string().map(Some),
            false => Some(None),
        };
        let internal_type = optional_string(r#","internal_type":"#)?;
        let session_id = optional_string(r#","session_id":"#)?;
        if !head.key(r#","seq":"#) {
            return None;
        }
        let seq = if head.key("null") {
            None
        } else {
            Some(head.number()?)
        };
        let created_at = if head.key(r#","created_at":"#) {
            Some(i64::try_from(head.number()?).ok()?)
        } else {
            None
        };
        if !head.key(r#","payload":"#) {
            return None;
        }
        Some(ReferenceHead {
            kind,
            internal_type,
            session_id,
            seq,
            created_at,
            payload: head.0.strip_suffix('}')?,
        })
    }
}

/// A head's strings and payload as they lie in its data: what [`HeadAt`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HeadParts<'a> {
    pub(crate) kind: &'a [u8],
    pub(crate) internal_type: Option<&'a [u8]>,
    pub(crate) session_id: Option<&'a [u8]>,
    pub(crate) payload: &'a [u8],
}

impl<'a> ReferenceHead<'a> {
    /// Its strings and payload, as they lie in the data it was read from.
    pub(crate) fn parts(&self) -> HeadParts<'a> {
        HeadParts {
            kind: self.kind.as_bytes(),
            internal_type: self.internal_type.map(str::as_bytes),
            session_id: self.session_id.map(str::as_bytes),
            payload: self.payload.as_bytes(),
        }
    }
}

/// Where a [`ReferenceHead`]'s strings and payload lie in its `data` (byte ranges), kept
/// with a frame read ahead of its decoding so that the decode need not read the head again
/// ([`Event::parse_with_head`]); its seq and `created_at` are kept beside it. Heads are
/// short: a range past `u16` is not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HeadAt {
    kind: (u16, u16),
    internal_type: Option<(u16, u16)>,
    session_id: Option<(u16, u16)>,
    payload: (u16, u16),
}

impl HeadAt {
    /// Where `parts` lie in `data`, which they were read from.
    pub(crate) fn of(data: &str, parts: &HeadParts<'_>) -> Option<HeadAt> {
        let range = |part: &[u8]| -> Option<(u16, u16)> {
            let start = (part.as_ptr() as usize).checked_sub(data.as_ptr() as usize)?;
            let end = start + part.len();
            (end <= data.len()).then_some((u16::try_from(start).ok()?, u16::try_from(end).ok()?))
        };
        let optional = |part: Option<&[u8]>| part.map(range).map_or(Some(None), |r| r.map(Some));
        Some(HeadAt {
            kind: range(parts.kind)?,
            internal_type: optional(parts.internal_type)?,
            session_id: optional(parts.session_id)?,
            payload: range(parts.payload)?,
        })
    }

    /// The head it was taken from, read again from the same `data`, with the `seq` and
    /// `created_at` that head had.
    pub(crate) fn head<'a>(
        &self,
        data: &'a str,
        seq: Option<u64>,
        created_at: Option<i64>,
    ) -> Option<ReferenceHead<'a>> {
        let part = |(start, end): (u16, u16)| data.get(usize::from(start)..usize::from(end));
        let optional =
            |range: Option<(u16, u16)>| range.map(part).map_or(Some(None), |p| p.map(Some));
        Some(ReferenceHead {
            kind: part(self.kind)?,
            internal_type: optional(self.internal_type)?,
            session_id: optional(self.session_id)?,
            seq,
            created_at,
            payload: part(self.payload)?,
        })
    }
}

impl Event {
    /// [`Event::parse`] of `data` whose head was already read as `head` (from this same
    /// `data`): the same event, without reading the head again.
    pub(crate) fn parse_with_head(
        data: &str,
        head: ReferenceHead<'_>,
    ) -> Result<Event, DecodeError> {
        // The head's strings hold no escape: only the payload can hold a lone surrogate.
        let payload = crate::json::str_without_lone_surrogates(head.payload);
        let head = ReferenceHead {
            payload: &payload,
            ..head
        };
        match layout_envelope(head).and_then(Event::from_one_pass) {
            Some(event) => Ok(event),
            None => Event::parse(data),
        }
    }
}

/// The envelope in the reference's layout, its payload decoded as its type.
fn reference_layout(data: &str) -> Option<Envelope<'_>> {
    layout_envelope(ReferenceHead::read(data)?)
}

/// The envelope of a head read in the reference's layout, its payload decoded as its type.
fn layout_envelope(head: ReferenceHead<'_>) -> Option<Envelope<'_>> {
    let mut de = serde_json::Deserializer::from_str(head.payload);
    let payload = TypedPayload(head.kind).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(Envelope {
        kind: Some(event_type(head.kind)),
        internal_type: head.internal_type.map(event_type),
        session_id: head.session_id.map(shared_session_id),
        seq: head.seq,
        created_at: head.created_at,
        from_seq: None,
        note: None,
        payload: Payload::Decoded(payload),
    })
}

/// `id` as an event's session: the one this thread read last when it is the same (a
/// stream's events all name one session), so that decoding one allocates nothing for it.
fn shared_session_id(id: &str) -> Arc<str> {
    thread_local! {
        static LAST: std::cell::RefCell<Option<Arc<str>>> = const { std::cell::RefCell::new(None) };
    }
    LAST.with_borrow_mut(|last| match last {
        Some(shared) if **shared == *id => Arc::clone(shared),
        _ => Arc::clone(last.insert(Arc::from(id))),
    })
}

/// What is left of an envelope being matched against the reference's layout.
struct Layout<'a>(&'a str);

impl<'a> Layout<'a> {
    /// Steps over `text` when it comes next.
    fn key(&mut self, text: &str) -> bool {
        match self.0.strip_prefix(text) {
            Some(rest) => {
                self.0 = rest;
                true
            }
            None => false,
        }
    }

    /// A string with no escape and no control character (which JSON would refuse), up to
    /// its closing quote.
    fn string(&mut self) -> Option<&'a str> {
        let rest = self.0.strip_prefix('"')?;
        let (text, _) = plain_string(rest.as_bytes())?;
        let (text, after) = rest.split_at(text.len());
        self.0 = &after[1..];
        Some(text)
    }

    /// A non-negative integer as JSON writes it (no leading zero, no sign, no fraction:
    /// what follows must be the next member), short enough not to overflow.
    fn number(&mut self) -> Option<u64> {
        let digits = plain_digits(self.0.as_bytes())?;
        let (number, rest) = self.0.split_at(digits);
        self.0 = rest;
        Some(
            number
                .bytes()
                .fold(0, |value, d| value * 10 + u64::from(d - b'0')),
        )
    }
}

/// A JSON string's text up to its closing quote and what follows that quote: `None` when
/// a `\\` (an escape) or a control character (which JSON refuses) comes before any `"`,
/// or there is no `"`. Eight bytes at a time: the heads' strings are short, and a call to
/// `memchr2` costs more than they do.
pub(crate) fn plain_string(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // The lowest byte flagged is the first zero byte (a borrow only moves up from one).
    let zero_bytes = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    // Likewise the first byte under 0x20.
    let control_bytes = |v: u64| v.wrapping_sub(ONES * 0x20) & !v & HIGHS;
    let (words, tail) = bytes.as_chunks::<8>();
    let mut end = None;
    for (i, word) in words.iter().enumerate() {
        let word = u64::from_le_bytes(*word);
        let hits = zero_bytes(word ^ (ONES * u64::from(b'"')))
            | zero_bytes(word ^ (ONES * u64::from(b'\\')))
            | control_bytes(word);
        if hits != 0 {
            end = Some(i * 8 + hits.trailing_zeros() as usize / 8);
            break;
        }
    }
    let end = match end {
        Some(end) => end,
        None => {
            let stop = |&b: &u8| b == b'"' || b == b'\\' || b < 0x20;
            words.len() * 8 + tail.iter().position(stop)?
        }
    };
    (bytes[end] == b'"').then(|| (&bytes[..end], &bytes[end + 1..]))
}

/// How many digits `bytes` (UTF-8: no byte over 0xF4) start with when they are a number [`Layout::number`] reads
/// (1 to 18 digits, no leading zero). Eight bytes at a time, as [`plain_string`].
pub(crate) fn plain_digits(bytes: &[u8]) -> Option<usize> {
    const NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    const SIXES: u64 = 0x0606_0606_0606_0606;
    const LOWS: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let mut digits = 0;
    for word in bytes.as_chunks::<8>().0.iter().take(3) {
        let word = u64::from_le_bytes(*word);
        // A byte is a digit when it is 0x3_ and adding 6 keeps it so (ASCII: no carry
        // leaves a byte); any other byte is non-zero here.
        let other = ((word & NIBBLES) ^ ZEROS) | (((word + SIXES) & NIBBLES) ^ ZEROS);
        let flagged = (((other & LOWS) + LOWS) | other) & !LOWS;
        if flagged != 0 {
            digits += flagged.trailing_zeros() as usize / 8;
            break;
        }
        digits += 8;
    }
    if digits % 8 == 0 {
        // The words ran out (or 24 digits): count the rest one by one.
        digits += bytes[digits..]
            .iter()
            .take(19)
            .take_while(|b| b.is_ascii_digit())
            .count();
    }
    let leading_zero = digits > 1 && bytes[0] == b'0';
    (digits > 0 && digits <= 18 && !leading_zero).then_some(digits)
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Field {
    #[serde(rename = "type")]
    Kind,
    InternalType,
    SessionId,
    Seq,
    CreatedAt,
    Payload,
    FromSeq,
    Note,
    #[serde(other)]
    Other,
}

struct LenientU64(Option<u64>);

impl<'de> Deserialize<'de> for LenientU64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient_u64(d).map(LenientU64)
    }
}

struct LenientI64(Option<i64>);

impl<'de> Deserialize<'de> for LenientI64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient_i64(d).map(LenientI64)
    }
}

/// The payload of a `kind` event, decoded where it stands.
struct TypedPayload<'k>(&'k str);

impl<'de> DeserializeSeed<'de> for TypedPayload<'_> {
    type Value = EventPayload;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<EventPayload, D::Error> {
        EventPayload::deserialize_typed(self.0, d)
    }
}

/// Sets `slot` once; a second value for the same key fails as the derived decoders do.
fn once<T, E: de::Error>(slot: &mut Option<T>, value: T, name: &'static str) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(name));
    }
    *slot = Some(value);
    Ok(())
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an event envelope")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope<'de>, A::Error> {
        let mut kind = None;
        let mut internal_type = None;
        let mut session_id = None;
        let mut seq = None;
        let mut created_at = None;
        let mut from_seq = None;
        let mut note = None;
        let mut payload = None;
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Kind => once(&mut kind, map.next_value::<Option<String>>()?, "type")?,
                Field::InternalType => once(
                    &mut internal_type,
                    map.next_value::<Option<String>>()?,
                    "internal_type",
                )?,
                Field::SessionId => once(
                    &mut session_id,
                    map.next_value::<Option<String>>()?,
                    "session_id",
                )?,
                Field::Seq => once(&mut seq, map.next_value::<LenientU64>()?.0, "seq")?,
                Field::CreatedAt => once(
                    &mut created_at,
                    map.next_value::<LenientI64>()?.0,
                    "created_at",
                )?,
                Field::FromSeq => {
                    once(&mut from_seq, map.next_value::<LenientU64>()?.0, "from_seq")?
                }
                Field::Note => once(&mut note, map.next_value::<Option<String>>()?, "note")?,
                Field::Payload => {
                    let value = match &kind {
                        Some(Some(k)) => {
                            Payload::Decoded(map.next_value_seed(TypedPayload(k.as_str()))?)
                        }
                        _ => match map.next_value::<Option<&'de RawValue>>()? {
                            Some(raw) => Payload::Raw(raw),
                            None => Payload::Absent,
                        },
                    };
                    once(&mut payload, value, "payload")?
                }
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Envelope {
            kind: kind.flatten().map(event_type),
            internal_type: internal_type.flatten().map(event_type),
            session_id: session_id.flatten().as_deref().map(shared_session_id),
            seq: seq.flatten(),
            created_at: created_at.flatten(),
            from_seq: from_seq.flatten(),
            note: note.flatten(),
            payload: payload.unwrap_or(Payload::Absent),
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// Events of one session share its id (one allocation for a stream's events); another
    /// session's id is its own, whichever path decoded it.
    #[test]
    fn a_streams_events_share_their_sessions_id() {
        let envelope = |session: &str, seq: u64| {
            format!(
                r#"{{"object":"event","type":"agent.message","internal_type":"agent.message","session_id":"{session}","seq":{seq},"created_at":1,"payload":{{"text":"x"}}}}"#
            )
        };
        let id = |data: &str| Event::parse(data).unwrap().session_id.unwrap();
        let (first, second) = (id(&envelope("s-1", 1)), id(&envelope("s-1", 2)));
        assert!(Arc::ptr_eq(&first, &second));
        let other = id(&envelope("s-2", 3));
        assert_eq!((&*first, &*other), ("s-1", "s-2"));
        // The general path (members out of the reference's order) names the same session.
        let reordered =
            r#"{"seq":4,"session_id":"s-2","type":"agent.message","payload":{"text":"x"}}"#;
        assert_eq!(&*id(reordered), "s-2");
        assert!(Arc::ptr_eq(&id(&envelope("s-2", 5)), &id(reordered)));
    }

    /// The reference's examples, each as written (members in its order).
    fn examples() -> Vec<(String, String)> {
        let text = include_str!("../../../assets/event-payloads.json");
        let all: BTreeMap<String, &RawValue> = serde_json::from_str(text).unwrap();
        all.into_iter()
            .filter(|(_, raw)| raw.get().contains(r#""object": "event""#))
            .map(|(name, raw)| (name, raw.get().to_string()))
            .collect()
    }

    /// Every length around the word size, with one byte of each kind at each place (two
    /// for the string: which of `"` and `\\` comes first).
    #[test]
    fn plain_string_and_plain_digits_read_as_one_byte_at_a_time() {
        fn string(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
            let end = bytes
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
            (bytes[end] == b'"').then(|| (&bytes[..end], &bytes[end + 1..]))
        }
        let digits = |bytes: &[u8]| {
            let n = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            (n > 0 && n <= 18 && !(n > 1 && bytes[0] == b'0')).then_some(n)
        };
        for len in 0..30 {
            for at in 0..=len {
                for second in at..=len {
                    for (a, b) in [
                        (b'"', b'\\'),
                        (b'\\', b'"'),
                        (b'"', b'"'),
                        (b'x', b'x'),
                        (b'\n', b'"'),
                        (b'"', 0x1f),
                        (0x00, b'x'),
                        (b' ', 0x7f),
                        (0xc3, b'"'),
                    ] {
                        let mut bytes = vec![b'a'; len];
                        bytes.extend_from_slice(b"aa");
                        bytes[second] = b;
                        bytes[at] = a;
                        bytes.truncate(len);
                        assert_eq!(plain_string(&bytes), string(&bytes), "{bytes:?}");
                    }
                }
                for first in [b'0', b'1', b'9'] {
                    for stop in [b'/', b':', b' ', b',', b'~', b'0', 0xc3, 0xf4] {
                        let mut bytes = vec![b'7'; len];
                        if let Some(x) = bytes.first_mut() {
                            *x = first;
                        }
                        if let Some(x) = bytes.get_mut(at) {
                            *x = stop;
                        }
                        assert_eq!(plain_digits(&bytes), digits(&bytes), "{bytes:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_example_is_decoded_in_one_pass_as_the_lenient_decode_reads_it() {
        let examples = examples();
        assert_eq!(examples.len(), crate::model::EVENT_TYPES.len());
        for (name, json) in examples {
            let one_pass = envelope(&json).unwrap_or_else(|| panic!("{name}: refused"));
            assert!(
                matches!(one_pass.payload, Payload::Decoded(_)),
                "{name}: the payload was not decoded in place"
            );
            assert_eq!(Event::parse(&json), Event::parse_lenient(&json), "{name}");
        }
    }

    /// The examples as a server sends them: compact, members in the reference's order.
    pub(crate) fn compact_examples() -> Vec<(String, String)> {
        examples()
            .into_iter()
            .map(|(name, json)| {
                let members = ordered_members(&json);
                let compact: Vec<String> = members
                    .iter()
                    .map(|(k, v)| {
                        let v: serde_json::Value = serde_json::from_str(v.get()).unwrap();
                        format!("\"{k}\":{v}")
                    })
                    .collect();
                (name, format!("{{{}}}", compact.join(",")))
            })
            .collect()
    }

    /// `json`'s members in their order.
    fn ordered_members(json: &str) -> Vec<(String, Box<RawValue>)> {
        struct Ordered(Vec<(String, Box<RawValue>)>);
        impl<'de> Deserialize<'de> for Ordered {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Ordered;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("an object")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                        let mut out = Vec::new();
                        while let Some(entry) = map.next_entry()? {
                            out.push(entry);
                        }
                        Ok(Ordered(out))
                    }
                }
                d.deserialize_map(V)
            }
        }
        let Ordered(members) = serde_json::from_str(json).unwrap();
        members
    }

    #[test]
    fn the_reference_layout_is_matched_and_reads_as_the_lenient_decode_reads_it() {
        for (name, json) in compact_examples() {
            let notice = name == "gobare.replay_truncated";
            assert_eq!(reference_layout(&json).is_some(), !notice, "{name}: {json}");
            assert_eq!(Event::parse(&json), Event::parse_lenient(&json), "{name}");
        }
    }

    #[test]
    fn what_one_pass_refuses_or_reads_raw_ends_as_the_lenient_decode_says() {
        let cases = [
            // Payload before type: read raw, then typed.
            r#"{"payload":{"text":"hi"},"type":"agent.message","seq":3}"#,
            // A payload that does not fit its type: unknown, raw kept.
            r#"{"type":"turn.started","payload":{"turnId":5}}"#,
            r#"{"type":"agent.message","payload":null}"#,
            r#"{"type":"agent.compaction","payload":null}"#,
            r#"{"type":"agent.message"}"#,
            r#"{"type":"x.unknown","payload":{"a":[1,{"b":null}]},"seq":"12"}"#,
            // Duplicates, arrays, junk: the lenient decode's error or reading.
            r#"{"type":"agent.message","type":"agent.error","payload":{"text":"a"}}"#,
            r#"{"type":"agent.message","payload":{"text":"a"},"payload":{"text":"b"}}"#,
            r#"["agent.message",null,null,7]"#,
            r#"{"type":null,"payload":{}}"#,
            r#"{"type":7,"payload":{}}"#,
            r#"{"type":"agent.message","payload":{"text":"a"}} trailing"#,
            r#"{"type":"agent.message","seq":1.5,"created_at":"17","payload":{"text":"a"}}"#,
            r#"{"type":"gobare.replay_truncated","from_seq":9,"note":"n","payload":{}}"#,
            r#"{"type":"gobare.replay_truncated","from_seq":9,"payload":{"fromSeq":4}}"#,
            r#"{"type":"agent.message","payload":{"text":"\ud83d cut"}}"#,
            r#"{"ty\u0070e":"agent.message","payload":{"text":"escaped key"}}"#,
            "",
            "{",
        ];
        for json in cases {
            let fixed = crate::json::str_without_lone_surrogates(json);
            assert_eq!(Event::parse(json), Event::parse_lenient(&fixed), "{json}");
        }
    }

    proptest! {
        /// A compact example with one character changed (a quote, a backslash, a digit, a
        /// brace, a space…) anywhere decodes as the lenient decode reads it.
        #[test]
        fn any_one_change_to_the_reference_layout_decodes_as_the_lenient_decode_reads_it(
            pick in 0usize..29,
            at in 0usize..400,
            with in prop::sample::select(vec!['"', '\\', '0', '7', '-', '.', 'e', '{', '}', ',', ':', ' ', 'x', '\u{1}', 'n']),
        ) {
            let examples = compact_examples();
            let (_, json) = &examples[pick % examples.len()];
            let chars: Vec<char> = json.chars().collect();
            let mut changed = chars.clone();
            changed[at % chars.len()] = with;
            let json: String = changed.into_iter().collect();
            let fixed = crate::json::str_without_lone_surrogates(&json);
            prop_assert_eq!(Event::parse(&json), Event::parse_lenient(&fixed), "{}", json);
        }

        /// Any example, its members in any order and its type swapped for any other (so
        /// most payloads no longer fit), decodes as the lenient decode reads it.
        #[test]
        fn any_member_order_and_any_type_decode_as_the_lenient_decode_reads_them(
            pick in 0usize..29,
            other in 0usize..29,
            swap in any::<bool>(),
            order in Just(()).prop_perturb(|(), mut rng| {
                let mut keys: Vec<u32> = (0..8).collect();
                for i in (1..keys.len()).rev() {
                    keys.swap(i, rng.random_range(0..=i));
                }
                keys
            }),
        ) {
            let examples = examples();
            let (_, json) = &examples[pick % examples.len()];
            let members: Vec<(String, &RawValue)> =
                serde_json::from_str::<BTreeMap<String, &RawValue>>(json)
                    .unwrap()
                    .into_iter()
                    .collect();
            let kind = if swap {
                format!("\"{}\"", crate::model::EVENT_TYPES[other])
            } else {
                String::new()
            };
            let mut ordered: Vec<String> = Vec::new();
            for i in order {
                if let Some((name, raw)) = members.get(i as usize) {
                    let value = if name == "type" && swap { kind.as_str() } else { raw.get() };
                    ordered.push(format!("\"{name}\":{value}"));
                }
            }
            let json = format!("{{{}}}", ordered.join(","));
            prop_assert_eq!(Event::parse(&json), Event::parse_lenient(&json), "{}", json);
        }
    }
}
