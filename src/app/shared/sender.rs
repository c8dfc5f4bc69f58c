//! The send executor: every input the user gives a session goes through here.
//!
//! One logical send carries one [`IdempotencyKey`], reused verbatim for that send's
//! retries only (§4), so a retry after a lost answer replays the first success instead of
//! acting twice. Message and steer sends (the ones with a draft behind them) run one at a
//! time, in the order given, and are written to disk as the session's `pending_send` BEFORE
//! the first attempt: a crash mid-send leaves the key on disk and the next start re-sends
//! it with that key ([`Sender::resume_pending`]) — delivered once, never lost. Cancels and
//! answers to required actions run at once, beside them, so they never wait behind a
//! message that is retrying.
//!
//! Results come back as [`SendEvent`]s on a channel the app loop consumes; nothing here
//! touches the screen, which keeps it testable against the simulator.

use crate::app::shared::saved_session::{LockOrRecover, SharedSavedSession};
use crate::app::shared::send_outcome::{self, Outcome, SendFailure};
use crate::store::PendingSend;
use gobare_api::client::{ApiClient, IdempotencyKey};
use gobare_api::error::{ApiError, ApiErrorKind};
use gobare_api::model::{Content, Input, InputAccepted};
use gobare_api::retry::SendRetry;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Where inputs go. [`ApiClient`] in the app; tests wrap it to inject failures.
pub trait InputTransport: Send + Sync + 'static {
    fn send_input(
        &self,
        session_id: &str,
        input: &Input,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<InputAccepted, ApiError>> + Send;
}

impl InputTransport for ApiClient {
    fn send_input(
        &self,
        session_id: &str,
        input: &Input,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<InputAccepted, ApiError>> + Send {
        self.send(session_id, input, key)
    }
}

/// Identifies one logical send in the reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SendTicket(pub u64);

/// What the app loop hears about a send.
#[derive(Debug, Clone)]
pub enum SendEvent {
    /// An attempt failed in a way worth retrying; the next one starts after `wait`.
    Retrying {
        ticket: SendTicket,
        attempt: u32,
        wait: Duration,
        reason: String,
    },
    /// The send is over, one way or the other.
    Settled(Box<SendReport>),
}

/// The end of one logical send.
#[derive(Debug, Clone)]
pub struct SendReport {
    pub(crate) ticket: SendTicket,
    pub(crate) input: Input,
    /// The key every attempt carried.
    pub key: String,
    /// The text from the input box behind this send (messages and steers).
    pub(crate) text: Option<String>,
    /// Re-sent from a `pending_send` found on disk at startup.
    pub recovered: bool,
    pub attempts: u32,
    pub result: Result<InputAccepted, SendFailure>,
    /// The outcome may be unknown: no answer ever arrived (network). The key is kept on disk
    /// so that a later retry (or the next start) replays instead of sending twice.
    pub unanswered: bool,
    /// What to tell the user.
    pub outcome: Outcome,
}

impl SendReport {
    pub fn accepted(&self) -> bool {
        self.result.is_ok()
    }
}

/// The error side of a send, in the shape `send_outcome` reads.
pub(crate) fn failure_from(err: &ApiError) -> SendFailure {
    SendFailure {
        code: err.code.clone(),
        status: err.status,
        message: err.message.clone(),
        request_id: err.request_id.as_deref().map(str::to_string),
        retry_after_secs: err.retry_after.map(|d| d.as_secs()),
    }
}

/// The policy of a send: the client's default plus patience for network failures, so a
/// send made during a stream drop (a short outage) waits for the network to come back.
pub(crate) fn default_policy() -> SendRetry {
    SendRetry {
        max_attempts: 8,
        ..SendRetry::default()
    }
}

/// The text behind a message or steer, for history and the pending record.
fn draft_text(input: &Input) -> Option<String> {
    match input {
        Input::Message { content } | Input::Steer { content } | Input::Context { content } => {
            Some(match content {
                Content::Text(t) => t.clone(),
                other => serde_json::to_value(other)
                    .ok()
                    .and_then(|v| {
                        v.as_array().map(|parts| {
                            parts
                                .iter()
                                .filter_map(|p| p.get("text").and_then(|t| t.as_str()))
                                .collect::<Vec<_>>()
                                .join("\n")
                        })
                    })
                    .unwrap_or_default(),
            })
        }
        _ => None,
    }
}

/// Rebuilds the input a pending record stands for, or `None` for a kind it cannot be.
pub(crate) fn input_from_pending(pending: &PendingSend) -> Option<Input> {
    let content = Content::Text(pending.text.clone());
    match pending.kind.as_str() {
        "input.message" => Some(Input::Message { content }),
        "input.steer" => Some(Input::Steer { content }),
        "input.context" => Some(Input::Context { content }),
        _ => None,
    }
}

struct Job {
    ticket: SendTicket,
    input: Input,
    key: IdempotencyKey,
    recovered: bool,
}

/// Sends inputs to one session. Cheap to clone handles are not needed: the app owns one.
pub struct Sender<T: InputTransport> {
    transport: Arc<T>,
    session_id: Arc<str>,
    saved_session: Option<SharedSavedSession>,
    policy: SendRetry,
    events: mpsc::UnboundedSender<SendEvent>,
    /// The ordered lane for messages and steers.
    text_lane: mpsc::UnboundedSender<Job>,
    next_ticket: u64,
    /// The last text send that got no answer: sending the same text again is its retry and
    /// reuses its key.
    unanswered: Option<(String, String, String)>,
}

impl<T: InputTransport> Sender<T> {
    /// Starts the ordered lane; events arrive on the returned receiver. `memory` (the
    /// session's on-disk state) receives the pending send; `None` keeps nothing on disk.
    pub fn new(
        transport: Arc<T>,
        session_id: &str,
        saved_session: Option<SharedSavedSession>,
        policy: SendRetry,
    ) -> (Sender<T>, mpsc::UnboundedReceiver<SendEvent>) {
        let (events, events_rx) = mpsc::unbounded_channel();
        let (text_lane, mut lane_rx) = mpsc::unbounded_channel::<Job>();
        let session_id: Arc<str> = Arc::from(session_id);
        let worker = Worker {
            transport: transport.clone(),
            session_id: session_id.clone(),
            saved_session: saved_session.clone(),
            policy: policy.clone(),
            events: events.clone(),
        };
        crate::app::shared::jobs::spawn(crate::app::shared::jobs::Job::Send, async move {
            while let Some(job) = lane_rx.recv().await {
                worker.run(job).await;
            }
        });
        let sender = Sender {
            transport,
            session_id,
            saved_session,
            policy,
            events,
            text_lane,
            next_ticket: 1,
            unanswered: None,
        };
        (sender, events_rx)
    }

