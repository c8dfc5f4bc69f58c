//! `PATCH /v1/sessions/{id}` (reference §6.3): the typed body (only fields present change;
//! `approval_mode`, `permission_rules`, `model` go under `agent`) and the call, which is a
//! person's action keyed like every write.

use std::collections::BTreeMap;
use std::fmt;

use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::client::{ApiClient, IdempotencyKey};
use crate::error::{ApiError, ApiErrorKind};
use crate::model::Session;

/// `agent.approval_mode` (§6.2). Applies from the session's next turn (§6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalMode {
    /// The default: the agent asks only where it judges a step sensitive.
    Auto,
    /// Each step is asked for.
    PerStep,
    /// Nothing that changes anything runs.
    ReadOnly,
    /// The agent plans first.
    Plan,
}

impl ApprovalMode {
    /// Every mode, in the order a key cycles through them.
    pub const ALL: [ApprovalMode; 4] = [
        ApprovalMode::Auto,
        ApprovalMode::PerStep,
        ApprovalMode::ReadOnly,
        ApprovalMode::Plan,
    ];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalMode::Auto => "auto",
            ApprovalMode::PerStep => "per_step",
            ApprovalMode::ReadOnly => "read_only",
            ApprovalMode::Plan => "plan",
        }
    }

    /// The mode spelled `s` on the wire, if it is one of the four.
    pub fn parse(s: &str) -> Option<ApprovalMode> {
        ApprovalMode::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// The mode after this one when cycling.
    pub fn next(self) -> ApprovalMode {
        let at = ApprovalMode::ALL
            .iter()
            .position(|m| *m == self)
            .unwrap_or(0);
        ApprovalMode::ALL[(at + 1) % ApprovalMode::ALL.len()]
    }
}

impl fmt::Display for ApprovalMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `permission_rules[].decision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleDecision {
    /// Run without asking.
    Allow,
    /// Refuse without asking.
    Deny,
    /// Ask a person.
    Ask,
}

impl RuleDecision {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleDecision::Allow => "allow",
            RuleDecision::Deny => "deny",
            RuleDecision::Ask => "ask",
        }
    }
}

/// One of `agent.permission_rules[]` (§6.2): a decision and what it matches. How the
/// service matches `command` (exactly or by prefix) is not in the reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionRule {
    /// What the rule decides.
    pub decision: RuleDecision,
    /// The tool's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// A workspace path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A shell command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// A network domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Fields a newer server added, sent back unchanged when the list is replaced.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl PermissionRule {
    /// A rule with `decision` and nothing to match yet.
    pub fn new(decision: RuleDecision) -> PermissionRule {
        PermissionRule {
            decision,
            tool: None,
            path: None,
            command: None,
            domain: None,
            extra: BTreeMap::new(),
        }
    }

    /// The session's rules as read back (`session.agent.permission_rules`); `None` for
    /// a list holding a rule this client cannot read, which it must then not replace.
    pub fn read_all(values: &[Value]) -> Option<Vec<PermissionRule>> {
        values
            .iter()
            .map(|v| serde_json::from_value(v.clone()).ok())
            .collect()
    }

    /// What the rule matches, as `tool=bash command="…"` (server text unsanitized: the
    /// caller sanitizes before it reaches a terminal).
    pub fn matches_words(&self) -> String {
        let mut parts = Vec::new();
        for (name, value) in [
            ("tool", &self.tool),
            ("path", &self.path),
            ("command", &self.command),
            ("domain", &self.domain),
        ] {
            if let Some(v) = value {
                parts.push(format!("{name}={v:?}"));
            }
        }
        if parts.is_empty() {
            "everything".into()
        } else {
            parts.join(" ")
        }
    }
}

/// `agent` inside a patch: only what is `Some` is sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AgentPatch {
    /// `agent.approval_mode`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_mode: Option<ApprovalMode>,
    /// `agent.permission_rules`: replaces the whole list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_rules: Option<Vec<PermissionRule>>,
    /// `agent.model`, sent only with `model_credential_id` (see [`SessionPatch::model`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `agent.model_credential_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_credential_id: Option<String>,
}

impl AgentPatch {
    fn is_empty(&self) -> bool {
        *self == AgentPatch::default()
    }
}

