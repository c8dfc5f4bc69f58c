//! The resume cursor (reference §7.4-§7.6, §11.1, §14.12-13): which persisted events were
//! delivered, what to send as `Last-Event-ID` next, and what to do with each frame. Pure.
//!
//! The server is not trusted with the cursor: only a persisted frame of this stream's
//! session moves it, to the envelope's `seq` (an `id:` line that disagrees is reported and
//! loses), and nothing the server says moves it past what was actually delivered.

use super::{QueueSlot, StreamFrame};
use crate::event_decode::{HeadAt, HeadParts, ReferenceHead};
use crate::frame_data::FrameData;
use crate::model::{DecodeError, Event, EventPayload, ReplayTruncated, lenient_u64};
#[cfg(test)]
use crate::sse::SseFrame;
use crate::sse::SseFrameRef;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The type name of the truncation notice (§7.6).
const REPLAY_TRUNCATED: &str = "gobare.replay_truncated";

/// Types that are transient whatever the frame says about itself (§7.5).
const TRANSIENT_TYPES: [&str; 3] = ["agent.text", "agent.thinking", REPLAY_TRUNCATED];

/// What to do with one dispatched frame.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FrameAction {
    /// Hand it to the consumer.
    Deliver(StreamFrame),
    /// A persisted event at or below the cursor: already delivered.
    Duplicate { seq: u64 },
    /// Drop it and tell the consumer why.
    Skip { reason: String },
    /// `gobare.replay_truncated`: hand the notice over, then drop the connection at once
    /// (the live frames that follow would jump the gap) and reconnect from `from_seq`.
    Truncated {
        notice: StreamFrame,
        from_seq: Option<u64>,
    },
}

/// The cursor state of one stream across reconnects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resume {
    /// Highest persisted seq delivered (or the starting cursor). `None` = live only.
    delivered: Option<u64>,
    /// What the next request sends when it differs from `delivered` (after a truncation).
    next_request: Option<u64>,
    /// A persisted event arrived since the stream started.
    seen_persisted: bool,
    replay_if_dropped_before_first_event: bool,
    /// See [`StreamProfile`](super::StreamProfile)'s `decode_persisted`.
    decode_persisted: bool,
    /// See [`StreamProfile`](super::StreamProfile)'s `keep_data`.
    keep_data: bool,
    /// See [`StreamProfile`](super::StreamProfile)'s `read_created_at`.
    read_created_at: bool,
    /// Whether [`Resume::agreeing_head`] may spare the payload check (off only in tests,
    /// for the general path to compare with).
    trust_agreeing_heads: bool,
    /// The session of a one-session stream: frames naming another session are dropped.
    session: Option<String>,
    /// `,"session_id":"SESSION"` as the reference writes it, when `session` needs no
    /// escape: [`Resume::usual_head`] matches it whole.
    session_member: Option<String>,
    /// Something the server got wrong and the decision corrected, for the consumer.
    anomaly: Option<String>,
}

/// What [`Resume::deliver_agreeing`] read of a frame it delivered.
pub(crate) struct Agreed {
    pub(crate) seq: u64,
    /// Its `created_at`, when the stream reads it.
    pub(crate) created_at: Option<i64>,
    /// Where its head's parts lie in its data, when the stream reads `created_at` (the
    /// head is then read whole, and its seq and `created_at` are the ones above): its
    /// decode need not read them again.
    pub(crate) head: Option<HeadAt>,
}

/// The `event` of a persisted frame delivered undecoded (`decode_persisted` off).
pub(crate) const NOT_DECODED: &str = "not decoded (StreamOptions::decode_persisted is off)";

/// The envelope fields the cursor decisions need, read leniently: a field of an unexpected
/// type reads as absent rather than failing the frame (a hostile notice with a numeric
/// `session_id` must still be recognised as a notice).
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(rename = "type", default, borrow, deserialize_with = "lenient_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    session_id: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient_u64")]
    seq: Option<u64>,
    #[serde(default, deserialize_with = "crate::model::lenient_i64")]
    created_at: Option<i64>,
    #[serde(default, deserialize_with = "lenient_u64")]
    from_seq: Option<u64>,
    #[serde(default, deserialize_with = "lenient_string")]
    note: Option<String>,
    #[serde(default, borrow)]
    payload: Option<&'a RawValue>,
}

/// `from_seq` and `note` inside a truncation notice's `payload` (the OpenAPI spelling).
#[derive(Deserialize)]
struct TruncationPayload {
    #[serde(default, deserialize_with = "lenient_u64")]
    from_seq: Option<u64>,
    #[serde(default, deserialize_with = "lenient_string")]
    note: Option<String>,
}

fn lenient_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Option::<Value>::deserialize(d)? {
        Some(Value::String(s)) => Some(s),
        _ => None,
    })
}

/// A string field read without copying it when it has no escapes; any other JSON value
/// reads as absent.
fn lenient_str<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'a, str>>, D::Error> {
    d.deserialize_any(LenientStr(std::marker::PhantomData))
}

struct LenientStr<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for LenientStr<'a> {
    type Value = Option<Cow<'a, str>>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v)))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

impl Head<'_> {
    /// `None` when `data` is not a JSON object. (Serde would also read an array into the
    /// fields in order: `[1,2,3]` must not become a frame with seq 3.)
    fn read(data: &str) -> Option<Head<'_>> {
        Head::of_reference_layout(data).or_else(|| Head::parse(data))
    }

    /// [`Head::read`] by a general parse.
    fn parse(data: &str) -> Option<Head<'_>> {
        if !data.trim_start().starts_with('{') {
            return None;
        }
        serde_json::from_str(data).ok()
    }

    /// The head of an envelope in the reference's layout, read without parsing it; its
    /// payload is still checked to be one JSON value (else the envelope is not an object,
    /// as the general parse would find). A notice is read apart (its payload matters).
    fn of_reference_layout(data: &str) -> Option<Head<'_>> {
        let head = ReferenceHead::read(data)?;
        let whole = head.kind != REPLAY_TRUNCATED && crate::json::is_one_value(head.payload);
        whole.then(|| Head {
            kind: Some(Cow::Borrowed(head.kind)),
            session_id: head.session_id.map(Cow::Borrowed),
            seq: head.seq,
            created_at: head.created_at,
            from_seq: None,
            note: None,
            payload: None,
        })
    }

    /// The head of an envelope that decoded as `event`. Where it decodes, it read the same
    /// fields with the same rules from the same bytes; `None` when it may not have: not an
    /// object, a lone surrogate patched before decoding, or a notice (read apart).
    fn of<'a>(event: &'a Event, data: &str) -> Option<Head<'a>> {
        let same_rules = data.trim_start().starts_with('{')
            && event.kind != REPLAY_TRUNCATED
            && !crate::json::has_surrogate_escape(data.as_bytes());
        if !same_rules {
            return None;
        }
        Some(Head {
            kind: Some(Cow::Borrowed(&event.kind)),
            session_id: event.session_id.as_deref().map(Cow::Borrowed),
            seq: event.seq,
            created_at: event.created_at,
            from_seq: None,
            note: None,
            payload: None,
        })
    }

    /// The notice's `from_seq` and `note`: `payload` first, then the top level (§14.14).
    fn truncation(&self) -> ReplayTruncated {
        let inner = self
            .payload
            .and_then(|p| serde_json::from_str::<TruncationPayload>(p.get()).ok());
        let (inner_from, inner_note) = inner.map_or((None, None), |t| (t.from_seq, t.note));
        ReplayTruncated {
            from_seq: inner_from.or(self.from_seq),
            note: inner_note.or_else(|| self.note.clone()),
        }
    }
}

