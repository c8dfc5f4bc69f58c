//! `gobare-tui send ID TEXT [--steer]`: a message to a session, or a steer of its running
//! turn, from the shell. One key per send, retried under it; prints what the server
//! accepted.

use super::acting::{post, read_stdin};
use crate::cli::{SendArgs, UsageError};
use crate::config::Config;
use color_eyre::eyre::{Result, WrapErr};
use gobare_api::model::{Content, Input, SessionStatus};

/// The most a message may hold: the API's request body limit (§5).
const MAX_TEXT: usize = 1 << 20;

pub(crate) async fn run(config: Config, args: SendArgs) -> Result<()> {
    config.require_token()?;
    let client = config.client()?;
    let id = super::session_id::resolve(&config, &args.session_id).await?;
    let text = if args.text == "-" {
        read_stdin(MAX_TEXT)?
    } else {
        args.text
    };
    if text.trim().is_empty() {
        return Err(UsageError("nothing to send: the text is empty".into()).into());
    }
    let input = if args.steer {
        let session = client
            .get_session(&id)
            .await
            .wrap_err("could not read the session")?;
        if !matches!(
            session.status,
            SessionStatus::Working | SessionStatus::RequiresAction
        ) {
            return Err(super::exit::Status {
                code: super::exit::RUNTIME_ERROR,
                message: format!(
                    "nothing to steer: no turn runs in {id} (it is {}); send it without \
                     --steer to start one",
                    session.status.as_str()
                ),
            }
            .into());
        }
        Input::Steer {
            content: Content::Text(text),
        }
    } else {
        Input::Message {
            content: Content::Text(text),
        }
    };
    let accepted = post(&client, &id, &input).await?;
    println!(
        "{}",
        accepted_line(&input, accepted.queued, accepted.queue_position)
    );
    Ok(())
}

/// What the server's acceptance means, in a line.
fn accepted_line(input: &Input, queued: Option<bool>, position: Option<u32>) -> String {
    match (input, queued) {
        (Input::Steer { .. }, _) => "steered: the running turn reads it next".to_string(),
        (_, Some(true)) => match position {
            Some(p) => format!("queued behind the running turn (position {p})"),
            None => "queued behind the running turn".to_string(),
        },
        _ => "sent: a turn starts".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_queued_or_started() {
        let message = Input::Message {
            content: Content::Text("hi".into()),
        };
        assert_eq!(
            accepted_line(&message, Some(true), Some(2)),
            "queued behind the running turn (position 2)"
        );
        assert_eq!(
            accepted_line(&message, Some(false), None),
            "sent: a turn starts"
        );
        let steer = Input::Steer {
            content: Content::Text("hi".into()),
        };
        assert!(accepted_line(&steer, None, None).starts_with("steered"));
    }
}
