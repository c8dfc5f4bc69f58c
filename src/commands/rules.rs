//! `gobare-tui rules ID [--mode M] [--allow SPEC] [--deny SPEC] [--remove N] [--json]`: a
//! session's approval mode and permission rules, shown, or changed in one `PATCH` after
//! saying what it sends. `permission_rules` replaces the whole list, so a list holding a
//! rule this client cannot read is never replaced (nothing sent, exit 2).

use super::exit::{Status, USAGE_ERROR};
use crate::cli::RulesArgs;
use crate::config::Config;
use crate::sessions::policy::{self, MODE_TIMING, Policy, RULE_TIMING};
use color_eyre::eyre::{Result, WrapErr};
use gobare_api::retry::SendRetry;
use gobare_api::session_patch::{ApprovalMode, RuleDecision, SessionPatch};
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
    let patch = plan(&before, &args)?;
    let Some(patch) = patch else {
        say(&id, &before, &args, false, None);
        return Ok(());
    };
    let said = planned_lines(&before, &patch);
    for line in &said {
        if args.json {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }
    let changed = policy::send(&client, &SendRetry::default(), &id, &patch).await?;
    let after = Policy::of(&changed);
    let timing = match (patch.agent.approval_mode, &patch.agent.permission_rules) {
        (Some(_), Some(_)) => format!("{MODE_TIMING}; {RULE_TIMING}"),
        (Some(_), None) => MODE_TIMING.to_string(),
        _ => RULE_TIMING.to_string(),
    };
    say(&id, &after, &args, true, Some(&timing));
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
    Ok((!patch.is_empty()).then_some(patch))
}

/// What is about to be sent, in lines.
fn planned_lines(before: &Policy, patch: &SessionPatch) -> Vec<String> {
    let mut lines = Vec::new();
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

fn say(id: &str, policy: &Policy, args: &RulesArgs, changed: bool, timing: Option<&str>) {
    if args.json {
        let rules = policy
            .rules
            .as_ref()
            .map(|r| serde_json::to_value(r).unwrap_or_default());
        let value = json!({
            "session_id": id,
            "approval_mode": policy.mode,
            "permission_rules": rules,
            "changed": changed,
        });
        println!(
            "{}",
            crate::export::json_escape::escape_unsafe(&value.to_string())
        );
        return;
    }
    if changed {
        println!("changed. {}", timing.unwrap_or_default());
    }
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
