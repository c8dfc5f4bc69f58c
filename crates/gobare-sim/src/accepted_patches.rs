//! The record of accepted `PATCH /v1/sessions/{id}` bodies (not replays), for tests to
//! check what a client changed and under which key.

use serde_json::Value;

/// One accepted session patch: the session, the body as received, and its key.
#[derive(Debug, Clone, PartialEq)]
pub struct AcceptedPatch {
    /// The session patched.
    pub session_id: String,
    /// The body as received.
    pub body: Value,
    /// Its `Idempotency-Key`, if one was sent.
    pub key: Option<String>,
}
