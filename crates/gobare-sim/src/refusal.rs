//! The error envelope of §2 and the request id every `/v1` response carries.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use gobare_api::model::ErrorCode;

tokio::task_local! {
    /// The id of the request being handled, so error bodies can quote it.
    pub(crate) static REQUEST_ID: String;
}

pub(crate) fn new_request_id() -> String {
    format!("{:08x}", rand::random::<u32>())
}

fn current_request_id() -> String {
    REQUEST_ID
        .try_with(Clone::clone)
        .unwrap_or_else(|_| new_request_id())
}

/// A refusal, rendered as `{"error":{code,message,request_id}}` with the headers §1.2
/// pairs with it.
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    code: ErrorCode,
    message: String,
    retry_after: Option<u64>,
}

impl Refusal {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Refusal {
            code,
            message: message.into(),
            retry_after: None,
        }
    }
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, message)
    }
    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }
    pub(crate) fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Conflict, message)
    }
    #[cfg(test)]
    pub(crate) fn code(&self) -> ErrorCode {
        self.code.clone()
    }
    pub(crate) fn retry_after(mut self, secs: u64) -> Self {
        self.retry_after = Some(secs);
        self
    }

    /// Renders with an explicit request id (for layers outside the task-local scope).
    pub(crate) fn into_response_with_id(self, request_id: &str) -> Response {
        let status =
            StatusCode::from_u16(self.code.http_status()).unwrap_or(StatusCode::BAD_REQUEST);
        let body = serde_json::json!({"error": {
            "code": self.code.as_str(),
            "message": self.message,
            "request_id": request_id,
        }});
        let mut resp = (
            status,
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response();
        let headers = resp.headers_mut();
        if self.code.is_retryable() {
            let secs = self.retry_after.unwrap_or(1).max(1);
            headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if self.code == ErrorCode::AuthenticationError {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"gobare\", error=\"invalid_token\""),
            );
        }
        resp
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let id = current_request_id();
        self.into_response_with_id(&id)
    }
}
