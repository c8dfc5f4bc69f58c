//! How a session's `approval_mode` and `permission_rules` (§6.2) decide a step that needs
//! permission: ask a person, run it, or refuse it without asking.

use serde_json::Value;

/// What happens to a step that needs permission.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Decision {
    Ask,
    Run,
    /// Refused without asking: the `approval.resolved` code and the sentence given to the
    /// agent.
    Refuse(&'static str, String),
}

/// Deny rules and `read_only` refuse; an `ask` rule asks; an `allow` rule runs; `auto` runs
/// what the agent did not flag sensitive; `per_step` and `plan` ask.
pub(crate) fn decide(
    mode: Option<&str>,
    rules: &[Value],
    tool: &str,
    args: &Value,
    sensitive: bool,
) -> Decision {
    let matching = |decision: &str| {
        rules.iter().any(|r| {
            r.get("decision").and_then(Value::as_str) == Some(decision) && matches(r, tool, args)
        })
    };
    if matching("deny") {
        return Decision::Refuse(
            "denied_by_rule",
            format!("A permission rule of this session denies {tool} here."),
        );
    }
    if mode == Some("read_only") {
        return Decision::Refuse(
            "denied_read_only",
            "This session is read-only: the step was not run.".into(),
        );
    }
    if matching("ask") {
        return Decision::Ask;
    }
    if matching("allow") {
        return Decision::Run;
    }
    match mode {
        Some("auto") | None if !sensitive => Decision::Run,
        _ => Decision::Ask,
    }
}

/// A rule matches when every field it names matches the call: `tool` the tool's name,
/// `path` a prefix of the call's `path`, `command` a prefix of its `command`, `domain`
/// contained in its `url`.
fn matches(rule: &Value, tool: &str, args: &Value) -> bool {
    let field = |k: &str| rule.get(k).and_then(Value::as_str);
    let arg = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or("");
    field("tool").is_none_or(|t| t == tool)
        && field("path").is_none_or(|p| arg("path").starts_with(p))
        && field("command").is_none_or(|c| arg("command").starts_with(c))
        && field("domain").is_none_or(|d| arg("url").contains(d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rules_and_modes_decide() {
        let args = json!({"command": "systemctl restart export-worker"});
        let deny = [json!({"decision": "deny", "command": "systemctl"})];
        let allow = [json!({"decision": "allow", "tool": "bash"})];
        assert!(matches!(
            decide(Some("per_step"), &deny, "bash", &args, false),
            Decision::Refuse("denied_by_rule", _)
        ));
        assert!(matches!(
            decide(Some("read_only"), &allow, "bash", &args, false),
            Decision::Refuse("denied_read_only", _)
        ));
        assert_eq!(
            decide(Some("per_step"), &allow, "bash", &args, true),
            Decision::Run
        );
        assert_eq!(
            decide(Some("auto"), &[], "bash", &args, false),
            Decision::Run
        );
        assert_eq!(
            decide(Some("auto"), &[], "bash", &args, true),
            Decision::Ask
        );
        assert_eq!(
            decide(Some("per_step"), &[], "bash", &args, false),
            Decision::Ask
        );
        let other = [json!({"decision": "deny", "tool": "write"})];
        assert_eq!(
            decide(Some("per_step"), &other, "bash", &args, false),
            Decision::Ask
        );
    }
}
