//! `gobare-tui attach SESSION_ID`: open an existing session in the full-screen UI, resuming
//! from the cursor stored for it (or replaying its whole history the first time, §11.2).
//! The id may be any unique prefix of it.

use crate::cli::AttachArgs;
use crate::config::Config;

pub(crate) async fn run(config: Config, args: AttachArgs) -> color_eyre::Result<()> {
    config.require_token()?;
    let session_id = super::session_id::resolve(&config, &args.session_id).await?;
    let options = super::launch::options(&config, &session_id)?;
    super::fleet::run_app(config, options).await
}
