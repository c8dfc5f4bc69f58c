//! The stream task: open, read, decide, report, wait, reopen. All decisions are delegated
//! to [`Resume`] and [`StreamBackoff`]; this file only sequences IO and time.

use super::backoff::StreamBackoff;
use super::resume::{FrameAction, Resume};
use super::transport::{ByteStream, Transport};
use super::{QueueSlot, StreamFrame, StreamOptions, StreamTarget, StreamUpdate};
use crate::auth::Token;
use crate::sse::{SseItem, SseParser};
use crate::stream::ConnectionState;
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::{Notify, Semaphore};
use tokio::time::{Instant, sleep, sleep_until, timeout};

/// The consumer dropped its receiver: stop quietly.
struct ConsumerGone;

/// How one open connection ended.
struct ConnectionEnd {
    reason: String,
    /// A new persisted event arrived: the only evidence that reconnecting helps, so the only
    /// thing that resets the backoff (deltas and truncation notices do not).
    progressed: bool,
}

struct Reporter<'a> {
    tx: &'a UnboundedSender<StreamUpdate>,
    token: Option<&'a Token>,
    /// Frame bytes the consumer may have queued; each delivered frame holds its share.
    budget: Arc<Semaphore>,
    max_queued: u32,
}

impl Reporter<'_> {
    fn send(&self, update: StreamUpdate) -> Result<(), ConsumerGone> {
        self.tx.send(update).map_err(|_| ConsumerGone)
    }

    /// Sends a frame once the queue has room for its `bytes`; until then the socket is not
    /// read. A frame larger than the whole budget waits for an empty queue.
    async fn send_frame(&self, mut frame: StreamFrame, bytes: usize) -> Result<(), ConsumerGone> {
        let share = u32::try_from(bytes.saturating_add(super::FRAME_OVERHEAD_BYTES))
            .unwrap_or(u32::MAX)
            .clamp(1, self.max_queued);
        let permit = self
            .budget
            .clone()
            .acquire_many_owned(share)
            .await
            .map_err(|_| ConsumerGone)?;
        frame.slot = QueueSlot::from_permit(permit);
        self.send(StreamUpdate::Frame(frame))
    }

    fn state(&self, state: ConnectionState) -> Result<(), ConsumerGone> {
        self.send(StreamUpdate::State(state))
    }

    /// Server text may echo anything; the token never leaves in a reason.
    fn redact(&self, reason: String) -> String {
        match self.token.map(Token::expose) {
            Some(secret) if reason.contains(secret) => reason.replace(secret, "<redacted>"),
            _ => reason,
        }
    }
}

pub(super) async fn run<T: Transport>(
    transport: T,
    options: StreamOptions,
    tx: UnboundedSender<StreamUpdate>,
    seed: u64,
    retry_now: Arc<Notify>,
) {
    let max_queued = u32::try_from(options.max_queued_bytes.max(1)).unwrap_or(u32::MAX >> 3);
    // Semaphore permits are capped well below u32::MAX.
    let max_queued = max_queued.min(Semaphore::MAX_PERMITS as u32);
    let report = Reporter {
        tx: &tx,
        token: options.token.as_ref(),
        budget: Arc::new(Semaphore::new(max_queued as usize)),
        max_queued,
    };
    tokio::select! {
        _ = tx.closed() => {}
        _ = reconnect_loop(&transport, &options, &report, seed, &retry_now) => {}
    }
}

async fn reconnect_loop<T: Transport>(
    transport: &T,
    options: &StreamOptions,
    report: &Reporter<'_>,
    seed: u64,
    retry_now: &Notify,
) -> Result<(), ConsumerGone> {
    let session = match &options.target {
        StreamTarget::Session(id) => Some(id.clone()),
        StreamTarget::Org { .. } => None,
    };
    let mut resume = Resume::new(options.from, options.replay_if_dropped_before_first_event)
        .with_decode_persisted(options.decode_persisted)
        .with_keep_data(options.keep_data)
        .with_session(session);
    let mut backoff = StreamBackoff::new(options.max_backoff, seed);
    let mut cursor = resume.first_request();
    loop {
        report.state(ConnectionState::Connecting {
            attempt: backoff.failures() + 1,
        })?;
        let (reason, retry_after) =
            match timeout(options.idle_timeout, transport.open(cursor)).await {
                Err(_) => {
                    backoff.record_failure();
                    (
                        format!("no response within {}", secs(options.idle_timeout)),
                        None,
                    )
                }
                Ok(Err(e)) if e.is_terminal() => {
                    let reason = report.redact(e.to_string());
                    tracing::debug!(%reason, "event stream refused; not retrying");
                    report.state(ConnectionState::Failed { reason })?;
                    return Ok(());
                }
                Ok(Err(e)) => {
                    backoff.record_failure();
                    (e.to_string(), e.retry_after())
                }
                Ok(Ok(body)) => {
                    report.state(ConnectionState::Live)?;
                    let end = read(body, options, &mut resume, &mut backoff, report).await?;
                    if end.progressed {
                        backoff.reset();
                    } else {
                        backoff.record_failure();
                    }
                    (end.reason, None)
                }
            };
        cursor = resume.reconnect_request();
        let wait = backoff.next_wait(retry_after);
        let reason = report.redact(reason);
        tracing::debug!(
            cursor = ?cursor,
            wait_ms = wait.as_millis() as u64,
            failures = backoff.failures(),
            %reason,
            "event stream reconnecting"
        );
        report.state(ConnectionState::Retrying {
            in_ms: wait.as_millis() as u64,
            attempt: backoff.failures() + 1,
            reason,
        })?;
        let started = Instant::now();
        tokio::select! {
            _ = sleep(wait) => {}
            _ = retry_now.notified() => {
                sleep_until(started + backoff.earliest(retry_after)).await;
            }
        }
    }
}

