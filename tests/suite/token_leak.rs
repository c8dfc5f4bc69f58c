#![cfg(unix)]
//! The token never leaves (issue 6): not on stdout or stderr of `tail --verbose` through
//! drops and refusals, not in the log files, not in an error that a hostile server built
//! by echoing it, not in `Debug` of any configuration or client struct. A token file that
//! others can read is warned about; plain `http://` to a non-loopback host is refused
//! unless `--allow-insecure-http`.

use crate::support;

use crate::support::cli::Home;
use crate::support::faults::{read_tree, tail_until};
use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions};
use gobare_api::stream::ConnectionState;
use gobare_api::stream::{StreamOptions, StreamTarget, StreamUpdate, spawn};
use gobare_sim::{Faults, SimConfig, Simulator};
use gobare_tui::cli::GlobalArgs;
use gobare_tui::config::{Config, EnvVars};
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

/// A session id of the reference's shape (the servers here answer any).
const SESSION: &str = "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af";

const TOKEN: &str = "gbr_pat_Zq7LeakCanary9xW2";

fn assert_clean(what: &str, text: &str) {
    assert!(
        !text.contains(TOKEN),
        "the token appears in {what}:\n{text}"
    );
    // Not even a recognisable part of it.
    assert!(!text.contains("LeakCanary"), "part of the token in {what}");
}

#[tokio::test]
async fn tail_verbose_through_drops_and_refusals_never_shows_or_logs_the_token() {
    let sim = Simulator::start(SimConfig {
        token: Some(TOKEN.into()),
        ..support::faults::sim_config()
    })
    .await
    .unwrap();
    let id = sim.create_session(Some("canary"));
    sim.seed_events(&id, 1_000);
    sim.set_faults(Faults {
        drop_every_n_frames: Some(150),
        refuse_share: 0.3,
        refuse_status: 429,
        refuse_retry_after_secs: 1,
        ..Faults::default()
    });
    let run = tail_until(
        &sim,
        &id,
        0,
        sim.last_seq(),
        &["--verbose"],
        Duration::from_secs(120),
    )
    .await;
    assert_eq!(run.persisted().len(), 1_000, "the token worked");
    assert!(
        run.stderr.contains("reconnecting"),
        "verbose: {}",
        run.stderr
    );
    assert!(!run.logs.is_empty(), "a log file was written");
    assert_clean("stdout", &run.lines.join("\n"));
    assert_clean("stderr", &run.stderr);
    assert_clean("the log files", &run.logs);
    sim.shutdown().await;
}

