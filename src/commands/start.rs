//! `gobare-tui` with no subcommand: the built-in demo when there is no token; with a token,
//! the session opened last against this API, or the fleet when there is none (or when the
//! one opened last no longer exists: it is forgotten, and the fleet says so).

use crate::app::runtime::{self, Start};
use crate::config::Config;
use crate::store::StateStore;
use gobare_api::error::ApiErrorKind;
use std::io::{IsTerminal, Write};

pub(crate) async fn run(config: Config) -> color_eyre::Result<()> {
    if config.token.is_none() {
        return super::demo::run(config, false).await;
    }
    let store = StateStore::open(&config.state_dir, &config.api).ok();
    let mut notice = None;
    if let Some(id) = store.as_ref().and_then(StateStore::last_session) {
        if !is_gone(&config, &id).await? {
            let start = Start::Session {
                id,
                first_message: None,
            };
            return runtime::run(config, start).await;
        }
        if let Some(store) = &store
            && let Err(e) = store.forget_last_session()
        {
            tracing::warn!("cannot forget the last session: {e}");
        }
        let message = format!(
            "the session opened last ({}) no longer exists; it is forgotten",
            gobare_api::text::one_line(&id, 64)
        );
        // Also on stderr: it stays on the screen after the fleet's full screen is gone.
        let _ = writeln!(std::io::stderr(), "gobare-tui: {message}");
        notice = Some(message);
    }
    // Pick one (or create one) from the fleet, when there is a terminal to show it on.
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        let start = Start::Fleet {
            notice,
            root: None,
            selected: None,
            filter: None,
        };
        return runtime::run(config, start).await;
    }
    Err(crate::cli::UsageError(
        "no session to reopen yet: open one with `gobare-tui attach SESSION_ID`, \
         start one with `gobare-tui new \"your message\"`, or try `gobare-tui demo`"
            .into(),
    )
    .into())
}

/// Whether the API says the session is gone (404). Any other failure is left to the app,
/// which reports it on its own screen as for any session.
async fn is_gone(config: &Config, id: &str) -> color_eyre::Result<bool> {
    match config.client()?.get_session(id).await {
        Err(e) if e.kind == ApiErrorKind::NotFound => Ok(true),
        Ok(_) | Err(_) => Ok(false),
    }
}
