//! A session's tools configuration (§6.2 `agent.tools`, §6.9 `…/tools`): validation of
//! `ToolRequest`s and the read-back with secrets withheld.

use serde_json::{Map, Value};

use crate::refusal::Refusal;

/// §5: at most 32 tools per session.
const MAX_TOOLS: usize = 32;

const BUILT_INS: [&str; 6] = [
    "web_search",
    "web_fetch",
    "image_search",
    "browse",
    "browser_act",
    "screenshot",
];
const FUNCTION_FIELDS: [&str; 5] = [
    "type",
    "name",
    "description",
    "parameters",
    "timeout_seconds",
];
const MCP_FIELDS: [&str; 9] = [
    "type",
    "name",
    "url",
    "command",
    "args",
    "allowed_tools",
    "required",
    "authorization",
    "headers",
];
/// MCP fields that carry credentials: never read back, named in `redacted` instead.
const MCP_SECRETS: [&str; 2] = ["authorization", "headers"];

/// Checks a whole `tools` list as `PUT …/tools` receives it.
pub(crate) fn validate(tools: &Value) -> Result<Vec<Value>, Refusal> {
    let Some(list) = tools.as_array() else {
        return Err(Refusal::invalid("tools must be an array."));
    };
    if list.len() > MAX_TOOLS {
        return Err(Refusal::invalid(format!(
            "A session holds at most {MAX_TOOLS} tools, not {}.",
            list.len()
        )));
    }
    for (i, tool) in list.iter().enumerate() {
        validate_one(tool, i)?;
    }
    Ok(list.clone())
}

fn validate_one(tool: &Value, i: usize) -> Result<(), Refusal> {
    let Some(obj) = tool.as_object() else {
        return Err(Refusal::invalid(format!("tools[{i}] must be an object.")));
    };
    if obj.contains_key("redacted") {
        return Err(Refusal::invalid(format!(
            "tools[{i}].redacted is read-only: send the secrets themselves, not the read-back."
        )));
    }
    let kind = obj.get("type").and_then(Value::as_str).unwrap_or_default();
    let accepted: &[&str] = match kind {
        "function" => &FUNCTION_FIELDS,
        "mcp" => &MCP_FIELDS,
        // A built-in reads back named by its type; that name may come back unchanged.
        k if BUILT_INS.contains(&k) => &["type", "name"],
        other => {
            return Err(Refusal::invalid(format!(
                "tools[{i}].type \"{other}\" is unknown; use function, mcp, {}.",
                BUILT_INS.join(", ")
            )));
        }
    };
    if let Some(unknown) = obj.keys().find(|k| !accepted.contains(&k.as_str())) {
        return Err(Refusal::invalid(format!(
            "Unknown field \"tools[{i}].{unknown}\" for a {kind} tool; accepted: {}.",
            accepted.join(", ")
        )));
    }
    if BUILT_INS.contains(&kind)
        && let Some(name) = obj.get("name")
        && name.as_str() != Some(kind)
    {
        return Err(Refusal::invalid(format!(
            "tools[{i}] is the built-in {kind}: it takes only type (its name is {kind})."
        )));
    }
    if kind == "function" || kind == "mcp" {
        let name = obj.get("name").and_then(Value::as_str).unwrap_or_default();
        if !(1..=64).contains(&name.chars().count()) {
            return Err(Refusal::invalid(format!(
                "tools[{i}].name must be 1 to 64 characters."
            )));
        }
    }
    if kind == "function"
        && let Some(t) = obj.get("timeout_seconds")
        && !t.as_u64().is_some_and(|t| (1..=7200).contains(&t))
    {
        return Err(Refusal::invalid(format!(
            "tools[{i}].timeout_seconds must be an integer from 1 to 7200."
        )));
    }
    if kind == "mcp" {
        let url = obj.get("url").is_some_and(|v| !v.is_null());
        let command = obj.get("command").is_some_and(|v| !v.is_null());
        if url == command {
            return Err(Refusal::invalid(format!(
                "tools[{i}] needs exactly one of url and command."
            )));
        }
        if obj.get("required").is_some_and(|r| !r.is_boolean()) {
            return Err(Refusal::invalid(format!(
                "tools[{i}].required must be a boolean."
            )));
        }
    }
    Ok(())
}

