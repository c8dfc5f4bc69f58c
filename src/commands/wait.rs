//! `gobare-tui wait ID [--until settled|needs-you|idle] [--timeout DUR] [--json]`: waits on
//! a session from the shell and says how it ended in its exit status (0 completed or the
//! condition holds, 3 failed, 4 a decision waits, 5 timed out, 6 cancelled).
//!
//! It follows the stream rather than polling: subscribed first (live), then the session is
//! read, so nothing between the two is missed; after that only an event that can change
//! the answer (a turn starting or ending, a decision asked) or a reconnect (what the stream
//! missed is in the resources) reads it again.

use super::exit::{CANCELLED, NEEDS_YOU, Status, TIMED_OUT, TURN_FAILED};
use crate::cli::{UsageError, WaitArgs, WaitUntil};
use crate::config::Config;
use color_eyre::eyre::{Result, WrapErr, bail};
use gobare_api::client::{ApiClient, Order, Page};
use gobare_api::model::{RequiredActionKind, SessionStatus, TurnStatus};
use gobare_api::stream::{self, ConnectionState, StreamTarget, StreamUpdate};
use gobare_api::text;
use serde_json::json;
use tokio::time::{Duration, Instant};

/// The first and the longest wait before the session is read again after an event that
/// did not settle it.
const FIRST_READ_AGAIN: Duration = Duration::from_millis(250);
const LAST_READ_AGAIN: Duration = Duration::from_secs(4);

/// How it ended, and the exit status that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Verdict {
    outcome: &'static str,
    code: u8,
    turn_id: Option<String>,
    call_id: Option<String>,
    kind: Option<String>,
    detail: Option<String>,
}

