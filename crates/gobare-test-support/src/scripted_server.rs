//! A scripted HTTP server for client tests: answers requests with queued replies in order
//! and records what it received. Real HTTP on 127.0.0.1:0, no mocks of our own client.

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use url::Url;

pub const SECRET: &str = "gbr_pat_TOPSECRET0123456789";

/// One canned answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
}

impl Reply {
    pub fn json(status: u16, body: serde_json::Value) -> Reply {
        Reply {
            status,
            headers: vec![("content-type", "application/json".into())],
            body: body.to_string(),
        }
    }

    /// The API's error envelope.
    pub fn error(status: u16, code: &str, request_id: Option<&str>) -> Reply {
        let mut body =
            serde_json::json!({"error":{"code":code,"message":format!("{code} happened")}});
        if let Some(id) = request_id {
            body["error"]["request_id"] = id.into();
        }
        Reply::json(status, body)
    }

    pub fn raw(status: u16, content_type: &str, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("content-type", content_type.to_string())],
            body: body.to_string(),
        }
    }

    pub fn header(mut self, name: &'static str, value: &str) -> Reply {
        self.headers.push((name, value.to_string()));
        self
    }
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    /// Path and query, e.g. `/v1/sessions/s1/items?limit=100&order=asc`.
    pub target: String,
    pub idempotency_key: Option<String>,
    pub authorization: Option<String>,
    pub body: String,
}

impl Seen {
    pub fn query_param(&self, name: &str) -> Option<String> {
        let url = Url::parse(&format!("http://x{}", self.target)).unwrap();
        url.query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    }
}

#[derive(Default)]
struct Script {
    replies: Mutex<VecDeque<Reply>>,
    seen: Mutex<Vec<Seen>>,
}

/// A running scripted server.
pub struct Server {
    pub base: Url,
    script: Arc<Script>,
}

impl Server {
    pub async fn start(replies: Vec<Reply>) -> Server {
        let script = Arc::new(Script {
            replies: Mutex::new(replies.into()),
            seen: Mutex::default(),
        });
        let app = Router::new().fallback(answer).with_state(script.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Server {
            base: Url::parse(&format!("http://{addr}")).unwrap(),
            script,
        }
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.script.seen.lock().unwrap().clone()
    }

    /// A client for this server with the test token.
    pub fn client(&self) -> ApiClient {
        ApiClient::new(ClientOptions::new(self.base.clone(), Token::new(SECRET))).unwrap()
    }

    /// A client that hands back the first refusal of a read instead of waiting it out
    /// (tests of how an answer is read).
    pub fn client_reading_once(&self) -> ApiClient {
        let mut options = ClientOptions::new(self.base.clone(), Token::new(SECRET));
        options.read_attempts = 1;
        ApiClient::new(options).unwrap()
    }
}

async fn answer(
    State(script): State<Arc<Script>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let header = |name: &str| {
        headers
            .get(name)
            .map(|v| v.to_str().unwrap_or("<binary>").to_string())
    };
    script.seen.lock().unwrap().push(Seen {
        method: method.to_string(),
        target: uri.to_string(),
        idempotency_key: header("idempotency-key"),
        authorization: header("authorization"),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let next = script.replies.lock().unwrap().pop_front();
    let Some(reply) = next else {
        return (StatusCode::IM_A_TEAPOT, "script exhausted").into_response();
    };
    let mut response = Response::builder().status(reply.status);
    for (name, value) in reply.headers {
        response = response.header(name, value);
    }
    response.body(reply.body.into()).unwrap()
}
