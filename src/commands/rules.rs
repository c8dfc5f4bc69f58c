//! `gobare-tui rules ID [--mode M] [--allow SPEC] [--deny SPEC] [--remove N] [--model M
//! --credential C] [--credentials] [--json]`: a session's approval mode, permission rules
//! and model, shown, or changed in one `PATCH` after saying what it sends. `permission_rules` replaces the whole list, so a list holding a
//! rule this client cannot read is never replaced (nothing sent, exit 2).

use super::exit::{Status, USAGE_ERROR};
use crate::cli::RulesArgs;
use crate::config::Config;
use crate::sessions::policy::{self, MODE_TIMING, Policy, RULE_TIMING};
use color_eyre::eyre::{Result, WrapErr};
use gobare_api::credentials::Credentials;
use gobare_api::model::Session;
use gobare_api::retry::SendRetry;
use gobare_api::session_patch::{ApprovalMode, RuleDecision, SessionPatch};
use gobare_api::text;
use serde_json::json;

pub(crate) async fn run(config: Config, args: RulesArgs) -> Result<()> {
    config.require_token()?;
    let client = config.client()?;
    let id = super::session_id::resolve(&config, &args.session_id).await?;
    let session = client
        .get_session(&id)
        .await
        .wrap_err("could not read the session")?;
    let before = Policy::of(&session);
    let credentials = if args.credentials {
        Some(
            client
                .list_model_credentials()
                .await
                .wrap_err("could not read the model credentials")?,
        )
    } else {
        None
    };
    let patch = plan(&before, &args)?;
    let Some(patch) = patch else {
        say(&id, &session, &args, false, None, credentials.as_ref());
        return Ok(());
    };
    let said = planned_lines(&before, &session, &patch);
    for line in &said {
        if args.json {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }
    let changed = policy::send(&client, &SendRetry::default(), &id, &patch).await?;
    let mut timing = Vec::new();
    if patch.agent.approval_mode.is_some() {
        timing.push(MODE_TIMING);
    }
    if patch.agent.permission_rules.is_some() {
        timing.push(RULE_TIMING);
    }
    if patch.agent.model.is_some() {
        timing.push(MODEL_KEEPS);
    }
    say(
        &id,
        &changed,
        &args,
        true,
        Some(&timing.join("; ")),
        credentials.as_ref(),
    );
    Ok(())
}

/// The change `args` ask for, or `None` when they ask for none; nothing is sent when
/// anything is unclear.
fn plan(before: &Policy, args: &RulesArgs) -> Result<Option<SessionPatch>> {
    let mut patch = SessionPatch::default();
    if let Some(mode) = &args.mode {
        patch.agent.approval_mode = ApprovalMode::parse(mode);
    }
    let touches_rules = !(args.allow.is_empty() && args.deny.is_empty() && args.remove.is_empty());
    if touches_rules {
        let Some(mut rules) = before.rules.clone() else {
            return Err(refuse(
                "the session holds a permission rule this client cannot read, and a change \
                 replaces the whole list; nothing sent",
            ));
        };
        let mut remove = args.remove.clone();
        remove.sort_unstable();
        remove.dedup();
        for n in remove.iter().rev() {
            if *n == 0 || *n > rules.len() {
                return Err(refuse(format!(
                    "there is no rule {n}: the session holds {} (see `gobare-tui rules ID`); \
                     nothing sent",
                    rules.len()
                )));
            }
            rules.remove(n - 1);
        }
        for (decision, specs) in [
            (RuleDecision::Allow, &args.allow),
            (RuleDecision::Deny, &args.deny),
        ] {
            for spec in specs {
                let rule = policy::parse_spec(decision, spec)
                    .map_err(|e| crate::cli::UsageError(format!("{e}; nothing sent")))?;
                rules.push(rule);
            }
        }
        patch.agent.permission_rules = Some(rules);
    }
    if let (Some(model), Some(credential)) = (&args.model, &args.credential) {
        patch.agent.model = Some(model.clone());
        patch.agent.model_credential_id = Some(credential.clone());
    }
    Ok((!patch.is_empty()).then_some(patch))
}

/// What the reference says a model switch keeps (and nothing of when it applies).
const MODEL_KEEPS: &str = "the session keeps its workspace and transcript on the new model";

/// What is about to be sent, in lines.
fn planned_lines(before: &Policy, session: &Session, patch: &SessionPatch) -> Vec<String> {
    let mut lines = Vec::new();
    if let (Some(model), Some(credential)) = (&patch.agent.model, &patch.agent.model_credential_id)
    {
        lines.push(format!(
            "sending: model {} → {} via {} (keeps workspace and transcript)",
            model_words(session),
            text::one_line(model, 80),
            text::one_line(credential, 80)
        ));
    }
    if let Some(mode) = patch.agent.approval_mode {
        lines.push(format!(
            "sending: approval mode {} → {mode} (from the next turn)",
            before.mode_words()
        ));
    }
    if let Some(rules) = &patch.agent.permission_rules {
        lines.push(format!(
            "sending: the rule list, {} rule{} (it replaces the session's whole list):",
            rules.len(),
            if rules.len() == 1 { "" } else { "s" }
        ));
        lines.extend(
            rules
                .iter()
                .enumerate()
                .map(|(i, r)| format!("  {}. {}", i + 1, policy::rule_line(r))),
        );
    }
    lines
}

/// The session's model and credential as a line's words (sanitized).
fn model_words(session: &Session) -> String {
    let said = |v: &Option<String>| {
        v.as_deref()
            .map_or_else(|| "(not said)".into(), |s| text::one_line(s, 80))
    };
    format!(
        "{} via {}",
        said(&session.agent.model),
        said(&session.agent.model_credential_id)
    )
}

fn say(
    id: &str,
    session: &Session,
    args: &RulesArgs,
    changed: bool,
    timing: Option<&str>,
    credentials: Option<&Credentials>,
) {
    let policy = Policy::of(session);
    if args.json {
        let rules = policy
            .rules
            .as_ref()
            .map(|r| serde_json::to_value(r).unwrap_or_default());
        let mut value = json!({
            "session_id": id,
            "approval_mode": policy.mode,
            "permission_rules": rules,
            "model": session.agent.model,
            "model_credential_id": session.agent.model_credential_id,
            "changed": changed,
        });
        if let Some(creds) = credentials {
            value["model_credentials"] = creds
                .list
                .iter()
                .map(|c| {
                    json!({"id": c.id, "provider": c.provider, "name": c.name, "models": c.models})
                })
                .collect();
        }
        println!(
            "{}",
            crate::export::json_escape::escape_unsafe(&value.to_string())
        );
        return;
    }
    if changed {
        println!("changed. {}", timing.unwrap_or_default());
    }
    if let Some(creds) = credentials {
        println!("model credentials ({}):", creds.list.len());
        for c in &creds.list {
            let about: Vec<String> = [&c.provider, &c.name]
                .into_iter()
                .flatten()
                .map(|s| text::one_line(s, 80))
                .collect();
            let models = if c.models.is_empty() {
                "(does not say which models it runs)".to_string()
            } else {
                c.models
                    .iter()
                    .map(|m| text::one_line(m, 80))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            println!(
                "  {}  {}: {models}",
                text::one_line(&c.id, 80),
                about.join(" · ")
            );
        }
        if creds.unreadable > 0 {
            println!("  ({} without an id left out)", creds.unreadable);
        }
    }
    println!("model: {}", model_words(session));
    println!("approval mode: {}", policy.mode_words());
    match &policy.rules {
        None => println!("rules: one or more this client cannot read"),
        Some(rules) if rules.is_empty() => println!("rules: none"),
        Some(rules) => {
            println!("rules ({}):", rules.len());
            for (i, r) in rules.iter().enumerate() {
                println!("  {}. {}", i + 1, policy::rule_line(r));
            }
        }
    }
}

fn refuse(message: impl Into<String>) -> color_eyre::Report {
    Status {
        code: USAGE_ERROR,
        message: message.into(),
    }
    .into()
}
