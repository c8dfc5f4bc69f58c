//! The resume cursor (reference §7.4-§7.6, §11.1, §14.12-13): which persisted events were
//! delivered, what to send as `Last-Event-ID` next, and what to do with each frame. Pure.

use super::{QueueSlot, StreamFrame};
use crate::model::{DecodeError, Event, EventPayload};
use crate::sse::SseFrame;

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
    /// See [`StreamOptions::decode_persisted`](super::StreamOptions::decode_persisted).
    decode_persisted: bool,
    /// See [`StreamOptions::keep_data`](super::StreamOptions::keep_data).
    keep_data: bool,
}

/// The `event` of a persisted frame delivered undecoded (`decode_persisted` off).
pub(crate) const NOT_DECODED: &str = "not decoded (StreamOptions::decode_persisted is off)";

impl Resume {
    pub(crate) fn new(from: Option<u64>, replay_if_dropped_before_first_event: bool) -> Self {
        Resume {
            delivered: from,
            next_request: from,
            seen_persisted: false,
            replay_if_dropped_before_first_event,
            decode_persisted: true,
            keep_data: true,
        }
    }

    /// With `false`, frames whose event decoded carry an empty `data`.
    pub(crate) fn with_keep_data(mut self, keep_data: bool) -> Self {
        self.keep_data = keep_data;
        self
    }

    /// The raw data to hand over with `event`.
    fn data_for(&self, data: String, event: &Result<Event, DecodeError>) -> String {
        if self.keep_data || event.is_err() {
            data
        } else {
            String::new()
        }
    }

    /// With `false`, persisted frames whose `id:` is a number are delivered without
    /// decoding their data (their `event` is an error saying so).
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

    /// Decides about one frame and advances the cursor for delivered persisted events.
    pub(crate) fn on_frame(&mut self, frame: SseFrame) -> FrameAction {
        let Some(id_line) = frame.id.as_deref() else {
            let event = Event::parse(&frame.data);
            return self.on_transient(frame.data, event);
        };
        // The cursor needs only the `id:` line; the data is decoded when the consumer
        // wants the event, or when the id is unusable and the envelope's seq stands in.
        let (seq, event) = match id_line.trim().parse::<u64>() {
            Ok(seq) if self.decode_persisted => (seq, Event::parse(&frame.data)),
            Ok(seq) => (seq, Err(DecodeError(NOT_DECODED.into()))),
            Err(_) => match Event::parse(&frame.data) {
                Ok(event @ Event { seq: Some(seq), .. }) => (seq, Ok(event)),
                _ => {
                    return FrameAction::Skip {
                        reason: format!(
                            "persisted frame with unusable id ({} bytes)",
                            id_line.len()
                        ),
                    };
                }
            },
        };
        if self.delivered.is_some_and(|c| seq <= c) {
            return FrameAction::Duplicate { seq };
        }
        self.delivered = Some(seq);
        self.next_request = Some(seq);
        self.seen_persisted = true;
        FrameAction::Deliver(StreamFrame {
            id: Some(seq),
            data: self.data_for(frame.data, &event),
            event,
            slot: QueueSlot::default(),
        })
    }

    fn on_transient(&mut self, data: String, event: Result<Event, DecodeError>) -> FrameAction {
        match event {
            Ok(ev) => {
                if let EventPayload::ReplayTruncated(t) = &ev.payload {
                    let from_seq = t.from_seq;
                    if let Some(from) = from_seq {
                        // Resume exactly where the server stopped; never past it.
                        self.next_request = Some(from);
                        self.delivered = Some(self.delivered.map_or(from, |d| d.max(from)));
                    }
                    return FrameAction::Truncated {
                        notice: StreamFrame {
                            id: None,
                            data,
                            event: Ok(ev),
                            slot: QueueSlot::default(),
                        },
                        from_seq,
                    };
                }
                let event = Ok(ev);
                FrameAction::Deliver(StreamFrame {
                    id: None,
                    data: self.data_for(data, &event),
                    event,
                    slot: QueueSlot::default(),
                })
            }
            Err(e) => FrameAction::Skip {
                reason: format!("undecodable transient frame: {}", e.0),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut g = delta();
        g.id = Some("junk".into());
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
        // An unusable id still falls back to the envelope's seq, decoded.
        let mut f = persisted(7);
        f.id = Some("seven".into());
        match r.on_frame(f) {
            FrameAction::Deliver(sf) => assert!(sf.event.is_ok() && sf.id == Some(7)),
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

    #[test]
    fn truncation_resumes_from_from_seq_and_never_passes_it() {
        let mut r = Resume::new(Some(0), false);
        r.on_frame(persisted(100));
        match r.on_frame(truncated(150)) {
            FrameAction::Truncated { notice, from_seq } => {
                assert_eq!(from_seq, Some(150));
                assert_eq!(notice.id, None);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(r.reconnect_request(), Some(150));
        // Payload spelling too.
        let mut r = Resume::new(Some(0), false);
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
