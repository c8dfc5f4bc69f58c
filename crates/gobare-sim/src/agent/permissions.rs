//! How a session's `approval_mode` and `permission_rules` (§6.2) decide each tool step of
//! the scripted agent: ask a person, run it, or refuse it without asking; and the checks
//! a rule list passes before it is stored.

use serde_json::Value;

use crate::refusal::Refusal;

/// What happens to a tool step.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Decision {
    Ask,
    Run,
    /// Refused without asking: the `approval.resolved` code and the sentence given to the
    /// agent.
    Refuse(&'static str, String),
}

/// Tools that only look: `read_only` runs them and `per_step` does not ask for them.
/// Every other tool (shell commands included) may change the workspace or the world.
const READS: [&str; 8] = [
    "read",
    "grep",
    "glob",
    "ls",
    "web_search",
    "web_fetch",
    "image_search",
    "screenshot",
];

/// Deny rules refuse, and `read_only` refuses whatever may change something; an `ask`
/// rule asks; an `allow` rule runs; `per_step` and `plan` ask for each step that may
/// change something; `auto` (the default) asks only for a step the agent flags
/// sensitive.
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
    let changes = !READS.contains(&tool);
    if matching("deny") {
        return Decision::Refuse(
            "denied_by_rule",
            format!("A permission rule of this session denies {tool} here."),
        );
    }
    if mode == Some("read_only") && changes {
        return Decision::Refuse(
            "denied_read_only",
            format!("This session is read-only: {tool} was not run."),
        );
    }
    if matching("ask") {
        return Decision::Ask;
    }
    if matching("allow") {
        return Decision::Run;
    }
    match mode {
        Some("per_step" | "plan") if changes => Decision::Ask,
        _ if sensitive => Decision::Ask,
        _ => Decision::Run,
    }
}

/// A rule matches when every field it names matches the call: `tool` the tool's name,
/// `path` the call's `path` or a directory above it, `command` the call's `command`
/// exactly, `domain` contained in its `url`. The reference leaves how the service matches
/// `command` open; matching exactly here means a rule made from one approval never covers
/// another command (a real service may match more widely).
fn matches(rule: &Value, tool: &str, args: &Value) -> bool {
    let field = |k: &str| rule.get(k).and_then(Value::as_str);
    let arg = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or("");
    field("tool").is_none_or(|t| t == tool)
        && field("path").is_none_or(|p| path_within(arg("path"), p))
        && field("command").is_none_or(|c| arg("command") == c)
        && field("domain").is_none_or(|d| arg("url").contains(d))
}

