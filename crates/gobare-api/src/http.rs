//! How this crate builds its HTTP clients: one set-up for the API calls and the event
//! stream, so one process can share a client (its connection pool and its trust store).

use std::time::Duration;
use url::Url;

/// How often TCP keep-alive probes a quiet connection: a stream may sit silent for
/// minutes, and a dead peer should not take the idle watchdog's whole wait to notice.
const TCP_KEEPALIVE: Duration = Duration::from_secs(30);

/// A client for `api`: no redirects followed (one could carry the token elsewhere), no
/// whole-request deadline (the stream lives for hours; API calls set theirs per request).
///
/// A plain-`http://` base (the local simulator, loopback) never speaks TLS: every request
/// goes to that base and redirects are refused, so the system's trust store (a hundred
/// files or more, several milliseconds to read and parse at each start) is not loaded.
pub(crate) fn client(
    api: &Url,
    connect_timeout: Option<Duration>,
) -> reqwest::Result<reqwest::Client> {
    let mut builder = reqwest::Client::builder()
        .user_agent(concat!("gobare-tui/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
        .tcp_keepalive(TCP_KEEPALIVE);
    if let Some(t) = connect_timeout {
        builder = builder.connect_timeout(t);
    }
    if api.scheme() == "http" {
        builder = builder.tls_certs_only(std::iter::empty());
    }
    builder.build()
}
