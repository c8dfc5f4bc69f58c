//! Random requests never produce a 5xx and never take the server down.

use crate::support::Api;
use proptest::prelude::*;
use serde_json::Value;

fn method() -> impl Strategy<Value = reqwest::Method> {
    prop_oneof![
        Just(reqwest::Method::GET),
        Just(reqwest::Method::POST),
        Just(reqwest::Method::PATCH),
        Just(reqwest::Method::DELETE),
        Just(reqwest::Method::PUT),
    ]
}

fn path() -> impl Strategy<Value = String> {
    let tail = prop_oneof![
        Just(String::new()),
        Just("/events".to_string()),
        Just("/turns".to_string()),
        Just("/turns/turn_0000".to_string()),
        Just("/items".to_string()),
        Just("/fork".to_string()),
        Just("/artifacts".to_string()),
        Just("/artifacts/art_1/content".to_string()),
        "/[a-z%]{0,8}",
    ];
    prop_oneof![
        Just("/v1/sessions".to_string()),
        Just("/v1/events".to_string()),
        Just("/v1/health".to_string()),
        ("(SESSION|nope|%00|[a-z0-9-]{1,12})", tail)
            .prop_map(|(id, t)| format!("/v1/sessions/{id}{t}")),
        "/[a-z0-9/._-]{0,20}",
    ]
}

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "(limit|order|after|last_event_id|root|status|before)=[a-z0-9-]{0,5}"
            .prop_map(|q| format!("?{q}")),
        "[a-z=&%]{0,12}".prop_map(|q| format!("?{q}")),
    ]
}

fn body() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("{}".to_string()),
        Just(r#"{"events":[{"type":"input.message","content":"hi"}]}"#.to_string()),
        Just(r#"{"events":[{"type":"input.cancel"}]}"#.to_string()),
        Just(r#"{"events":[{"type":"input.steer","content":[{"type":"input_text","text":"x"}]}]}"#.to_string()),
        Just(r#"{"events":[{"type":"input.tool_result","turn_id":"t","call_id":"c","success":true}]}"#.to_string()),
        Just(r#"{"title":null,"metadata":{"a":1}}"#.to_string()),
        Just(r#"{"agent":{"approval_mode":7}}"#.to_string()),
        any::<Vec<u8>>().prop_map(|b| String::from_utf8_lossy(&b).to_string()),
        "\\PC{0,40}",
    ]
}

#[test]
fn random_requests_never_5xx() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let api = rt.block_on(Api::test());
    let session = api.sim.create_session(None);
    let config = ProptestConfig {
        cases: 500,
        ..ProptestConfig::default()
    };
    let cases = std::sync::atomic::AtomicUsize::new(0);
    proptest!(config, |(m in method(), p in path(), q in query(), b in body(), auth in any::<bool>())| {
        cases.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = p.replace("SESSION", &session);
        let status = rt.block_on(async {
            let mut req = api.http.request(m.clone(), format!("{}{}{}", api.base, p, q)).body(b.clone());
            if auth {
                req = req.bearer_auth(&api.token);
            }
            let resp = req.timeout(std::time::Duration::from_secs(5)).send().await;
            match resp {
                Ok(r) => {
                    let status = r.status().as_u16();
                    let json = r.headers().get("content-type").is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
                    if status >= 400 && p.starts_with("/v1") {
                        prop_assert!(json, "{} {}{} → {} not JSON", m, p, q, status);
                        let body: Value = r.json().await.unwrap_or(Value::Null);
                        prop_assert!(body["error"]["code"].is_string(), "{body}");
                    }
                    Ok(status)
                }
                // Streams that stay open time out on the body, not the status.
                Err(e) if e.is_timeout() => Ok(200),
                Err(e) => Err(TestCaseError::fail(format!("{m} {p}{q}: {e}"))),
            }
        })?;
        prop_assert!(status < 500, "{} {}{} → {}", m, p, q, status);
    });
    assert!(cases.into_inner() >= 500, "every case ran");
    let health = rt.block_on(async {
        api.req(reqwest::Method::GET, "/v1/health")
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    });
    assert_eq!(health, 200);
}
