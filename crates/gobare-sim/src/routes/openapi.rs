//! `GET /v1/openapi.json`: an OpenAPI 3.1 document of the routes this simulator serves,
//! so the `Link: </v1/openapi.json>; rel="service-desc"` every response carries (§1.2)
//! leads somewhere. It describes the simulator, not the whole service: the organization
//! routes it leaves out are not in it.

use axum::http::Method;
use serde_json::{Map, Value, json};

use super::query::Query;
use crate::refusal::Refusal;

/// One operation: method, path (with `{params}`), summary, success status and its body's
/// media type.
struct Operation {
    method: Method,
    path: &'static str,
    summary: &'static str,
    status: u16,
    media: &'static str,
}

const JSON: &str = "application/json";

fn op(method: Method, path: &'static str, summary: &'static str, status: u16) -> Operation {
    Operation {
        method,
        path,
        summary,
        status,
        media: JSON,
    }
}

/// Every operation the router answers (`routes::router`), in the reference's order (§6.1).
fn operations() -> Vec<Operation> {
    use Method as M;
    vec![
        op(M::GET, "/v1/health", "What the presented token holds", 200),
        op(M::GET, "/v1/openapi.json", "This document", 200),
        op(M::GET, "/v1/sessions", "List sessions", 200),
        op(M::POST, "/v1/sessions", "Create a session", 201),
        op(
            M::GET,
            "/v1/sessions/{session_id}",
            "Retrieve a session",
            200,
        ),
        op(
            M::PATCH,
            "/v1/sessions/{session_id}",
            "Update a session",
            200,
        ),
        op(
            M::DELETE,
            "/v1/sessions/{session_id}",
            "Delete a session",
            200,
        ),
        op(
            M::POST,
            "/v1/sessions/{session_id}/fork",
            "Fork a session",
            201,
        ),
        op(
            M::GET,
            "/v1/sessions/{session_id}/usage",
            "A session's usage",
            200,
        ),
        op(
            M::POST,
            "/v1/sessions/{session_id}/events",
            "Send input",
            202,
        ),
        Operation {
            media: "text/event-stream",
            ..op(
                M::GET,
                "/v1/sessions/{session_id}/events",
                "A session's event stream",
                200,
            )
        },
        Operation {
            media: "text/event-stream",
            ..op(M::GET, "/v1/events", "The organization's event stream", 200)
        },
        op(M::GET, "/v1/sessions/{session_id}/turns", "List turns", 200),
        op(
            M::GET,
            "/v1/sessions/{session_id}/turns/{turn_id}",
            "Retrieve a turn",
            200,
        ),
        op(M::GET, "/v1/sessions/{session_id}/items", "List items", 200),
        op(
            M::PUT,
            "/v1/sessions/{session_id}/tools",
            "Replace the tools",
            200,
        ),
        op(
            M::GET,
            "/v1/sessions/{session_id}/tools",
            "Read the tools",
            200,
        ),
        op(
            M::GET,
            "/v1/sessions/{session_id}/artifacts",
            "List artifacts",
            200,
        ),
        Operation {
            media: "application/x-tar",
            ..op(
                M::GET,
                "/v1/sessions/{session_id}/artifacts/archive",
                "Download all artifacts",
                200,
            )
        },
        op(
            M::GET,
            "/v1/sessions/{session_id}/artifacts/{artifact_id}",
            "Retrieve an artifact",
            200,
        ),
        op(
            M::DELETE,
            "/v1/sessions/{session_id}/artifacts/{artifact_id}",
            "Delete an artifact",
            200,
        ),
        Operation {
            media: "application/octet-stream",
            ..op(
                M::GET,
                "/v1/sessions/{session_id}/artifacts/{artifact_id}/content",
                "Download an artifact",
                200,
            )
        },
        op(
            M::POST,
            "/v1/sessions/{session_id}/files",
            "Write workspace files",
            200,
        ),
        op(
            M::GET,
            "/v1/sessions/{session_id}/files",
            "List workspace files",
            200,
        ),
        op(
            M::GET,
            "/v1/sessions/{session_id}/files/content",
            "Read a workspace file",
            200,
        ),
        op(
            M::POST,
            "/v1/sessions/{session_id}/files/refresh",
            "Refresh the file listing",
            200,
        ),
        op(
            M::POST,
            "/v1/sessions/{session_id}/preview",
            "Publish the preview",
            201,
        ),
        op(
            M::DELETE,
            "/v1/sessions/{session_id}/preview",
            "Unpublish the preview",
            200,
        ),
        op(M::GET, "/v1/model-connectors", "What can be connected", 200),
        op(
            M::GET,
            "/v1/model-credentials",
            "The organization's model credentials",
            200,
        ),
    ]
}

