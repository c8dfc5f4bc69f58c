#![cfg(unix)]
//! Issue 15, items 6–9 and 11, against small purpose-built servers (raw HTTP/1.1 over TCP,
//! so each can misbehave exactly as needed): token files that never end, `tail` and its
//! pipe, frames past the app's bound, and an app that cannot reach its server.

use crate::support::app::launch;
use crate::support::cli::Home;
use crate::support::faults::terminate;
use crate::support::scripted_server::{SECRET, Server};
use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::Notify;

/// A session id of the reference's shape (the servers here answer any).
const SESSION: &str = "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af";

const TIMEOUT: Duration = Duration::from_secs(30);

/// What the event route does once its headers are out.
#[derive(Clone)]
enum Events {
    /// Nothing more, and the connection stays open (an idle session).
    Idle,
    /// Transient frames as fast as the socket takes them.
    Flood,
    /// These frames, then idle.
    Frames(Vec<String>),
}

/// A server: `/v1/health` answers, every other path is the event stream.
struct Hostile {
    base: url::Url,
    /// Signalled each time a stream's headers have been sent.
    opened: Arc<Notify>,
    /// Stream body bytes the socket has accepted.
    written: Arc<AtomicU64>,
}

impl Hostile {
    async fn start(events: Events) -> Hostile {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = url::Url::parse(&format!("http://{}", listener.local_addr().unwrap())).unwrap();
        let opened = Arc::new(Notify::new());
        let written = Arc::new(AtomicU64::new(0));
        let (o, w) = (opened.clone(), written.clone());
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, events.clone(), o.clone(), w.clone()));
            }
        });
        Hostile {
            base,
            opened,
            written,
        }
    }
}

async fn serve(
    mut socket: TcpStream,
    events: Events,
    opened: Arc<Notify>,
    written: Arc<AtomicU64>,
) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    if head.starts_with(b"GET /v1/health") {
        let body = r#"{"object":"health","status":"ok"}"#;
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = socket.write_all(reply.as_bytes()).await;
        return;
    }
    let headers = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
    if socket.write_all(headers.as_bytes()).await.is_err() {
        return;
    }
    opened.notify_one();
    let frames = match events {
        Events::Idle => Vec::new(),
        Events::Frames(frames) => frames,
        Events::Flood => {
            let frame = "event: agent.text\ndata: {\"type\":\"agent.text\",\"seq\":null,\"payload\":{\"delta\":\"flood\"}}\n\n".repeat(512);
            while socket.write_all(frame.as_bytes()).await.is_ok() {
                written.fetch_add(frame.len() as u64, Ordering::Relaxed);
            }
            return;
        }
    };
    for f in frames {
        if socket.write_all(f.as_bytes()).await.is_err() {
            return;
        }
        written.fetch_add(f.len() as u64, Ordering::Relaxed);
    }
    // Held open until the client goes away.
    let _ = socket.read(&mut buf).await;
}

fn persisted(seq: u64, text: &str) -> String {
    format!(
        "id: {seq}\nevent: agent.message\ndata: {{\"object\":\"event\",\"type\":\"agent.message\",\"session_id\":\"{SESSION}\",\"seq\":{seq},\"created_at\":1,\"payload\":{{\"text\":\"{text}\"}}}}\n\n"
    )
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

// ---- item 7: tokens ----------------------------------------------------------------------

fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test]
async fn token_files_that_never_end_or_never_start_are_configuration_errors() {
    let home = Home::new();
    let fifo = home.path("fifo");
    mkfifo(&fifo);
    for (file, expect) in [
        ("/dev/zero", "too large to be a token"),
        (fifo.to_str().unwrap(), "gave no token within"),
    ] {
        let started = Instant::now();
        let out = tokio::time::timeout(
            TIMEOUT,
            home.tokio_command(&[
                "--api",
                "http://127.0.0.1:9",
                "--token-file",
                file,
                "tail",
                SESSION,
            ])
            .output(),
        )
        .await
        .unwrap_or_else(|_| panic!("{file}: still reading after {TIMEOUT:?}"))
        .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {err}");
        assert!(err.contains(expect), "{file}: {err}");
        assert!(started.elapsed() < Duration::from_secs(15), "{file}");
    }
}