const VERBOSITIES: [&str; 3] = ["low", "medium", "high"];
const TEXT_FORMATS: [&str; 3] = ["text", "json_schema", "json_object"];

/// Checks the `text` of a tools configuration (`agent.text`, `PUT …/tools`):
/// `{verbosity?, format?: {type, schema?, …}}`.
pub(crate) fn validate_text(text: &Value) -> Result<Value, Refusal> {
    let Some(obj) = text.as_object() else {
        return Err(Refusal::invalid("text must be an object."));
    };
    if let Some(unknown) = obj
        .keys()
        .find(|k| !["verbosity", "format"].contains(&k.as_str()))
    {
        return Err(Refusal::invalid(format!(
            "Unknown field \"text.{unknown}\"; accepted: verbosity, format."
        )));
    }
    if let Some(v) = obj.get("verbosity")
        && !v.as_str().is_some_and(|v| VERBOSITIES.contains(&v))
    {
        return Err(Refusal::invalid(format!(
            "text.verbosity must be one of {}, not {v}.",
            VERBOSITIES.join(", ")
        )));
    }
    if let Some(format) = obj.get("format") {
        let kind = format.get("type").and_then(Value::as_str);
        if !kind.is_some_and(|k| TEXT_FORMATS.contains(&k)) {
            return Err(Refusal::invalid(format!(
                "text.format.type must be one of {}.",
                TEXT_FORMATS.join(", ")
            )));
        }
    }
    Ok(text.clone())
}

/// A tool as read back: secrets removed and named in `redacted`.
pub(crate) fn redacted(tool: &Value) -> Value {
    let Some(obj) = tool.as_object() else {
        return tool.clone();
    };
    let mut out: Map<String, Value> = obj.clone();
    if let Some(kind) = obj.get("type").and_then(Value::as_str)
        && BUILT_INS.contains(&kind)
    {
        out.insert("name".into(), Value::from(kind));
    }
    let mut withheld = Vec::new();
    if obj.get("type").and_then(Value::as_str) == Some("mcp") {
        for secret in MCP_SECRETS {
            if out.remove(secret).is_some() {
                withheld.push(Value::from(secret));
            }
        }
    }
    out.insert("redacted".into(), Value::Array(withheld));
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_requests_are_checked_like_the_api_does() {
        let ok = json!([
            {"type": "function", "name": "lookup_order", "parameters": {}, "timeout_seconds": 60},
            {"type": "mcp", "name": "tracker", "url": "https://mcp.example", "authorization": "x"},
            {"type": "web_search"},
            {"type": "web_fetch", "name": "web_fetch"}
        ]);
        assert_eq!(validate(&ok).unwrap().len(), 4);
        for bad in [
            json!([{"type": "skill", "name": "x"}]),
            json!([{"type": "function", "name": ""}]),
            json!([{"type": "function", "name": "f", "timeout_seconds": 0}]),
            json!([{"type": "mcp", "name": "m"}]),
            json!([{"type": "mcp", "name": "m", "url": "u", "command": "c"}]),
            json!([{"type": "web_search", "name": "narrowed"}]),
            json!([{"type": "web_fetch", "name": "web_search"}]),
            json!([{"type": "mcp", "name": "m", "url": "u", "redacted": []}]),
            json!(
                (0..33)
                    .map(|_| json!({"type": "web_fetch"}))
                    .collect::<Vec<_>>()
            ),
        ] {
            assert!(validate(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn secrets_are_named_not_returned() {
        let tool = json!({"type": "mcp", "name": "m", "url": "u", "authorization": "Bearer s",
                          "headers": {"x-key": "s"}});
        assert_eq!(
            redacted(&tool),
            json!({"type": "mcp", "name": "m", "url": "u",
                   "redacted": ["authorization", "headers"]})
        );
        assert_eq!(
            redacted(&json!({"type": "web_search"})),
            json!({"type": "web_search", "name": "web_search", "redacted": []})
        );
    }
}
