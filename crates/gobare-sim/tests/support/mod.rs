//! Helpers shared by the simulator tests: an HTTP client bound to a simulator, a small
//! SSE reader that tolerates CRLF and arbitrary chunking, and a JSON shape comparator.

use std::time::Duration;

use gobare_sim::{SimConfig, Simulator};
use serde_json::{Value, json};

pub(crate) const WAIT: Duration = Duration::from_secs(10);

pub(crate) struct Api {
    pub(crate) sim: Simulator,
    pub(crate) http: reqwest::Client,
    pub(crate) base: String,
    pub(crate) token: String,
}

impl Api {
    pub(crate) async fn start(config: SimConfig) -> Api {
        let sim = Simulator::start(config).await.expect("simulator starts");
        let base = sim.url().as_str().trim_end_matches('/').to_string();
        let token = sim.token();
        Api {
            sim,
            http: reqwest::Client::new(),
            base,
            token,
        }
    }

    pub(crate) async fn test() -> Api {
        Api::start(SimConfig::for_tests()).await
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub(crate) fn req(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, self.url(path))
            .bearer_auth(&self.token)
    }

    pub(crate) async fn get(&self, path: &str) -> (u16, Value) {
        let r = self.req(reqwest::Method::GET, path).send().await.unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub(crate) async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self
            .req(reqwest::Method::POST, path)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub(crate) async fn new_session(&self) -> String {
        let (status, body) = self.post("/v1/sessions", json!({})).await;
        assert_eq!(status, 201, "{body}");
        body["id"].as_str().unwrap().to_string()
    }

    pub(crate) async fn send(&self, session: &str, event: Value) -> (u16, Value) {
        self.post(
            &format!("/v1/sessions/{session}/events"),
            json!({ "events": [event] }),
        )
        .await
    }

    pub(crate) async fn message(&self, session: &str, text: &str) -> (u16, Value) {
        self.send(session, json!({"type": "input.message", "content": text}))
            .await
    }

    pub(crate) async fn session(&self, id: &str) -> Value {
        let (status, body) = self.get(&format!("/v1/sessions/{id}")).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    pub(crate) async fn turn(&self, session: &str, turn: &str) -> Value {
        let (status, body) = self
            .get(&format!("/v1/sessions/{session}/turns/{turn}"))
            .await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// Opens the session stream (`cursor` as query), asserting 200.
    pub(crate) async fn stream(&self, session: &str, cursor: Option<u64>) -> Sse {
        let path = match cursor {
            Some(c) => format!("/v1/sessions/{session}/events?last_event_id={c}"),
            None => format!("/v1/sessions/{session}/events"),
        };
        let resp = self.req(reqwest::Method::GET, &path).send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        Sse::new(resp)
    }

    /// Polls `check` on the session until it holds (a state the server settles on its
    /// own, e.g. after an event arrived).
    pub(crate) async fn until_session(&self, id: &str, check: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let s = self.session(id).await;
            if check(&s) {
                return s;
            }
            assert!(tokio::time::Instant::now() < deadline, "timed out: {s}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// One SSE frame as a client sees it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Frame {
    pub(crate) id: Option<String>,
    pub(crate) event: Option<String>,
    pub(crate) data: Option<String>,
    pub(crate) retry: Option<String>,
    pub(crate) comment: Option<String>,
}

impl Frame {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(self.data.as_deref().unwrap_or("null")).unwrap()
    }
    pub(crate) fn kind(&self) -> String {
        self.event.clone().unwrap_or_default()
    }
}

pub(crate) struct Sse {
    resp: reqwest::Response,
    buf: String,
    pub(crate) raw: String,
    pub(crate) ended: bool,
    /// Body chunks received so far.
    pub(crate) chunks: usize,
}

impl Sse {
    pub(crate) fn new(resp: reqwest::Response) -> Sse {
        Sse {
            resp,
            buf: String::new(),
            raw: String::new(),
            ended: false,
            chunks: 0,
        }
    }

    /// The next frame (blank-line terminated), or None at EOF / timeout.
    pub(crate) async fn next(&mut self, timeout: Duration) -> Option<Frame> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let normalized = self.buf.replace("\r\n", "\n");
            if let Some(end) = normalized.find("\n\n") {
                let block = normalized[..end].to_string();
                self.buf = normalized[end + 2..].to_string();
                let mut f = Frame::default();
                for line in block.lines() {
                    if let Some(c) = line.strip_prefix(':') {
                        f.comment = Some(c.trim().to_string());
                    } else if let Some((k, v)) = line.split_once(": ") {
                        let v = Some(v.to_string());
                        match k {
                            "id" => f.id = v,
                            "event" => f.event = v,
                            "data" => f.data = v,
                            "retry" => f.retry = v,
                            _ => {}
                        }
                    }
                }
                return Some(f);
            }
            if self.ended {
                return None;
            }
            let chunk = tokio::time::timeout_at(deadline, self.resp.chunk()).await;
            match chunk {
                Ok(Ok(Some(bytes))) => {
                    self.chunks += 1;
                    let s = String::from_utf8_lossy(&bytes).to_string();
                    self.raw.push_str(&s);
                    self.buf.push_str(&s);
                }
                Ok(_) => {
                    self.ended = true;
                }
                Err(_) => return None,
            }
        }
    }

    /// Frames until one of type `kind` (inclusive), failing on timeout.
    pub(crate) async fn until(&mut self, kind: &str) -> Vec<Frame> {
        let mut seen = Vec::new();
        loop {
            let f = self
                .next(WAIT)
                .await
                .unwrap_or_else(|| panic!("no {kind} frame; saw {:?}", kinds(&seen)));
            let hit = f.kind() == kind;
            seen.push(f);
            if hit {
                return seen;
            }
        }
    }

    /// Event frames only (skips retry and pings) until `kind`.
    pub(crate) async fn events_until(&mut self, kind: &str) -> Vec<Frame> {
        self.until(kind)
            .await
            .into_iter()
            .filter(|f| f.event.is_some())
            .collect()
    }
}

pub(crate) fn kinds(frames: &[Frame]) -> Vec<String> {
    frames.iter().map(Frame::kind).collect()
}

/// Fields whose contents are a tool's own arguments.
const FREE_FORM: [&str; 2] = ["args", "arguments"];

/// Same keys and JSON types, recursively (arrays compare their first elements).
pub(crate) fn same_shape(actual: &Value, expected: &Value, path: &str) -> Result<(), String> {
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => {
            let ak: Vec<_> = a.keys().collect();
            let ek: Vec<_> = e.keys().collect();
            if ak != ek {
                return Err(format!("{path}: keys {ak:?} != {ek:?}"));
            }
            for (k, v) in a {
                // Tool arguments are the tool's own data, not part of the envelope.
                if FREE_FORM.contains(&k.as_str()) {
                    if v.is_object() != e[k].is_object() {
                        return Err(format!("{path}.{k}: not an object"));
                    }
                    continue;
                }
                same_shape(v, &e[k], &format!("{path}.{k}"))?;
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(e)) => match (a.first(), e.first()) {
            (Some(x), Some(y)) => same_shape(x, y, &format!("{path}[0]")),
            _ => Ok(()),
        },
        (Value::Number(a), Value::Number(e)) => {
            if a.is_f64() == e.is_f64() {
                Ok(())
            } else {
                Err(format!("{path}: number kinds differ"))
            }
        }
        // Nullable fields: the example may show a value where we show null, or vice versa.
        (Value::Null, _) | (_, Value::Null) => Ok(()),
        (a, e) if std::mem::discriminant(a) == std::mem::discriminant(e) => Ok(()),
        (a, e) => Err(format!("{path}: {a} is not the same type as {e}")),
    }
}

pub(crate) fn examples() -> Value {
    serde_json::from_str(include_str!("../../../../assets/event-payloads.json")).unwrap()
}
