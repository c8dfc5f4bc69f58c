//! `gobare-tui new [--model M] [--title T] [--instructions TEXT] [MESSAGE]`: create a
//! session and open it in the full-screen UI.
//!
//! §11.1, subscribe before sending: create WITHOUT `input` (with an `Idempotency-Key`), open
//! the stream with no cursor (falling back to a full replay if it drops before the first
//! event), wait until it is live, and only then send the first message under its own key,
//! so `user.message` is the first event the stream shows. The first message goes through the
//! send executor: it is on disk as the session's pending send before it leaves, and if it
//! fails for good it becomes the draft in the input box.
//!
//! [`run`] creates the session and hands the first message to the app, which follows this
//! recipe with its own stream; [`open_new_session`] is the same recipe without a screen.

use crate::app::memory::{LockOrRecover, SharedMemory};
use crate::app::sender::{self, SendEvent, SendReport, Sender};
use crate::cli::NewArgs;
use crate::config::Config;
use color_eyre::eyre::eyre;
use gobare_api::client::{ApiClient, IdempotencyKey};
use gobare_api::error::ApiError;
use gobare_api::model::{AgentRequest, Content, CreateSession, Input, Session};
use gobare_api::retry::SendRetry;
use gobare_api::stream::ConnectionState;
use gobare_api::stream::{self, StreamHandle, StreamOptions, StreamUpdate};
use std::sync::Arc;
use std::time::Duration;

/// How long to wait for the new session's stream to open before giving up.
const STREAM_OPEN_TIMEOUT: Duration = Duration::from_secs(30);

/// A session just created, its stream open, and the first message's fate.
pub struct NewSession {
    pub session: Session,
    pub stream: StreamHandle,
    /// Everything the stream reported before it went live (states only, in practice).
    pub buffered: Vec<StreamUpdate>,
    /// The first message's send, when one was given.
    pub first_send: Option<SendReport>,
}

/// The create request: never with `input` (that would race the stream, §11.1).
pub fn create_request(args: &NewArgs) -> CreateSession {
    let agent = (args.model.is_some() || args.instructions.is_some()).then(|| AgentRequest {
        model: args.model.clone(),
        instructions: args.instructions.clone(),
        ..AgentRequest::default()
    });
    CreateSession {
        agent,
        title: args.title.clone(),
        input: None,
        ..CreateSession::default()
    }
}

/// Creates the session, retrying retryable failures with the same key (a retry after a lost
/// answer returns the session created the first time, not a second one).
pub async fn create_session(
    client: &ApiClient,
    request: &CreateSession,
    policy: &SendRetry,
) -> Result<Session, ApiError> {
    let key = IdempotencyKey::new();
    let (result, _attempts) = policy
        .run(|| client.create_session(request, &key), |_, _, _| {})
        .await;
    result
}

/// Waits until the stream is live; everything reported before is returned for replay.
async fn until_live(stream: &mut StreamHandle) -> color_eyre::Result<Vec<StreamUpdate>> {
    let mut buffered = Vec::new();
    let wait = async {
        while let Some(update) = stream.updates.recv().await {
            match &update {
                StreamUpdate::State(ConnectionState::Live) => return Ok(()),
                StreamUpdate::State(ConnectionState::Failed { reason }) => {
                    return Err(eyre!(
                        "the new session's event stream failed: {}",
                        gobare_api::text::line(reason)
                    ));
                }
                _ => buffered.push(update),
            }
        }
        Err(eyre!(
            "the new session's event stream stopped before opening"
        ))
    };
    tokio::time::timeout(STREAM_OPEN_TIMEOUT, wait)
        .await
        .map_err(|_| eyre!("the new session's event stream did not open within 30 s"))??;
    Ok(buffered)
}

/// Steps 1–3 of §11.1. `stream_options` gets the new id and returns where to stream from;
/// `memory` (the new session's state on disk) records the first message while it is sent.
pub async fn open_new_session(
    client: Arc<ApiClient>,
    args: &NewArgs,
    stream_options: impl FnOnce(&str) -> Result<StreamOptions, ApiError>,
    memory: Option<&dyn Fn(&str) -> SharedMemory>,
) -> color_eyre::Result<NewSession> {
    let session = create_session(&client, &create_request(args), &SendRetry::default())
        .await
        .map_err(|e| eyre!("could not create the session: {}", e.summary()))?;
    let mut options = stream_options(&session.id)?;
    options.from = None;
    options.replay_if_dropped_before_first_event = true;
    let mut stream = stream::spawn(options);
    let buffered = until_live(&mut stream).await?;
    let first_send = match args.message.as_deref().filter(|m| !m.trim().is_empty()) {
        None => None,
        Some(text) => {
            let memory = memory.map(|open| open(&session.id));
            let (mut sender, mut events) = Sender::new(
                client.clone(),
                &session.id,
                memory.clone(),
                sender::default_policy(),
            );
            sender.send(Input::Message {
                content: Content::Text(text.to_string()),
            });
            let report = loop {
                match events.recv().await {
                    Some(SendEvent::Settled(report)) => break *report,
                    Some(SendEvent::Retrying { .. }) => continue,
                    None => return Err(eyre!("the first message's send stopped")),
                }
            };
            if let (Some(memory), true) = (&memory, report.outcome.keep_draft) {
                // Not sent: the text waits in the input box rather than being lost.
                let mut memory = memory.lock_or_recover();
                memory.set_draft(text);
                memory.flush()?;
            }
            Some(report)
        }
    };
    Ok(NewSession {
        session,
        stream,
        buffered,
        first_send,
    })
}

pub async fn run(config: Config, args: NewArgs) -> color_eyre::Result<()> {
    if config.token.is_none() {
        return Err(crate::cli::UsageError(
            "`new` needs a token: set GOBARE_TOKEN or pass --token-file".into(),
        )
        .into());
    }
    let client = config.client().map_err(|e| eyre!(e.summary()))?;
    let session = create_session(&client, &create_request(&args), &SendRetry::default())
        .await
        .map_err(|e| eyre!("could not create the session: {}", e.summary()))?;
    // The app subscribes live-only, waits until the stream is open, and only then sends the
    // first message through the send executor (§11.1).
    let mut options = super::attach::options(&config, &session.id)?;
    options.first_message = args.message.filter(|m| !m.trim().is_empty());
    super::pick::run_app(config, options).await
}
