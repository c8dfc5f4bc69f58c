//! Downloads on tokio's paused clock against a real HTTP server: a body that keeps coming
//! at the minimum rate, however unevenly, is read whole; one that stops for the idle limit,
//! one that trickles below the minimum rate and an answer whose headers never come are
//! errors naming how far they got.

use crate::support::hostile::HostileServer;
use axum::body::{Body, Bytes};
use axum::response::Response;
use gobare_api::client::{ApiClient, ClientOptions};
use std::time::Duration;
use tokio::time::Instant;

/// Pieces of [`PIECE`] bytes with `gap` between them, `Content-Length` announcing
/// `announced`; after the last piece the body stalls for ever when `announced` is not
/// reached.
fn trickle(pieces: usize, gap: Duration, announced: usize) -> Response {
    trickle_of(PIECE, pieces, gap, announced)
}

/// A piece above the least a minute must bring (64 KiB).
const PIECE: usize = 70_000;

fn trickle_of(piece: usize, pieces: usize, gap: Duration, announced: usize) -> Response {
    let body = futures_util::stream::unfold(0, move |n| async move {
        if n == pieces {
            std::future::pending::<()>().await;
        }
        if n > 0 {
            tokio::time::sleep(gap).await;
        }
        Some((
            Ok::<_, std::io::Error>(Bytes::from(vec![b'x'; piece])),
            n + 1,
        ))
    });
    Response::builder()
        .header("content-length", announced.to_string())
        .body(Body::from_stream(body))
        .unwrap()
}

async fn read_all(server: &HostileServer) -> Result<usize, String> {
    let client = ApiClient::new(ClientOptions::new(server.base.clone(), None)).unwrap();
    let mut download = client
        .artifact_content("s1", "a1")
        .await
        .map_err(|e| e.to_string())?;
    let mut got = 0;
    while let Some(chunk) = download.chunk().await.map_err(|e| e.to_string())? {
        got += chunk.len();
    }
    Ok(got)
}

#[tokio::test(start_paused = true)]
async fn a_slow_body_is_read_whole_while_each_gap_stays_under_the_idle_limit() {
    // 40 s between pieces, 160 s in all: only a limit per gap lets it through.
    let server = HostileServer::start(|_, _| trickle(5, Duration::from_secs(40), 5 * PIECE)).await;
    let started = Instant::now();
    assert_eq!(read_all(&server).await, Ok(5 * PIECE));
    assert!(started.elapsed() >= Duration::from_secs(160));
}

#[tokio::test(start_paused = true)]
async fn a_body_that_stops_is_dropped_after_the_idle_limit() {
    let server = HostileServer::start(|_, _| trickle(3, Duration::from_secs(50), 10 * PIECE)).await;
    let started = Instant::now();
    let err = read_all(&server).await.unwrap_err();
    assert!(
        err.contains("the download stalled: nothing for 60 s after 210000 bytes"),
        "{err}"
    );
    // The last piece came at 100 s; the limit counts from it.
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(160) && waited < Duration::from_secs(161),
        "{waited:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_trickle_below_the_minimum_rate_ends() {
    // A byte every 5 s: every gap is far under the idle limit.
    let server =
        HostileServer::start(|_, _| trickle_of(1, 1_000, Duration::from_secs(5), 1_000)).await;
    let started = Instant::now();
    let err = read_all(&server).await.unwrap_err();
    assert!(
        err.contains("the download is too slow: 13 bytes in 60 s, after 13 bytes"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(61));
}

#[tokio::test(start_paused = true)]
async fn an_answer_whose_headers_never_come_ends() {
    // Accepts and reads, never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = url::Url::parse(&format!("http://{}", listener.local_addr().unwrap())).unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let client = ApiClient::new(ClientOptions::new(base, None)).unwrap();
    let started = Instant::now();
    let err = client.artifact_content("s1", "a1").await.unwrap_err();
    assert!(
        err.to_string()
            .contains("the download got no answer in 60 s"),
        "{err}"
    );
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(60) && waited < Duration::from_secs(61),
        "{waited:?}"
    );
}
