//! The workspace's files as the simulator keeps them (§6.8): seeded files, the live
//! workspace, and the snapshot that `GET …/files` reads (not the live sandbox).

use std::collections::BTreeMap;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Value, json};

use gobare_api::clock::unix_ms;

use crate::refusal::Refusal;
use crate::workspace::tree::Tree;

/// Files by path relative to `/workspace`.
pub(crate) type Files = BTreeMap<String, Vec<u8>>;

/// §5: seed and uploaded files, measured on decoded bytes.
const MAX_FILE_BYTES: usize = 5 * 1024 * 1024;
const MAX_REQUEST_BYTES: usize = 10 * 1024 * 1024;
const MAX_FILES_PER_REQUEST: usize = 50;

/// `files/content` returns at most this much of a file (`truncated: true` beyond).
const MAX_CONTENT_BYTES: usize = 1024 * 1024;

/// The workspace as last captured: what `GET …/files` and `files/content` answer from.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    pub(crate) captured_at: i64,
    pub(crate) files: Tree,
}

impl Snapshot {
    pub(crate) fn of(files: &Tree) -> Snapshot {
        Snapshot {
            captured_at: unix_ms(),
            files: files.clone(),
        }
    }
}

/// `path` as a path relative to `/workspace`, or a 400 when it points outside it.
pub(crate) fn workspace_path(path: &str) -> Result<String, Refusal> {
    let relative = match path.strip_prefix("/workspace") {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest.trim_start_matches('/'),
        _ if path.starts_with('/') => {
            return Err(Refusal::invalid(format!(
                "path \"{path}\" is outside /workspace."
            )));
        }
        _ => path,
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(Refusal::invalid(format!(
                        "path \"{path}\" is outside /workspace."
                    )));
                }
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(Refusal::invalid(format!("path \"{path}\" names no file.")));
    }
    Ok(parts.join("/"))
}

/// Env files and key material are withheld: listed with `readable: false`, and reading
/// them is `403 permission_denied` (§6.8).
pub(crate) fn is_withheld(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == ".env"
        || name.starts_with(".env.")
        || name.starts_with("id_rsa")
        || name.starts_with("id_ed25519")
        || [".pem", ".key", ".p12"]
            .iter()
            .any(|ext| name.ends_with(ext))
}

/// Parses `environment.files` / the `files` of `POST …/files`: `[{type?: "inline", path,
/// data}]`, `data` base64, within the §5 limits.
pub(crate) fn parse_seed_files(value: &Value, field: &str) -> Result<Files, Refusal> {
    let Some(list) = value.as_array() else {
        return Err(Refusal::invalid(format!("{field} must be an array.")));
    };
    if list.len() > MAX_FILES_PER_REQUEST {
        return Err(Refusal::invalid(format!(
            "{field} holds at most {MAX_FILES_PER_REQUEST} files."
        )));
    }
    let mut files = Files::new();
    let mut total = 0;
    for (i, entry) in list.iter().enumerate() {
        let Some(obj) = entry.as_object() else {
            return Err(Refusal::invalid(format!("{field}[{i}] must be an object.")));
        };
        if let Some(unknown) = obj
            .keys()
            .find(|k| !["type", "path", "data"].contains(&k.as_str()))
        {
            return Err(Refusal::invalid(format!(
                "Unknown field \"{field}[{i}].{unknown}\"; accepted: type, path, data."
            )));
        }
        match obj.get("type") {
            None => {}
            Some(Value::String(t)) if t == "inline" => {}
            Some(_) => {
                return Err(Refusal::invalid(format!(
                    "{field}[{i}].type must be \"inline\"."
                )));
            }
        }
        let (Some(Value::String(path)), Some(Value::String(data))) =
            (obj.get("path"), obj.get("data"))
        else {
            return Err(Refusal::invalid(format!(
                "{field}[{i}] needs a string path and base64 data."
            )));
        };
        let bytes = BASE64
            .decode(data)
            .map_err(|_| Refusal::invalid(format!("{field}[{i}].data is not valid base64.")))?;
        if bytes.len() > MAX_FILE_BYTES {
            return Err(Refusal::invalid(format!(
                "{field}[{i}] is over the {MAX_FILE_BYTES} byte per-file limit."
            )));
        }
        total += bytes.len();
        if total > MAX_REQUEST_BYTES {
            return Err(Refusal::invalid(format!(
                "{field} is over the {MAX_REQUEST_BYTES} byte per-request limit."
            )));
        }
        files.insert(workspace_path(path)?, bytes);
    }
    Ok(files)
}

/// One file's `workspace_file` entry of a listing.
pub(crate) fn file_entry(path: &str, size: usize) -> Value {
    json!({"object": "workspace_file", "type": "file", "path": path, "size_bytes": size,
           "readable": !is_withheld(path)})
}

/// One directory's `workspace_file` entry of a listing.
fn directory_entry(path: &str) -> Value {
    json!({"object": "workspace_file", "type": "directory", "path": path, "readable": true})
}

