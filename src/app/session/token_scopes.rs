//! What the token may do, read once at start from `GET /v1/health` (§1.3): a token that
//! lacks `sessions:write` is said at once ("read-only token") and the app refuses to send
//! or decide with it, instead of each refusal arriving after the key.

use super::SessionFront;
use super::msg::AppMsg;
use crate::session::Severity;
use gobare_api::error::ApiError;
use gobare_api::model::Health;

/// The scope sending and deciding need (§1.3).
const WRITE_SCOPE: &str = "sessions:write";

/// What the status line says while a read-only token is in use.
pub(crate) const READ_ONLY_TEXT: &str =
    "read-only token: you can watch, not send or decide (it lacks sessions:write)";

/// Whether `health` says the token cannot send: it lists its scopes and `sessions:write` is
/// not among them. A server that lists none says nothing either way.
pub(crate) fn is_read_only(health: &Health) -> bool {
    !health.scopes.is_empty() && !health.scopes.iter().any(|s| s == WRITE_SCOPE)
}

impl SessionFront {
    /// Reads what the token holds, in the background.
    pub(crate) fn read_token_scopes(&self) {
        let client = crate::app::shared::jobs::Job::TokenScopes.client(&self.client);
        let tx = self.msgs.clone();
        crate::app::shared::jobs::spawn(crate::app::shared::jobs::Job::TokenScopes, async move {
            let result = client.health().await;
            let _ = tx.send(AppMsg::Health(Box::new(result)));
        });
    }

    pub(crate) fn on_health(&mut self, result: Result<Health, ApiError>) {
        match result {
            Ok(health) => {
                let read_only = is_read_only(&health);
                self.session.set_read_only(read_only);
                if read_only {
                    self.notice_at(Severity::Warn, READ_ONLY_TEXT.into());
                }
                self.request_frame();
            }
            // An older server without the route: every key is tried, and a refusal says why.
            Err(e) => tracing::debug!(error = %e, "token scopes not read"),
        }
    }

    /// Refuses a send or a decision with a read-only token, saying why; the text stays.
    pub(crate) fn refused_read_only(&mut self) -> bool {
        if self.session.read_only() {
            self.notice_at(Severity::Warn, READ_ONLY_TEXT.into());
        }
        self.session.read_only()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn health(scopes: &[&str]) -> Health {
        serde_json::from_value(serde_json::json!({
            "object": "health", "status": "ok", "scopes": scopes,
        }))
        .unwrap()
    }

    #[test]
    fn a_token_without_sessions_write_is_read_only() {
        assert!(is_read_only(&health(&["sessions:read"])));
        assert!(is_read_only(&health(&["sessions:read", "artifacts:read"])));
        assert!(!is_read_only(&health(&["sessions:read", "sessions:write"])));
        assert!(!is_read_only(&health(&[])), "no scopes listed: not known");
    }
}
