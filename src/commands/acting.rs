//! What the commands that act from the shell share: posting one input under one
//! Idempotency-Key (retried under it, so nothing is sent twice), and reading a session as
//! the app would show it (its history replayed into the model, then the session read), to
//! know what waits and how it was asked.

use crate::config::Config;
use crate::export::history::{self, Ends};
use crate::session::{Session, Update};
use color_eyre::eyre::{Result, WrapErr, eyre};
use gobare_api::client::{ApiClient, IdempotencyKey};
use gobare_api::model::{Input, InputAccepted, Session as ApiSession};
use gobare_api::retry::SendRetry;
use gobare_api::stream::{self, StreamTarget};
use std::io::Write;

/// Posts `input` to session `id` under one key, retried as the app retries a send; each
/// wait is said on stderr. The token never appears in what is said.
pub(crate) async fn post(client: &ApiClient, id: &str, input: &Input) -> Result<InputAccepted> {
    let key = IdempotencyKey::new();
    let (result, _) = SendRetry::default()
        .run(
            || client.send(id, input, &key),
            |_, wait, err| {
                let _ = writeln!(
                    std::io::stderr(),
                    "gobare-tui: {}; trying again in {} s (same Idempotency-Key)",
                    err.summary(),
                    wait.as_secs().max(1)
                );
            },
        )
        .await;
    result.map_err(|e| eyre!("{} was not sent: {}", input.type_name(), e.summary()))
}

/// ApiSession `id` as the app would show it: its history replayed into the model (what each
/// decision asks, which approvals are sensitive), then the session itself read (what waits
/// now is its list, §9.4).
pub(crate) async fn read_view(
    config: &Config,
    client: &ApiClient,
    id: &str,
) -> Result<(Session, ApiSession)> {
    let session = client
        .get_session(id)
        .await
        .wrap_err("could not read the session")?;
    let options = config.stream_options(StreamTarget::Session(id.to_string()), Some(0))?;
    let mut handle = stream::spawn(options);
    let mut view = Session::new(id);
    history::read(
        &mut handle.updates,
        Ends::for_session(Some(&session)),
        |frame| {
            if let Ok(event) = frame.event {
                view.apply(Update::Event(event));
            }
            Ok(())
        },
        |warning| tracing::warn!(%warning, "reading the history"),
    )
    .await
    .wrap_err("could not read the session's history")?;
    view.apply(Update::Session(Box::new(session.clone())));
    Ok((view, session))
}

/// Standard input, at most `limit` bytes (the API's request body is 1 MiB).
pub(crate) fn read_stdin(limit: usize) -> Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .wrap_err("cannot read standard input")?;
    if bytes.len() > limit {
        return Err(crate::cli::UsageError(format!(
            "standard input holds more than {} KiB, more than a message may hold",
            limit / 1024
        ))
        .into());
    }
    String::from_utf8(bytes)
        .map_err(|_| crate::cli::UsageError("standard input is not UTF-8 text".into()).into())
}
