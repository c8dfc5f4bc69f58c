//! The one way a session is created: the request (never with `input`, which would race
//! the stream, §11.1) and the call, retried under one key.

use crate::cli::NewArgs;
use gobare_api::client::{ApiClient, IdempotencyKey};
use gobare_api::error::ApiError;
use gobare_api::model::{AgentRequest, CreateSession, Session};
use gobare_api::retry::SendRetry;

/// The create request: never with `input` (that would race the stream, §11.1).
pub(crate) fn create_request(args: &NewArgs) -> CreateSession {
    let tools = (!args.functions.is_empty()).then(|| {
        args.functions
            .iter()
            .map(|f| {
                let mut tool = serde_json::json!({"type": "function", "name": f.name,
                                                  "parameters": {"type": "object"}});
                if let Some(t) = f.timeout_seconds {
                    tool["timeout_seconds"] = t.into();
                }
                tool
            })
            .collect()
    });
    let agent =
        (args.model.is_some() || args.instructions.is_some() || tools.is_some()).then(|| {
            AgentRequest {
                model: args.model.clone(),
                instructions: args.instructions.clone(),
                tools,
                ..AgentRequest::default()
            }
        });
    CreateSession {
        agent,
        title: args.title.clone(),
        input: None,
        ..CreateSession::default()
    }
}

/// Creates the session, retrying retryable failures with the same key (a retry after a lost
/// answer returns the session created the first time, not a second one).
pub(crate) async fn create_session(
    client: &ApiClient,
    request: &CreateSession,
    policy: &SendRetry,
) -> Result<Session, ApiError> {
    let key = IdempotencyKey::new();
    let (result, _attempts) = policy
        .run(|| client.create_session(request, &key), |_, _, _| {})
        .await;
    result
}
