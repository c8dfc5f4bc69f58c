//! Raw-byte downloads (artifact content and archives, reference §6.7), read chunk by chunk
//! so that memory stays flat whatever the size.

use crate::client::ApiClient;
use crate::error::{ApiError, ApiErrorKind};
use bytes::Bytes;
use reqwest::Method;
use std::time::Duration;

/// Longest wait for the next chunk before the download counts as dropped.
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Whole-request deadline of a download: long enough for any size; a stall is caught by
/// [`IDLE_TIMEOUT`] instead.
const DOWNLOAD_DEADLINE: Duration = Duration::from_secs(24 * 60 * 60);

/// A success answer whose body has not been read yet.
#[derive(Debug)]
pub struct Download {
    response: reqwest::Response,
    client: ApiClient,
    announced: Option<u64>,
    received: u64,
}

impl Download {
    /// The `Content-Length` the server announced, if any.
    pub fn content_length(&self) -> Option<u64> {
        self.announced
    }

    /// Bytes received so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// The next chunk, `None` at the end. The end is checked against `Content-Length`: a
    /// body shorter than announced is an error, never a silent end.
    pub async fn chunk(&mut self) -> Result<Option<Bytes>, ApiError> {
        let next = tokio::time::timeout(IDLE_TIMEOUT, self.response.chunk()).await;
        match next {
            Err(_) => Err(ApiError::local(
                ApiErrorKind::Network,
                format!(
                    "the download stalled: nothing for {} s after {} bytes",
                    IDLE_TIMEOUT.as_secs(),
                    self.received
                ),
            )),
            Ok(Err(e)) => Err(self.client.scrub(ApiError::network(e))),
            Ok(Ok(Some(chunk))) => {
                self.received += chunk.len() as u64;
                Ok(Some(chunk))
            }
            Ok(Ok(None)) => match self.content_length() {
                Some(expected) if expected != self.received => Err(ApiError::local(
                    ApiErrorKind::Network,
                    format!(
                        "the download ended after {} of {expected} bytes",
                        self.received
                    ),
                )),
                _ => Ok(None),
            },
        }
    }
}

impl ApiClient {
    /// `GET /v1/sessions/{id}/artifacts/{artifact_id}/content`: the artifact's bytes.
    pub async fn artifact_content(
        &self,
        session_id: &str,
        artifact_id: &str,
    ) -> Result<Download, ApiError> {
        let url = self.url(
            &["sessions", session_id, "artifacts", artifact_id, "content"],
            &[],
        )?;
        self.download(url).await
    }

    /// `GET /v1/sessions/{id}/artifacts/archive[?turn_id=]`: a POSIX tar of the stored
    /// copies (with `turn_id`, entries carry workspace paths; without, each is prefixed
    /// with its turn id).
    pub async fn artifact_archive(
        &self,
        session_id: &str,
        turn_id: Option<&str>,
    ) -> Result<Download, ApiError> {
        let query: Vec<(&str, String)> = turn_id
            .map(|t| ("turn_id", t.to_string()))
            .into_iter()
            .collect();
        let url = self.url(&["sessions", session_id, "artifacts", "archive"], &query)?;
        self.download(url).await
    }

    async fn download(&self, url: url::Url) -> Result<Download, ApiError> {
        let response = self
            .answer(Method::GET, url, None, None, "*/*", Some(DOWNLOAD_DEADLINE))
            .await?;
        // Read once: reqwest's own figure shrinks as the body is consumed.
        let announced = response
            .headers()
            .get(reqwest::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok());
        Ok(Download {
            response,
            client: self.clone(),
            announced,
            received: 0,
        })
    }
}
