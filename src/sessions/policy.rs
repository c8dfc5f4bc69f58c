//! A session's approval mode and permission rules as this client reads, words and changes
//! them: the `TOOL:FIELD=VALUE` spec the shell takes, the lines a person sees, and the one
//! `PATCH` (keyed, retried under its key) that the shell and the app both send.

use gobare_api::client::{ApiClient, IdempotencyKey};
use gobare_api::error::ApiError;
use gobare_api::model::Session;
use gobare_api::retry::SendRetry;
use gobare_api::session_patch::{ApprovalMode, PermissionRule, RuleDecision, SessionPatch};
use gobare_api::text;

/// Characters of a rule's value shown in a line: the API's own limit (§5), so a rule is
/// always shown whole.
const VALUE_CHARS: usize = 500;

/// What the reference says of when a change applies: only `approval_mode` has a timing
/// ("from the next turn"); of rules it says nothing.
pub(crate) const MODE_TIMING: &str = "the approval mode applies from the next turn";
pub(crate) const RULE_TIMING: &str = "the reference does not say when a rule starts to apply, nor how the service matches it: \
     it may match more widely than exactly";

/// What a finished policy write from the app was, for its notice.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PolicyChange {
    Rule(PermissionRule),
    Removed(PermissionRule),
    Edited {
        from: PermissionRule,
        to: PermissionRule,
    },
    Mode(ApprovalMode),
    Labels(std::collections::BTreeMap<String, String>),
    Model {
        model: String,
        credential: String,
    },
}

/// The session's policy as read: its mode (`None`: the server sent none, `auto` is the
/// default) and rules (`None`: a rule this client cannot read, so the list must not be
/// replaced).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Policy {
    pub(crate) mode: Option<String>,
    pub(crate) rules: Option<Vec<PermissionRule>>,
}

impl Policy {
    pub(crate) fn of(session: &Session) -> Policy {
        Policy {
            mode: session.agent.approval_mode.clone(),
            rules: PermissionRule::read_all(
                session
                    .agent
                    .permission_rules
                    .as_deref()
                    .unwrap_or_default(),
            ),
        }
    }

    /// The mode as the screen says it (sanitized; `auto` when the server sent none).
    pub(crate) fn mode_words(&self) -> String {
        match &self.mode {
            Some(m) => text::one_line(m, 20),
            None => "auto".into(),
        }
    }

    /// The mode a key cycles to from this one.
    pub(crate) fn next_mode(&self) -> ApprovalMode {
        self.mode
            .as_deref()
            .and_then(ApprovalMode::parse)
            .unwrap_or(ApprovalMode::Auto)
            .next()
    }
}

/// One rule as a line: `allow  bash  command "make test"`, server text sanitized.
pub(crate) fn rule_line(rule: &PermissionRule) -> String {
    let mut parts = vec![
        rule.decision.as_str().to_string(),
        rule.tool
            .as_deref()
            .map_or_else(|| "any tool".into(), |t| text::one_line(t, 40)),
    ];
    for (name, value) in [
        ("command", &rule.command),
        ("path", &rule.path),
        ("domain", &rule.domain),
    ] {
        if let Some(v) = value {
            parts.push(format!("{name} \"{}\"", text::one_line(v, VALUE_CHARS)));
        }
    }
    if !rule.extra.is_empty() {
        parts.push("(and fields this client does not know)".into());
    }
    parts.join("  ")
}

/// Where a person sees and removes the session's rules and mode.
pub(crate) const WHERE_TO_SEE: &str =
    "see it in the Workspace pane; R there lists the rules to remove or edit one";

/// The confirmation of `a` / `d` on an approval: the decision and the whole rule, and what
/// the reference does not promise.
pub(crate) fn rule_question(approve: bool, rule: &PermissionRule, sensitive: bool) -> String {
    let decide = match (approve, sensitive) {
        (true, true) => "Approve this SENSITIVE action",
        (true, false) => "Approve",
        (false, _) => "Deny",
    };
    format!(
        "{decide} and add the rule  {}  to this session? It is sent as written (this exact \
         {}); when it starts to apply is not in the reference, and the service may match \
         more widely: {WHERE_TO_SEE}.",
        rule_line(rule),
        if rule.command.is_some() {
            "command"
        } else if rule.path.is_some() {
            "path"
        } else if rule.domain.is_some() {
            "domain"
        } else {
            "tool"
        }
    )
}

/// The confirmation of `M`.
pub(crate) fn mode_question(mode: ApprovalMode) -> String {
    format!(
        "Set this session's approval mode to {mode}? It applies from the next turn ({}).",
        mode_meaning(mode)
    )
}

