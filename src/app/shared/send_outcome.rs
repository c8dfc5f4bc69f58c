//! What the user is told after a send (§6.4, §11.4): the result of `POST …/events` turned
//! into one short, sanitized sentence with a severity, for the status line or transcript.
//!
//! Pure: the HTTP client is not imported; a failed send arrives as a [`SendFailure`] the app
//! fills from whatever its client reports. Decisions go by `error.code` first (messages are
//! for people and may change, §2) and fall back to the HTTP status only when no code came.

use crate::session::vocabulary::decisions;
use gobare_api::model::{ErrorCode, Input, InputAccepted, InputOutcome};
use gobare_api::text;

pub use crate::session::Severity;

/// The message for one send, ready for a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub severity: Severity,
    /// Sanitized, one line.
    pub text: String,
    /// `Some(n)`: the message waits in the queue at position `n`; show `queue_label` on
    /// the draft's transcript entry until `message.dequeued`.
    pub queued_at: Option<u32>,
    /// The draft must stay in the input box (the send did not take).
    pub keep_draft: bool,
    /// A refused steer: offer Enter to send the draft as a message (never done silently).
    pub offer_send_as_message: bool,
}

impl Outcome {
    fn new(severity: Severity, text: impl Into<String>) -> Self {
        Outcome {
            severity,
            text: text.into(),
            queued_at: None,
            keep_draft: false,
            offer_send_as_message: false,
        }
    }

    fn keeping_draft(mut self) -> Self {
        self.keep_draft = true;
        self
    }
}

/// The error side of a send, as the app's HTTP client reports it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SendFailure {
    /// `error.code` from the envelope; `None` when no envelope arrived (network, proxy).
    pub code: Option<ErrorCode>,
    /// The HTTP status, when a response arrived.
    pub status: Option<u16>,
    /// `error.message`, or the transport error: server text, sanitized here.
    pub(crate) message: String,
    pub(crate) request_id: Option<String>,
    /// `Retry-After`, when the server sent it.
    pub(crate) retry_after_secs: Option<u64>,
}

/// How many messages the server queues before refusing with `queue_full` (§5, §6.4).
pub(crate) const QUEUE_LIMIT: u32 = 5;

/// The widest a server sentence is shown inside a message.
const MAX_SERVER_TEXT_COLS: usize = 120;

/// The label a queued draft carries in the transcript until `message.dequeued`.
pub(crate) fn queue_label(position: u32) -> String {
    crate::session::vocabulary::queue::queued(position)
}

fn clean(s: &str) -> String {
    text::truncate(&text::line(s.trim()), MAX_SERVER_TEXT_COLS).into_owned()
}

fn with_request_id(text: String, failure: &SendFailure) -> String {
    match failure.request_id.as_deref().map(clean) {
        Some(id) if !id.is_empty() => format!("{text} (request id {id})"),
        _ => text,
    }
}

/// The server's sentence after a colon, or nothing when it sent none.
fn server_says(failure: &SendFailure) -> String {
    let msg = clean(&failure.message);
    if msg.is_empty() {
        String::new()
    } else {
        format!(": {msg}")
    }
}

/// What a `202 input.accepted` means for this input.
pub(crate) fn accepted(input: &Input, reply: &InputAccepted) -> Outcome {
    match input {
        Input::Message { .. } => match (reply.queued, reply.queue_position) {
            (Some(true), position) => {
                let text = match position {
                    Some(n) => format!("{} — runs after the current turn", queue_label(n)),
                    None => "queued — runs after the current turn".to_string(),
                };
                Outcome {
                    queued_at: position,
                    ..Outcome::new(Severity::Info, text)
                }
            }
            _ => Outcome::new(Severity::Quiet, "sent — the agent is on it"),
        },
        Input::Context { .. } => match reply.delivered {
            Some(false) => Outcome::new(
                Severity::Info,
                "context added — the workspace is asleep; the next turn reads it",
            ),
            _ => Outcome::new(Severity::Quiet, "context added"),
        },
        Input::Steer { .. } => Outcome::new(Severity::Info, "steering the running turn"),
        Input::Cancel {} => {
            Outcome::new(Severity::Info, "cancelling… finished work and files stay")
        }
        Input::ToolResult { .. } | Input::Approval { .. } | Input::QuestionAnswer { .. } => {
            answer_delivered(input, reply.outcome.as_ref())
        }
    }
}

fn answer_delivered(input: &Input, outcome: Option<&InputOutcome>) -> Outcome {
    match outcome {
        // §6.4: recorded, but the sandbox no longer held the call. Looks healthy everywhere
        // and never resumes, so it must be loud.
        Some(InputOutcome::NotDelivered) => Outcome::new(
            Severity::Error,
            "the workspace restarted under this call: the turn won't resume from this \
             answer — send a new message to start a fresh turn",
        ),
        // At-least-once notification makes double answers normal (§14.11): not an error.
        // Production says `no_longer_pending` for the same thing.
        Some(InputOutcome::AlreadyResolved) | Some(InputOutcome::NoLongerPending) => Outcome::new(
            Severity::Quiet,
            "already answered — this answer was not needed",
        ),
        _ => {
            let text = match input {
                Input::Approval { approved, .. } => decisions::verdict(*approved),
                Input::QuestionAnswer { .. } => "answer sent",
                Input::ToolResult { success: false, .. } => "failure reported — the turn resumes",
                _ => "tool result delivered — the turn resumes",
            };
            Outcome::new(Severity::Quiet, text)
        }
    }
}

