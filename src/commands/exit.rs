//! Turning a command's error into an exit status and one clear line for stderr.

use crate::cli::UsageError;
use crate::config::ConfigError;
use color_eyre::Report;
use gobare_api::error::{ApiError, ApiErrorKind};

/// Runtime failure: the network, the API, the stream.
pub(crate) const RUNTIME_ERROR: u8 = 1;
/// The command line or configuration was wrong.
pub(crate) const USAGE_ERROR: u8 = 2;

/// `wait`: the turn failed.
pub(crate) const TURN_FAILED: u8 = 3;
/// `wait`: a decision waits on the user.
pub(crate) const NEEDS_YOU: u8 = 4;
/// `wait`: the time given ran out.
pub(crate) const TIMED_OUT: u8 = 5;
/// `wait`: the turn was cancelled.
pub(crate) const CANCELLED: u8 = 6;

/// A command that ends with a status of its own, having said on stdout what it had to say
/// (`wait`'s 3–6; `answer`'s 2 after listing what waits). `message`, when not empty, goes
/// to stderr as for any failure.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub(crate) struct Status {
    pub(crate) code: u8,
    pub(crate) message: String,
}

/// What `main` prints and returns for a failed command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    pub(crate) code: u8,
    pub(crate) message: String,
}

/// Classifies by the first typed error in the chain.
pub(crate) fn classify(report: &Report) -> Failure {
    for cause in report.chain() {
        if let Some(e) = cause.downcast_ref::<Status>() {
            return Failure {
                code: e.code,
                message: e.message.clone(),
            };
        }
        if let Some(e) = cause.downcast_ref::<UsageError>() {
            return Failure {
                code: USAGE_ERROR,
                message: e.to_string(),
            };
        }
        if let Some(e) = cause.downcast_ref::<ConfigError>() {
            return Failure {
                code: USAGE_ERROR,
                message: e.to_string(),
            };
        }
        if let Some(e) = cause.downcast_ref::<ApiError>() {
            return api_failure(e);
        }
    }
    Failure {
        code: RUNTIME_ERROR,
        message: format!("{report:#}"),
    }
}

fn api_failure(e: &ApiError) -> Failure {
    let (code, message) = match e.kind {
        ApiErrorKind::Config | ApiErrorKind::InvalidArgument => (USAGE_ERROR, e.summary()),
        ApiErrorKind::Unauthorized => (
            RUNTIME_ERROR,
            format!(
                "{} — the token was refused (missing, expired or revoked); set GOBARE_TOKEN \
                 or --token-file to a valid gbr_pat_ token",
                e.summary()
            ),
        ),
        ApiErrorKind::Forbidden => (
            RUNTIME_ERROR,
            format!(
                "{} — the token lacks a scope this needs; mint one with sessions:read, \
                 sessions:write and tools:respond",
                e.summary()
            ),
        ),
        _ => (RUNTIME_ERROR, e.summary()),
    };
    Failure { code, message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use color_eyre::eyre::{WrapErr, eyre};

    #[test]
    fn typed_errors_choose_the_status_even_when_wrapped() {
        let usage: Report = UsageError("bad".into()).into();
        assert_eq!(classify(&usage).code, USAGE_ERROR);

        let body = br#"{"error":{"code":"authentication_error","message":"Unknown token.","request_id":"r1"}}"#;
        let auth = ApiError::from_response(401, None, None, body);
        let wrapped = Err::<(), _>(auth)
            .wrap_err("opening the stream")
            .unwrap_err();
        let f = classify(&wrapped);
        assert_eq!(f.code, RUNTIME_ERROR);
        assert!(f.message.contains("GOBARE_TOKEN"), "{}", f.message);
        assert!(f.message.contains("request id r1"), "{}", f.message);

        let insecure: Report = ApiError::local(ApiErrorKind::Config, "plain http").into();
        assert_eq!(classify(&insecure).code, USAGE_ERROR);

        assert_eq!(classify(&eyre!("disk full")).code, RUNTIME_ERROR);
    }
}
