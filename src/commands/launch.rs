//! What the subcommands share: the app's options for a session, the one way a session is
//! created, and running the app with the session picker behind it (Ctrl+O). The subcommands
//! (`attach`, `new`, `start`) call into this file; it calls into none of them.

use crate::app::{self, AppExit, AppOptions};
use crate::cli::NewArgs;
use crate::config::Config;
use crate::store::StateStore;
use crate::terminal::{self, TerminationSignals};
use color_eyre::eyre::eyre;
use gobare_api::client::{ApiClient, IdempotencyKey};
use gobare_api::error::ApiError;
use gobare_api::model::{AgentRequest, CreateSession, Session};
use gobare_api::retry::SendRetry;
use gobare_api::stream::StreamTarget;

use super::pick::{self, Choice};

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
    options.picker = true;
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

/// Shows the picker (with `notice` on its bottom line), then the app on the chosen session,
/// and the picker again whenever the app is left with Ctrl+O.
pub(crate) async fn run_picker(config: Config, notice: Option<String>) -> color_eyre::Result<()> {
    let client = config.client().map_err(|e| eyre!(e.summary()))?;
    let mut notice = notice;
    let store = StateStore::open(&config.state_dir, &config.api).ok();
    loop {
        let choice = {
            let mut signals = TerminationSignals::new()?;
            let mut tui = terminal::enter(false)?;
            let choice = pick::pick(
                &mut tui,
                &client,
                &mut signals,
                store.as_ref(),
                notice.take(),
            )
            .await;
            tui.restore();
            match choice {
                // The terminal went away (window closed): the user left.
                Err(_) if terminal::hung_up() => return Ok(()),
                choice => choice?,
            }
        };
        let session_id = match choice {
            Some(Choice::Open(id)) => id,
            Some(Choice::New) => {
                let request = create_request(&NewArgs::default());
                create_session(&client, &request, &SendRetry::default())
                    .await
                    .map_err(|e| eyre!("could not create the session: {}", e.summary()))?
                    .id
            }
            None => return Ok(()),
        };
        let options = options(&config, &session_id)?;
        if app::run_until_exit(options).await? != AppExit::OpenPicker {
            return Ok(());
        }
    }
}

/// Runs the app on `options`; if the user leaves it with Ctrl+O, the picker follows.
pub(crate) async fn run_app(config: Config, options: AppOptions) -> color_eyre::Result<()> {
    match app::run_until_exit(options).await? {
        AppExit::Quit => Ok(()),
        AppExit::OpenPicker => run_picker(config, None).await,
    }
}