/// Every directory holding a file of `files` (`src`, `src/bin` for `src/bin/a.rs`).
fn directories(files: &Tree) -> std::collections::BTreeSet<&str> {
    files
        .paths()
        .flat_map(|path| path.match_indices('/').map(move |(end, _)| &path[..end]))
        .collect()
}

/// The file tree of `GET …/files` and `POST …/files/refresh`.
pub(crate) fn tree(snapshot: Option<&Snapshot>) -> Value {
    match snapshot {
        None => json!({"object": "list", "data": [], "captured_at": null, "state": "missing",
                       "truncated": false}),
        Some(s) => {
            // Sorted by path, a directory just before what it holds.
            let mut entries: Vec<(&str, Value)> = directories(&s.files)
                .into_iter()
                .map(|dir| (dir, directory_entry(dir)))
                .chain(
                    s.files
                        .iter()
                        .map(|(path, bytes)| (path, file_entry(path, bytes.len()))),
                )
                .collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let data: Vec<Value> = entries.into_iter().map(|(_, entry)| entry).collect();
            json!({"object": "list", "data": data, "captured_at": s.captured_at,
                   "state": "ready", "truncated": false})
        }
    }
}

/// `workspace_file.content`: UTF-8 text as is, anything else base64.
pub(crate) fn content(path: &str, captured_at: i64, bytes: &[u8]) -> Value {
    let truncated = bytes.len() > MAX_CONTENT_BYTES;
    let mut shown = &bytes[..bytes.len().min(MAX_CONTENT_BYTES)];
    let (content, encoding) = match std::str::from_utf8(shown) {
        Ok(text) => (text.to_string(), "utf8"),
        // A cut inside a multi-byte character is still text.
        Err(e) if truncated && e.error_len().is_none() => {
            shown = &shown[..e.valid_up_to()];
            (String::from_utf8_lossy(shown).into_owned(), "utf8")
        }
        Err(_) => (BASE64.encode(shown), "base64"),
    };
    json!({"object": "workspace_file.content", "path": path, "captured_at": captured_at,
           "content": content, "encoding": encoding, "truncated": truncated})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_kept_inside_the_workspace() {
        assert_eq!(workspace_path("/workspace/src/a.rs").unwrap(), "src/a.rs");
        assert_eq!(workspace_path("notes.md").unwrap(), "notes.md");
        assert_eq!(workspace_path("./a/../b.txt").unwrap(), "b.txt");
        for outside in [
            "/etc/passwd",
            "../x",
            "/workspacex/a",
            "a/../../b",
            "/workspace",
        ] {
            assert!(workspace_path(outside).is_err(), "{outside}");
        }
    }

    #[test]
    fn listings_name_directories_as_well_as_files() {
        let files: Files = [
            ("src/bin/a.rs", "a"),
            ("src/lib.rs", "l"),
            ("notes.md", "n"),
        ]
        .into_iter()
        .map(|(p, c)| (p.to_string(), c.as_bytes().to_vec()))
        .collect();
        let tree = tree(Some(&Snapshot::of(&Tree::from_files(files))));
        let listed: Vec<(&str, &str)> = tree["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["type"].as_str().unwrap(), e["path"].as_str().unwrap()))
            .collect();
        assert_eq!(
            listed,
            [
                ("file", "notes.md"),
                ("directory", "src"),
                ("directory", "src/bin"),
                ("file", "src/bin/a.rs"),
                ("file", "src/lib.rs"),
            ]
        );
    }

    #[test]
    fn secrets_are_withheld() {
        for p in [
            ".env",
            "app/.env.local",
            "certs/server.pem",
            "keys/id_rsa.pub",
        ] {
            assert!(is_withheld(p), "{p}");
        }
        assert!(!is_withheld("src/env.rs"));
    }

    #[test]
    fn seed_files_decode_and_refuse_what_the_spec_refuses() {
        let ok = json!([{"type": "inline", "path": "notes.md", "data": "IyBOb3Rlcwo="}]);
        let files = parse_seed_files(&ok, "files").unwrap();
        assert_eq!(files["notes.md"], b"# Notes\n");
        for bad in [
            json!([{"path": "a", "data": "!!"}]),
            json!([{"path": "/etc/a", "data": ""}]),
            json!([{"path": "a", "data": "", "mode": "0644"}]),
            json!([{"type": "url", "path": "a", "data": ""}]),
            json!(
                (0..51)
                    .map(|i| json!({"path": format!("f{i}"), "data": ""}))
                    .collect::<Vec<_>>()
            ),
        ] {
            assert!(parse_seed_files(&bad, "files").is_err(), "{bad}");
        }
    }

    #[test]
    fn binary_content_is_base64_and_long_content_truncated() {
        let c = content("a.bin", 1, &[0xff, 0x00]);
        assert_eq!(
            (c["encoding"].as_str(), c["content"].as_str()),
            (Some("base64"), Some("/wA="))
        );
        let long = vec![b'x'; MAX_CONTENT_BYTES + 1];
        let c = content("big.txt", 1, &long);
        assert_eq!(c["truncated"], true);
        assert_eq!(c["content"].as_str().unwrap().len(), MAX_CONTENT_BYTES);
    }
}
