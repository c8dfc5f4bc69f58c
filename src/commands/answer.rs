//! `gobare-tui answer ID [--call CALL_ID] (--approve | --deny | --text T | --option N |
//! --result JSON) [--note T] [--sensitive]`: answers what a session waits on you for, from
//! the shell, with the app's safety: the decision is the one the session lists now; a
//! sensitive approval takes `--sensitive` (the shell's second `y`); a question that takes
//! only its options refuses text; nothing is sent when anything is unclear (exit 2).

use super::acting::{post, read_view};
use super::exit::{Status, USAGE_ERROR};
use crate::cli::{AnswerArgs, UsageError};
use crate::config::Config;
use crate::session::Session;
use crate::session::actions::PendingAction;
use color_eyre::eyre::Result;
use gobare_api::model::{Content, Input, RequiredActionKind};
use gobare_api::text;

/// Characters of what a decision asks, in a listing.
const WHAT_CHARS: usize = 160;

pub(crate) async fn run(config: Config, args: AnswerArgs) -> Result<()> {
    config.require_token()?;
    let client = config.client()?;
    let id = super::session_id::resolve(&config, &args.session_id).await?;
    let (view, _) = read_view(&config, &client, &id).await?;
    let pending: Vec<&PendingAction> = view
        .actions()
        .pending()
        .iter()
        .filter(|a| a.resource.is_some())
        .collect();
    let action = match (&args.call, pending.as_slice()) {
        (_, []) => {
            return Err(refuse(format!(
                "nothing waits on you in {id}; nothing sent"
            )));
        }
        (Some(call), _) => match pending.iter().find(|a| a.call_id == *call) {
            Some(a) => *a,
            None => {
                list(&view, &pending);
                return Err(refuse(format!(
                    "no decision {} waits in {id}; those that do are listed above",
                    text::one_line(call, 80)
                )));
            }
        },
        (None, [one]) => *one,
        (None, _) => {
            list(&view, &pending);
            return Err(refuse(format!(
                "{} decisions wait in {id}: say which with --call CALL_ID; nothing sent",
                pending.len()
            )));
        }
    };
    let input = decision(&view, action, &args)?;
    post(&client, &id, &input).await?;
    println!("{}", said(&input));
    if let Some(note) = args.note.filter(|n| !n.trim().is_empty()) {
        let steer = Input::Steer {
            content: Content::Text(note),
        };
        post(&client, &id, &steer).await?;
        println!("note sent as a steer of the turn");
    }
    Ok(())
}

/// The input that answers `action` as `args` say, or why it cannot (nothing sent).
fn decision(view: &Session, action: &PendingAction, args: &AnswerArgs) -> Result<Input> {
    let facts = view.actions();
    let call_id = action.call_id.clone();
    let wrong = |what: &str| -> color_eyre::Report {
        UsageError(format!(
            "{call_id} is {}: {what}; nothing sent",
            kind_words(&action.kind)
        ))
        .into()
    };
    match &action.kind {
        RequiredActionKind::Approval => {
            let approved = match (args.approve, args.deny) {
                (true, false) => true,
                (false, true) => false,
                _ => return Err(wrong("answer it with --approve or --deny")),
            };
            // Only the event says `sensitive`; an approval whose event was not read is
            // taken as sensitive, never as harmless.
            let sensitive = facts.is_sensitive(&call_id) || !facts.knows_approval(&call_id);
            if approved && sensitive && !args.sensitive {
                return Err(refuse(format!(
                    "{call_id} was asked as sensitive ({}): read it, then approve with \
                     --approve --sensitive; nothing sent",
                    text::one_line(&facts.request_line(action), WHAT_CHARS)
                )));
            }
            Ok(Input::Approval { call_id, approved })
        }
        RequiredActionKind::Question => {
            let details = match (facts.question_asked(&call_id), &action.resource) {
                (Some(asked), _) => asked.clone(),
                (None, Some(listed)) => facts.question(listed),
                (None, None) => return Err(wrong("its question could not be read")),
            };
            let answer = match (&args.text, args.option) {
                (Some(t), None) if !details.free_text_allowed() => {
                    return Err(wrong(&format!(
                        "it takes only its options ({}): answer with --option N",
                        details.options.join(" · ")
                    )));
                }
                (Some(t), None) if !t.trim().is_empty() => t.clone(),
                (None, Some(n)) if n >= 1 && n <= details.options.len() => {
                    details.options[n - 1].clone()
                }
                (None, Some(n)) => {
                    return Err(wrong(&format!(
                        "it has {} options, not an option {n}",
                        details.options.len()
                    )));
                }
                _ => return Err(wrong("answer it with --text T or --option N")),
            };
            Ok(Input::QuestionAnswer { call_id, answer })
        }
        RequiredActionKind::FunctionCall | RequiredActionKind::Other(_) => {
            let turn_id = action
                .resource
                .as_ref()
                .map(|r| r.turn_id.clone())
                .or_else(|| action.turn_id.clone())
                .ok_or_else(|| wrong("its turn is not listed yet; try again"))?;
            match (&args.result, args.deny) {
                (Some(json), false) => {
                    let value: serde_json::Value = serde_json::from_str(json)
                        .map_err(|e| wrong(&format!("--result is not JSON ({e})")))?;
                    let output = match value {
                        serde_json::Value::String(s) => s,
                        other => other.to_string(),
                    };
                    Ok(Input::ToolResult {
                        turn_id,
                        call_id,
                        success: true,
                        output: Some(output),
                        error: None,
                    })
                }
                (None, true) => Ok(Input::ToolResult {
                    turn_id,
                    call_id,
                    success: false,
                    output: None,
                    error: Some(Input::TOOL_FAILED.to_string()),
                }),
                _ => Err(wrong(
                    "answer it with --result JSON, or --deny to report it failed",
                )),
            }
        }
    }
}

fn refuse(message: String) -> color_eyre::Report {
    Status {
        code: USAGE_ERROR,
        message,
    }
    .into()
}

/// Each decision that waits: `CALL_ID  KIND  WHAT`, on stdout.
fn list(view: &Session, pending: &[&PendingAction]) {
    for a in pending {
        println!(
            "{}  {}  {}",
            text::one_line(&a.call_id, 80),
            kind_words(&a.kind),
            text::one_line(&view.actions().request_line(a), WHAT_CHARS)
        );
    }
}

fn kind_words(kind: &RequiredActionKind) -> &'static str {
    match kind {
        RequiredActionKind::Approval => "an approval",
        RequiredActionKind::Question => "a question",
        RequiredActionKind::FunctionCall | RequiredActionKind::Other(_) => "a function call",
    }
}

/// What was sent, in a line.
fn said(input: &Input) -> &'static str {
    match input {
        Input::Approval { approved: true, .. } => "approved",
        Input::Approval {
            approved: false, ..
        } => "denied",
        Input::QuestionAnswer { .. } => "answer sent",
        Input::ToolResult { success: true, .. } => "result sent: the turn resumes",
        Input::ToolResult { success: false, .. } => "failure reported: the turn resumes",
        _ => "sent",
    }
}