#[tokio::test]
async fn a_token_that_is_not_a_header_value_fails_before_any_request() {
    let server = Server::start(Vec::new()).await;
    let home = Home::new();
    let token_file = home.path("token");
    for bad in ["gbr_pat_ctl\u{7}x", "gbr_pat_two words"] {
        let out = home
            .tokio_command(&["--api", server.base.as_str(), "tail", SESSION])
            .env("GOBARE_TOKEN", bad)
            .output()
            .await
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("cannot be sent in an HTTP header"), "{err}");
        assert!(!err.contains("gbr_pat_"), "{err}");
        std::fs::write(&token_file, format!("{bad}\n")).unwrap();
        std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let out = home
            .tokio_command(&[
                "--api",
                server.base.as_str(),
                "--token-file",
                token_file.to_str().unwrap(),
                "tail",
                SESSION,
            ])
            .output()
            .await
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
    }
    assert!(server.seen().is_empty(), "{:?}", server.seen());
}

#[tokio::test]
async fn a_byte_order_mark_is_not_sent_as_part_of_the_token() {
    let server = Server::start(Vec::new()).await;
    let home = Home::new();
    let token_file = home.path("token");
    std::fs::write(&token_file, format!("\u{feff}{SECRET}\r\n")).unwrap();
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let _ = home
        .tokio_command(&[
            "--api",
            server.base.as_str(),
            "--token-file",
            token_file.to_str().unwrap(),
            "tail",
            SESSION,
        ])
        .output()
        .await
        .unwrap();
    assert_eq!(
        server.seen()[0].authorization.as_deref(),
        Some(format!("Bearer {SECRET}").as_str())
    );
}

#[tokio::test]
async fn no_token_where_one_is_needed_is_a_configuration_error_but_plain_start_is_the_demo() {
    let server = Server::start(Vec::new()).await;
    let home = Home::new();
    for args in [
        &["tail", SESSION][..],
        &["attach", SESSION][..],
        &["new", "hi"][..],
    ] {
        let mut all = vec!["--api", server.base.as_str()];
        all.extend(args);
        let out = home
            .tokio_command(&all)
            .stdin(Stdio::null())
            .output()
            .await
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("set GOBARE_TOKEN or --token-file"),
            "{args:?}: {err}"
        );
    }
    assert!(server.seen().is_empty(), "{:?}", server.seen());
    // No token and no subcommand: the built-in demo, which wants a terminal.
    let out = home
        .tokio_command(&[])
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("interactive terminal"), "{err}");
}

// ---- item 6: tail and its pipe -----------------------------------------------------------

