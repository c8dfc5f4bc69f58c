//! `gobare-tui list [--json] [--root ID] [--status S] [--label K=V]`: one line per session, the ones that
//! need the user first (needs you → failed → working → idle, then the most recent).
//!
//! Every page of `GET /v1/sessions` is read (the order needs them all), then one small
//! items page per untitled session for its first message, which stands in for the title.

use crate::cli::ListArgs;
use crate::config::Config;
use crate::session::attention::{self, Attention};
use crate::sessions::first_message::{self, FirstMessages};
use crate::sessions::left_out::LeftOut;
use crate::sessions::list_all;
use crate::store::StateStore;
use color_eyre::eyre::{Result, WrapErr, eyre};
use gobare_api::client::SessionFilter;
use gobare_api::model::Session;
use gobare_api::text;
use serde_json::json;
use std::io::{ErrorKind, Write};

/// Columns of a text row before the label.
const STATE_COLS: usize = 24;
const WORKSPACE_COLS: usize = 15;
const AGE_COLS: usize = 5;
/// Characters of a label in a text row.
const LABEL_CHARS: usize = 80;

pub(crate) async fn run(config: Config, args: ListArgs) -> Result<()> {
    config.require_token()?;
    let client = config.client()?;
    let root = match &args.root {
        Some(typed) => Some(super::session_id::resolve(&config, typed).await?),
        None => None,
    };
    let filter = SessionFilter {
        status: args.status.map(|s| s.as_str().to_string()),
        root,
        label: args.label.clone(),
    };
    let listed = list_all(&client, &filter)
        .await
        .wrap_err("could not list the sessions")?;
    if let Some(cut) = listed.cut {
        eprintln!("gobare-tui: showing part of the sessions: {cut}");
    }
    let left_out = LeftOut::of_list(&listed.unreadable, &listed.items).sentence();
    let mut sessions = listed.items;
    attention::sort(&mut sessions);
    let store = StateStore::open(&config.state_dir, &config.api).ok();
    let first = first_message::first_messages(&client, store.as_ref(), &sessions).await;
    let now = gobare_api::clock::unix_ms();
    let mut out = std::io::stdout().lock();
    // A person reading the columns is told what they are; a script reading a pipe is not.
    if !args.json && std::io::IsTerminal::is_terminal(&out) {
        let id_cols = sessions
            .first()
            .map_or(36, |s| text::width(&text::line(&s.id)));
        match writeln!(out, "{}", header_line(id_cols)) {
            Err(e) if e.kind() == ErrorKind::BrokenPipe => return Ok(()),
            written => written.wrap_err("cannot write to stdout")?,
        }
    }
    for session in &sessions {
        let line = if args.json {
            json_line(session, &first)
        } else {
            text_line(session, &first, now)
        };
        match writeln!(out, "{line}") {
            // The reader has what it wanted (`list | head`).
            Err(e) if e.kind() == ErrorKind::BrokenPipe => return Ok(()),
            written => written.wrap_err("cannot write to stdout")?,
        }
    }
    match out.flush() {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => return Ok(()),
        flushed => flushed.wrap_err("cannot write to stdout")?,
    }
    match left_out {
        // Printed as far as it goes, but not called whole: a script must not take it so.
        Some(left_out) => Err(eyre!("the list is not whole: {left_out}")),
        None => Ok(()),
    }
}

/// What the session waits on, or its attention label: "needs you: approval", "failed"…
fn state_label(session: &Session) -> String {
    match (attention::attention(session), attention::needs(session)) {
        (Attention::NeedsYou, Some(needs)) => format!("needs you: {}", needs.as_str()),
        (rank, _) => rank.label().to_string(),
    }
}

fn workspace(session: &Session) -> Option<String> {
    let state = session.environment.state.as_ref()?;
    Some(text::one_line(state.as_str(), WORKSPACE_COLS))
}

/// `<full id>  <state>  <workspace>  <age>  <title or first message>`, sanitized.
pub(crate) fn text_line(session: &Session, first: &FirstMessages, now_ms: i64) -> String {
    let label = first_message::label(session, first)
        .map(|l| text::one_line(&l, LABEL_CHARS))
        .unwrap_or_else(|| "(untitled)".into());
    let age = crate::readable::times::age(now_ms - session.updated_at);
    let labels = crate::sessions::labels::words(session)
        .map(|l| format!("  [{l}]"))
        .unwrap_or_default();
    format!(
        "{}  {:<STATE_COLS$}  {:<WORKSPACE_COLS$}  {:>AGE_COLS$}  {label}{labels}",
        text::line(&session.id),
        state_label(session),
        workspace(session).unwrap_or_else(|| "unknown".into()),
        age,
    )
}

