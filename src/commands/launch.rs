//! What the subcommands share: the app's options for a session and the one way a session
//! is created. The subcommands (`attach`, `new`, `start`, `fleet`) call into this file; it
//! calls into none of them.

use crate::app::AppOptions;
use crate::cli::NewArgs;
use crate::config::Config;
use crate::store::StateStore;
use gobare_api::client::{ApiClient, IdempotencyKey};
use gobare_api::error::ApiError;
use gobare_api::model::{AgentRequest, CreateSession, Session};
use gobare_api::retry::SendRetry;
use gobare_api::stream::StreamTarget;

/// The app's options for `session_id` under `config` .
pub(crate) fn options(config: &Config, session_id: &str) -> color_eyre::Result<AppOptions> {
    let client = config.client()?;
    let stream = config.stream_options(StreamTarget::Session(session_id.to_string()), None)?;
    let mut options = AppOptions::new(client, stream, session_id);
    let (settings, warnings) = crate::app::settings::Settings::from_sections(&config.file.sections);
    for warning in &warnings {
        tracing::warn!("{warning}");
        eprintln!("gobare-tui: {warning}");
    }
    options.warnings = config.warnings.iter().cloned().chain(warnings).collect();
    options.settings = settings;
    options.local_demo = config.local_demo;
    options.screen_reader = config.screen_reader.clone();
    options.demo_kept = config.demo_kept;
    // Without a writable state directory the app still runs: the state stays in memory, the
    // app says so, and it is written if the directory becomes writable.
    if let Err(e) = StateStore::open(&config.state_dir, &config.api) {
        tracing::warn!(
            "cannot open the state directory {}: {e}",
            config.state_dir.display()
        );
    }
    options.store = Some(StateStore::at(&config.state_dir, &config.api));
    Ok(options)
}

/// The create request: never with `input` (that would race the stream, §11.1).
pub(crate) fn create_request(args: &NewArgs) -> CreateSession {
    let tools = (!args.functions.is_empty()).then(|| {
        args.functions
            .iter()
            .map(|f| {
                let mut tool = serde_json::json!({"type": "function", "name": f.name,
                                                  "parameters": {"type": "object"}});
                if let Some(t) = f.timeout_seconds {
                    tool["timeout_seconds"] = t.into();
                }
                tool
            })
            .collect()
    });
    let agent =
        (args.model.is_some() || args.instructions.is_some() || tools.is_some()).then(|| {
            AgentRequest {
                model: args.model.clone(),
                instructions: args.instructions.clone(),
                tools,
                ..AgentRequest::default()
            }
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
pub(crate) async fn create_session(
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