    fn ticket(&mut self) -> SendTicket {
        let t = SendTicket(self.next_ticket);
        self.next_ticket += 1;
        t
    }

    /// Sends `input` as a new logical send (fresh key) and returns its ticket. Messages and
    /// steers queue in order behind each other; everything else goes at once.
    pub fn send(&mut self, input: Input) -> SendTicket {
        let ticket = self.ticket();
        let key = self.key_for(&input);
        let job = Job {
            ticket,
            input,
            key,
            recovered: false,
        };
        self.dispatch(job);
        ticket
    }

    /// A fresh key, or the key of the same text whose earlier send got no answer: pressing
    /// Enter again on it is that send's retry, which must not deliver it twice.
    fn key_for(&mut self, input: &Input) -> IdempotencyKey {
        if let Some(text) = draft_text(input)
            && let Some((kind, old_text, key)) = self.unanswered.take()
            && kind == input.type_name()
            && old_text == text
            && let Ok(key) = IdempotencyKey::from_string(key)
        {
            return key;
        }
        IdempotencyKey::new()
    }

    /// Re-sends a `pending_send` found on disk, with ITS key: if the first attempt was
    /// delivered before the app stopped, the server replays it instead of acting twice.
    /// Returns `None` (and clears the record) when the record names no input it can send.
    pub fn resume_pending(&mut self, pending: &PendingSend) -> Option<SendTicket> {
        let Some(input) = input_from_pending(pending) else {
            if let Some(saved_session) = &self.saved_session {
                let _ = saved_session.lock_or_recover().set_pending(None);
            }
            return None;
        };
        let Ok(key) = IdempotencyKey::from_string(pending.idempotency_key.clone()) else {
            // Not a key this program wrote: it never reached the server as one.
            if let Some(saved_session) = &self.saved_session {
                let _ = saved_session.lock_or_recover().set_pending(None);
            }
            return None;
        };
        let ticket = self.ticket();
        self.dispatch(Job {
            ticket,
            input,
            key,
            recovered: true,
        });
        Some(ticket)
    }

