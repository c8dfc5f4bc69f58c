//! `gobare-tui new [MESSAGE]`: create a session and open it in the full-screen UI.
//! (Placeholder until the UI is wired in.)

use crate::cli::NewArgs;
use crate::config::Config;

pub async fn run(config: Config, args: NewArgs) -> color_eyre::Result<()> {
    let _ = (config, args);
    Err(super::not_available("`new`"))
}
