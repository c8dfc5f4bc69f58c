//! `gobare-tui new [--model M] [--title T] [--instructions TEXT] [MESSAGE]`: create a
//! session and open it in the full-screen UI.
//!
//! §11.1, subscribe before sending: create WITHOUT `input` (with an `Idempotency-Key`), open
//! the stream with no cursor (falling back to a full replay if it drops before the first
//! event), wait until it is live, and only then send the first message under its own key,
//! so `user.message` is the first event the stream shows. The first message goes through the
//! send executor: it is on disk as the session's pending send before it leaves, and if it
//! fails for good it becomes the draft in the input box.
//!
//! [`run`] creates the session and hands the first message to the app, which follows this
//! recipe with its own stream. With `--detach` nobody watches: the first message is sent
//! at once and the session's id printed, for a script.

use crate::app::runtime::{self, Start};
use crate::cli::NewArgs;
use crate::config::Config;
use crate::sessions::create;
use color_eyre::eyre::eyre;
use gobare_api::retry::SendRetry;

pub(crate) async fn run(config: Config, args: NewArgs) -> color_eyre::Result<()> {
    config.require_token()?;
    let client = config.client().map_err(|e| eyre!(e.summary()))?;
    let session = create::create_session(
        &client,
        &create::create_request(&args),
        &SendRetry::default(),
    )
    .await
    .map_err(|e| eyre!("could not create the session: {}", e.summary()))?;
    if args.detach {
        // Nobody watches the stream: nothing to subscribe to before the first message.
        if let Some(text) = args.message.filter(|m| !m.trim().is_empty()) {
            let input = gobare_api::model::Input::Message {
                content: gobare_api::model::Content::Text(text),
            };
            super::acting::post(&client, &session.id, &input).await?;
        }
        println!("{}", session.id);
        return Ok(());
    }
    // The app subscribes live-only, waits until the stream is open, and only then sends the
    // first message through the send executor (§11.1).
    let start = Start::Session {
        id: session.id,
        first_message: args.message.filter(|m| !m.trim().is_empty()),
    };
    runtime::run(config, start).await
}