/// `path` is `rule` itself or lies under it as a directory: `/etc` covers `/etc/hosts`
/// but not `/etcetera`.
fn path_within(path: &str, rule: &str) -> bool {
    let dir = rule.trim_end_matches('/');
    path == rule
        || path == dir
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// §5: at most 50 rules a session.
const MAX_RULES: usize = 50;
/// §5: `tool`, `path`, `command` and `domain` are at most 500 characters each.
const MAX_FIELD_CHARS: usize = 500;
const MATCH_FIELDS: [&str; 4] = ["tool", "path", "command", "domain"];

/// Checks `permission_rules` as creation and `PATCH` receive them (§2: a rule without a
/// valid `decision` is `400 invalid_request`).
pub(crate) fn validate_rules(rules: &Value) -> Result<Vec<Value>, Refusal> {
    let Some(list) = rules.as_array() else {
        return Err(Refusal::invalid("agent.permission_rules must be an array."));
    };
    if list.len() > MAX_RULES {
        return Err(Refusal::invalid(format!(
            "A session holds at most {MAX_RULES} permission rules, not {}.",
            list.len()
        )));
    }
    for (i, rule) in list.iter().enumerate() {
        let at = format!("agent.permission_rules[{i}]");
        let Some(obj) = rule.as_object() else {
            return Err(Refusal::invalid(format!("{at} must be an object.")));
        };
        match obj.get("decision").and_then(Value::as_str) {
            Some("allow" | "deny" | "ask") => {}
            _ => {
                return Err(Refusal::invalid(format!(
                    "{at}.decision must be one of allow, deny, ask."
                )));
            }
        }
        for (key, value) in obj {
            if key == "decision" {
                continue;
            }
            if !MATCH_FIELDS.contains(&key.as_str()) {
                return Err(Refusal::invalid(format!(
                    "Unknown field \"{at}.{key}\"; accepted: decision, {}.",
                    MATCH_FIELDS.join(", ")
                )));
            }
            let Some(text) = value.as_str() else {
                return Err(Refusal::invalid(format!("{at}.{key} must be a string.")));
            };
            if text.chars().count() > MAX_FIELD_CHARS {
                return Err(Refusal::invalid(format!(
                    "{at}.{key} is over {MAX_FIELD_CHARS} characters."
                )));
            }
        }
    }
    Ok(list.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rules_and_modes_decide() {
        let args = json!({"command": "systemctl restart export-worker"});
        let deny = [json!({"decision": "deny", "command": "systemctl restart export-worker"})];
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
        assert_eq!(decide(None, &[], "bash", &args, false), Decision::Run);
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

    #[test]
    fn reads_run_where_changes_are_refused_or_asked_for() {
        let path = json!({"path": "/workspace/src/export.ts"});
        assert_eq!(
            decide(Some("read_only"), &[], "read", &path, false),
            Decision::Run
        );
        assert_eq!(
            decide(Some("per_step"), &[], "grep", &path, false),
            Decision::Run
        );
        assert!(matches!(
            decide(Some("read_only"), &[], "write", &path, false),
            Decision::Refuse("denied_read_only", _)
        ));
        let deny_src = [json!({"decision": "deny", "path": "/workspace/src"})];
        assert!(matches!(
            decide(Some("auto"), &deny_src, "read", &path, false),
            Decision::Refuse("denied_by_rule", _)
        ));
        let ask_edit = [json!({"decision": "ask", "tool": "edit"})];
        assert_eq!(
            decide(Some("auto"), &ask_edit, "edit", &path, false),
            Decision::Ask
        );
    }

    #[test]
    fn a_command_matches_exactly_and_a_path_by_directory() {
        let args = json!({"command": "systemctl restart export-worker"});
        let prefix = [json!({"decision": "allow", "command": "systemctl restart"})];
        assert_eq!(
            decide(Some("per_step"), &prefix, "bash", &args, false),
            Decision::Ask
        );
        let longer = json!({"command": "systemctl restart export-worker; rm -rf /"});
        let exact = [
            json!({"decision": "allow", "tool": "bash", "command": "systemctl restart export-worker"}),
        ];
        assert_eq!(
            decide(Some("per_step"), &exact, "bash", &args, false),
            Decision::Run
        );
        assert_eq!(
            decide(Some("per_step"), &exact, "bash", &longer, false),
            Decision::Ask
        );
        let etc = [json!({"decision": "deny", "path": "/etc"})];
        let under = json!({"path": "/etc/hosts"});
        let beside = json!({"path": "/etcetera"});
        assert!(matches!(
            decide(None, &etc, "write", &under, false),
            Decision::Refuse("denied_by_rule", _)
        ));
        assert_eq!(decide(None, &etc, "write", &beside, false), Decision::Run);
    }

    #[test]
    fn rule_lists_are_checked() {
        let ok = json!([{"decision": "deny", "path": "/etc"}, {"decision": "ask", "tool": "bash"}]);
        assert_eq!(validate_rules(&ok).unwrap().len(), 2);
        for bad in [
            json!({"decision": "deny"}),
            json!([{"path": "/etc"}]),
            json!([{"decision": "maybe"}]),
            json!([{"decision": "deny", "file": "/etc"}]),
            json!([{"decision": "deny", "path": 3}]),
            json!([{"decision": "deny", "path": "x".repeat(501)}]),
            json!(["deny"]),
            json!(
                (0..51)
                    .map(|_| json!({"decision": "ask"}))
                    .collect::<Vec<_>>()
            ),
        ] {
            assert!(validate_rules(&bad).is_err(), "{bad}");
        }
    }
}
