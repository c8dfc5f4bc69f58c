//! `gobare-tui` with no subcommand: the demo when there is no token, otherwise the
//! session picker. (Placeholder until the UI is wired in.)

use crate::config::Config;

pub async fn run(config: Config) -> color_eyre::Result<()> {
    let _ = config;
    Err(super::not_available(
        "the interactive interface (running with no subcommand)",
    ))
}
