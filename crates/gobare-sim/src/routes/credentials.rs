//! `GET /v1/model-credentials` (§6.1, `sessions:read`): the organization's credentials and
//! the models each runs. The reference names the object (`model_credential`) and its id
//! (`cred_…`) but none of its fields: `provider`, `display_name` and `models` are this
//! simulator's choice (docs/simulator.md, "Where it departs from the reference").

use axum::Json;
use serde_json::{Value, json};

use super::query::Query;
use crate::refusal::Refusal;

/// One credential as the simulator serves it.
pub(crate) struct Credential {
    pub(crate) id: &'static str,
    provider: &'static str,
    display_name: &'static str,
    pub(crate) models: &'static [&'static str],
}

/// The organization's credentials, the default (every new session's) first.
pub(crate) const CREDENTIALS: [Credential; 3] = [
    Credential {
        id: "cred_8f2a91c4d7b0e6",
        provider: "minimax",
        display_name: "MiniMax (organization default)",
        models: &["MiniMax-M3"],
    },
    Credential {
        id: "cred_4b7e20d9c1a3f58e",
        provider: "minimax",
        display_name: "MiniMax, second key",
        models: &["MiniMax-M3", "MiniMax-M3-Lite"],
    },
    Credential {
        id: "cred_d05a6c3e9f1b2477",
        provider: "openrouter",
        display_name: "OpenRouter",
        models: &["glm-5", "qwen3-coder"],
    },
];

/// The credential `id`, if the organization has it.
pub(crate) fn find(id: &str) -> Option<&'static Credential> {
    CREDENTIALS.iter().find(|c| c.id == id)
}

/// §6.2: the model must be one the chosen credential runs; an unknown one is a 400 naming
/// it (and an unknown credential a 400 naming that).
pub(crate) fn check(model: &str, credential: &str) -> Result<(), Refusal> {
    let Some(cred) = find(credential) else {
        return Err(Refusal::invalid(format!(
            "Unknown model_credential_id \"{credential}\"; GET /v1/model-credentials lists them."
        )));
    };
    if cred.models.contains(&model) {
        return Ok(());
    }
    Err(Refusal::invalid(format!(
        "Unknown model \"{model}\": credential {credential} runs {}.",
        cred.models.join(", ")
    )))
}

fn object(c: &Credential) -> Value {
    json!({
        "object": "model_credential",
        "id": c.id,
        "provider": c.provider,
        "display_name": c.display_name,
        "models": c.models,
        "created_at": 1_789_000_000_000_u64,
    })
}

/// The list (`limit` and `after` only: the reference's credentials take no `order`).
pub(crate) async fn list(uri: axum::http::Uri) -> Result<Json<Value>, Refusal> {
    Query::parse(uri.query(), &["limit", "after"])?;
    let data: Vec<Value> = CREDENTIALS.iter().map(object).collect();
    Ok(Json(json!({
        "object": "list",
        "data": data,
        "has_more": false,
        "last_id": CREDENTIALS[CREDENTIALS.len() - 1].id,
    })))
}
