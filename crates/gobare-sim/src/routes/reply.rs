//! Answers several routes share.

use serde_json::json;

/// The answer to a delete (§9.6): `{object, id, deleted: true}`.
pub(super) fn deleted(object: &str, id: &str) -> axum::Json<serde_json::Value> {
    axum::Json(json!({"object": object, "id": id, "deleted": true}))
}