pub(crate) async fn run(config: Config, args: WaitArgs) -> Result<()> {
    config.require_token()?;
    let client = config.client()?;
    let id = super::session_id::resolve(&config, &args.session_id).await?;
    let deadline = match &args.timeout {
        Some(t) => {
            let ms = super::report::parse_since(t)
                .map_err(|e| UsageError(e.replace("--since", "--timeout")))?;
            Some(Instant::now() + Duration::from_millis(ms.unsigned_abs()))
        }
        None => None,
    };
    let options = config.stream_options(StreamTarget::Session(id.clone()), None)?;
    let mut handle = stream::spawn(options);
    let until = async {
        match deadline {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(until);
    let mut subscribed = false;
    // An event can come before the resources it changes say so (the turn's outcome, the
    // session's status): a read that found nothing is made again, less and less often,
    // until the next event.
    let mut again: Option<(Instant, Duration)> = None;
    let verdict = loop {
        let read_again = async {
            match again {
                Some((at, _)) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        // (read now, after an event: the series of reads starts over)
        let (recheck, spoke) = tokio::select! {
            () = read_again => (true, false),
            update = handle.updates.recv() => (match update {
                None => bail!("the event stream stopped"),
                Some(StreamUpdate::State(ConnectionState::Failed { reason })) => {
                    bail!("the event stream failed: {}", text::one_line(&reason, 300))
                }
                // Open again: what happened while it was away is in the resources.
                Some(StreamUpdate::State(ConnectionState::Open { .. })) => {
                    subscribed = true;
                    true
                }
                Some(StreamUpdate::Frame(frame)) => subscribed && frame.event.as_ref().is_ok_and(|e| {
                    matches!(
                        e.kind.as_ref(),
                        "turn.started" | "turn.ended" | "approval.requested"
                            | "question.asked" | "tool.required" | "approval.resolved"
                            | "question.answered" | "tool.resolved"
                    )
                }),
                Some(_) => false,
            }, true),
            () = &mut until => break timed_out(),
        };
        if !recheck {
            continue;
        }
        if spoke {
            again = None;
        }
        match check(&client, &id, args.until).await? {
            Some(verdict) => break verdict,
            // A handful of reads after each event, then only the stream again: a turn
            // that runs for hours costs no polling.
            None => {
                let gap = again.map_or(FIRST_READ_AGAIN, |(_, gap)| gap * 2);
                again = (gap <= LAST_READ_AGAIN).then(|| (Instant::now() + gap, gap));
            }
        }
    };
    say(&id, &verdict, args.json);
    match verdict.code {
        0 => Ok(()),
        code => Err(Status {
            code,
            message: String::new(),
        }
        .into()),
    }
}

fn timed_out() -> Verdict {
    Verdict {
        outcome: "timed_out",
        code: TIMED_OUT,
        turn_id: None,
        call_id: None,
        kind: None,
        detail: None,
    }
}

/// Whether `until` holds for session `id` now, read from its resources.
async fn check(client: &ApiClient, id: &str, until: WaitUntil) -> Result<Option<Verdict>> {
    let session = client
        .get_session(id)
        .await
        .wrap_err("could not read the session")?;
    let waiting = session.required_actions.first();
    let ready = matches!(session.status, SessionStatus::Idle | SessionStatus::Failed);
    if let Some(action) = waiting {
        if matches!(until, WaitUntil::Settled | WaitUntil::NeedsYou) {
            let kind = match &action.kind {
                RequiredActionKind::Approval => "approval",
                RequiredActionKind::Question => "question",
                _ => "function_call",
            };
            return Ok(Some(Verdict {
                outcome: "needs_you",
                code: if until == WaitUntil::NeedsYou {
                    0
                } else {
                    NEEDS_YOU
                },
                turn_id: Some(action.turn_id.clone()),
                call_id: Some(action.call_id.clone()),
                kind: Some(kind.to_string()),
                detail: action.name.clone(),
            }));
        }
        return Ok(None);
    }
    if !ready || until == WaitUntil::NeedsYou {
        return Ok(None);
    }
    let newest = client
        .list_turns(id, &Page::ordered(Order::Desc).with_limit(1))
        .await
        .wrap_err("could not read the turns")?
        .data
        .into_iter()
        .next();
    let Some(turn) = newest else {
        return Ok(Some(Verdict {
            outcome: "idle",
            code: 0,
            turn_id: None,
            call_id: None,
            kind: None,
            detail: Some("nothing has run".into()),
        }));
    };
    let (outcome, code) = match (&turn.status, until) {
        (_, WaitUntil::Idle) => ("idle", 0),
        (TurnStatus::Completed, _) => ("completed", 0),
        (TurnStatus::Failed, _) => ("failed", TURN_FAILED),
        (TurnStatus::Cancelled, _) => ("cancelled", CANCELLED),
        // The session says ready while its newest turn still works: read again later.
        _ => return Ok(None),
    };
    let detail = turn.error.as_ref().map(|e| {
        e.get("message")
            .and_then(|m| m.as_str())
            .map_or_else(|| e.to_string(), str::to_string)
    });
    Ok(Some(Verdict {
        outcome,
        code,
        turn_id: Some(turn.id),
        call_id: None,
        kind: None,
        detail,
    }))
}

/// One line on stdout (or one JSON object), server text made inert.
fn say(id: &str, v: &Verdict, json: bool) {
    if json {
        let line = json!({
            "session_id": id,
            "outcome": v.outcome,
            "turn_id": v.turn_id,
            "call_id": v.call_id,
            "type": v.kind,
            "error": v.detail.as_ref().filter(|_| v.outcome == "failed"),
        });
        println!("{line}");
        return;
    }
    let turn = v.turn_id.as_deref().map(|t| text::one_line(t, 60));
    let line = match v.outcome {
        "completed" => format!("completed: {}", turn.unwrap_or_default()),
        "failed" => format!(
            "failed: {}{}",
            turn.unwrap_or_default(),
            v.detail
                .as_deref()
                .map(|d| format!(": {}", text::one_line(d, 300)))
                .unwrap_or_default()
        ),
        "cancelled" => format!("cancelled: {}", turn.unwrap_or_default()),
        "needs_you" => format!(
            "waiting on you: {} {}{} (answer with `gobare-tui answer {id}`)",
            v.kind.as_deref().unwrap_or("decision"),
            v.call_id
                .as_deref()
                .map(|c| text::one_line(c, 80))
                .unwrap_or_default(),
            v.detail
                .as_deref()
                .map(|d| format!(" ({})", text::one_line(d, 80)))
                .unwrap_or_default(),
        ),
        "timed_out" => "timed out; the session goes on".to_string(),
        _ => format!(
            "idle{}",
            v.detail
                .as_deref()
                .map(|d| format!(": {d}"))
                .unwrap_or_default()
        ),
    };
    println!("{line}");
}