/// `error.code`, or the code a bare HTTP status implies when only that arrived. 429 and
/// 5xx are left unknown: several codes share them and recover differently (§2).
fn effective_code(failure: &SendFailure) -> Option<ErrorCode> {
    failure.code.clone().or(match failure.status? {
        400 => Some(ErrorCode::InvalidRequest),
        401 => Some(ErrorCode::AuthenticationError),
        403 => Some(ErrorCode::PermissionDenied),
        404 => Some(ErrorCode::NotFound),
        405 => Some(ErrorCode::MethodNotAllowed),
        409 => Some(ErrorCode::Conflict),
        _ => None,
    })
}

/// What a refused or failed send means for this input.
pub(crate) fn failed(input: &Input, failure: &SendFailure) -> Outcome {
    let code = effective_code(failure);
    if let Some(outcome) = whatever_was_sent(&code, failure) {
        return outcome;
    }
    match input {
        Input::Message { .. } if code == Some(ErrorCode::QueueFull) => Outcome::new(
            Severity::Warn,
            format!(
                "{QUEUE_LIMIT} messages are already queued — your draft stays in the box; \
                 send it once the queue drains"
            ),
        )
        .keeping_draft(),
        Input::Steer { .. } if code == Some(ErrorCode::Conflict) => Outcome {
            offer_send_as_message: true,
            ..Outcome::new(
                Severity::Warn,
                "nothing is running to steer — press Enter to send it as a message instead",
            )
            .keeping_draft()
        },
        Input::Approval { .. } | Input::QuestionAnswer { .. } => answer_failed(&code, failure),
        Input::ToolResult { .. } if code == Some(ErrorCode::NotFound) => Outcome::new(
            Severity::Warn,
            "this call is no longer pending (answered elsewhere or expired)",
        ),
        _ => generic_failure(input, &code, failure),
    }
}

/// Codes that read the same whatever was sent; `None`: what was sent decides.
fn whatever_was_sent(code: &Option<ErrorCode>, failure: &SendFailure) -> Option<Outcome> {
    Some(match code {
        Some(ErrorCode::AuthenticationError) => Outcome::new(
            Severity::Error,
            with_request_id(
                "the API token was refused (missing, expired or revoked) — set a valid \
                 token and restart"
                    .into(),
                failure,
            ),
        )
        .keeping_draft(),
        Some(ErrorCode::RateLimitExceeded) => {
            let text = match failure.retry_after_secs {
                Some(secs) => format!("rate limited — retrying in {secs} s"),
                None => "rate limited — try again in a moment".into(),
            };
            Outcome::new(Severity::Warn, text).keeping_draft()
        }
        Some(ErrorCode::ProjectLimitExceeded) => Outcome::new(
            Severity::Error,
            "the organization is at its session limit — waiting won't clear it: delete a \
             session, then send again",
        )
        .keeping_draft(),
        _ => return None,
    })
}

/// An approval or a question's answer that did not take.
fn answer_failed(code: &Option<ErrorCode>, failure: &SendFailure) -> Outcome {
    if *code == Some(ErrorCode::NotFound) {
        return Outcome::new(
            Severity::Warn,
            "nothing is waiting for this answer any more (answered elsewhere)",
        );
    }
    if *code == Some(ErrorCode::PermissionDenied) {
        return Outcome::new(
            Severity::Error,
            with_request_id(
                format!(
                    "answer refused — approvals and questions need a token with the \
                     sessions:write scope (tools:respond only answers function calls); \
                     or answer it in the Gobare Console{}",
                    server_says(failure)
                ),
                failure,
            ),
        );
    }
    // Whether the API accepts these answers is contested (§15.2): the Console is
    // the path that always works.
    Outcome::new(
        Severity::Error,
        with_request_id(
            format!(
                "this answer was refused{} — answer it in the Gobare Console",
                server_says(failure)
            ),
            failure,
        ),
    )
}

fn generic_failure(input: &Input, code: &Option<ErrorCode>, failure: &SendFailure) -> Outcome {
    let what = match input {
        Input::Message { .. } => "message not sent",
        Input::Context { .. } => "context not added",
        Input::ToolResult { .. } => "tool result not sent",
        Input::Approval { .. } | Input::QuestionAnswer { .. } => "answer not sent",
        Input::Steer { .. } => "steer not sent",
        Input::Cancel {} => "cancel not sent",
    };
    let text = match code {
        None if failure.status.is_none() => {
            format!("{what} — couldn't reach the server{}", server_says(failure))
        }
        Some(ErrorCode::ContextLengthExceeded) => {
            format!("{what} — the conversation is too long for the model; start a new session")
        }
        Some(ErrorCode::PermissionDenied) => {
            format!(
                "{what} — this token lacks a permission{}",
                server_says(failure)
            )
        }
        Some(c) if c.is_retryable() => match failure.retry_after_secs {
            Some(secs) => format!(
                "{what} — server trouble{}; try again in {secs} s",
                server_says(failure)
            ),
            None => format!("{what} — server trouble{}; try again", server_says(failure)),
        },
        _ => format!("{what}{}", server_says(failure)),
    };
    Outcome::new(Severity::Error, with_request_id(text, failure)).keeping_draft()
}

#[cfg(test)]
mod tests;
