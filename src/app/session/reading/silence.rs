//! A stream that is open but says nothing (a buffering proxy, a stuck server): how long it
//! has been silent, when to read the session through its resources instead, and when what
//! those resources show is worth one more reconnect. Pure: the app feeds it states, times
//! and what it read, and does what it answers.

use gobare_api::stream::ConnectionState;
use std::time::{Duration, Instant};

/// Silent connections in a row (each ended by the idle watchdog, ~45 s) before the session
/// is read through its resources: one, as the reference calls 45 s of silence a dead
/// connection (§7.8 item 5); a quiet stream still pings every 15 s.
pub(crate) const SILENT_CONNECTIONS: u32 = 1;
/// How long a message accepted while the stream has not spoken waits for the stream to
/// echo it before the session is read instead: a live stream echoes within a second, and
/// the person's own message must not vanish until the watchdog gives up.
pub(crate) const ECHO_WAIT: Duration = Duration::from_secs(5);
/// How often the resources are read while the stream stays silent: 3 requests each time
/// (session, turns, items), 12 a minute of the 120.
pub(crate) const READ_EVERY: Duration = Duration::from_secs(15);
/// The least time between two reconnects forced by progress the stream did not deliver: the
/// reference's silence limit (§7.8 item 5).
pub(crate) const RECONNECT_GAP: Duration = Duration::from_secs(45);

/// What the app should do after an update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SilenceStep {
    Nothing,
    /// Start reading the session, turns and items now, and every [`READ_EVERY`].
    StartReading,
    /// The stream spoke again after the resources were read.
    Spoke,
}

#[derive(Debug, Default)]
pub(crate) struct StreamSilence {
    /// Since when (Unix ms) the stream has been open without a word, across reconnects.
    since_ms: Option<i64>,
    reading: bool,
    read_at: Option<Instant>,
    /// A send was accepted while the stream had not spoken: read the session then unless
    /// the stream speaks first.
    echo_due_at: Option<Instant>,
    reconnected_at: Option<Instant>,
    /// The session's `updated_at` at the last read while silent.
    seen_updated_at: Option<i64>,
}

impl StreamSilence {
    pub(crate) fn since_ms(&self) -> Option<i64> {
        self.since_ms
    }

    pub(crate) fn reading(&self) -> bool {
        self.reading
    }

    /// A connection state from the stream.
    pub(crate) fn on_state(
        &mut self,
        state: &ConnectionState,
        now: Instant,
        now_ms: i64,
    ) -> SilenceStep {
        match state {
            ConnectionState::Open { silent_before } => {
                if *silent_before == 0 {
                    self.since_ms = Some(now_ms);
                } else {
                    self.since_ms.get_or_insert(now_ms);
                }
                if *silent_before >= SILENT_CONNECTIONS && !self.reading {
                    self.reading = true;
                    self.read_at = Some(now);
                    return SilenceStep::StartReading;
                }
                SilenceStep::Nothing
            }
            ConnectionState::Live => {
                let was_reading = std::mem::take(&mut self.reading);
                *self = StreamSilence::default();
                if was_reading {
                    SilenceStep::Spoke
                } else {
                    SilenceStep::Nothing
                }
            }
            ConnectionState::Failed { .. } => {
                *self = StreamSilence::default();
                SilenceStep::Nothing
            }
            ConnectionState::Connecting { .. } | ConnectionState::Retrying { .. } => {
                SilenceStep::Nothing
            }
        }
    }

    /// A message was accepted at `now`: if the stream has not spoken, its echo is awaited
    /// for [`ECHO_WAIT`] before the session is read instead.
    pub(crate) fn on_sent(&mut self, now: Instant) {
        if self.since_ms.is_some() && !self.reading {
            self.echo_due_at.get_or_insert(now + ECHO_WAIT);
        }
    }

    /// Whether the resources are due to be read again at `now` (then the next read is
    /// scheduled).
    pub(crate) fn read_due(&mut self, now: Instant) -> bool {
        if self.echo_due_at.is_some_and(|at| now >= at) {
            self.echo_due_at = None;
            if self.since_ms.is_some() && !self.reading {
                self.reading = true;
                self.read_at = Some(now + READ_EVERY);
                return true;
            }
        }
        match self.read_at {
            Some(at) if self.reading && now >= at => {
                self.read_at = Some(now + READ_EVERY);
                true
            }
            _ => false,
        }
    }

