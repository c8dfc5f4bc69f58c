//! Raw-byte downloads (artifact content and archives, reference §6.7), read chunk by chunk
//! so that memory stays flat whatever the size.

use crate::client::ApiClient;
use crate::error::{ApiError, ApiErrorKind};
use bytes::Bytes;
use reqwest::Method;
use std::pin::Pin;
use std::time::Duration;
use tokio::time::{Instant, Sleep};

/// Longest wait for the next chunk before the download counts as dropped.
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Longest wait for the answer's headers: the idle limit starts only once they are in.
const HEADERS_TIMEOUT: Duration = Duration::from_secs(60);
/// The window of the minimum rate, and the least that must arrive in each (about 1 KiB/s):
/// a trickle that keeps every gap under the idle limit still ends.
const RATE_WINDOW: Duration = Duration::from_secs(60);
const RATE_WINDOW_MIN_BYTES: u64 = 64 * 1024;
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
    /// When the last chunk arrived (or the answer, before the first).
    last_arrival: Instant,
    /// Where the current window of the minimum rate began, and the bytes received in it.
    window_start: Instant,
    window_bytes: u64,
    /// One timer for the whole download, moved on only when it fires: a timer set per
    /// chunk costs more than the chunk's bytes once the transfer is fast.
    idle: Pin<Box<Sleep>>,
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
        let next = loop {
            tokio::select! {
                biased;
                // Reading a body frame keeps nothing half-done when it loses the race.
                next = self.response.chunk() => break next,
                () = self.idle.as_mut() => {
                    let deadline = self.last_arrival + IDLE_TIMEOUT;
                    if Instant::now() >= deadline {
                        return Err(ApiError::local(
                            ApiErrorKind::Network,
                            format!(
                                "the download stalled: nothing for {} s after {} bytes",
                                IDLE_TIMEOUT.as_secs(),
                                self.received
                            ),
                        ));
                    }
                    self.idle.as_mut().reset(deadline);
                }
            }
        };
        match next {
            Err(e) => Err(self.client.scrub(ApiError::network(e))),
            Ok(Some(chunk)) => {
                let now = Instant::now();
                self.last_arrival = now;
                self.received += chunk.len() as u64;
                self.window_bytes += chunk.len() as u64;
                if now.duration_since(self.window_start) >= RATE_WINDOW {
                    if self.window_bytes < RATE_WINDOW_MIN_BYTES {
                        return Err(ApiError::local(
                            ApiErrorKind::Network,
                            format!(
                                "the download is too slow: {} bytes in {} s, after {} bytes",
                                self.window_bytes,
                                now.duration_since(self.window_start).as_secs(),
                                self.received
                            ),
                        ));
                    }
                    self.window_start = now;
                    self.window_bytes = 0;
                }
                Ok(Some(chunk))
            }
            Ok(None) => match self.content_length() {
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
        // The headers' limit is per attempt: waiting for the rate budget, or out a
        // `Retry-After`, is not the server failing to answer.
        let response = self
            .answer(
                Method::GET,
                url,
                None,
                None,
                "*/*",
                (Some(DOWNLOAD_DEADLINE), Some(HEADERS_TIMEOUT)),
            )
            .await
            .map_err(|e| match e.kind {
                ApiErrorKind::Network
                    if e.status.is_none() && e.message.starts_with("no answer") =>
                {
                    ApiError::local(
                        ApiErrorKind::Network,
                        format!(
                            "the download got no answer in {} s",
                            HEADERS_TIMEOUT.as_secs()
                        ),
                    )
                }
                _ => e,
            })?;
        // Read once: reqwest's own figure shrinks as the body is consumed.
        let announced = response
            .headers()
            .get(reqwest::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok());
        let now = Instant::now();
        Ok(Download {
            response,
            client: self.clone(),
            announced,
            received: 0,
            last_arrival: now,
            window_start: now,
            window_bytes: 0,
            idle: Box::pin(tokio::time::sleep_until(now + IDLE_TIMEOUT)),
        })
    }
}
