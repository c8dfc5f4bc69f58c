//! The token never appears in Debug or Display of the client, the configuration or any
//! error, and is never sent in clear text to a host that is not loopback.

use crate::support::scripted_server::{Reply, SECRET, Server};
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions, IdempotencyKey};
use gobare_api::error::ApiErrorKind;
use gobare_api::model::Input;
use gobare_tui::cli::GlobalArgs;
use gobare_tui::config::{Config, EnvVars};
use url::Url;

fn assert_hidden(text: &str) {
    assert!(!text.contains(SECRET), "token leaked: {text}");
    assert!(!text.contains("TOPSECRET"), "token fragment leaked: {text}");
}

fn options(url: &str, token: bool) -> ClientOptions {
    ClientOptions::new(
        Url::parse(url).unwrap(),
        token.then(|| Token::new(SECRET).unwrap()),
    )
}

#[tokio::test]
async fn client_and_errors_never_show_the_token() {
    // A hostile server that echoes the Authorization header into every error it sends.
    let echo = format!("Bearer {SECRET} is not welcome");
    let server = Server::start(vec![
        Reply::json(
            401,
            serde_json::json!({"error":{"code":"authentication_error","message":echo,"request_id":SECRET}}),
        ),
        Reply::raw(502, "text/html", &format!("<p>{echo}</p>")),
        Reply::raw(200, "application/json", &format!("{{\"broken\": \"{SECRET}")),
    ])
    .await;
    let client = server.client();
    assert_hidden(&format!("{client:?}"));
    let key = IdempotencyKey::new();
    let input = Input::Cancel {};
    for _ in 0..3 {
        let e = client.send("s1", &input, &key).await.unwrap_err();
        assert_hidden(&format!("{e}"));
        assert_hidden(&format!("{e:?}"));
        assert_hidden(&format!("{:?}", color_eyre::Report::from(e)));
    }
    // And the request itself did carry it, so the test would notice a missing header.
    assert_eq!(
        server.seen()[0].authorization.as_deref(),
        Some(format!("Bearer {SECRET}").as_str())
    );
}

#[tokio::test]
async fn network_errors_never_show_the_token() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let client = ApiClient::new(options(&format!("http://127.0.0.1:{port}"), true)).unwrap();
    let e = client.health().await.unwrap_err();
    assert_eq!(e.kind, ApiErrorKind::Network);
    assert_hidden(&format!("{e} {e:?}"));
}

#[test]
fn config_never_shows_the_token() {
    let env = EnvVars {
        gobare_token: Some(SECRET.into()),
        xdg_config_home: Some(std::env::temp_dir().join("gobare-secrets-none/config")),
        xdg_state_home: Some(std::env::temp_dir().join("gobare-secrets-none/state")),
        screen_reader: None,
    };
    let config = Config::resolve(&GlobalArgs::default(), &env, &mut Vec::new()).unwrap();
    assert_eq!(config.token.as_ref().map(Token::expose), Some(SECRET));
    assert_hidden(&format!("{config:?}"));
    assert_hidden(&format!("{:?}", config.client_options()));
    assert_hidden(&format!("{:?}", config.client().unwrap()));
}

#[test]
fn plain_http_to_a_remote_host_is_refused_with_a_token() {
    for url in [
        "http://api.gobare.dev",
        "http://10.1.2.3:8080/",
        "http://[2001:db8::1]/",
    ] {
        let e = ApiClient::new(options(url, true)).unwrap_err();
        assert_eq!(e.kind, ApiErrorKind::Config, "{url}");
        let text = e.to_string();
        assert!(text.contains("--allow-insecure-http"), "{text}");
        assert_hidden(&text);
    }
}

#[test]
fn plain_http_is_allowed_to_loopback_without_a_token_or_when_asked() {
    for url in [
        "http://127.0.0.1:4780",
        "http://localhost:4780/",
        "http://[::1]:4780",
    ] {
        assert!(ApiClient::new(options(url, true)).is_ok(), "{url}");
    }
    assert!(ApiClient::new(options("http://api.example", false)).is_ok());
    let mut insecure = options("http://api.example", true);
    insecure.allow_insecure_http = true;
    assert!(ApiClient::new(insecure).is_ok());
    assert!(ApiClient::new(options("https://api.example", true)).is_ok());
}