    /// Call with every settled report: remembers a text send that got no answer so that
    /// sending the same text again reuses its key.
    pub fn note_settled(&mut self, report: &SendReport) {
        match (&report.text, report.unanswered) {
            (Some(text), true) => {
                self.unanswered = Some((
                    report.input.type_name().to_string(),
                    text.clone(),
                    report.key.clone(),
                ));
            }
            (Some(_), false) => self.unanswered = None,
            _ => {}
        }
    }

    fn dispatch(&self, job: Job) {
        if draft_text(&job.input).is_some() {
            // The lane task lives as long as this sender; a send after it ended is moot.
            let _ = self.text_lane.send(job);
        } else {
            let worker = Worker {
                transport: self.transport.clone(),
                session_id: self.session_id.clone(),
                saved_session: None,
                policy: self.policy.clone(),
                events: self.events.clone(),
            };
            crate::app::shared::jobs::spawn(crate::app::shared::jobs::Job::Send, async move {
                worker.run(job).await
            });
        }
    }
}

struct Worker<T: InputTransport> {
    transport: Arc<T>,
    session_id: Arc<str>,
    saved_session: Option<SharedSavedSession>,
    policy: SendRetry,
    events: mpsc::UnboundedSender<SendEvent>,
}

impl<T: InputTransport> Worker<T> {
    async fn run(&self, job: Job) {
        let text = draft_text(&job.input);
        if let (Some(saved_session), Some(text)) = (&self.saved_session, &text) {
            let pending = PendingSend {
                kind: job.input.type_name().to_string(),
                text: text.clone(),
                idempotency_key: job.key.as_str().to_string(),
            };
            if let Err(e) = saved_session.lock_or_recover().set_pending(Some(pending)) {
                tracing::warn!(error = %e, "could not record the pending send on disk");
            }
        }
        let (result, attempts) = self.attempts(&job).await;
        let unanswered = matches!(&result, Err(e) if e.kind == ApiErrorKind::Network);
        if let (Some(saved_session), false) = (&self.saved_session, unanswered) {
            let mut saved_session = saved_session.lock_or_recover();
            if let (Ok(_), Some(text)) = (&result, &text) {
                saved_session.push_history(text);
            }
            // Settled: accepted, or refused for good (a refusal releases its key, §4).
            if let Err(e) = saved_session.set_pending(None) {
                tracing::warn!(error = %e, "could not clear the pending send on disk");
            }
        }
        let (result, outcome) = match result {
            Ok(reply) => {
                let outcome = send_outcome::accepted(&job.input, &reply);
                (Ok(reply), outcome)
            }
            Err(err) => {
                let failure = failure_from(&err);
                let outcome = send_outcome::failed(&job.input, &failure);
                (Err(failure), outcome)
            }
        };
        let report = SendReport {
            ticket: job.ticket,
            key: job.key.as_str().to_string(),
            text,
            recovered: job.recovered,
            attempts,
            result,
            unanswered,
            outcome,
            input: job.input,
        };
        let _ = self.events.send(SendEvent::Settled(Box::new(report)));
    }

    /// Every attempt of the job under its one key, each wait reported to the app.
    async fn attempts(&self, job: &Job) -> (Result<InputAccepted, ApiError>, u32) {
        self.policy
            .run(
                || {
                    self.transport
                        .send_input(&self.session_id, &job.input, &job.key)
                },
                |attempt, wait, err| {
                    let _ = self.events.send(SendEvent::Retrying {
                        ticket: job.ticket,
                        attempt,
                        wait,
                        reason: err.summary(),
                    });
                },
            )
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_records_round_trip_messages_and_steers_only() {
        let pending = PendingSend {
            kind: "input.steer".into(),
            text: "left instead".into(),
            idempotency_key: "k".into(),
        };
        let input = input_from_pending(&pending).unwrap();
        assert_eq!(input.type_name(), "input.steer");
        assert_eq!(draft_text(&input).as_deref(), Some("left instead"));
        let odd = PendingSend {
            kind: "input.cancel".into(),
            ..pending
        };
        assert!(input_from_pending(&odd).is_none());
        assert_eq!(draft_text(&Input::Cancel {}), None);
    }

    #[test]
    fn failures_carry_code_status_request_id_and_retry_after() {
        let body =
            br#"{"error":{"code":"queue_full","message":"five queued","request_id":"req_1"}}"#;
        let err = ApiError::from_response(429, None, Some("3"), body);
        let f = failure_from(&err);
        assert_eq!(f.code, Some(gobare_api::model::ErrorCode::QueueFull));
        assert_eq!(f.status, Some(429));
        assert_eq!(f.request_id.as_deref(), Some("req_1"));
        assert_eq!(f.retry_after_secs, Some(3));
    }
}