/// The scope members of one operation (`x-required-scope` or `x-any-required-scope`), or
/// `security: []` for the anonymous ones.
fn access(o: &Operation, out: &mut Map<String, Value>) {
    if !crate::layers::auth::is_authenticated(o.path) {
        out.insert("security".into(), json!([]));
        return;
    }
    out.insert("security".into(), json!([{"accessToken": []}]));
    if o.method == Method::POST && o.path.ends_with("/events") {
        out.insert(
            "x-any-required-scope".into(),
            json!(["sessions:write", "tools:respond"]),
        );
    } else if let Some(scope) = crate::layers::scopes::for_route(&o.method, o.path, None) {
        out.insert("x-required-scope".into(), json!(scope));
    }
}

fn operation_id(o: &Operation) -> String {
    let path: String = o
        .path
        .trim_start_matches("/v1/")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("{}_{path}", o.method.as_str().to_ascii_lowercase())
}

fn parameters(path: &str) -> Vec<Value> {
    path.split('/')
        .filter_map(|part| part.strip_prefix('{')?.strip_suffix('}'))
        .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect()
}

/// The whole document.
pub(crate) fn document() -> Value {
    let mut paths = Map::new();
    for o in operations() {
        let mut operation = Map::new();
        operation.insert("summary".into(), json!(o.summary));
        operation.insert("operationId".into(), json!(operation_id(&o)));
        access(&o, &mut operation);
        let params = parameters(o.path);
        if !params.is_empty() {
            operation.insert("parameters".into(), Value::Array(params));
        }
        operation.insert(
            "responses".into(),
            json!({
                o.status.to_string(): {"description": o.summary, "content": {o.media: {}}},
                "default": {
                    "description": "The error envelope (§2).",
                    "content": {JSON: {"schema": {"$ref": "#/components/schemas/Error"}}}
                }
            }),
        );
        let entry = paths
            .entry(o.path)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(methods) = entry {
            methods.insert(
                o.method.as_str().to_ascii_lowercase(),
                Value::Object(operation),
            );
        }
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Gobare API (local simulator)",
            "version": "v1",
            "description": "The routes the gobare-tui simulator serves; the organization routes (agents, environment templates and profiles, model credentials, webhooks) are not simulated."
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {
            "securitySchemes": {"accessToken": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["error"],
                    "properties": {"error": {
                        "type": "object",
                        "required": ["code", "message", "request_id"],
                        "properties": {
                            "code": {"type": "string"},
                            "message": {"type": "string"},
                            "request_id": {"type": "string"}
                        }
                    }}
                }
            }
        }
    })
}

pub(crate) async fn serve(uri: axum::http::Uri) -> Result<axum::Json<Value>, Refusal> {
    Query::parse(uri.query(), &[])?;
    Ok(axum::Json(document()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_carry_their_scope_and_path_parameters() {
        let doc = document();
        let post_events = &doc["paths"]["/v1/sessions/{session_id}/events"]["post"];
        assert_eq!(
            post_events["x-any-required-scope"],
            json!(["sessions:write", "tools:respond"])
        );
        assert_eq!(post_events["parameters"][0]["name"], "session_id");
        assert_eq!(
            doc["paths"]["/v1/sessions/{session_id}/artifacts/{artifact_id}/content"]["get"]["x-required-scope"],
            "artifacts:read"
        );
        assert_eq!(
            doc["paths"]["/v1/model-connectors"]["get"]["security"],
            json!([])
        );
    }
}
