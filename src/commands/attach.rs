//! `gobare-tui attach SESSION_ID`: open an existing session in the full-screen UI, resuming
//! from the cursor stored for it (or replaying its whole history the first time, §11.2).
//! The id may be any unique prefix of it.

use crate::app::runtime::{self, Start};
use crate::cli::AttachArgs;
use crate::config::Config;

pub(crate) async fn run(config: Config, args: AttachArgs) -> color_eyre::Result<()> {
    config.require_token()?;
    let session_id = super::session_id::resolve(&config, &args.session_id).await?;
    let start = Start::Session {
        id: session_id,
        first_message: None,
    };
    runtime::run(config, start).await
}