/// The body of `PATCH /v1/sessions/{id}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SessionPatch {
    /// `metadata`: `Some(None)` clears every label, `Some(Some(map))` sends `map`
    /// (whether the server merges or replaces is unstated, §15.33: send the whole set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Option<BTreeMap<String, String>>>,
    /// `agent`.
    #[serde(skip_serializing_if = "AgentPatch::is_empty")]
    pub agent: AgentPatch,
}

impl SessionPatch {
    /// Sets `agent.approval_mode`.
    pub fn mode(mode: ApprovalMode) -> SessionPatch {
        let mut p = SessionPatch::default();
        p.agent.approval_mode = Some(mode);
        p
    }

    /// Replaces `agent.permission_rules` with `rules`.
    pub fn rules(rules: Vec<PermissionRule>) -> SessionPatch {
        let mut p = SessionPatch::default();
        p.agent.permission_rules = Some(rules);
        p
    }

    /// Sets the labels to `labels` (empty clears them).
    pub fn labels(labels: BTreeMap<String, String>) -> SessionPatch {
        SessionPatch {
            metadata: Some((!labels.is_empty()).then_some(labels)),
            ..SessionPatch::default()
        }
    }

    /// Moves the session to `model` on credential `credential` (the reference requires
    /// both together).
    pub fn model(model: String, credential: String) -> SessionPatch {
        let mut p = SessionPatch::default();
        p.agent.model = Some(model);
        p.agent.model_credential_id = Some(credential);
        p
    }

    /// Whether the patch changes nothing (the server refuses an empty patch with 400).
    pub fn is_empty(&self) -> bool {
        self.metadata.is_none() && self.agent.is_empty()
    }
}

impl ApiClient {
    /// `PATCH /v1/sessions/{id}` with `patch`: the session as changed.
    pub async fn patch_session(
        &self,
        session_id: &str,
        patch: &SessionPatch,
        key: &IdempotencyKey,
    ) -> Result<Session, ApiError> {
        if patch.is_empty() {
            return Err(ApiError::local(
                ApiErrorKind::InvalidArgument,
                "nothing to change",
            ));
        }
        let url = self.url(&["sessions", session_id], &[])?;
        let body = serde_json::to_vec(patch)
            .map_err(|e| ApiError::local(ApiErrorKind::InvalidArgument, e.to_string()))?;
        self.execute(Method::PATCH, url, Some(body), Some(key))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_what_is_set_is_sent_and_under_agent() {
        let mode = serde_json::to_value(SessionPatch::mode(ApprovalMode::PerStep)).unwrap();
        assert_eq!(mode, json!({"agent": {"approval_mode": "per_step"}}));
        let mut allow = PermissionRule::new(RuleDecision::Allow);
        allow.tool = Some("bash".into());
        allow.command = Some("make test".into());
        let rules = serde_json::to_value(SessionPatch::rules(vec![allow])).unwrap();
        assert_eq!(
            rules,
            json!({"agent": {"permission_rules": [
                {"decision": "allow", "tool": "bash", "command": "make test"}]}})
        );
        let cleared = serde_json::to_value(SessionPatch::labels(BTreeMap::new())).unwrap();
        assert_eq!(cleared, json!({"metadata": null}));
        assert!(SessionPatch::default().is_empty());
    }

    #[test]
    fn unknown_rule_fields_go_back_unchanged_and_unreadable_lists_are_none() {
        let read = PermissionRule::read_all(&[
            json!({"decision": "deny", "path": "/etc", "scope": "org"}),
        ])
        .unwrap();
        assert_eq!(
            serde_json::to_value(&read[0]).unwrap(),
            json!({"decision": "deny", "path": "/etc", "scope": "org"})
        );
        assert!(PermissionRule::read_all(&[json!({"decision": "maybe"})]).is_none());
    }

    #[test]
    fn modes_cycle_through_all_four() {
        let mut m = ApprovalMode::Auto;
        let mut seen = Vec::new();
        for _ in 0..4 {
            seen.push(m);
            m = m.next();
        }
        assert_eq!(seen, ApprovalMode::ALL);
        assert_eq!(m, ApprovalMode::Auto);
        assert_eq!(
            ApprovalMode::parse("read_only"),
            Some(ApprovalMode::ReadOnly)
        );
        assert_eq!(ApprovalMode::parse("never"), None);
    }
}
