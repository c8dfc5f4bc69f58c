//! Request bodies: bounded, strictly typed JSON.

use axum::body::Body;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::refusal::Refusal;
use crate::state::Shared;

use super::query::Query;

/// A request that may carry neither query parameters nor a body (empty or `{}`): the
/// actions whose only input is the path. Extracting it validates both.
pub(crate) struct NoInput;

impl axum::extract::FromRequest<Shared> for NoInput {
    type Rejection = Refusal;

    async fn from_request(req: axum::extract::Request, state: &Shared) -> Result<NoInput, Refusal> {
        Query::parse(req.uri().query(), &[])?;
        empty(req.into_body(), state.config.body_limit).await?;
        Ok(NoInput)
    }
}

/// Reads and parses a JSON object body of at most `limit` bytes. Over the limit, malformed
/// JSON, anything but an object (an array would otherwise fill a struct by position),
/// wrong types and unknown fields are all `400 invalid_request` (§2, §5).
pub(crate) async fn json<T: DeserializeOwned>(body: Body, limit: usize) -> Result<T, Refusal> {
    let bytes = axum::body::to_bytes(body, limit).await.map_err(|_| {
        Refusal::invalid(format!(
            "The request body is larger than the {} byte limit.",
            limit
        ))
    })?;
    if bytes.is_empty() {
        return Err(Refusal::invalid("A JSON request body is required."));
    }
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| Refusal::invalid(format!("The request body is not valid: {e}.")))?;
    if !value.is_object() {
        return Err(Refusal::invalid("The body must be a JSON object."));
    }
    serde_json::from_value(value)
        .map_err(|e| Refusal::invalid(format!("The request body is not valid: {e}.")))
}

/// Routes without a body accept an empty one or `{}`.
pub(crate) async fn empty(body: Body, limit: usize) -> Result<(), Refusal> {
    let bytes = axum::body::to_bytes(body, limit)
        .await
        .map_err(|_| Refusal::invalid("The request body is larger than the limit."))?;
    let trimmed = String::from_utf8_lossy(&bytes);
    let trimmed = trimmed.trim();
    if trimmed.is_empty() || trimmed == "{}" {
        Ok(())
    } else {
        Err(Refusal::invalid("This route takes no request body."))
    }
}

/// A JSON object body whose fields are all in `accepted` (an unknown one is a 400 naming
/// it, §1.1). `empty_is_object` lets a route whose fields are all optional take no body.
pub(crate) async fn object(
    body: Body,
    limit: usize,
    accepted: &[&str],
    empty_is_object: bool,
) -> Result<Map<String, Value>, Refusal> {
    let bytes = axum::body::to_bytes(body, limit)
        .await
        .map_err(|_| Refusal::invalid("The request body is larger than the limit."))?;
    let value: Value = if empty_is_object && bytes.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Map::new())
    } else if bytes.is_empty() {
        return Err(Refusal::invalid("A JSON request body is required."));
    } else {
        serde_json::from_slice(&bytes)
            .map_err(|e| Refusal::invalid(format!("The request body is not valid: {e}.")))?
    };
    let Value::Object(obj) = value else {
        return Err(Refusal::invalid("The body must be a JSON object."));
    };
    if let Some(unknown) = obj.keys().find(|k| !accepted.contains(&k.as_str())) {
        return Err(Refusal::invalid(format!(
            "Unknown field \"{unknown}\"; accepted: {}.",
            accepted.join(", ")
        )));
    }
    Ok(obj)
}
