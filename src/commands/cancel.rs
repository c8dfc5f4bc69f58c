//! `gobare-tui cancel ID`: cancels a session's running turn from the shell; with nothing
//! running, says so and sends nothing.

use super::acting::post;
use crate::cli::CancelArgs;
use crate::config::Config;
use color_eyre::eyre::{Result, WrapErr};
use gobare_api::model::{Input, SessionStatus};

pub(crate) async fn run(config: Config, args: CancelArgs) -> Result<()> {
    config.require_token()?;
    let client = config.client()?;
    let id = super::session_id::resolve(&config, &args.session_id).await?;
    let session = client
        .get_session(&id)
        .await
        .wrap_err("could not read the session")?;
    if !matches!(
        session.status,
        SessionStatus::Working | SessionStatus::RequiresAction
    ) {
        println!(
            "nothing is running in {id} (it is {}); nothing sent",
            session.status.as_str()
        );
        return Ok(());
    }
    post(&client, &id, &Input::Cancel {}).await?;
    println!("cancel sent: the running turn ends cancelled");
    Ok(())
}
