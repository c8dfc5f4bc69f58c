//! A request that got no HTTP answer reads as where, what and what to check, never as a
//! library's error chain.

use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions};
use gobare_api::error::ApiErrorKind;
use gobare_api::stream::{ConnectionState, StreamOptions, StreamTarget, StreamUpdate, spawn};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A loopback port nothing listens on.
fn refused_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// A server that answers every connection with `reply` whatever was asked, then closes.
async fn answering(reply: &'static [u8]) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = conn.read(&mut buf).await;
                let _ = conn.write_all(reply).await;
                let _ = conn.shutdown().await;
            });
        }
    });
    port
}

async fn health_message(base: &str) -> String {
    let url = url::Url::parse(base).unwrap();
    let client = ApiClient::new(ClientOptions::new(url, None)).unwrap();
    let e = client.health().await.unwrap_err();
    assert_eq!(e.kind, ApiErrorKind::Network, "{e:?}");
    e.to_string()
}

#[tokio::test]
async fn a_refused_connection_names_the_address_and_what_to_check() {
    let port = refused_port();
    let said = health_message(&format!("http://127.0.0.1:{port}")).await;
    assert_eq!(
        said,
        format!(
            "cannot reach 127.0.0.1:{port} (connection refused) — is the simulator running? \
             is --api right?"
        )
    );
}

#[tokio::test]
async fn https_against_a_plain_http_server_says_try_http() {
    let port = answering(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}").await;
    let said = health_message(&format!("https://127.0.0.1:{port}")).await;
    assert_eq!(
        said,
        format!("cannot reach 127.0.0.1:{port}: the server did not speak TLS — try http://")
    );
}

#[tokio::test]
async fn http_against_a_tls_server_says_try_https() {
    // A TLS alert record: what a TLS server sends a client that does not speak TLS.
    let port = answering(b"\x15\x03\x03\x00\x02\x02\x46").await;
    let said = health_message(&format!("http://127.0.0.1:{port}")).await;
    assert_eq!(
        said,
        format!(
            "cannot reach 127.0.0.1:{port}: the server did not speak plain HTTP — try https://"
        )
    );
}

#[tokio::test]
async fn the_event_stream_says_it_in_the_same_words() {
    let port = refused_port();
    let mut handle = spawn(StreamOptions {
        api: url::Url::parse(&format!("http://127.0.0.1:{port}")).unwrap(),
        token: Token::new("gbr_pat_words_secret"),
        target: StreamTarget::Session("s1".into()),
        ..StreamOptions::default()
    });
    let reason = loop {
        match handle.updates.recv().await.expect("the task reports") {
            StreamUpdate::State(ConnectionState::Retrying { reason, .. }) => break reason,
            _ => continue,
        }
    };
    assert_eq!(
        reason,
        format!(
            "cannot reach 127.0.0.1:{port} (connection refused) — is the simulator running? \
             is --api right?"
        )
    );
}
