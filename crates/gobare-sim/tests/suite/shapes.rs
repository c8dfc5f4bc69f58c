//! Shapes a client author trips on (issue 50.8): the OpenAPI document the `Link` header
//! names, the model connectors, references to organization objects the simulator holds
//! none of, the rate-limit headers on a 405, and built-in tools read back.

use crate::support::Api;
use serde_json::{Value, json};

/// The target of `Link: <…>; rel="service-desc"` on `resp`.
fn service_desc(resp: &reqwest::Response) -> String {
    let link = resp.headers()["link"].to_str().unwrap();
    assert!(link.contains("rel=\"service-desc\""), "{link}");
    let start = link.find('<').unwrap() + 1;
    let end = link.find('>').unwrap();
    link[start..end].to_string()
}

#[tokio::test]
async fn the_document_every_link_names_is_served_and_lists_every_route_answered() {
    let api = Api::test().await;
    let health = api
        .req(reqwest::Method::GET, "/v1/health")
        .send()
        .await
        .unwrap();
    let target = service_desc(&health);
    assert_eq!(target, "/v1/openapi.json");

    // Anonymous, as the reference says (§1).
    let r = api.http.get(api.url(&target)).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(service_desc(&r), target);
    let doc: Value = r.json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"), "{doc}");
    let paths = doc["paths"].as_object().unwrap();
    assert_eq!(
        paths["/v1/sessions"]["post"]["x-required-scope"],
        "sessions:write"
    );
    assert_eq!(
        paths["/v1/sessions"]["get"]["x-required-scope"],
        "sessions:read"
    );
    assert!(
        !paths.contains_key("/v1/agents"),
        "a route the simulator does not serve is not described"
    );

    // Every operation described is one the router answers by that route.
    let mut described = Vec::new();
    for (path, methods) in paths {
        for method in methods.as_object().unwrap().keys() {
            let concrete = path
                .replace("{session_id}", "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af")
                .replace("{turn_id}", "turn_0")
                .replace("{artifact_id}", "art_0");
            let method = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            // Headers are enough: a stream is dropped as soon as it answers.
            let resp = api.req(method.clone(), &concrete).send().await.unwrap();
            drop(resp);
            described.push(format!("{method} {path}"));
        }
    }
    let counts = api.sim.request_counts();
    for route in &described {
        assert!(
            counts.contains_key(route),
            "{route} is described but no route answered it: {counts:?}"
        );
    }
    assert!(described.len() >= 25, "{described:?}");
}

#[tokio::test]
async fn model_connectors_have_the_reference_shape_and_their_default_model_runs() {
    let api = Api::test().await;
    let r = api
        .http
        .get(api.url("/v1/model-connectors"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let body: Value = r.json().await.unwrap();
    let connector = &body["data"][0];
    let mut keys: Vec<&str> = connector
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "default_model",
            "display_name",
            "id",
            "key_prefix",
            "key_url",
            "object",
            "protocol"
        ]
    );
    assert_eq!(connector["object"], "model_connector");
    let model = connector["default_model"].as_str().unwrap();
    let (status, session) = api
        .post("/v1/sessions", json!({"agent": {"model": model}}))
        .await;
    assert_eq!(status, 201, "{session}");
    assert_eq!(session["agent"]["model"], model);
}

#[tokio::test]
async fn an_agent_or_profile_the_organization_does_not_hold_is_not_found() {
    let api = Api::test().await;
    for body in [
        json!({"agent": {"id": "support-bot"}}),
        json!({"environment": {"template_id": "support-bot"}}),
        json!({"environment": {"profiles": ["envg_2b7d5e91c0a34f68"]}}),
    ] {
        let (status, refusal) = api.post("/v1/sessions", body.clone()).await;
        assert_eq!(status, 404, "{body}: {refusal}");
        assert_eq!(refusal["error"]["code"], "not_found");
        let message = refusal["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("support-bot") || message.contains("envg_2b7d5e91c0a34f68"),
            "the refusal names the id: {message}"
        );
    }
    let (status, refusal) = api
        .post(
            "/v1/sessions",
            json!({"environment": {"profiles": "envg_1"}}),
        )
        .await;
    assert_eq!(status, 400, "{refusal}");
    assert!(
        api.sim.session_ids().is_empty(),
        "no session made by a refused create"
    );
    // `[]` asks for no profile at all, which needs none to exist.
    let (status, _) = api
        .post("/v1/sessions", json!({"environment": {"profiles": []}}))
        .await;
    assert_eq!(status, 201);
}

#[tokio::test]
async fn a_405_carries_the_rate_limit_headers_and_allow() {
    let api = Api::test().await;
    let r = api
        .req(reqwest::Method::PUT, "/v1/sessions")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 405);
    let h = r.headers();
    for name in [
        "allow",
        "x-request-id",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
        "x-ratelimit-resource",
        "link",
    ] {
        assert!(h.contains_key(name), "missing {name}: {h:?}");
    }
}

#[tokio::test]
async fn built_in_tools_read_back_named_and_the_read_back_goes_back_unchanged() {
    let api = Api::test().await;
    let session = api.new_session().await;
    let path = format!("/v1/sessions/{session}/tools");
    let put = |body: Value| api.req(reqwest::Method::PUT, &path).json(&body).send();
    let r = put(json!({"tools": [{"type": "web_search"}, {"type": "web_fetch"}]}))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let (_, read) = api.get(&path).await;
    let tools = read["tools"].as_array().unwrap();
    assert_eq!(tools[0]["name"], "web_search", "{read}");
    assert_eq!(tools[1]["name"], "web_fetch", "{read}");

    // The read-back, less what the reference says is not a request field, is accepted.
    let back: Vec<Value> = tools
        .iter()
        .map(|t| {
            let mut t = t.clone();
            t.as_object_mut().unwrap().remove("redacted");
            t
        })
        .collect();
    let r = put(json!({"tools": back})).await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(api.get(&path).await.1["tools"], read["tools"]);

    // A built-in cannot be renamed.
    let r = put(json!({"tools": [{"type": "web_search", "name": "search"}]}))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
}