/// The columns' names, over rows whose ids take `id_cols` columns.
pub(crate) fn header_line(id_cols: usize) -> String {
    format!(
        "{:<id_cols$}  {:<STATE_COLS$}  {:<WORKSPACE_COLS$}  {:>AGE_COLS$}  TITLE (or first message)",
        "SESSION", "STATE", "WORKSPACE", "LAST",
    )
}

/// One JSON object: the stable fields scripts read (`needs` is null unless the session
/// waits on something this client knows).
pub(crate) fn json_line(session: &Session, first: &FirstMessages) -> String {
    let titled = first_message::title(session).is_some();
    let value = json!({
        "id": session.id,
        "title": first_message::label(session, first),
        "title_from_first_message": !titled && first.contains_key(&session.id),
        "status": session.status.as_str(),
        "attention": attention::attention(session).label(),
        "needs": attention::needs(session).map(|n| n.as_str()),
        "workspace": session.environment.state.as_ref().map(|s| s.as_str()),
        "parent_session_id": session.parent_session_id,
        "labels": session.metadata,
        "created_at": session.created_at,
        "updated_at": session.updated_at,
    });
    crate::export::json_escape::escape_unsafe(&value.to_string()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn session(value: Value) -> Session {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_waiting_session_says_what_it_needs_in_both_forms() {
        let s = session(json!({
            "id": "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af", "status": "requires_action",
            "title": "Restart", "created_at": 1, "updated_at": 61_000,
            "environment": {"state": "running"},
            "required_actions": [{"type": "approval", "turn_id": "t", "call_id": "c"}],
        }));
        let line = text_line(&s, &FirstMessages::new(), 121_000);
        assert!(
            line.starts_with("3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af  needs you: approval"),
            "{line}"
        );
        assert!(
            line.contains("running") && line.ends_with("1m  Restart"),
            "{line}"
        );
        let v: Value = serde_json::from_str(&json_line(&s, &FirstMessages::new())).unwrap();
        assert_eq!(v["needs"], "approval");
        assert_eq!(v["status"], "requires_action");
        assert_eq!(v["workspace"], "running");
        assert_eq!(v["title"], "Restart");
        assert_eq!(v["title_from_first_message"], false);
        // The header's columns start where the row's do.
        let header = header_line(s.id.len());
        for (name, value) in [("STATE", "needs you"), ("WORKSPACE", "running")] {
            assert_eq!(header.find(name), line.find(value), "{header}\n{line}");
        }
        assert_eq!(
            header.find("TITLE"),
            line.find("Restart"),
            "{header}\n{line}"
        );
    }

    #[test]
    fn an_untitled_session_is_labelled_by_its_first_message_never_its_id() {
        let s = session(json!({"id": "abcdef12-0000-4000-8000-000000000000", "status": "idle"}));
        let mut first = FirstMessages::new();
        let line = text_line(&s, &first, 0);
        assert!(line.ends_with("(untitled)"), "{line}");
        first.insert(s.id.clone(), "Summarise this repository".into());
        let line = text_line(&s, &first, 0);
        assert!(line.ends_with("  Summarise this repository"), "{line}");
        let v: Value = serde_json::from_str(&json_line(&s, &first)).unwrap();
        assert_eq!(v["title"], "Summarise this repository");
        assert_eq!(v["title_from_first_message"], true);
        assert_eq!(v["needs"], Value::Null);
        assert_eq!(v["workspace"], Value::Null);
    }

    #[test]
    fn hostile_titles_reach_neither_output_raw() {
        let s = session(json!({
            "id": "x\u{1b}]52;c;AAAA\u{7}", "status": "idle", "title": "a\u{9b}31mb\u{202e}c",
        }));
        for line in [
            text_line(&s, &FirstMessages::new(), 0),
            json_line(&s, &FirstMessages::new()),
        ] {
            assert!(
                !line.chars().any(|c| text::is_unsafe(c) || c == '\u{1b}'),
                "{line:?}"
            );
        }
        let v: Value = serde_json::from_str(&json_line(&s, &FirstMessages::new())).unwrap();
        assert_eq!(v["id"].as_str(), Some(s.id.as_str()), "the id stays exact");
    }
}
