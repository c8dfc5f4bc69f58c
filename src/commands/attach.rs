//! `gobare-tui attach SESSION_ID`: open an existing session in the full-screen UI.
//! (Placeholder until the UI is wired in.)

use crate::cli::AttachArgs;
use crate::config::Config;

pub async fn run(config: Config, args: AttachArgs) -> color_eyre::Result<()> {
    let _ = (config, args);
    Err(super::not_available("`attach`"))
}