/// What a mode does, in the reference's terms.
pub(crate) fn mode_meaning(mode: ApprovalMode) -> &'static str {
    match mode {
        ApprovalMode::Auto => "the default: asks only for what it judges sensitive",
        ApprovalMode::PerStep => "asks for each step",
        ApprovalMode::ReadOnly => "refuses whatever would change something",
        ApprovalMode::Plan => "plans before it acts",
    }
}

/// A rule from the shell's spec, `TOOL:FIELD=VALUE` (`TOOL` alone, or `*` for any tool).
pub(crate) fn parse_spec(decision: RuleDecision, spec: &str) -> Result<PermissionRule, String> {
    let mut rule = PermissionRule::new(decision);
    let (tool, matched) = match spec.split_once(':') {
        Some((tool, rest)) => (tool, Some(rest)),
        None => (spec, None),
    };
    let tool = tool.trim();
    if !tool.is_empty() && tool != "*" {
        rule.tool = Some(tool.to_string());
    }
    if let Some(matched) = matched {
        let Some((field, value)) = matched.split_once('=') else {
            return Err(format!(
                "{spec:?}: after the tool, give FIELD=VALUE (command, path or domain)"
            ));
        };
        if value.is_empty() {
            return Err(format!("{spec:?}: the {field} is empty"));
        }
        let value = Some(value.to_string());
        match field.trim() {
            "command" => rule.command = value,
            "path" => rule.path = value,
            "domain" => rule.domain = value,
            other => {
                return Err(format!(
                    "{spec:?}: {other:?} is not command, path or domain"
                ));
            }
        }
    }
    if rule.tool.is_none() && matched.is_none() {
        return Err(format!(
            "{spec:?} matches every call of every tool; name a tool or a FIELD=VALUE"
        ));
    }
    Ok(rule)
}

/// The rule a decision on an approval adds: this tool, and the exact command (or path, or
/// the URL's host) its arguments name, never wider.
pub(crate) fn rule_for_call(
    decision: RuleDecision,
    tool: &str,
    args: &serde_json::Value,
) -> PermissionRule {
    let mut rule = PermissionRule::new(decision);
    rule.tool = Some(tool.to_string());
    let arg = |k: &str| args.get(k).and_then(serde_json::Value::as_str);
    if let Some(command) = arg("command") {
        rule.command = Some(command.to_string());
    } else if let Some(path) = arg("path").or_else(|| arg("file_path")) {
        rule.path = Some(path.to_string());
    } else if let Some(host) =
        arg("url").and_then(|u| url::Url::parse(u).ok()?.host_str().map(String::from))
    {
        rule.domain = Some(host);
    }
    rule
}

/// Sends `patch` to session `id` under one key, retried under it as every write is.
pub(crate) async fn send(
    client: &ApiClient,
    retry: &SendRetry,
    id: &str,
    patch: &SessionPatch,
) -> Result<Session, ApiError> {
    let key = IdempotencyKey::new();
    let (result, _) = retry
        .run(|| client.patch_session(id, patch, &key), |_, _, _| {})
        .await;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn specs_name_a_tool_and_one_exact_field() {
        let r = parse_spec(RuleDecision::Allow, "bash:command=make test -- --nocapture").unwrap();
        assert_eq!(r.tool.as_deref(), Some("bash"));
        assert_eq!(r.command.as_deref(), Some("make test -- --nocapture"));
        let r = parse_spec(RuleDecision::Deny, "*:path=/etc").unwrap();
        assert_eq!((r.tool, r.path.as_deref()), (None, Some("/etc")));
        assert_eq!(
            parse_spec(RuleDecision::Deny, "write")
                .unwrap()
                .tool
                .as_deref(),
            Some("write")
        );
        for bad in ["*", "", "bash:command", "bash:file=/x", "bash:command="] {
            assert!(parse_spec(RuleDecision::Allow, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_rule_from_a_call_is_exactly_what_was_asked() {
        let r = rule_for_call(
            RuleDecision::Allow,
            "bash",
            &json!({"command": "systemctl restart export-worker", "path": "/x"}),
        );
        assert_eq!(
            r.command.as_deref(),
            Some("systemctl restart export-worker")
        );
        assert_eq!(r.path, None);
        let r = rule_for_call(RuleDecision::Deny, "write", &json!({"path": "/etc/hosts"}));
        assert_eq!(r.path.as_deref(), Some("/etc/hosts"));
        let r = rule_for_call(
            RuleDecision::Allow,
            "web_fetch",
            &json!({"url": "https://docs.example.com/a"}),
        );
        assert_eq!(r.domain.as_deref(), Some("docs.example.com"));
    }

    #[test]
    fn lines_are_sanitized() {
        let mut r = PermissionRule::new(RuleDecision::Allow);
        r.tool = Some("bash".into());
        r.command = Some("echo \u{1b}[2Jhi".into());
        let line = rule_line(&r);
        assert!(!line.contains('\u{1b}'), "{line:?}");
        assert!(line.starts_with("allow  bash  command"), "{line}");
    }
}