impl Resume {
    pub(crate) fn new(from: Option<u64>, replay_if_dropped_before_first_event: bool) -> Self {
        Resume {
            delivered: from,
            next_request: from,
            seen_persisted: false,
            replay_if_dropped_before_first_event,
            decode_persisted: true,
            keep_data: true,
            read_created_at: true,
            trust_agreeing_heads: true,
            session: None,
            session_member: None,
            anomaly: None,
        }
    }

    /// With `false`, frames whose event decoded carry an empty `data`.
    pub(crate) fn with_keep_data(mut self, keep_data: bool) -> Self {
        self.keep_data = keep_data;
        self
    }

    /// A one-session stream: a frame whose envelope names another session is dropped and
    /// never moves the cursor (the stored cursor is this session's alone).
    pub(crate) fn with_session(mut self, session: Option<String>) -> Self {
        self.session_member = session
            .as_deref()
            .filter(|id| !id.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20))
            .map(|id| format!(r#","session_id":"{id}""#));
        self.session = session;
        self
    }

    /// With `false`, persisted frames carry no `created_at`.
    pub(crate) fn with_read_created_at(mut self, read_created_at: bool) -> Self {
        self.read_created_at = read_created_at;
        self
    }

    /// The raw data to hand over with `event`.
    fn data_for(&self, frame: &SseFrameRef<'_>, event: &Result<Event, DecodeError>) -> FrameData {
        if self.keep_data || event.is_err() {
            frame.data_owned()
        } else {
            FrameData::default()
        }
    }

    /// With `false`, persisted frames are delivered without decoding their data (their
    /// `event` is an error saying so).
    pub(crate) fn with_decode_persisted(mut self, decode_persisted: bool) -> Self {
        self.decode_persisted = decode_persisted;
        self
    }

    /// The dedupe watermark: the last persisted seq handed over (or the starting cursor).
    pub(crate) fn cursor(&self) -> Option<u64> {
        self.delivered
    }

    /// `Last-Event-ID` for the first request.
    pub(crate) fn first_request(&self) -> Option<u64> {
        self.next_request
    }

    /// `Last-Event-ID` for a reconnect. With the §11.1 option, a live-only stream that
    /// dropped before any persisted event replays from 0 so nothing in the gap is lost.
    pub(crate) fn reconnect_request(&self) -> Option<u64> {
        match self.next_request {
            None if self.replay_if_dropped_before_first_event && !self.seen_persisted => Some(0),
            cursor => cursor,
        }
    }

    /// What the server got wrong in the last frame and the decision corrected, once.
    pub(crate) fn take_anomaly(&mut self) -> Option<String> {
        self.anomaly.take()
    }

    /// Decides about one frame and advances the cursor for delivered persisted events.
    #[cfg(test)]
    pub(crate) fn on_frame(&mut self, frame: SseFrame) -> FrameAction {
        self.on_frame_ref(SseFrameRef {
            id: frame.id.map(Cow::Owned),
            event: frame.event.map(Cow::Owned),
            data: Cow::Owned(frame.data),
            chunk: None,
        })
    }

    /// Decides about one borrowed frame (`on_frame`, in tests, takes an owned one): its data
    /// is copied only when handed over.
    pub(crate) fn on_frame_ref(&mut self, frame: SseFrameRef<'_>) -> FrameAction {
        // Decoding anyway: the decoded envelope is the head, one parse per frame.
        let decoded = self.decode_persisted.then(|| Event::parse(&frame.data));
        let head = match &decoded {
            Some(Ok(event)) => Head::of(event, &frame.data),
            _ => None,
        }
        .or_else(|| self.agreeing_head(&frame))
        .or_else(|| Head::read(&frame.data));
        let kind = head
            .as_ref()
            .and_then(|h| h.kind.as_deref())
            .or(frame.event.as_deref());
        // The notice is known by its type alone (from `data` or the `event:` line): any
        // other field may be mistyped, and an `id:` line on it means nothing.
        let is_notice =
            kind == Some(REPLAY_TRUNCATED) || frame.event.as_deref() == Some(REPLAY_TRUNCATED);
        if is_notice {
            // From the data itself, decoded or not: a notice known by its `event:` line
            // alone decodes as another type, whose event has no truncation fields.
            let truncation = Head::read(&frame.data)
                .map(|h| h.truncation())
                .unwrap_or_default();
            return self.on_truncation(&frame, truncation);
        }
        if let (Some(own), Some(theirs)) = (
            self.session.as_deref(),
            head.as_ref().and_then(|h| h.session_id.as_deref()),
        ) && own != theirs
        {
            return FrameAction::Skip {
                reason: "dropped an event of another session".into(),
            };
        }
        let transient_type = kind.is_some_and(|k| TRANSIENT_TYPES.contains(&k));
        let id_line = match frame.id.as_deref() {
            Some(id) if !transient_type => id,
            _ => {
                // A transient type never carries a cursor, whatever its `id:` says.
                let event = decoded.unwrap_or_else(|| Event::parse(&frame.data));
                return self.on_transient(&frame, event);
            }
        };
        let id = id_line.trim().parse::<u64>().ok();
        let created_at = head
            .as_ref()
            .and_then(|h| h.created_at)
            .filter(|_| self.read_created_at);
        let seq = match (head.as_ref().and_then(|h| h.seq), id) {
            (Some(seq), Some(id)) if seq != id => {
                self.anomaly = Some(format!(
                    "an event's id: line ({id}) disagrees with its seq ({seq}); using {seq}"
                ));
                seq
            }
            (Some(seq), _) | (None, Some(seq)) => seq,
            (None, None) => {
                return FrameAction::Skip {
                    reason: format!("persisted frame with unusable id ({} bytes)", id_line.len()),
                };
            }
        };
        if seq == u64::MAX {
            // Nothing could ever follow it: accepting it would drop every later event.
            return FrameAction::Skip {
                reason: format!("refused a cursor of {seq} (no event can follow it)"),
            };
        }
        if self.delivered.is_some_and(|c| seq <= c) {
            return FrameAction::Duplicate { seq };
        }
        self.delivered = Some(seq);
        self.next_request = Some(seq);
        self.seen_persisted = true;
        let event = match decoded {
            Some(event) => event.map(|mut e| {
                e.seq = Some(seq);
                e
            }),
            // Borrowed: no allocation per frame.
            None => Err(DecodeError(NOT_DECODED.into())),
        };
        FrameAction::Deliver(StreamFrame {
            id: Some(seq),
            data: self.data_for(&frame, &event),
            event,
            created_at,
            slot: QueueSlot::default(),
        })
    }

    /// The head of an envelope in the reference's layout, its payload not checked, when the
    /// check could change nothing: the event is not decoded, no `created_at` is read, and
    /// the head agrees with the frame: its seq is the `id:` line's, it names this stream's
    /// session (if the stream has one), and neither its type nor the `event:` line is
    /// transient or a notice. The general path reads then either this same head (serde
    /// refuses a member repeated after the head) or none (a payload that is not JSON), and
    /// both deliver the frame at the `id:` line's seq, with nothing else read from it.
    fn agreeing_head<'a>(&self, frame: &'a SseFrameRef<'_>) -> Option<Head<'a>> {
        if self.decode_persisted || self.read_created_at || !self.trust_agreeing_heads {
            return None;
        }
        let head = ReferenceHead::read(&frame.data)?;
        let id = frame.id.as_deref()?.trim().parse::<u64>().ok()?;
        let agrees = self.head_agrees(&head, id)
            && !frame
                .event
                .as_deref()
                .is_some_and(|event| TRANSIENT_TYPES.contains(&event));
        agrees.then(|| Head {
            kind: Some(Cow::Borrowed(head.kind)),
            session_id: head.session_id.map(Cow::Borrowed),
            seq: head.seq,
            created_at: None,
            from_seq: None,
            note: None,
            payload: None,
        })
    }

    /// Whether a reference head agrees with a frame's `id:` line: its seq is the line's,
    /// it names this stream's session (if the stream has one), and its type is neither
    /// transient nor a notice.
    fn head_agrees(&self, head: &ReferenceHead<'_>, id: u64) -> bool {
        // Named in the head, or a `session_id` after it could still name another session.
        let same_session = match (self.session.as_deref(), head.session_id) {
            (Some(own), theirs) => theirs == Some(own),
            (None, _) => true,
        };
        head.seq == Some(id) && same_session && !TRANSIENT_TYPES.contains(&head.kind)
    }

    /// The decision for a frame of exactly an `id:` line reading `id`, an `event:` line
    /// `event` or none, and one `data:` line `data`, taken without building it: the seq at
    /// which [`Resume::on_frame_ref`] would deliver it, undecoded, and its `created_at` (when
    /// read), when its head agrees ([`Resume::agreeing_head`]), it is not a duplicate and no
    /// anomaly is waiting to be reported before it; the cursor moves as it would. Reading
    /// `created_at`, the payload is checked to be one JSON value, as the general path's head
    /// read does. `None`: nothing changed, and the frame is left to [`Resume::on_frame_ref`].
    ///
    /// `id_text` is the `id:` line's value (digits), `data` printable ASCII.
    pub(crate) fn deliver_agreeing(
        &mut self,
        id: u64,
        id_text: &str,
        event: Option<&str>,
        data: &str,
    ) -> Option<Agreed> {
        debug_assert!(data.bytes().all(|b| (0x20..0x7F).contains(&b)));
        if event.is_some_and(|event| TRANSIENT_TYPES.contains(&event))
            || self.decode_persisted
            || !self.trust_agreeing_heads
            || self.anomaly.is_some()
            || self.delivered.is_some_and(|cursor| id <= cursor)
            || id == u64::MAX
        {
            return None;
        }
        let (created_at, payload, parts) = match self.usual_head(id_text.as_bytes(), data) {
            Some(usual) => usual,
            None => {
                let head = ReferenceHead::read(data)?;
                if !self.head_agrees(&head, id) {
                    return None;
                }
                (head.created_at, head.payload, head.parts())
            }
        };
        if self.read_created_at && !crate::json::is_one_value(payload) {
            return None;
        }
        self.delivered = Some(id);
        self.next_request = Some(id);
        self.seen_persisted = true;
        Some(Agreed {
            seq: id,
            created_at: created_at.filter(|_| self.read_created_at),
            // Kept only with `created_at` read: the head is then whole.
            head: self
                .read_created_at
                .then(|| HeadAt::of(data, &parts))
                .flatten(),
        })
    }

    /// [`ReferenceHead::read`] and [`Resume::head_agrees`] at once for printable ASCII
    /// `data` in the usual case: this stream's session written as [`Resume::session_member`]
    /// (or no session followed), and `seq` written exactly as `id_text` (digits, no leading
    /// zero, at most 18). `Some`: both would accept, with this `created_at` (read only when
    /// the stream reads it), payload and head's parts. `None` says nothing: the full read
    /// decides.
    fn usual_head<'a>(
        &self,
        id_text: &[u8],
        data: &'a str,
    ) -> Option<(Option<i64>, &'a str, HeadParts<'a>)> {
        use crate::event_decode::{plain_digits, plain_string};
        let canonical =
            matches!(id_text.len(), 1..=18) && (id_text.len() == 1 || id_text[0] != b'0');
        if !canonical {
            return None;
        }
        let bytes = data.as_bytes();
        let (kind, mut rest) = plain_string(bytes.strip_prefix(br#"{"object":"event","type":""#)?)?;
        if TRANSIENT_TYPES.iter().any(|t| t.as_bytes() == kind) {
            return None;
        }
        let mut internal_type = None;
        if let Some(value) = rest.strip_prefix(br#","internal_type":""#) {
            let (text, after) = plain_string(value)?;
            internal_type = Some(text);
            rest = after;
        }
        let mut session_id = None;
        match (&self.session_member, &self.session) {
            (Some(member), _) => {
                let after = rest.strip_prefix(member.as_bytes())?;
                // The member is `,"session_id":"` SESSION `"`.
                let key = br#","session_id":""#.len();
                session_id = Some(&rest[key..member.len() - 1]);
                rest = after;
            }
            (None, Some(_)) => return None,
            (None, None) => {
                if let Some(value) = rest.strip_prefix(br#","session_id":""#) {
                    let (text, after) = plain_string(value)?;
                    session_id = Some(text);
                    rest = after;
                }
            }
        }
        rest = rest.strip_prefix(br#","seq":"#)?.strip_prefix(id_text)?;
        let mut created_at = None;
        if let Some(value) = rest.strip_prefix(br#","created_at":"#) {
            let digits = plain_digits(value)?;
            created_at = self.read_created_at.then(|| {
                value[..digits]
                    .iter()
                    .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'))
            });
            rest = &value[digits..];
        }
        let payload = rest.strip_prefix(br#","payload":"#)?.strip_suffix(b"}")?;
        let parts = HeadParts {
            kind,
            internal_type,
            session_id,
            payload,
        };
        // The payload is a suffix of `data` less its last byte: at a char boundary.
        Some((
            created_at,
            &data[data.len() - 1 - payload.len()..data.len() - 1],
            parts,
        ))
    }

    /// Whether [`Resume::deliver_agreeing`] may take any frame: the general path only, else.
    pub(crate) fn takes_agreeing_frames(&self) -> bool {
        !self.decode_persisted && self.trust_agreeing_heads
    }

    /// Makes [`Resume::deliver_agreeing`] and [`Resume::agreeing_head`] decline every frame
    /// (the general path, for tests and the fuzz target to compare with).
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn without_agreeing_heads(mut self) -> Self {
        self.trust_agreeing_heads = false;
        self
    }

    fn on_transient(
        &mut self,
        frame: &SseFrameRef<'_>,
        event: Result<Event, DecodeError>,
    ) -> FrameAction {
        match event {
            Ok(mut ev) => {
                // Consumers that keep their own cursor read it from the event: a transient
                // frame must not offer one.
                ev.seq = None;
                let created_at = ev.created_at;
                let event = Ok(ev);
                FrameAction::Deliver(StreamFrame {
                    id: None,
                    data: self.data_for(frame, &event),
                    event,
                    created_at,
                    slot: QueueSlot::default(),
                })
            }
            Err(e) => FrameAction::Skip {
                reason: format!("undecodable transient frame: {}", e.0),
            },
        }
    }

    /// Resume exactly where the server stopped, never past what was delivered: a
    /// `from_seq` beyond it would skip events that never arrived.
    fn on_truncation(
        &mut self,
        frame: &SseFrameRef<'_>,
        truncation: ReplayTruncated,
    ) -> FrameAction {
        let from_seq = truncation.from_seq;
        if let Some(from) = from_seq {
            match self.delivered {
                Some(delivered) if from <= delivered => self.next_request = Some(from),
                delivered => {
                    let resume = delivered.map_or("live".to_string(), |d| format!("after {d}"));
                    self.anomaly = Some(format!(
                        "a replay truncation at seq {from} is beyond the events delivered; resuming {resume}"
                    ));
                }
            }
        }
        let event = Event {
            kind: REPLAY_TRUNCATED.into(),
            internal_type: None,
            session_id: None,
            seq: None,
            created_at: None,
            payload: EventPayload::ReplayTruncated(truncation),
        };
        FrameAction::Truncated {
            notice: StreamFrame {
                id: None,
                data: frame.data_owned(),
                event: Ok(event),
                created_at: None,
                slot: QueueSlot::default(),
            },
            from_seq,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the cursor decisions read of a head: type, session, seq, time.
    type HeadFields = (Option<String>, Option<String>, Option<u64>, Option<i64>);

    fn fields(head: Option<Head<'_>>) -> Option<HeadFields> {
        head.map(|h| {
            (
                h.kind.map(Cow::into_owned),
                h.session_id.map(Cow::into_owned),
                h.seq,
                h.created_at,
            )
        })
    }

    proptest! {
        /// An envelope in the reference's layout, with any one character changed, has the
        /// head a general parse reads.
        #[test]
        fn the_reference_layout_reads_the_head_a_general_parse_reads(
            pick in 0usize..29,
            at in 0usize..400,
            with in prop::sample::select(vec!['"', '\\', '0', '7', '-', '.', '{', '}', ',', ':', ' ', 'x', '\u{1}', 'n']),
            change in any::<bool>(),
        ) {
            let examples = crate::event_decode::tests::compact_examples();
            let (_, json) = &examples[pick % examples.len()];
            let mut chars: Vec<char> = json.chars().collect();
            if change {
                let i = at % chars.len();
                chars[i] = with;
            }
            let json: String = chars.into_iter().collect();
            prop_assert_eq!(fields(Head::read(&json)), fields(Head::parse(&json)), "{}", json);
        }
    }

    /// What [`Resume::on_frame`] decided, with the anomaly it reported and the cursor after.
    type Decision = (FrameAction, Option<String>, Option<u64>, Option<u64>);

    fn decide(r: &mut Resume, frame: SseFrame) -> Decision {
        let action = r.on_frame(frame);
        (action, r.take_anomaly(), r.cursor(), r.reconnect_request())
    }

    /// `json` without its member `name` (a string or a number), when it has one.
    fn without_member(json: &str, name: &str) -> String {
        let key = format!(",\"{name}\":");
        let Some(from) = json.find(&key) else {
            return json.to_string();
        };
        let value = &json[from + key.len()..];
        let len = if let Some(text) = value.strip_prefix('"') {
            text.find('"').map_or(0, |end| end + 2)
        } else {
            value.find(|c: char| !c.is_ascii_digit()).unwrap_or(0)
        };
        format!("{}{}", &json[..from], &value[len..])
    }

    /// `json` with `snippet` inserted at the char index `at` (wrapped); `usize::MAX`: before
    /// the last char (a member after the payload).
    fn inserted(json: &str, at: usize, snippet: &str) -> String {
        let chars: Vec<char> = json.chars().collect();
        let at = match at {
            usize::MAX => chars.len().saturating_sub(1),
            at => at % (chars.len() + 1),
        };
        let mut out: String = chars[..at].iter().collect();
        out.push_str(snippet);
        out.extend(&chars[at..]);
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]
        /// Undecoded frames without `created_at`: an envelope in the reference's layout whose
        /// head agrees with its frame is taken without its payload checked, and every frame
        /// (an envelope with a member left out and any one edit, any `id:` and `event:` line,
        /// a session or none) is decided as the general path decides it.
        #[test]
        fn an_agreeing_head_decides_as_the_general_path(
            frames in prop::collection::vec(
                (
                    0usize..29,
                    prop_oneof![0usize..400, Just(usize::MAX)],
                    prop::sample::select(vec![
                        "", "\"", "\\", "0", "7", "{", "}", "[", ",", ":", " ", "x", "\u{1}",
                        r#","session_id":"sess_other""#,
                        r#","session_id":"3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af""#,
                        r#","seq":9"#, r#","type":"agent.text""#, r#","created_at":1"#,
                        r#","from_seq":2"#, r#","payload":{}"#, "}}", "\u{ff}",
                    ]),
                    prop::sample::select(vec![None, Some("same"), Some("next"), Some("junk"), Some(" same ")]),
                    prop::sample::select(vec![None, Some("agent.message"), Some("agent.text"), Some(REPLAY_TRUNCATED)]),
                    prop::sample::select(vec!["", "", "session_id", "created_at", "internal_type"]),
                    prop::sample::select(vec![None, None, Some("agent.text"), Some(REPLAY_TRUNCATED)]),
                ),
                1..6,
            ),
            session in prop::sample::select(vec![
                None,
                Some("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af"),
                Some("sess_other"),
            ]),
            from in prop::sample::select(vec![None, Some(0u64), Some(5_000)]),
        ) {
            let examples = crate::event_decode::tests::compact_examples();
            let new = || {
                Resume::new(from, false)
                    .with_decode_persisted(false)
                    .with_read_created_at(false)
                    .with_session(session.map(str::to_string))
            };
            let mut fast = new();
            let mut general = new();
            general.trust_agreeing_heads = false;
            for (pick, at, snippet, id, event, dropped, retyped) in frames {
                let (name, json) = &examples[pick % examples.len()];
                let mut data = without_member(json, dropped);
                if let Some(kind) = retyped {
                    data = data.replacen(&format!(r#""type":"{name}""#), &format!(r#""type":"{kind}""#), 1);
                }
                let data = inserted(&data, at, snippet);
                let seq = serde_json::from_str::<Value>(json).unwrap()["seq"].as_u64();
                let id = id.map(|id| match (id, seq) {
                    ("same", Some(seq)) => seq.to_string(),
                    (" same ", Some(seq)) => format!(" {seq} "),
                    ("next", Some(seq)) => (seq + 1).to_string(),
                    (other, _) => other.to_string(),
                });
                let frame = SseFrame { id, event: event.map(str::to_string), data };
                prop_assert_eq!(
                    decide(&mut fast, frame.clone()),
                    decide(&mut general, frame.clone()),
                    "{:?}", frame
                );
            }
        }
    }

    /// Every example in the reference's layout takes the usual path, with its session
    /// followed or none.
    #[test]
    fn the_usual_head_reads_every_example() {
        for (name, json) in crate::event_decode::tests::compact_examples() {
            let value = serde_json::from_str::<Value>(&json).unwrap();
            let (Some(seq), Some(session)) = (value["seq"].as_u64(), value["session_id"].as_str())
            else {
                continue;
            };
            if TRANSIENT_TYPES.contains(&name.as_str()) || !json.is_ascii() {
                continue;
            }
            for followed in [None, Some(session.to_string())] {
                let r = Resume::new(None, false).with_session(followed.clone());
                let usual = r
                    .usual_head(seq.to_string().as_bytes(), &json)
                    .unwrap_or_else(|| panic!("{name} ({followed:?}): {json}"));
                let full = ReferenceHead::read(&json).unwrap();
                assert_eq!(usual, (full.created_at, full.payload, full.parts()));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        /// Whatever the usual path reads of a printable envelope (a member left out, any
        /// one edit, a number with a leading zero or too many digits, any `id:` line, any
        /// session followed, `created_at` read or not), the full read and its agreement
        /// check read too.
        #[test]
        fn the_usual_head_reads_as_the_full_read(
            pick in 0usize..29,
            at in prop_oneof![0usize..400, Just(usize::MAX)],
            snippet in prop::sample::select(vec![
                "", "\"", "\\", "0", "7", "{", "}", ",", ":", " ", "x", "null", "-1",
                r#","session_id":"sess_other""#,
                r#","session_id":"3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af""#,
                r#","seq":9"#, r#","type":"agent.text""#, r#","created_at":1"#,
                r#","created_at":0123"#, r#","internal_type":7"#, r#","payload":{}"#, "}}",
            ]),
            id in prop::sample::select(vec!["same", "0same", "next", "0", "7", "1234567890123456789", "12345678901234567890"]),
            dropped in prop::sample::select(vec!["", "", "session_id", "created_at", "internal_type", "seq"]),
            retyped in prop::sample::select(vec![None, None, Some("agent.text"), Some(REPLAY_TRUNCATED)]),
            session in prop::sample::select(vec![
                None,
                Some("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af"),
                Some("3f9c1b60"),
                Some("sess\"other"),
            ]),
            read_created_at in any::<bool>(),
            number in prop::sample::select(vec![None, Some(r#""seq":0"#), Some(r#""created_at":0"#), Some(r#""created_at":123456"#)]),
        ) {
            let examples = crate::event_decode::tests::compact_examples();
            let (name, json) = &examples[pick % examples.len()];
            let mut data = without_member(json, dropped);
            if let Some(prefixed) = number {
                // A leading zero, or digits past 18.
                let key = &prefixed[..prefixed.find(':').unwrap() + 1];
                data = data.replacen(key, prefixed, 1);
            }
            if let Some(kind) = retyped {
                data = data.replacen(&format!(r#""type":"{name}""#), &format!(r#""type":"{kind}""#), 1);
            }
            let data = inserted(&data, at, snippet);
            prop_assume!(data.bytes().all(|b| (0x20..0x7F).contains(&b)));
            let seq = serde_json::from_str::<Value>(json).unwrap()["seq"].as_u64().unwrap_or(5);
            let id_text = match id {
                "same" => seq.to_string(),
                "0same" => format!("0{seq}"),
                "next" => (seq + 1).to_string(),
                other => other.to_string(),
            };
            let Ok(id) = id_text.parse::<u64>() else {
                return Ok(());
            };
            let r = Resume::new(None, false)
                .with_session(session.map(str::to_string))
                .with_read_created_at(read_created_at);
            if let Some(usual) = r.usual_head(id_text.as_bytes(), &data) {
                let full = ReferenceHead::read(&data)
                    .filter(|head| r.head_agrees(head, id))
                    .map(|head| {
                        let created_at = head.created_at.filter(|_| read_created_at);
                        (created_at, head.payload, head.parts())
                    });
                prop_assert_eq!(Some(usual), full, "{}", data);
            }
        }
    }

    /// An agreeing head is taken as it stands only when nothing but the cursor reads it.
    #[test]
    fn an_agreeing_head_is_trusted_only_without_decoding_or_created_at() {
        let examples = crate::event_decode::tests::compact_examples();
        let (_, json) = examples
            .iter()
            .find(|(name, _)| name == "agent.message")
            .unwrap();
        let seq = serde_json::from_str::<Value>(json).unwrap()["seq"]
            .as_u64()
            .unwrap();
        // The payload made invalid: only the general path can tell.
        let data = json.replacen(r#""payload":"#, r#""payload":]"#, 1);
        let frame = SseFrameRef {
            id: Some(Cow::Owned(seq.to_string())),
            event: None,
            data: Cow::Borrowed(&data),
            chunk: None,
        };
        let off = Resume::new(Some(0), false).with_decode_persisted(false);
        assert!(off.agreeing_head(&frame).is_none(), "created_at is read");
        let off = off.with_read_created_at(false);
        assert!(off.agreeing_head(&frame).is_some());
        let decoding = Resume::new(Some(0), false).with_read_created_at(false);
        assert!(decoding.agreeing_head(&frame).is_none());
        let mut r = Resume::new(Some(0), false)
            .with_decode_persisted(false)
            .with_read_created_at(false);
        let FrameAction::Deliver(f) = r.on_frame_ref(frame) else {
            panic!("delivered")
        };
        assert_eq!((f.id, f.created_at), (Some(seq), None));
    }

    /// Without `keep_data` a decoded frame carries only its event (the app's backlog holds
    /// half the bytes); one that failed to decode keeps its data for the report.
    #[test]
    fn without_keep_data_only_undecodable_frames_keep_their_json() {
        let mut r = Resume::new(Some(0), false).with_keep_data(false);
        let FrameAction::Deliver(f) = r.on_frame(persisted(1)) else {
            panic!("delivered")
        };
        assert!(f.event.is_ok());
        assert!(f.data.is_empty());
        let bad = SseFrame {
            id: Some("2".into()),
            event: None,
            data: "{not json".into(),
        };
        let FrameAction::Deliver(f) = r.on_frame(bad) else {
            panic!("delivered")
        };
        assert!(f.event.is_err());
        assert_eq!(f.data, "{not json");
        let transient = SseFrame {
            id: None,
            event: None,
            data: r#"{"type":"agent.text","seq":null,"payload":{"delta":"d"}}"#.into(),
        };
        let FrameAction::Deliver(f) = r.on_frame(transient) else {
            panic!("delivered")
        };
        assert!(f.event.is_ok() && f.data.is_empty());
        // The default keeps it.
        let mut r = Resume::new(Some(0), false);
        let FrameAction::Deliver(f) = r.on_frame(persisted(1)) else {
            panic!("delivered")
        };
        assert!(!f.data.is_empty());
    }

    fn persisted(seq: u64) -> SseFrame {
        SseFrame {
            id: Some(seq.to_string()),
            event: Some("agent.message".into()),
            data: format!(r#"{{"type":"agent.message","seq":{seq},"payload":{{"text":"m"}}}}"#),
        }
    }

    fn delta() -> SseFrame {
        SseFrame {
            id: None,
            event: Some("agent.text".into()),
            data: r#"{"type":"agent.text","seq":null,"payload":{"delta":"d"}}"#.into(),
        }
    }

    fn truncated(from: u64) -> SseFrame {
        SseFrame {
            id: None,
            event: Some("gobare.replay_truncated".into()),
            data: format!(r#"{{"type":"gobare.replay_truncated","seq":null,"from_seq":{from}}}"#),
        }
    }

    fn delivered_id(v: &FrameAction) -> Option<Option<u64>> {
        match v {
            FrameAction::Deliver(f) => Some(f.id),
            _ => None,
        }
    }

    #[test]
    fn none_and_zero_stay_distinct() {
        assert_eq!(Resume::new(None, false).first_request(), None);
        assert_eq!(Resume::new(Some(0), false).first_request(), Some(0));
        assert_eq!(Resume::new(Some(0), false).reconnect_request(), Some(0));
        assert_eq!(Resume::new(None, false).reconnect_request(), None);
        // Seq 0 after cursor None is new; after cursor Some(0) it is a duplicate.
        assert!(matches!(
            Resume::new(None, false).on_frame(persisted(0)),
            FrameAction::Deliver(_)
        ));
        assert_eq!(
            Resume::new(Some(0), false).on_frame(persisted(0)),
            FrameAction::Duplicate { seq: 0 }
        );
    }

    #[test]
    fn persisted_frames_advance_and_duplicates_drop() {
        let mut r = Resume::new(Some(10), false);
        assert_eq!(r.on_frame(persisted(9)), FrameAction::Duplicate { seq: 9 });
        assert_eq!(
            r.on_frame(persisted(10)),
            FrameAction::Duplicate { seq: 10 }
        );
        assert_eq!(delivered_id(&r.on_frame(persisted(12))), Some(Some(12)));
        assert_eq!(
            r.on_frame(persisted(11)),
            FrameAction::Duplicate { seq: 11 }
        );
        assert_eq!(r.cursor(), Some(12));
        assert_eq!(r.reconnect_request(), Some(12));
    }

    #[test]
    fn transient_frames_never_move_the_cursor() {
        let mut r = Resume::new(None, false);
        assert_eq!(delivered_id(&r.on_frame(delta())), Some(None));
        assert_eq!(r.cursor(), None);
        let mut r = Resume::new(Some(5), false);
        // A transient frame whose envelope claims a seq still has no id line.
        let mut f = delta();
        f.data = r#"{"type":"agent.text","seq":99,"payload":{"delta":"d"}}"#.into();
        assert_eq!(delivered_id(&r.on_frame(f)), Some(None));
        assert_eq!(r.cursor(), Some(5));
    }

    #[test]
    fn unparsable_id_falls_back_to_envelope_seq() {
        let mut r = Resume::new(Some(1), false);
        let mut f = persisted(7);
        f.id = Some("seven".into());
        assert_eq!(delivered_id(&r.on_frame(f)), Some(Some(7)));
        // No usable id and no seq: nothing to place it by.
        let mut g = persisted(8);
        g.id = Some("junk".into());
        g.data = r#"{"type":"agent.message","seq":null,"payload":{"text":"m"}}"#.into();
        assert!(matches!(r.on_frame(g), FrameAction::Skip { .. }));
        assert_eq!(r.cursor(), Some(7));
    }

    #[test]
    fn undecodable_persisted_frame_still_advances() {
        let mut r = Resume::new(Some(1), false);
        let f = SseFrame {
            id: Some("3".into()),
            event: None,
            data: "not json".into(),
        };
        match r.on_frame(f) {
            FrameAction::Deliver(sf) => {
                assert_eq!(sf.id, Some(3));
                assert!(sf.event.is_err());
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(r.cursor(), Some(3));
        let bad = SseFrame {
            id: None,
            event: None,
            data: "{".into(),
        };
        assert!(matches!(r.on_frame(bad), FrameAction::Skip { .. }));
    }

    #[test]
    fn undecoded_persisted_frames_keep_cursor_dedupe_and_truncation() {
        let mut r = Resume::new(Some(1), false).with_decode_persisted(false);
        match r.on_frame(persisted(3)) {
            FrameAction::Deliver(sf) => {
                assert_eq!(sf.id, Some(3));
                assert_eq!(sf.event, Err(DecodeError(NOT_DECODED.into())));
                assert_eq!(sf.data, persisted(3).data);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(r.on_frame(persisted(2)), FrameAction::Duplicate { seq: 2 });
        // The cursor comes from the envelope's seq without decoding the event.
        let mut f = persisted(7);
        f.id = Some("seven".into());
        match r.on_frame(f) {
            FrameAction::Deliver(sf) => assert!(sf.event.is_err() && sf.id == Some(7)),
            other => panic!("{other:?}"),
        }
        // Transient frames are still decoded: deltas delivered, truncation detected.
        assert!(matches!(
            r.on_frame(delta()),
            FrameAction::Deliver(StreamFrame { event: Ok(_), .. })
        ));
        assert!(matches!(
            r.on_frame(truncated(5)),
            FrameAction::Truncated {
                from_seq: Some(5),
                ..
            }
        ));
        assert_eq!(r.reconnect_request(), Some(5));
    }

    /// Found by the `stream_runs` fuzz target: a notice whose `type` is mistyped (known by
    /// its `event:` line) resumed as if it had no `from_seq` when persisted frames were
    /// decoded, and from its `from_seq` when they were not.
    #[test]
    fn a_notice_known_by_its_event_line_reads_its_from_seq_decoded_or_not() {
        for decode in [true, false] {
            let mut r = Resume::new(Some(0), false).with_decode_persisted(decode);
            r.on_frame(persisted(150));
            let notice = SseFrame {
                id: None,
                event: Some(REPLAY_TRUNCATED.into()),
                data: r#"{"type":"go^are.replay_truncated","internal_type":"gobare.replay_truncated","seq":null,"from_seq":120,"payload":{"from_seq":120}}"#.into(),
            };
            match r.on_frame(notice) {
                FrameAction::Truncated { from_seq, .. } => {
                    assert_eq!(from_seq, Some(120), "decode {decode}")
                }
                other => panic!("decode {decode}: {other:?}"),
            }
            assert_eq!(r.reconnect_request(), Some(120), "decode {decode}");
        }
    }

    #[test]
    fn truncation_resumes_from_from_seq() {
        let mut r = Resume::new(Some(0), false);
        r.on_frame(persisted(150));
        match r.on_frame(truncated(150)) {
            FrameAction::Truncated { notice, from_seq } => {
                assert_eq!(from_seq, Some(150));
                assert_eq!(notice.id, None);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(r.reconnect_request(), Some(150));
        assert_eq!(r.take_anomaly(), None);
        // Payload spelling too.
        let mut r = Resume::new(Some(50), false);
        let f = SseFrame {
            id: None,
            event: None,
            data: r#"{"type":"gobare.replay_truncated","seq":null,"payload":{"from_seq":42}}"#
                .into(),
        };
        assert!(matches!(
            r.on_frame(f),
            FrameAction::Truncated {
                from_seq: Some(42),
                ..
            }
        ));
        assert_eq!(r.reconnect_request(), Some(42));
    }

    /// A `from_seq` beyond what was delivered would skip events that never arrived: the
    /// stream resumes after the last one it delivered and says so.
    #[test]
    fn truncation_beyond_what_was_delivered_is_refused() {
        let mut r = Resume::new(Some(0), false);
        r.on_frame(persisted(100));
        assert!(matches!(
            r.on_frame(truncated(u64::MAX)),
            FrameAction::Truncated { .. }
        ));
        assert_eq!(r.reconnect_request(), Some(100));
        assert_eq!(r.cursor(), Some(100));
        let anomaly = r.take_anomaly().expect("reported");
        assert!(anomaly.contains("after 100"), "{anomaly}");
        assert_eq!(r.take_anomaly(), None, "reported once");
        // A live-only stream delivered nothing to truncate.
        let mut r = Resume::new(None, false);
        r.on_frame(truncated(7));
        assert_eq!(r.reconnect_request(), None);
        assert!(r.take_anomaly().is_some());
    }

    /// Every hostile spelling seen in the wild is still the notice: known by its type (in
    /// `data` or on the `event:` line) and `from_seq` alone.
    #[test]
    fn truncation_is_recognised_however_its_other_fields_are_typed() {
        let notices = [
            (
                None,
                r#"{"type":"gobare.replay_truncated","seq":null,"from_seq":5,"note":42}"#,
            ),
            (
                None,
                r#"{"type":"gobare.replay_truncated","session_id":7,"internal_type":8,"from_seq":5}"#,
            ),
            (
                None,
                r#"{"type":"gobare.replay_truncated","payload":"text","from_seq":5}"#,
            ),
            (
                None,
                r#"{"type":"gobare.replay_truncated","payload":{"from_seq":"5","note":[1]}}"#,
            ),
            (
                None,
                r#"{"type":"gobare.replay_truncated","seq":"x","created_at":"y","object":1,"from_seq":5}"#,
            ),
            (
                Some("999"),
                r#"{"type":"gobare.replay_truncated","seq":null,"from_seq":5}"#,
            ),
            (
                Some("999"),
                r#"{"type":"gobare.replay_truncated","seq":999,"from_seq":5}"#,
            ),
            (None, r#"{"seq":null,"from_seq":5}"#),
            (None, r#"{"type":17,"from_seq":5}"#),
        ];
        for (i, (id, data)) in notices.into_iter().enumerate() {
            let mut r = Resume::new(Some(10), false).with_session(Some("s1".into()));
            let frame = SseFrame {
                id: id.map(String::from),
                // The last two name it only on the `event:` line.
                event: (i >= 7).then(|| "gobare.replay_truncated".to_string()),
                data: data.into(),
            };
            match r.on_frame(frame) {
                FrameAction::Truncated { notice, from_seq } => {
                    assert_eq!(from_seq, Some(5), "{data}");
                    let event = notice.event.expect("the notice always decodes");
                    assert_eq!(event.seq, None);
                    assert!(matches!(event.payload, EventPayload::ReplayTruncated(_)));
                }
                other => panic!("{data}: {other:?}"),
            }
            assert_eq!(r.cursor(), Some(10), "{data}: an id: line never moves it");
            assert_eq!(r.reconnect_request(), Some(5), "{data}");
        }
        // Without a usable from_seq it is still the notice; the cursor stays put.
        let mut r = Resume::new(Some(10), false);
        let f = SseFrame {
            id: Some("50".into()),
            event: Some("gobare.replay_truncated".into()),
            data: "not json".into(),
        };
        assert!(matches!(
            r.on_frame(f),
            FrameAction::Truncated { from_seq: None, .. }
        ));
        assert_eq!(r.reconnect_request(), Some(10));
    }

    /// The envelope's seq is the cursor; an `id:` that disagrees is reported and loses.
    #[test]
    fn an_id_that_disagrees_with_seq_is_reported_and_seq_wins() {
        let mut r = Resume::new(Some(5), false);
        let mut f = persisted(6);
        f.id = Some("1000".into());
        match r.on_frame(f) {
            FrameAction::Deliver(sf) => {
                assert_eq!(sf.id, Some(6));
                assert_eq!(sf.event.unwrap().seq, Some(6));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(r.cursor(), Some(6));
        let anomaly = r.take_anomaly().expect("reported");
        assert!(
            anomaly.contains("1000") && anomaly.contains("using 6"),
            "{anomaly}"
        );
        // The same holds undecoded (`tail`): the cursor still comes from the envelope.
        let mut r = Resume::new(Some(5), false).with_decode_persisted(false);
        let mut f = persisted(7);
        f.id = Some(u64::MAX.to_string());
        assert_eq!(delivered_id(&r.on_frame(f)), Some(Some(7)));
        assert_eq!(r.cursor(), Some(7));
        assert!(r.take_anomaly().is_some());
        // Agreement reports nothing.
        r.on_frame(persisted(8));
        assert_eq!(r.take_anomaly(), None);
    }

    #[test]
    fn only_a_json_object_has_a_seq() {
        let mut r = Resume::new(Some(1), false);
        let f = SseFrame {
            id: Some("32".into()),
            event: None,
            data: "[1,2,3]".into(),
        };
        // Placed by its id alone, undecodable, and no anomaly (there is no seq to disagree).
        assert_eq!(delivered_id(&r.on_frame(f)), Some(Some(32)));
        assert_eq!(r.take_anomaly(), None);
    }

    #[test]
    fn a_cursor_with_nothing_after_it_is_refused() {
        let mut r = Resume::new(Some(5), false);
        assert!(matches!(
            r.on_frame(persisted(u64::MAX)),
            FrameAction::Skip { .. }
        ));
        assert_eq!(r.cursor(), Some(5));
        assert_eq!(delivered_id(&r.on_frame(persisted(6))), Some(Some(6)));
    }

    /// `agent.text` and `agent.thinking` are transient whatever lines they carry: an `id:`
    /// on one is ignored and the event handed over carries no seq.
    #[test]
    fn an_id_on_a_transient_type_never_moves_the_cursor() {
        for kind in ["agent.text", "agent.thinking"] {
            let mut r = Resume::new(Some(5), false).with_decode_persisted(false);
            let f = SseFrame {
                id: Some("500".into()),
                event: Some(kind.into()),
                data: format!(r#"{{"type":"{kind}","seq":500,"payload":{{"delta":"d"}}}}"#),
            };
            match r.on_frame(f) {
                FrameAction::Deliver(sf) => {
                    assert_eq!(sf.id, None);
                    assert_eq!(sf.event.unwrap().seq, None);
                }
                other => panic!("{other:?}"),
            }
            assert_eq!(r.cursor(), Some(5));
            assert_eq!(r.reconnect_request(), Some(5));
        }
    }

    /// The type and session are read from escaped strings too, and a field of another
    /// JSON type (an object, an array) reads as absent without failing the frame.
    #[test]
    fn escaped_and_mistyped_header_fields_are_read_leniently() {
        let mut r = Resume::new(Some(5), false).with_session(Some("s1".into()));
        let escaped = SseFrame {
            id: Some("500".into()),
            event: None,
            data: r#"{"type":"agent.te\u0078t","session_id":"s\u0031","seq":500,"payload":{"delta":"d"}}"#
                .into(),
        };
        assert_eq!(delivered_id(&r.on_frame(escaped)), Some(None), "transient");
        let other = SseFrame {
            id: Some("6".into()),
            event: None,
            data: r#"{"type":"agent.message","session_id":"s\u0032","seq":6,"payload":{}}"#.into(),
        };
        assert!(matches!(r.on_frame(other), FrameAction::Skip { .. }));
        let mistyped = SseFrame {
            id: Some("7".into()),
            event: None,
            data: r#"{"type":["agent.text"],"session_id":{"id":"s2"},"seq":7,"payload":{}}"#.into(),
        };
        assert_eq!(delivered_id(&r.on_frame(mistyped)), Some(Some(7)));
        assert_eq!(r.cursor(), Some(7));
    }

    /// Decoding reads the head from the decoded envelope; the decisions are the same as
    /// when only the head is read.
    #[test]
    fn decisions_are_the_same_with_or_without_decoding() {
        let datas = [
            r#"{"type":"agent.message","session_id":"s1","seq":6,"created_at":9,"payload":{"text":"a"}}"#,
            r#"{"type":"agent.message","session_id":"s2","seq":7,"payload":{}}"#,
            r#"{"type":"agent.message","seq":"8","created_at":"10","payload":{}}"#,
            r#"{"type":"agent.message","seq":12,"payload":{"text":"cut \ud83d"}}"#,
            r#"{"type":"agent.text","seq":13,"payload":{"delta":"d"}}"#,
            r#"["agent.message","s1",14]"#,
            r#"{"type":"agent.message","session_id":5,"seq":15,"payload":{}}"#,
            r#"{"type":"agent.message","internal_type":1,"seq":16,"payload":{}}"#,
            r#"{"type":"agent.message","seq":17,"seq":18,"payload":{}}"#,
            r#"{"type":"agent.message","seq":5,"payload":{}}"#,
        ];
        let summary = |decode: bool| {
            let mut r = Resume::new(Some(5), false)
                .with_session(Some("s1".into()))
                .with_decode_persisted(decode);
            datas
                .iter()
                .enumerate()
                .map(|(i, data)| {
                    let f = SseFrame {
                        id: Some((20 + i).to_string()),
                        event: None,
                        data: (*data).into(),
                    };
                    let action = match r.on_frame(f) {
                        FrameAction::Deliver(f) => format!("deliver {:?} {:?}", f.id, f.created_at),
                        FrameAction::Duplicate { seq } => format!("duplicate {seq}"),
                        FrameAction::Skip { .. } => "skip".into(),
                        FrameAction::Truncated { from_seq, .. } => {
                            format!("truncated {from_seq:?}")
                        }
                    };
                    (action, r.take_anomaly(), r.cursor())
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(summary(true), summary(false));
    }

    /// The stored cursor is this session's: an event naming another session is dropped
    /// before it can move it (a string `session_id` only; the org stream has no session).
    #[test]
    fn events_of_another_session_never_move_the_cursor() {
        let mut r = Resume::new(Some(5), false).with_session(Some("s1".into()));
        let other = SseFrame {
            id: Some("90".into()),
            event: None,
            data: r#"{"type":"agent.message","session_id":"s2","seq":90,"payload":{}}"#.into(),
        };
        assert!(matches!(
            r.on_frame(other.clone()),
            FrameAction::Skip { .. }
        ));
        let other_delta = SseFrame {
            id: None,
            event: None,
            data: r#"{"type":"agent.text","session_id":"s2","seq":null,"payload":{"delta":"x"}}"#
                .into(),
        };
        assert!(matches!(r.on_frame(other_delta), FrameAction::Skip { .. }));
        assert_eq!(r.cursor(), Some(5));
        let own = SseFrame {
            data: r#"{"type":"agent.message","session_id":"s1","seq":90,"payload":{}}"#.into(),
            ..other.clone()
        };
        assert_eq!(delivered_id(&r.on_frame(own)), Some(Some(90)));
        let mut org = Resume::new(Some(5), false);
        assert_eq!(delivered_id(&org.on_frame(other)), Some(Some(90)));
    }

    #[test]
    fn truncation_below_the_cursor_rereads_and_dedupes() {
        let mut r = Resume::new(Some(0), false);
        r.on_frame(persisted(200));
        r.on_frame(truncated(150));
        assert_eq!(r.reconnect_request(), Some(150));
        assert_eq!(
            r.on_frame(persisted(160)),
            FrameAction::Duplicate { seq: 160 }
        );
        assert_eq!(delivered_id(&r.on_frame(persisted(201))), Some(Some(201)));
        assert_eq!(r.reconnect_request(), Some(201));
    }

    #[test]
    fn gap_caveat_replays_from_zero_only_before_the_first_persisted_event() {
        let mut r = Resume::new(None, true);
        assert_eq!(r.first_request(), None);
        r.on_frame(delta());
        assert_eq!(r.reconnect_request(), Some(0));
        r.on_frame(persisted(4));
        assert_eq!(r.reconnect_request(), Some(4));
        assert_eq!(Resume::new(None, false).reconnect_request(), None);
    }
}