    pub(crate) fn due_at(&self) -> Option<Instant> {
        let reads = self.read_at.filter(|_| self.reading);
        match (reads, self.echo_due_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The session read while silent: `true` when it moved since the last such read (the
    /// server is working and the stream is not saying so) and a reconnect is allowed now.
    pub(crate) fn on_session_read(&mut self, updated_at: i64, now: Instant) -> bool {
        if !self.reading {
            return false;
        }
        let moved = self.seen_updated_at.is_some_and(|seen| updated_at > seen);
        self.seen_updated_at = Some(updated_at);
        let allowed = self
            .reconnected_at
            .is_none_or(|at| now.saturating_duration_since(at) >= RECONNECT_GAP);
        if moved && allowed {
            self.reconnected_at = Some(now);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(silent_before: u32) -> ConnectionState {
        ConnectionState::Open { silent_before }
    }

    #[test]
    fn one_silent_connection_starts_the_reads_and_speech_ends_them() {
        let t0 = Instant::now();
        let mut s = StreamSilence::default();
        assert_eq!(s.on_state(&open(0), t0, 1_000), SilenceStep::Nothing);
        assert_eq!(s.since_ms(), Some(1_000));
        let retry = ConnectionState::Retrying {
            in_ms: 5_000,
            attempt: 2,
            reason: "no data for 45 s".into(),
        };
        s.on_state(&retry, t0, 46_000);
        assert!(!s.reading());
        let t90 = t0 + Duration::from_secs(51);
        assert_eq!(s.on_state(&open(1), t90, 51_000), SilenceStep::StartReading);
        assert_eq!(s.since_ms(), Some(1_000), "silence spans reconnects");
        assert!(s.read_due(t90));
        assert!(!s.read_due(t90 + Duration::from_secs(14)));
        assert!(s.read_due(t90 + READ_EVERY));
        assert_eq!(
            s.on_state(&ConnectionState::Live, t90, 98_000),
            SilenceStep::Spoke
        );
        assert_eq!(s.since_ms(), None);
        assert_eq!(s.due_at(), None);
    }

    #[test]
    fn a_message_sent_into_silence_is_read_back_unless_the_stream_echoes_it() {
        let t0 = Instant::now();
        let mut silent = StreamSilence::default();
        silent.on_state(&open(0), t0, 1_000);
        silent.on_sent(t0 + Duration::from_secs(2));
        assert_eq!(
            silent.due_at(),
            Some(t0 + Duration::from_secs(2) + ECHO_WAIT)
        );
        assert!(!silent.read_due(t0 + Duration::from_secs(6)));
        assert!(
            silent.read_due(t0 + Duration::from_secs(7)),
            "no echo: read"
        );
        assert!(silent.reading(), "and every READ_EVERY after");
        assert!(silent.read_due(t0 + Duration::from_secs(7) + READ_EVERY));

        let mut echoed = StreamSilence::default();
        echoed.on_state(&open(0), t0, 1_000);
        echoed.on_sent(t0);
        echoed.on_state(
            &ConnectionState::Live,
            t0 + Duration::from_millis(300),
            1_300,
        );
        assert_eq!(echoed.due_at(), None);
        assert!(
            !echoed.read_due(t0 + ECHO_WAIT),
            "the stream spoke: no read"
        );

        let mut live = StreamSilence::default();
        live.on_state(&ConnectionState::Live, t0, 1_000);
        live.on_sent(t0);
        assert_eq!(
            live.due_at(),
            None,
            "a live stream's echo is not waited for"
        );
    }

    #[test]
    fn progress_the_stream_did_not_bring_reconnects_at_most_once_per_silence_limit() {
        let t0 = Instant::now();
        let mut s = StreamSilence::default();
        s.on_state(&open(2), t0, 0);
        assert!(
            !s.on_session_read(100, t0),
            "the first read is the baseline"
        );
        assert!(!s.on_session_read(100, t0 + READ_EVERY), "nothing moved");
        let t30 = t0 + Duration::from_secs(30);
        assert!(s.on_session_read(200, t30), "moved: reconnect");
        assert!(
            !s.on_session_read(300, t30 + READ_EVERY),
            "not again so soon"
        );
        assert!(s.on_session_read(400, t30 + RECONNECT_GAP));
    }
}
