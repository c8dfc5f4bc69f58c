//! What keeps the fleet from knowing its sessions, said plainly: the server cannot be
//! reached, the token was refused, the org stream was refused. A fleet that knows nothing
//! says why instead of counting "0 sessions · 0 need you".

use std::time::Duration;

use gobare_api::error::{ApiError, ApiErrorKind};
use gobare_api::text;

/// Characters kept of the server's own words.
const REASON_CHARS: usize = 120;

/// Why the fleet's view is incomplete. Server text in it is unsanitized until [`Trouble::line`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trouble {
    /// No HTTP answer: `why` is the transport's word ("connection refused").
    Unreachable {
        host: String,
        why: String,
        /// When the next attempt is made (unix ms).
        retry_at_ms: i64,
    },
    /// 401: retrying cannot help.
    TokenRefused { message: String },
    /// The org stream was refused; the list is polled instead.
    StreamRefused {
        status: Option<u16>,
        scope: Option<String>,
        reason: String,
        poll_every: Duration,
    },
    /// The list was refused or failed otherwise.
    ListFailed { summary: String, retry_at_ms: i64 },
}

impl Trouble {
    /// The trouble a failed list read means.
    pub fn of_list(error: &ApiError, host: &str, retry_at_ms: i64) -> Trouble {
        match error.kind {
            ApiErrorKind::Network => Trouble::Unreachable {
                host: host.to_string(),
                why: transport_word(&error.message),
                retry_at_ms,
            },
            ApiErrorKind::Unauthorized => Trouble::TokenRefused {
                message: error.message.clone(),
            },
            _ => Trouble::ListFailed {
                summary: error.summary(),
                retry_at_ms,
            },
        }
    }

    /// The trouble a refused org stream means; `reason` is the stream's account of it.
    pub fn of_stream_refusal(reason: &str, poll_every: Duration) -> Trouble {
        Trouble::StreamRefused {
            status: http_status(reason),
            scope: scope_named(reason),
            reason: reason.to_string(),
            poll_every,
        }
    }

    /// Whether retrying can help: a refused token stays refused.
    pub fn retries(&self) -> bool {
        !matches!(self, Trouble::TokenRefused { .. })
    }

    /// Whether the line counts down (it changes every second).
    pub fn counts_down(&self) -> bool {
        matches!(
            self,
            Trouble::Unreachable { .. } | Trouble::ListFailed { .. }
        )
    }

    /// One sanitized line, its countdown measured against `now_ms`.
    pub fn line(&self, now_ms: i64) -> String {
        let retrying = |at: i64| match ((at - now_ms).max(0) as u64).div_ceil(1000) {
            0 => "retrying now".to_string(),
            secs => format!("retrying in {secs} s"),
        };
        match self {
            Trouble::Unreachable {
                host,
                why,
                retry_at_ms,
            } => format!(
                "cannot reach {} ({}) — {}",
                text::one_line(host, 80),
                text::one_line(why, REASON_CHARS),
                retrying(*retry_at_ms)
            ),
            Trouble::TokenRefused { message } => format!(
                "token refused (401): {}",
                text::one_line(message, REASON_CHARS)
            ),
            Trouble::StreamRefused {
                status,
                scope,
                reason,
                poll_every,
            } => {
                let why = match (status, scope) {
                    (Some(status), Some(scope)) => {
                        format!("{status}, needs {}", text::one_line(scope, 40))
                    }
                    (Some(status), None) => status.to_string(),
                    (None, _) => text::one_line(reason, REASON_CHARS),
                };
                let every = match poll_every.as_secs() {
                    0 => format!("{} ms", poll_every.as_millis()),
                    secs => format!("{secs} s"),
                };
                format!("org stream refused ({why}) — polling every {every}")
            }
            Trouble::ListFailed {
                summary,
                retry_at_ms,
            } => format!(
                "could not list the sessions: {} — {}",
                text::one_line(summary, REASON_CHARS),
                retrying(*retry_at_ms)
            ),
        }
    }
}

/// The transport's own word for why no answer came, else its whole message.
fn transport_word(message: &str) -> String {
    let lower = message.to_lowercase();
    const WORDS: [(&str, &str); 6] = [
        ("connection refused", "connection refused"),
        ("timed out", "timed out"),
        ("dns error", "name not resolved"),
        ("failed to lookup address", "name not resolved"),
        ("connection reset", "connection reset"),
        ("certificate", "TLS certificate refused"),
    ];
    WORDS
        .iter()
        .find(|(seen, _)| lower.contains(seen))
        .map_or_else(|| message.to_string(), |(_, said)| (*said).to_string())
}

/// "HTTP 403" in an error's summary.
fn http_status(reason: &str) -> Option<u16> {
    let at = reason.find("HTTP ")? + "HTTP ".len();
    let digits: String = reason[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The scope a refusal names ("sessions:read").
fn scope_named(reason: &str) -> Option<String> {
    reason
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == ':' || c == '_'))
        .find(|word| {
            word.split_once(':').is_some_and(|(area, access)| {
                !area.is_empty()
                    && area.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                    && matches!(access, "read" | "write")
            })
        })
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn network(message: &str) -> ApiError {
        let mut e = ApiError::local(ApiErrorKind::Network, message.to_string());
        e.status = None;
        e
    }

    #[test]
    fn an_unreachable_server_is_named_with_the_transport_word_and_a_countdown() {
        let e = network(
            "could not connect: error sending request: tcp connect error: Connection refused (os error 111)",
        );
        let t = Trouble::of_list(&e, "127.0.0.1:9", 10_000);
        assert_eq!(
            t.line(2_500),
            "cannot reach 127.0.0.1:9 (connection refused) — retrying in 8 s"
        );
        assert_eq!(
            t.line(10_000),
            "cannot reach 127.0.0.1:9 (connection refused) — retrying now"
        );
        assert!(t.retries() && t.counts_down());
    }

    #[test]
    fn a_refused_token_is_said_and_not_retried() {
        let mut e = ApiError::local(ApiErrorKind::Unauthorized, "Invalid token.\x1b[2J");
        e.status = Some(401);
        let t = Trouble::of_list(&e, "h", 0);
        assert_eq!(t.line(0), "token refused (401): Invalid token.\u{fffd}[2J");
        assert!(!t.retries());
    }

    #[test]
    fn a_refused_org_stream_names_the_status_and_the_missing_scope() {
        let reason = "permission denied: This token lacks the sessions:read scope. (code permission_denied, HTTP 403)";
        let t = Trouble::of_stream_refusal(reason, Duration::from_secs(10));
        assert_eq!(
            t.line(0),
            "org stream refused (403, needs sessions:read) — polling every 10 s"
        );
        let bare = Trouble::of_stream_refusal("closed by the server", Duration::from_secs(5));
        assert_eq!(
            bare.line(0),
            "org stream refused (closed by the server) — polling every 5 s"
        );
    }
}
