//! `gobare-tui` with no subcommand: the built-in demo when there is no token; with a token,
//! the session opened last against this API, or the session picker when there is none.

use crate::config::Config;
use crate::store::StateStore;
use std::io::IsTerminal;

pub(crate) async fn run(config: Config) -> color_eyre::Result<()> {
    if config.token.is_none() {
        return super::demo::run(config).await;
    }
    let last = StateStore::open(&config.state_dir, &config.api)
        .ok()
        .and_then(|store| store.last_session());
    match last {
        Some(id) => {
            let options = super::launch::options(&config, &id)?;
            super::launch::run_app(config, options).await
        }
        // Nothing opened before on this API: pick one (or create one) from the list, when
        // there is a terminal to show the list on.
        None if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() => {
            super::launch::run_picker(config).await
        }
        None => Err(crate::cli::UsageError(
            "no session to reopen yet: open one with `gobare-tui attach SESSION_ID`, \
             start one with `gobare-tui new \"your message\"`, or try `gobare-tui demo`"
                .into(),
        )
        .into()),
    }
}
