//! `gobare-tui inbox [--json] [--root ID]`: every decision waiting on you across the
//! organization (or one crew), soonest deadline first, from the shell. What each asks and
//! whether an approval is sensitive are read as the app reads them: from the session's
//! history, replayed for each session that waits (a few at a time, through the scheduler).

use super::acting::read_view;
use crate::cli::InboxArgs;
use crate::config::Config;
use crate::sessions::left_out::LeftOut;
use crate::sessions::list_all;
use color_eyre::eyre::{Result, WrapErr, eyre};
use futures_util::StreamExt;
use gobare_api::client::SessionFilter;
use gobare_api::model::{RequiredActionKind, Session};
use gobare_api::text;
use serde_json::json;
use std::io::{ErrorKind, Write};

/// Sessions replayed at once: each holds one of the token's five streams.
const AT_ONCE: usize = 2;
/// Characters of what a decision asks, in a text row.
const WHAT_CHARS: usize = 120;

/// One decision that waits.
#[derive(Debug, Clone, PartialEq)]
struct Waiting {
    session_id: String,
    title: String,
    call_id: String,
    kind: &'static str,
    expires_at: Option<i64>,
    created_at: Option<i64>,
    what: String,
    sensitive: Option<bool>,
}

pub(crate) async fn run(config: Config, args: InboxArgs) -> Result<()> {
    config.require_token()?;
    let client = config.client()?;
    let root = match &args.root {
        Some(r) => Some(super::session_id::resolve(&config, r).await?),
        None => None,
    };
    let filter = SessionFilter {
        root,
        ..SessionFilter::default()
    };
    let listed = list_all(&client, &filter)
        .await
        .wrap_err("could not list the sessions")?;
    if let Some(cut) = listed.cut {
        let _ = writeln!(std::io::stderr(), "gobare-tui: part of the list: {cut}");
    }
    // A session whose listed actions could not be read is read on its own all the same.
    let waiting: Vec<Session> = listed
        .items
        .into_iter()
        .filter(|s| !s.required_actions.is_empty() || !s.required_actions.unreadable().is_empty())
        .collect();
    let read: Vec<Result<(Vec<Waiting>, Session)>> = futures_util::stream::iter(waiting)
        .map(|session| {
            let (config, client) = (&config, &client);
            async move { decisions(config, client, session).await }
        })
        .buffer_unordered(AT_ONCE)
        .collect()
        .await;
    let mut all = Vec::new();
    let mut read_sessions = Vec::new();
    for r in read {
        let (waiting, session) = r?;
        all.extend(waiting);
        read_sessions.push(session);
    }
    // Left out: the sessions the list could not give, and the actions their own reads
    // could not give.
    let left_out = LeftOut::of_list(&listed.unreadable, &read_sessions).sentence();
    sort(&mut all);
    let now = gobare_api::clock::unix_ms();
    let mut out = std::io::stdout().lock();
    for w in &all {
        let line = if args.json {
            json_line(w)
        } else {
            text_line(w, now)
        };
        match writeln!(out, "{line}") {
            Err(e) if e.kind() == ErrorKind::BrokenPipe => return Ok(()),
            written => written.wrap_err("cannot write to stdout")?,
        }
    }
    match left_out {
        // What could be read is printed; what could not is said, and the status says so.
        Some(left_out) => Err(eyre!("the inbox is not whole: {left_out}")),
        None => {
            if all.is_empty() && !args.json {
                let _ = writeln!(out, "nothing waits on you");
            }
            Ok(())
        }
    }
}

/// What session `session` waits on, as its history tells it, and the session as read.
async fn decisions(
    config: &Config,
    client: &gobare_api::client::ApiClient,
    session: Session,
) -> Result<(Vec<Waiting>, Session)> {
    let (view, session) = read_view(config, client, &session.id).await?;
    let title = crate::sessions::first_message::title(&session).unwrap_or_default();
    let facts = view.actions();
    let waiting = facts
        .pending()
        .iter()
        .filter(|a| a.resource.is_some())
        .map(|a| {
            let kind = match a.kind {
                RequiredActionKind::Approval => "approval",
                RequiredActionKind::Question => "question",
                _ => "function_call",
            };
            let sensitive = (a.kind == RequiredActionKind::Approval).then(|| {
                // Unseen, an approval is taken as sensitive, never as harmless.
                facts.is_sensitive(&a.call_id) || !facts.knows_approval(&a.call_id)
            });
            Waiting {
                session_id: session.id.clone(),
                title: title.clone(),
                call_id: a.call_id.clone(),
                kind,
                expires_at: a.expires_at,
                created_at: a.created_at,
                what: facts.request_line(a),
                sensitive,
            }
        })
        .collect();
    Ok((waiting, session))
}

/// Soonest deadline first, those without one last (oldest asked first among them).
fn sort(all: &mut [Waiting]) {
    all.sort_by_key(|w| {
        (
            w.expires_at.is_none(),
            w.expires_at.unwrap_or(i64::MAX),
            w.created_at.unwrap_or(i64::MAX),
        )
    });
}

fn json_line(w: &Waiting) -> String {
    let mut v = json!({
        "session_id": w.session_id,
        "title": w.title,
        "call_id": w.call_id,
        "type": w.kind,
        "expires_at": w.expires_at,
        "what": w.what,
    });
    if let Some(sensitive) = w.sensitive {
        v["sensitive"] = json!(sensitive);
    }
    let line = v.to_string();
    crate::export::json_escape::escape_unsafe(&crate::redact::redact(&line)).into_owned()
}

/// `SESSION  CALL_ID  KIND  DEADLINE  WHAT`, sanitized.
fn text_line(w: &Waiting, now: i64) -> String {
    let deadline = match w.expires_at {
        Some(at) if at <= now => "expired".to_string(),
        Some(at) => format!("in {}", crate::readable::times::duration(at - now)),
        None => "-".to_string(),
    };
    let kind = match w.sensitive {
        Some(true) => format!("{} (sensitive)", w.kind),
        _ => w.kind.to_string(),
    };
    format!(
        "{}  {}  {}  {}  {}  {}",
        text::line(&w.session_id),
        text::one_line(&w.title, 40),
        text::one_line(&w.call_id, 60),
        kind,
        deadline,
        text::one_line(&crate::redact::redact(&w.what), WHAT_CHARS),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(call: &str, expires_at: Option<i64>, created_at: Option<i64>) -> Waiting {
        Waiting {
            session_id: "s".into(),
            title: "t".into(),
            call_id: call.into(),
            kind: "question",
            expires_at,
            created_at,
            what: "?".into(),
            sensitive: None,
        }
    }

    #[test]
    fn soonest_deadline_first_and_none_last() {
        let mut all = vec![
            waiting("none-new", None, Some(5)),
            waiting("late", Some(900), Some(1)),
            waiting("none-old", None, Some(2)),
            waiting("soon", Some(100), Some(3)),
        ];
        sort(&mut all);
        let order: Vec<&str> = all.iter().map(|w| w.call_id.as_str()).collect();
        assert_eq!(order, ["soon", "late", "none-old", "none-new"]);
    }
}
