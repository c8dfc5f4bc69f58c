//! A request that got no HTTP answer, in words a person acts on: which address, what the
//! socket said, and what to check. A library's error chain ("error sending request for
//! url (…): client error (Connect): tcp connect error: …") says none of that plainly.

use std::error::Error as StdError;
use std::io::ErrorKind;

/// One line for a request to `url` that failed with `err` before any HTTP answer.
pub(crate) fn describe(err: &reqwest::Error) -> String {
    let url = err.url();
    let place = url.map(place).unwrap_or_else(|| "the server".to_string());
    let https = url.is_some_and(|u| u.scheme() == "https");
    let chain = chain_text(err);
    if https && spoke_plain_http(&chain) {
        return format!("cannot reach {place}: the server did not speak TLS — try http://");
    }
    if !https && spoke_tls(&chain) {
        return format!("cannot reach {place}: the server did not speak plain HTTP — try https://");
    }
    let cause = cause(err, &chain);
    if err.is_connect() || err.is_timeout() && !err.is_body() {
        let hint = if url.is_some_and(is_loopback) {
            "is the simulator running? is --api right?"
        } else {
            "is --api right? is the network up?"
        };
        return format!("cannot reach {place} ({cause}) — {hint}");
    }
    format!("the connection to {place} failed ({cause})")
}

/// `host:port` of the address, the part a person compares with what they configured.
fn place(url: &url::Url) -> String {
    let host = url.host_str().unwrap_or("?");
    match url.port_or_known_default() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    }
}

fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// What the socket said, from the deepest cause that names it.
fn cause(err: &reqwest::Error, chain: &str) -> String {
    let mut source: Option<&(dyn StdError + 'static)> = err.source();
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>()
            && let Some(words) = io_words(io.kind())
        {
            return words.to_string();
        }
        source = s.source();
    }
    let lower = chain.to_ascii_lowercase();
    if err.is_timeout() || lower.contains("timed out") {
        "timed out".to_string()
    } else if lower.contains("dns error") || lower.contains("failed to lookup address") {
        "no such host".to_string()
    } else if lower.contains("connection closed before message completed") {
        "the server closed the connection".to_string()
    } else {
        // The innermost message is the most specific one.
        chain
            .rsplit(": ")
            .next()
            .unwrap_or("unknown cause")
            .to_string()
    }
}

fn io_words(kind: ErrorKind) -> Option<&'static str> {
    Some(match kind {
        ErrorKind::ConnectionRefused => "connection refused",
        ErrorKind::ConnectionReset => "connection reset",
        ErrorKind::ConnectionAborted => "connection aborted",
        ErrorKind::TimedOut => "timed out",
        ErrorKind::HostUnreachable => "host unreachable",
        ErrorKind::NetworkUnreachable => "network unreachable",
        ErrorKind::AddrNotAvailable => "address not available",
        ErrorKind::PermissionDenied => "permission denied",
        ErrorKind::UnexpectedEof => "the server closed the connection",
        _ => return None,
    })
}

/// A TLS client that got plain HTTP back: rustls reads the HTTP status line as a record
/// of an unknown content type.
fn spoke_plain_http(chain: &str) -> bool {
    chain.contains("InvalidContentType") || chain.contains("corrupt message")
}

/// A plain HTTP client that got a TLS record back: hyper cannot parse it as a response.
fn spoke_tls(chain: &str) -> bool {
    chain.contains("invalid HTTP version") || chain.contains("invalid HTTP status-code")
}

fn chain_text(err: &reqwest::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}