/// Reads one connection until EOF, error, silence or truncation.
async fn read(
    mut body: ByteStream,
    options: &StreamOptions,
    resume: &mut Resume,
    backoff: &mut StreamBackoff,
    report: &Reporter<'_>,
) -> Result<ConnectionEnd, ConsumerGone> {
    let mut parser = SseParser::new(options.max_frame_bytes);
    let mut items = Vec::new();
    let mut progressed = false;
    // Silence is measured from the last complete line, not the last byte. One timer for
    // the connection, moved only when it fires: re-arming it per chunk (a chunk per frame
    // on a replay) was a timer-wheel update per event.
    let mut last_line = Instant::now();
    let watchdog = sleep_until(last_line + options.idle_timeout);
    tokio::pin!(watchdog);
    let mut in_grace = false;
    loop {
        let next = tokio::select! {
            biased;
            next = body.next() => Some(next),
            () = &mut watchdog => None,
        };
        let Some(next) = next else {
            let quiet_until = last_line + options.idle_timeout;
            if quiet_until > Instant::now() {
                watchdog.as_mut().reset(quiet_until);
                continue;
            }
            if !in_grace {
                // The deadline may have passed while the process was stopped (SIGSTOP):
                // what the socket holds then was never read. Read it before judging.
                in_grace = true;
                let grace = Instant::now() + watchdog_grace(options.idle_timeout);
                watchdog.as_mut().reset(grace);
                continue;
            }
            return Ok(ConnectionEnd {
                reason: silence_reason(options.idle_timeout, parser.any_byte_seen()),
                progressed,
            });
        };
        let chunk = match next {
            None => {
                return Ok(ConnectionEnd {
                    reason: "the server closed the stream".into(),
                    progressed,
                });
            }
            Some(Err(e)) => {
                return Ok(ConnectionEnd {
                    reason: e.to_string(),
                    progressed,
                });
            }
            Some(Ok(chunk)) => chunk,
        };
        let lines_before = parser.lines_seen();
        parser.feed(&chunk, &mut items);
        if parser.lines_seen() != lines_before {
            last_line = Instant::now();
            in_grace = false;
        }
        for item in items.drain(..) {
            let bytes = match &item {
                SseItem::Frame(f) => f.data.len(),
                _ => 0,
            };
            match item {
                SseItem::Retry(ms) => backoff.set_hint(ms),
                SseItem::Oversized { bytes, id } => {
                    let reason = format!(
                        "frame of {bytes} bytes exceeds the {} byte limit",
                        options.max_frame_bytes
                    );
                    // A persisted event is not a droppable frame: name it.
                    let update = match id.and_then(|id| id.trim().parse::<u64>().ok()) {
                        Some(seq) => StreamUpdate::Lost { seq, reason },
                        None => StreamUpdate::Skipped { reason },
                    };
                    report.send(update)?;
                }
                SseItem::Frame(frame) => match resume.on_frame(frame) {
                    FrameAction::Deliver(f) => {
                        progressed |= f.id.is_some();
                        report_anomaly(resume, report)?;
                        report.send_frame(f, bytes).await?;
                    }
                    FrameAction::Duplicate { seq } => {
                        tracing::debug!(seq, cursor = ?resume.cursor(), "dropped duplicate event");
                    }
                    FrameAction::Skip { reason } => {
                        report.send(StreamUpdate::Skipped { reason })?;
                    }
                    FrameAction::Truncated { notice, from_seq } => {
                        // The live frames behind this notice would jump the gap: drop them
                        // with the connection and collect the rest first.
                        report_anomaly(resume, report)?;
                        report.send(StreamUpdate::Frame(notice))?;
                        let reason = match (from_seq, resume.reconnect_request()) {
                            (Some(_), Some(s)) => {
                                format!("replay truncated; collecting events after seq {s}")
                            }
                            (Some(_), None) => "replay truncated; reconnecting".into(),
                            (None, _) => "replay truncated (no from_seq); reconnecting".into(),
                        };
                        return Ok(ConnectionEnd { reason, progressed });
                    }
                },
            }
        }
    }
}

fn report_anomaly(resume: &mut Resume, report: &Reporter<'_>) -> Result<(), ConsumerGone> {
    match resume.take_anomaly() {
        Some(reason) => {
            tracing::warn!(%reason, "event stream anomaly");
            report.send(StreamUpdate::Anomaly { reason })
        }
        None => Ok(()),
    }
}

/// How long the watchdog keeps reading after its deadline before it judges the stream
/// dead: enough for a process just resumed from a stop to drain its socket.
fn watchdog_grace(idle: Duration) -> Duration {
    (idle / 8).min(Duration::from_millis(500))
}

fn silence_reason(idle: Duration, any_byte: bool) -> String {
    if any_byte {
        format!("no data for {}", secs(idle))
    } else {
        format!("no byte received within {} of opening", secs(idle))
    }
}

/// `45s`, or `0.4s` for a sub-second timeout (whole seconds alone would print `0s`).
fn secs(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}