#[tokio::test]
async fn tail_on_an_idle_session_exits_as_soon_as_its_reader_goes_away() {
    let server = Hostile::start(Events::Idle).await;
    let home = Home::new();
    let mut child = home
        .tokio_command(&["--api", server.base.as_str(), "tail", SESSION])
        .env("GOBARE_TOKEN", SECRET)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    tokio::time::timeout(TIMEOUT, server.opened.notified())
        .await
        .expect("the stream opened");
    drop(child.stdout.take()); // `| head` exits; nothing will ever be written
    let out = tokio::time::timeout(Duration::from_secs(10), child.wait_with_output())
        .await
        .expect("tail noticed the closed pipe without waiting for an event")
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn sigterm_is_honoured_while_tail_is_blocked_on_a_full_pipe() {
    let server = Hostile::start(Events::Flood).await;
    let home = Home::new();
    let mut child = home
        .tokio_command(&["--api", server.base.as_str(), "tail", SESSION])
        .env("GOBARE_TOKEN", SECRET)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The reader never reads: once the flood has stalled after far more than a pipe holds,
    // the whole chain is backed up (tail's queue is bounded) and tail is blocked writing.
    let stdout = child.stdout.take();
    let deadline = Instant::now() + TIMEOUT;
    let (mut last, mut since) = (0, Instant::now());
    loop {
        assert!(
            Instant::now() < deadline,
            "the flood never got going and stalled"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
        let written = server.written.load(Ordering::Relaxed);
        if written != last {
            (last, since) = (written, Instant::now());
        } else if written >= 1 << 20 && since.elapsed() >= Duration::from_millis(300) {
            break;
        }
    }
    terminate(&child);
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("SIGTERM honoured while the pipe is full")
        .unwrap();
    assert_eq!(status.code(), Some(0));
    drop(stdout);
}

#[tokio::test]
async fn the_first_failure_to_connect_is_printed_without_verbose() {
    let home = Home::new();
    let api = format!("http://127.0.0.1:{}", free_port());
    let mut child = home
        .tokio_command(&["--api", &api, "tail", SESSION])
        .env("GOBARE_TOKEN", SECRET)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut errors = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = tokio::time::timeout(TIMEOUT, errors.next_line())
        .await
        .expect("a line on stderr")
        .unwrap()
        .unwrap();
    assert!(first.contains("cannot open the event stream"), "{first}");
    assert!(!first.contains(SECRET));
    // Still trying: it has not exited.
    assert!(child.try_wait().unwrap().is_none());
    terminate(&child);
    assert_eq!(child.wait().await.unwrap().code(), Some(0));
    let mut rest = String::new();
    while let Ok(Some(line)) = errors.next_line().await {
        rest.push_str(&line);
    }
    assert!(!rest.contains("cannot open"), "reported once: {rest}");
}

// ---- item 8: frames past the app's bound -------------------------------------------------

#[tokio::test]
async fn tail_prints_a_persisted_event_larger_than_16_mib() {
    let big = "x".repeat(20 << 20);
    let server = Hostile::start(Events::Frames(vec![
        persisted(1, &big),
        persisted(2, "after"),
    ]))
    .await;
    let home = Home::new();
    let mut child = home
        .tokio_command(&[
            "--api",
            server.base.as_str(),
            "tail",
            SESSION,
            "--from",
            "0",
        ])
        .env("GOBARE_TOKEN", SECRET)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    for _ in 0..2 {
        let line = tokio::time::timeout(TIMEOUT, lines.next_line())
            .await
            .expect("a line")
            .unwrap()
            .expect("not the end");
        seen.push(line);
    }
    assert!(seen[0].len() > 20 << 20, "{}", seen[0].len());
    assert!(seen[0].contains("\"seq\":1"));
    assert!(seen[1].contains("\"seq\":2") && seen[1].contains("after"));
    terminate(&child);
    let out = child.wait_with_output().await.unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---- item 11: an app that cannot reach its server ----------------------------------------

#[test]
fn attaching_to_an_unreachable_server_says_so_and_shows_config_warnings() {
    let home = tempfile::tempdir().unwrap();
    let token = home.path().join("token");
    std::fs::write(&token, format!("{SECRET}\n")).unwrap();
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).unwrap();
    let api = format!("http://127.0.0.1:{}", free_port());
    let args = [
        "--api",
        &api,
        "--token-file",
        token.to_str().unwrap(),
        "attach",
        SESSION,
    ];
    let mut pty = launch(&args, &home).size(140, 40).spawn();
    // The warning printed on stderr before the screen opened is shown on the screen.
    pty.wait_for_text("can be read by other users", TIMEOUT);
    pty.wait_for_text("nothing has loaded yet", TIMEOUT);
    let screen = pty.screen_text();
    assert!(screen.contains("Cannot reach 127.0.0.1"), "{screen}");
    assert!(!screen.contains("No messages yet"), "{screen}");
    assert!(!screen.contains(SECRET), "{screen}");
    pty.send_keys("\x03");
    pty.wait_exit(TIMEOUT);
}
