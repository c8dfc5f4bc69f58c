//! The inspector: one event's whole JSON, pretty-printed, credentials redacted and every
//! line sanitized, in the pager. The JSON is read back from the local event log by seq (memory
//! holds only the Events pane's one-line summaries); an event the log does not hold (a
//! transient delta, no log on this machine) shows what the pane knows of it. Also the
//! whole of a waiting decision's request, which the prompt may cut to fit (F2).

use super::pager::Pager;
use crate::readable::times::clock;
use crate::session::actions::Actions;
use crate::session::recent_events::RecentEvent;
use crate::ui::prompt::args_text;
use crate::ui::theme::Theme;
use gobare_api::model::{RequiredAction, RequiredActionKind};
use serde_json::{Value, json};

/// A pager over the envelope `raw` (as logged), or over the row's own fields when `raw`
/// is `None`.
pub(crate) fn pager(row: &RecentEvent, raw: Option<&[u8]>, theme: &Theme) -> Pager {
    let seq = row
        .seq
        .map_or_else(|| "transient".to_string(), |s| format!("seq {s}"));
    let title = format!("{} · {seq}", row.kind.as_str());
    let body = match raw.and_then(|r| serde_json::from_slice::<Value>(r).ok()) {
        Some(v) => serde_json::to_string_pretty(&v).unwrap_or_default(),
        None => {
            let known = json!({
                "type": row.kind.as_str(),
                "seq": row.seq,
                "created_at": row.created_at,
                "summary": row.summary,
            });
            let why = if row.seq.is_none() {
                "a transient event: its payload is not kept"
            } else {
                "not in the local event log: only the pane's summary is known"
            };
            format!(
                "// {why}\n{}",
                serde_json::to_string_pretty(&known).unwrap_or_default()
            )
        }
    };
    let mut content = crate::redact::redact(&body).into_owned();
    if let Some(at) = row.created_at {
        content.push_str(&format!("\n\n// created_at {} UTC", clock(at)));
    }
    Pager::plain(&title, &content, theme)
}

/// A pager over the whole of what the decision `action` asks, wrapped to the pager's width:
/// the tool and its arguments (a command as it will run), the question and its options, or
/// the function and its arguments. Not redacted: it shows what is approved, as it runs.
pub(crate) fn request(facts: &Actions, action: &RequiredAction, theme: &Theme) -> Pager {
    let (what, body) = match &action.kind {
        RequiredActionKind::Approval => {
            let details = facts.approval(action);
            let what = if details.sensitive {
                "sensitive approval"
            } else {
                "approval"
            };
            let body = format!("tool: {}\n{}", details.name, args_text(&details.args));
            (what.to_string(), body)
        }
        RequiredActionKind::Question => {
            let question = facts.question(action);
            let mut body = question.question.clone();
            for (i, option) in question.options.iter().enumerate() {
                body.push_str(&format!("\n{}. {option}", i + 1));
            }
            ("question".to_string(), body)
        }
        RequiredActionKind::FunctionCall => {
            let name = action.name.as_deref().unwrap_or_default();
            let body = format!("function: {name}\n{}", args_text(&action.arguments));
            ("function call".to_string(), body)
        }
        RequiredActionKind::Other(kind) => (kind.clone(), args_text(&action.arguments)),
    };
    Pager::wrapped(&format!("{what} · {}", action.call_id), &body, theme)
}
