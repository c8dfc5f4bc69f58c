#![cfg(unix)]
//! `gobare-tui tail` as a process: against a refusing server, a streaming server, an
//! unreachable one, and a reader that goes away.

use crate::support::cli::{Home, read_logs};
use crate::support::scripted_server::{Reply, SECRET, Server};
use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

/// A session id of the reference's shape (the servers here answer any).
const SESSION: &str = "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af";

fn unauthorized() -> Reply {
    Reply::error(401, "authentication_error", Some("req-401")).header(
        "www-authenticate",
        "Bearer realm=\"gobare\", error=\"invalid_token\"",
    )
}

#[tokio::test]
async fn a_refused_token_exits_1_with_a_clear_message_and_no_token() {
    let server = Server::start(vec![unauthorized()]).await;
    let home = Home::new();
    let out = home
        .tokio_command(&[
            "--api",
            server.base.as_str(),
            "tail",
            SESSION,
            "--from",
            "0",
        ])
        .env("GOBARE_TOKEN", SECRET)
        .output()
        .await
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("authentication failed"), "{err}");
    assert!(err.contains("GOBARE_TOKEN"), "{err}");
    assert!(err.contains("req-401"), "{err}");
    assert!(out.stdout.is_empty());
    assert!(!err.contains(SECRET));
    assert!(
        !read_logs(&home.log_dir()).contains(SECRET),
        "token in the log file"
    );
    assert_eq!(server.seen()[0].target, "/v1/health");
}

#[tokio::test]
async fn the_token_file_is_used_and_a_loose_mode_warns() {
    let server = Server::start(vec![unauthorized()]).await;
    let home = Home::new();
    let token_path = home.path("token");
    std::fs::write(&token_path, format!("{SECRET}\n")).unwrap();
    std::fs::set_permissions(&token_path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = home
        .tokio_command(&[
            "--api",
            server.base.as_str(),
            "--token-file",
            token_path.to_str().unwrap(),
            "tail",
            SESSION,
        ])
        .env("GOBARE_TOKEN", "gbr_pat_from_env_loses")
        .output()
        .await
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("chmod 600"), "{err}");
    assert!(!err.contains(SECRET));
    assert_eq!(
        server.seen()[0].authorization.as_deref(),
        Some(format!("Bearer {SECRET}").as_str())
    );
}

#[tokio::test]
async fn api_comes_from_env_over_the_config_file() {
    let server = Server::start(vec![unauthorized(), unauthorized()]).await;
    let home = Home::new();
    // The file alone is enough to find the server...
    home.write_config(&format!("api = \"{}\"\n[ui]\nfuture = true\n", server.base));
    let out = home
        .tokio_command(&["tail", "--org"])
        .env("GOBARE_TOKEN", SECRET)
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(server.seen().len(), 1);
    // ...and GOBARE_API wins over it.
    home.write_config("api = \"http://127.0.0.1:9\"\n");
    let out = home
        .tokio_command(&["tail", "--org"])
        .env("GOBARE_TOKEN", SECRET)
        .env("GOBARE_API", server.base.as_str())
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(server.seen().len(), 2);
}

/// A server that answers health and streams `frames` on the session's event route, then
/// keeps the connection open with one more frame every `tick`.
async fn sse_server(frames: Vec<String>, tick: Duration) -> url::Url {
    use axum::response::sse::{Event, Sse};
    use axum::routing::get;
    use futures_util::StreamExt;
    let app = axum::Router::new()
        .route(
            "/v1/health",
            get(|| async { axum::Json(serde_json::json!({"object":"health","status":"ok"})) }),
        )
        .route(
            "/v1/sessions/{id}/events",
            get(move || {
                let first = frames.clone();
                async move {
                    let replay = futures_util::stream::iter(first).map(|d| Ok::<_, std::convert::Infallible>(Event::default().data(d)));
                    let live = futures_util::stream::unfold(0u64, move |n| async move {
                        tokio::time::sleep(tick).await;
                        let data = format!("{{\"type\":\"agent.text\",\"seq\":null,\"payload\":{{\"delta\":\"{n}\"}}}}");
                        Some((Ok(Event::default().event("agent.text").data(data)), n + 1))
                    });
                    Sse::new(replay.chain(live))
                }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url::Url::parse(&format!("http://{addr}")).unwrap()
}

fn terminate(child: &tokio::process::Child) {
    let pid = child.id().unwrap().to_string();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test]
async fn frames_print_as_lines_and_sigterm_exits_0() {
    let persisted = &format!(
        r#"{{"object":"event","type":"agent.message","session_id":"{SESSION}","seq":4812,"created_at":1,"payload":{{"text":"done"}}}}"#
    );
    let api = sse_server(vec![persisted.to_string()], Duration::from_secs(3600)).await;
    let home = Home::new();
    let mut child = home
        .tokio_command(&["--api", api.as_str(), "tail", SESSION, "--from", "0"])
        .env("GOBARE_TOKEN", SECRET)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await
        .expect("a line within 20 s")
        .unwrap();
    assert_eq!(first.as_deref(), Some(persisted.as_str()));
    terminate(&child);
    let status = child.wait().await.unwrap();
    assert_eq!(status.code(), Some(0));
}

#[tokio::test]
async fn a_closed_stdout_exits_0_quietly() {
    let api = sse_server(Vec::new(), Duration::from_millis(20)).await;
    let home = Home::new();
    let mut child = home
        .tokio_command(&["--api", api.as_str(), "tail", SESSION])
        .env("GOBARE_TOKEN", SECRET)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await
        .expect("a line within 20 s")
        .unwrap();
    drop(lines); // like `| head -1`
    let out = tokio::time::timeout(Duration::from_secs(20), child.wait_with_output())
        .await
        .expect("exits after its reader goes away")
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn an_unreachable_server_is_retried_and_reported_only_with_verbose() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let home = Home::new();
    let api = format!("http://127.0.0.1:{port}");
    let mut child = home
        .tokio_command(&["--api", &api, "--verbose", "tail", SESSION])
        .env("GOBARE_TOKEN", SECRET)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut errors = BufReader::new(child.stderr.take().unwrap()).lines();
    let saw_retry = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = errors.next_line().await {
            assert!(!line.contains(SECRET));
            if line.contains("reconnecting") {
                return true;
            }
        }
        false
    })
    .await
    .expect("a reconnect report within 30 s");
    assert!(saw_retry);
    terminate(&child);
    assert_eq!(child.wait().await.unwrap().code(), Some(0));
}
