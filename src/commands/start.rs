//! `gobare-tui` with no subcommand: the built-in demo when there is no token, otherwise the
//! interactive interface. (The interface is a placeholder until the UI is wired in.)

use crate::config::Config;

pub async fn run(config: Config) -> color_eyre::Result<()> {
    if config.token.is_none() {
        return super::demo::run(config).await;
    }
    Err(super::not_available(
        "the interactive interface (running with no subcommand)",
    ))
}