/// A server that puts the presented Authorization header into its error messages.
async fn echoing_server() -> url::Url {
    fn echo(status: StatusCode, headers: &HeaderMap) -> axum::response::Response {
        let auth = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let body = serde_json::json!({"error": {"type": "error", "code": "authentication_error",
            "message": format!("token {auth} is not valid"), "request_id": format!("req {auth}")}});
        (
            status,
            [
                ("content-type", "application/json"),
                ("x-request-id", "req-echo"),
            ],
            body.to_string(),
        )
            .into_response()
    }
    let app = Router::new()
        .route(
            "/v1/health",
            get(|h: HeaderMap| async move { echo(StatusCode::UNAUTHORIZED, &h) }),
        )
        .route(
            "/v1/sessions/{id}/events",
            get(|h: HeaderMap| async move { echo(StatusCode::FORBIDDEN, &h) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url::Url::parse(&format!("http://{addr}/")).unwrap()
}

#[tokio::test]
async fn errors_built_from_a_server_echo_of_the_token_are_redacted() {
    let api = echoing_server().await;
    // The binary (health check first): stderr and logs.
    let home = Home::new();
    let out = home
        .tokio_command(&["--api", api.as_str(), "--verbose", "tail", SESSION])
        .env("GOBARE_TOKEN", TOKEN)
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_clean("tail stderr", &String::from_utf8_lossy(&out.stderr));
    assert_clean("tail stdout", &String::from_utf8_lossy(&out.stdout));
    assert_clean("tail logs", &read_tree(&home.state_dir()));
    // The client's typed error (summary, Display, Debug).
    let client = ApiClient::new(ClientOptions::new(api.clone(), Token::new(TOKEN))).unwrap();
    let err = client.health().await.unwrap_err();
    assert_clean("ApiError Display", &err.to_string());
    assert_clean("ApiError Debug", &format!("{err:?}"));
    assert_clean("ApiError summary", &err.summary());
    // The stream task's failure reason.
    let mut handle = spawn(StreamOptions {
        api,
        token: Token::new(TOKEN),
        target: StreamTarget::Session("s1".into()),
        from: Some(0),
        ..StreamOptions::default()
    });
    let mut reasons = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(u) = handle.updates.recv().await {
            reasons.push_str(&format!("{u:?}\n"));
            if let StreamUpdate::State(ConnectionState::Failed { .. }) = u {
                break;
            }
        }
    })
    .await;
    assert!(reasons.contains("Failed"), "{reasons}");
    assert_clean("stream updates", &reasons);
}

#[test]
fn debug_of_every_config_and_client_struct_hides_the_token() {
    let home = Home::new();
    let env = EnvVars {
        gobare_token: Some(TOKEN.into()),
        xdg_config_home: Some(home.0.join("config")),
        xdg_state_home: Some(home.0.join("state")),
        screen_reader: None,
    };
    let args = GlobalArgs::default();
    let mut warnings = Vec::new();
    let config = Config::resolve(&args, &env, &mut warnings).unwrap();
    assert_eq!(config.token.as_ref().map(Token::expose), Some(TOKEN));
    let options = config.client_options();
    let stream = config
        .stream_options(StreamTarget::Session("s".into()), Some(0))
        .unwrap();
    let token = Token::new(TOKEN).unwrap();
    for (what, text) in [
        ("EnvVars", format!("{env:?} {env:#?}")),
        ("Config", format!("{config:?} {config:#?}")),
        ("ClientOptions", format!("{options:?}")),
        ("StreamOptions", format!("{stream:?}")),
        ("Token", format!("{token:?} {token}")),
        ("warnings", format!("{warnings:?}")),
    ] {
        assert_clean(what, &text);
    }
}

#[test]
fn a_token_file_readable_by_others_is_warned_about() {
    let home = Home::new();
    let path = home.0.join("token");
    std::fs::write(&path, format!("{TOKEN}\n")).unwrap();
    let env = EnvVars {
        xdg_config_home: Some(home.0.join("config")),
        xdg_state_home: Some(home.0.join("state")),
        ..EnvVars::default()
    };
    let args = GlobalArgs {
        token_file: Some(path.clone()),
        ..GlobalArgs::default()
    };
    for (mode, warned) in [
        (0o600, false),
        (0o400, false),
        (0o640, true),
        (0o604, true),
        (0o644, true),
    ] {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        let mut warnings = Vec::new();
        let config = Config::resolve(&args, &env, &mut warnings).unwrap();
        assert_eq!(config.token.as_ref().map(Token::expose), Some(TOKEN));
        assert_eq!(!warnings.is_empty(), warned, "mode {mode:o}: {warnings:?}");
        for w in &warnings {
            assert!(w.contains("chmod 600"), "{w}");
            assert_clean("the warning", w);
        }
    }
}

#[tokio::test]
async fn plain_http_to_a_remote_host_is_refused_unless_allowed() {
    // The binary refuses before any request (nothing listens there; a request would hang
    // or fail differently).
    let home = Home::new();
    let out = tokio::time::timeout(
        Duration::from_secs(20),
        home.tokio_command(&["--api", "http://api.example.com", "tail", SESSION])
            .env("GOBARE_TOKEN", TOKEN)
            .output(),
    )
    .await
    .expect("refused at once")
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        err.contains("refusing to send the token over plain http://"),
        "{err}"
    );
    assert!(err.contains("--allow-insecure-http"), "{err}");
    assert_clean("stderr", &err);

    // The same rule in the library, and the flag lifting it.
    let remote = url::Url::parse("http://api.example.com").unwrap();
    let mut opts = ClientOptions::new(remote.clone(), Token::new(TOKEN));
    assert!(ApiClient::new(opts.clone()).is_err());
    opts.allow_insecure_http = true;
    assert!(ApiClient::new(opts).is_ok());
    let env = EnvVars {
        gobare_token: Some(TOKEN.into()),
        xdg_config_home: Some(home.0.join("config")),
        xdg_state_home: Some(home.0.join("state")),
        screen_reader: None,
    };
    let mut args = GlobalArgs {
        api: Some(remote),
        ..GlobalArgs::default()
    };
    let target = || StreamTarget::Session("s".into());
    let config = Config::resolve(&args, &env, &mut Vec::new()).unwrap();
    assert!(config.stream_options(target(), None).is_err());
    args.allow_insecure_http = true;
    let config = Config::resolve(&args, &env, &mut Vec::new()).unwrap();
    assert!(config.stream_options(target(), None).is_ok());
    // Loopback and https need no flag.
    for ok in [
        "http://127.0.0.1:4780",
        "http://localhost:1",
        "https://api.example.com",
    ] {
        let opts = ClientOptions::new(url::Url::parse(ok).unwrap(), Token::new(TOKEN));
        assert!(ApiClient::new(opts).is_ok(), "{ok}");
    }
}
