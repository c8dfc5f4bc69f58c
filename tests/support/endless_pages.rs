//! A hostile list server: every list (`GET /v1/sessions`, `GET …/artifacts`) says
//! `has_more: true` forever, its cursor chosen by a [`Cursors`] plan, and every request is
//! counted. Real HTTP on 127.0.0.1:0; anything else is a 404.

use axum::Router;
use axum::extract::{Query, State};
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use url::Url;

/// The session id whose artifacts the server lists.
pub(crate) const SESSION: &str = "0f0e0d0c-0b0a-4009-8807-060504030201";

/// Which `last_id` a page ends with.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Cursors {
    /// The same cursor on every page.
    Same,
    /// Two cursors in turn.
    Cycle,
    /// A new cursor on every page.
    New,
}

struct Shared {
    cursors: Cursors,
    requests: AtomicUsize,
}

pub(crate) struct EndlessPages {
    pub(crate) base: Url,
    shared: Arc<Shared>,
}

impl EndlessPages {
    pub(crate) async fn start(cursors: Cursors) -> EndlessPages {
        let shared = Arc::new(Shared {
            cursors,
            requests: AtomicUsize::new(0),
        });
        let app = Router::new().fallback(answer).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        EndlessPages {
            base: Url::parse(&format!("http://{addr}")).unwrap(),
            shared,
        }
    }

    /// Requests answered so far.
    pub(crate) fn requests(&self) -> usize {
        self.shared.requests.load(Ordering::SeqCst)
    }
}

async fn answer(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let n = shared.requests.fetch_add(1, Ordering::SeqCst);
    let cursor = match shared.cursors {
        Cursors::Same => "c0".to_string(),
        Cursors::Cycle => format!("c{}", n % 2),
        Cursors::New => format!("c{n}"),
    };
    let limit: usize = query
        .get("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(10);
    let data: Vec<_> = match uri.path() {
        "/v1/sessions" => (0..limit)
            .map(|i| {
                json!({"object": "session", "id": format!("00000000-0000-4000-8000-{:012}", n * limit + i),
                       "title": "endless", "status": "idle", "created_at": 1, "updated_at": 1})
            })
            .collect(),
        path if path == format!("/v1/sessions/{SESSION}/artifacts") => (0..limit)
            .map(|i| {
                json!({"object": "artifact", "id": format!("art_{n}_{i}"), "session_id": SESSION,
                       "turn_id": "turn_1", "path": format!("/workspace/outputs/f{n}_{i}.txt"),
                       "size_bytes": 1, "created_at": 1})
            })
            .collect(),
        _ => return axum::http::StatusCode::NOT_FOUND.into_response(),
    };
    axum::Json(json!({"object": "list", "data": data, "has_more": true, "last_id": cursor}))
        .into_response()
}
