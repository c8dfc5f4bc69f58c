//! `GET /v1/model-credentials` (reference §6.1, `sessions:read`): the organization's model
//! credentials, which a model switch names (`agent.model_credential_id`). The reference
//! names the object and its id but none of its fields, so a credential is read leniently:
//! only `id` is required; the models it runs come from `models` (a list) or `model` (one),
//! and are unknown otherwise.

use serde_json::Value;

use crate::client::ApiClient;
use crate::error::ApiError;
use crate::model::List;

/// Pages read at most: a list longer than this is cut, and [`Credentials::cut`] says so.
const MAX_PAGES: usize = 10;

/// One credential as this client could read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelCredential {
    /// `cred_…`: what a switch sends as `agent.model_credential_id`.
    pub id: String,
    /// Who runs the models (`provider`), if the server said (unsanitized).
    pub provider: Option<String>,
    /// A name for people (`display_name` or `name`), if the server said (unsanitized).
    pub name: Option<String>,
    /// The models it runs (`models`, or `model` alone); empty when the server did not say.
    pub models: Vec<String>,
}

impl ModelCredential {
    /// The credential in `value`, if it has a string `id`.
    pub fn read(value: &Value) -> Option<ModelCredential> {
        let text = |k: &str| value.get(k).and_then(Value::as_str).map(String::from);
        let id = text("id").filter(|id| !id.is_empty())?;
        let models = match (value.get("models"), value.get("model")) {
            (Some(Value::Array(list)), _) => list
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
            (_, Some(Value::String(one))) => vec![one.clone()],
            _ => Vec::new(),
        };
        Some(ModelCredential {
            id,
            provider: text("provider"),
            name: text("display_name").or_else(|| text("name")),
            models,
        })
    }
}

/// The credentials read, and what could not be.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    /// Readable credentials, in the server's order.
    pub list: Vec<ModelCredential>,
    /// Entries left out: no string `id`.
    pub unreadable: usize,
    /// More pages were offered than this client reads (ten); the rest were not read.
    pub cut: bool,
}

impl ApiClient {
    /// `GET /v1/model-credentials`, every page (bounded); `limit` and `after` only, as the
    /// reference's credentials take no `order`.
    pub async fn list_model_credentials(&self) -> Result<Credentials, ApiError> {
        let mut out = Credentials::default();
        let mut after: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut query = vec![("limit", "100".to_string())];
            if let Some(a) = &after {
                query.push(("after", a.clone()));
            }
            let page: List<Value> = self.get(&["model-credentials"], query).await?;
            for entry in &page.data {
                match ModelCredential::read(entry) {
                    Some(c) => out.list.push(c),
                    None => out.unreadable += 1,
                }
            }
            let next = page.last_id.clone().or_else(|| {
                page.data
                    .last()
                    .and_then(|v| v.get("id")?.as_str().map(String::from))
            });
            match next {
                Some(id) if page.has_more && after.as_ref() != Some(&id) => after = Some(id),
                _ => return Ok(out),
            }
        }
        out.cut = true;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_id_is_required_and_models_come_from_either_field() {
        let c = ModelCredential::read(&json!({"id": "cred_a", "models": ["m1", 7, "m2"]})).unwrap();
        assert_eq!(c.models, ["m1", "m2"]);
        assert_eq!(c.provider, None);
        let c = ModelCredential::read(&json!({"id": "cred_b", "model": "m3", "provider": "p"}))
            .unwrap();
        assert_eq!(
            (c.models, c.provider.as_deref()),
            (vec!["m3".into()], Some("p"))
        );
        let c = ModelCredential::read(&json!({"id": "cred_c", "models": "nope"})).unwrap();
        assert!(c.models.is_empty());
        assert!(ModelCredential::read(&json!({"models": ["m"]})).is_none());
        assert!(ModelCredential::read(&json!({"id": 3})).is_none());
    }
}
