//! A create body's references to organization objects the simulator holds none of: a
//! saved agent (`agent.id`, or its deprecated spelling `environment.template_id`) and
//! environment profiles (`environment.profiles`). Each names an object not in this
//! organization, which the reference answers `404 not_found` (§2: another organization's
//! id looks like one that never existed), so none is accepted and ignored.

use serde_json::Value;

use crate::refusal::Refusal;

/// Refuses a create body naming an agent or environment profile.
pub(crate) fn check(agent_id: Option<&str>, environment: Option<&Value>) -> Result<(), Refusal> {
    if let Some(id) = agent_id {
        return Err(no_agent(id));
    }
    let Some(env) = environment.and_then(Value::as_object) else {
        return Ok(());
    };
    match env.get("template_id") {
        None | Some(Value::Null) => {}
        Some(Value::String(id)) => return Err(no_agent(id)),
        Some(_) => {
            return Err(Refusal::invalid(
                "environment.template_id must be a string.",
            ));
        }
    }
    match env.get("profiles") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Array(ids)) => match ids.first() {
            None => Ok(()),
            Some(Value::String(id)) if ids.iter().all(Value::is_string) => Err(Refusal::not_found(
                format!("This organization has no environment profile \"{id}\"."),
            )),
            Some(_) => Err(Refusal::invalid(
                "environment.profiles must be an array of profile ids.",
            )),
        },
        Some(_) => Err(Refusal::invalid(
            "environment.profiles must be an array of profile ids.",
        )),
    }
}

fn no_agent(id: &str) -> Refusal {
    Refusal::not_found(format!("This organization has no agent \"{id}\"."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gobare_api::model::ErrorCode;
    use serde_json::json;

    #[test]
    fn a_named_agent_or_profile_is_not_found_and_an_empty_list_is_none() {
        assert!(check(None, None).is_ok());
        assert!(check(None, Some(&json!({"profiles": []}))).is_ok());
        assert!(check(None, Some(&json!({"repo": "acme/site"}))).is_ok());
        for (agent, env) in [
            (Some("support-bot"), None),
            (None, Some(json!({"template_id": "support-bot"}))),
            (None, Some(json!({"profiles": ["envg_2b7d5e91c0a34f68"]}))),
        ] {
            let refused = check(agent, env.as_ref()).unwrap_err();
            assert_eq!(refused.code(), ErrorCode::NotFound, "{agent:?} {env:?}");
        }
        let bad = check(None, Some(&json!({"profiles": "envg_1"}))).unwrap_err();
        assert_eq!(bad.code(), ErrorCode::InvalidRequest);
    }
}
