//! Which scope a request needs (§1.3), for tokens minted with fewer than all of them: a
//! missing scope is `403 permission_denied` naming it.

use axum::http::Method;
use gobare_api::model::{ErrorCode, Input};

use crate::refusal::Refusal;

/// The six scopes a token can hold (§1.3).
pub(crate) const ALL: [&str; 6] = [
    "sessions:read",
    "sessions:write",
    "tools:respond",
    "artifacts:read",
    "credentials:write",
    "cli",
];

/// What a terminal client needs (§1.3), and what the simulator's own token reports.
pub(crate) const CLIENT: [&str; 4] = [
    "sessions:read",
    "sessions:write",
    "tools:respond",
    "artifacts:read",
];

/// The scopes the presented token holds; `None` for the simulator's own token (all).
#[derive(Debug, Clone, Default)]
pub(crate) struct TokenScopes(pub(crate) Option<Vec<String>>);

impl TokenScopes {
    /// Refuses unless the token holds `scope`.
    pub(crate) fn require(&self, scope: &str) -> Result<(), Refusal> {
        match &self.0 {
            Some(held) if !held.iter().any(|s| s == scope) => Err(Refusal::new(
                ErrorCode::PermissionDenied,
                format!("This token does not have the \"{scope}\" scope."),
            )),
            _ => Ok(()),
        }
    }

    /// `GET /v1/health`'s report of this token: what it holds, whether any `/v1` route
    /// takes it (a `cli`-only token is refused by all), and what a client still lacks.
    pub(crate) fn health(&self) -> serde_json::Value {
        let held: Vec<&str> = match &self.0 {
            None => CLIENT.to_vec(),
            Some(held) => held.iter().map(String::as_str).collect(),
        };
        let missing: Vec<&str> = CLIENT
            .iter()
            .copied()
            .filter(|s| !held.contains(s))
            .collect();
        let usable = held.iter().any(|s| *s != "cli");
        serde_json::json!({
            "object": "health", "status": "ok", "version": "v1",
            "scopes": held, "usable": usable, "missing_scopes": missing,
        })
    }
}

/// The scope a route needs, by method and path; `None` when any valid token will do or
/// the route decides by what is sent (`POST …/events`, see [`for_input`]).
pub(crate) fn for_route(method: &Method, path: &str, query: Option<&str>) -> Option<&'static str> {
    if path == "/v1/health" || (*method == Method::POST && path.ends_with("/events")) {
        return None;
    }
    let artifacts = path.contains("/artifacts");
    let refresh = query.is_some_and(|q| q.split('&').any(|kv| kv == "refresh=1"));
    if *method == Method::GET && artifacts {
        Some("artifacts:read")
    } else if *method == Method::GET && !(path.ends_with("/files") && refresh) {
        Some("sessions:read")
    } else {
        Some("sessions:write")
    }
}

/// The scope an `input.*` needs: a function call's result needs `tools:respond`; on
/// production, approvals and questions need `sessions:write` like every other input.
pub(crate) fn for_input(input: &Input) -> &'static str {
    match input {
        Input::ToolResult { .. } => "tools:respond",
        _ => "sessions:write",
    }
}
