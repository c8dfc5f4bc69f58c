//! `gobare-tui` with no subcommand: the built-in demo when there is no token; with a token,
//! the session opened last against this API.

use crate::app;
use crate::cli::UsageError;
use crate::config::Config;
use crate::store::StateStore;

pub async fn run(config: Config) -> color_eyre::Result<()> {
    if config.token.is_none() {
        return super::demo::run(config).await;
    }
    let last = StateStore::open(&config.state_dir, &config.api)
        .ok()
        .and_then(|store| store.last_session());
    match last {
        Some(id) => app::run(super::attach::options(&config, &id)?).await,
        None => Err(UsageError(
            "no session to reopen yet: open one with `gobare-tui attach SESSION_ID`, \
             start one with `gobare-tui new \"your message\"`, or try `gobare-tui demo`"
                .into(),
        )
        .into()),
    }
}
