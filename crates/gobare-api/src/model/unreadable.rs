//! What a read leaves out: a listed session, a turn or a required action that cannot be
//! decoded at all (a missing id, a wrong type) is left out so that one odd entry never hides
//! the others, and recorded here so that every reader can count it and say so.

use super::{List, RequiredAction};
use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::fmt;
use std::ops::{Deref, DerefMut};

/// One entry left out of a read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// What it was: `"session"`, `"turn"`, `"required action"`.
    pub entry: &'static str,
    /// Its id (a required action's `call_id`, anything else's `id`) where that much reads.
    /// Server text: sanitize before showing.
    pub id: Option<String>,
    /// The decoder's reason (may quote server text: sanitize before showing).
    pub reason: String,
}

impl Unreadable {
    fn of(entry: &'static str, value: &Value, id_key: &str, error: serde_json::Error) -> Self {
        Unreadable {
            entry,
            id: value
                .get(id_key)
                .and_then(Value::as_str)
                .map(str::to_string),
            reason: error.to_string(),
        }
    }
}

impl fmt::Display for Unreadable {
    /// `session 3f9c…: missing field `status`` (raw: the caller sanitizes).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.id {
            Some(id) => write!(f, "{} {id}: {}", self.entry, self.reason),
            None => write!(f, "{} without a readable id: {}", self.entry, self.reason),
        }
    }
}

/// A page read entry by entry: what decodes is kept in order, the rest is recorded in
/// [`List::unreadable`] (and logged), never a reason to fail the page.
pub fn readable_page<T: DeserializeOwned>(raw: List<Value>, entry: &'static str) -> List<T> {
    let mut unreadable = raw.unreadable;
    let mut data = Vec::with_capacity(raw.data.len());
    for value in raw.data {
        match T::deserialize(&value) {
            Ok(read) => data.push(read),
            Err(e) => {
                let left = Unreadable::of(entry, &value, "id", e);
                tracing::warn!(entry, reason = %left.reason, "a listed entry could not be read; left out");
                unreadable.push(left);
            }
        }
    }
    List {
        object: raw.object,
        data,
        has_more: raw.has_more,
        last_id: raw.last_id,
        unreadable,
    }
}

/// `session.required_actions` (§9.4) as read: the actions that decode, in order, and the
/// ones that did not (a missing `call_id`, a `turn_id` that is not a string…). The session
/// is still read, and still waits on you; a reader says how many of its decisions it could
/// not show. Derefs to the readable actions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequiredActions {
    read: Vec<RequiredAction>,
    unreadable: Vec<Unreadable>,
}

impl RequiredActions {
    /// The actions that could not be decoded.
    pub fn unreadable(&self) -> &[Unreadable] {
        &self.unreadable
    }
}

impl Deref for RequiredActions {
    type Target = Vec<RequiredAction>;
    fn deref(&self) -> &Vec<RequiredAction> {
        &self.read
    }
}

impl DerefMut for RequiredActions {
    fn deref_mut(&mut self) -> &mut Vec<RequiredAction> {
        &mut self.read
    }
}

impl From<Vec<RequiredAction>> for RequiredActions {
    fn from(read: Vec<RequiredAction>) -> Self {
        RequiredActions {
            read,
            unreadable: Vec::new(),
        }
    }
}

impl FromIterator<RequiredAction> for RequiredActions {
    fn from_iter<I: IntoIterator<Item = RequiredAction>>(iter: I) -> Self {
        Vec::from_iter(iter).into()
    }
}

impl IntoIterator for RequiredActions {
    type Item = RequiredAction;
    type IntoIter = std::vec::IntoIter<RequiredAction>;
    fn into_iter(self) -> Self::IntoIter {
        self.read.into_iter()
    }
}

impl<'a> IntoIterator for &'a RequiredActions {
    type Item = &'a RequiredAction;
    type IntoIter = std::slice::Iter<'a, RequiredAction>;
    fn into_iter(self) -> Self::IntoIter {
        self.read.iter()
    }
}

impl Serialize for RequiredActions {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.read.serialize(s)
    }
}

impl<'de> Deserialize<'de> for RequiredActions {
    /// `null` is none; anything but an array is the session's own error.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let values = Option::<Vec<Value>>::deserialize(d)?.unwrap_or_default();
        let mut actions = RequiredActions::default();
        for value in values {
            match RequiredAction::deserialize(&value) {
                Ok(action) => actions.read.push(action),
                Err(e) => {
                    let left = Unreadable::of("required action", &value, "call_id", e);
                    tracing::warn!(reason = %left.reason, "a required action could not be read; left out");
                    actions.unreadable.push(left);
                }
            }
        }
        Ok(actions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Session;
    use serde_json::json;

    fn session(actions: Value) -> Session {
        serde_json::from_value(json!({
            "id": "s1", "status": "requires_action", "required_actions": actions,
        }))
        .unwrap()
    }

    #[test]
    fn an_action_that_cannot_be_read_is_left_out_and_counted_and_the_rest_stays() {
        let s = session(json!([
            {"type": "approval", "turn_id": "t", "call_id": "c1"},
            {"type": "approval", "turn_id": "t"},
            {"type": "telepathy", "turn_id": "t", "call_id": "c3"},
            {"type": "question", "turn_id": 7, "call_id": "c4"},
        ]));
        let calls: Vec<&str> = s
            .required_actions
            .iter()
            .map(|a| a.call_id.as_str())
            .collect();
        assert_eq!(calls, ["c1", "c3"], "an unknown type still reads");
        let left = s.required_actions.unreadable();
        assert_eq!(left.len(), 2);
        assert_eq!(left[0].id, None);
        assert!(left[0].reason.contains("call_id"), "{}", left[0].reason);
        assert_eq!(left[1].id.as_deref(), Some("c4"));
        // Written back, only what was read.
        let back = serde_json::to_value(&s).unwrap();
        assert_eq!(back["required_actions"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn null_or_missing_actions_are_none_and_a_non_array_is_the_sessions_error() {
        assert!(session(Value::Null).required_actions.is_empty());
        let missing: Session =
            serde_json::from_value(json!({"id": "s", "status": "idle"})).unwrap();
        assert!(missing.required_actions.is_empty());
        assert!(
            serde_json::from_value::<Session>(
                json!({"id": "s", "status": "idle", "required_actions": 5})
            )
            .is_err()
        );
    }

    #[test]
    fn a_page_keeps_what_reads_in_order_and_records_the_rest() {
        let raw: List<Value> = serde_json::from_value(json!({
            "object": "list", "has_more": true, "last_id": "s3",
            "data": [
                {"id": "s1", "status": "idle"},
                {"status": "idle"},
                {"id": "s3", "status": 5},
                {"id": "s4", "status": "working"},
            ],
        }))
        .unwrap();
        let page: List<Session> = readable_page(raw, "session");
        let ids: Vec<&str> = page.data.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["s1", "s4"]);
        assert!(page.has_more);
        assert_eq!(page.last_id.as_deref(), Some("s3"));
        let left: Vec<String> = page.unreadable.iter().map(ToString::to_string).collect();
        assert_eq!(left.len(), 2);
        assert!(left[0].starts_with("session without a readable id: missing field `id`"));
        assert!(
            left[1].starts_with("session s3: invalid type"),
            "{}",
            left[1]
        );
    }
}
