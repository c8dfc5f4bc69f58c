//! The workspace's files (reference §6.8): the snapshot tree and one file's content. Both
//! read the last snapshot, not the live sandbox.

use crate::client::{ApiClient, IdempotencyKey};
use crate::error::ApiError;
use serde::{Deserialize, Serialize};

/// `GET …/files` and `POST …/files/refresh`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileTree {
    /// The files (and, where the server lists them, directories).
    #[serde(default)]
    pub data: Vec<WorkspaceFile>,
    /// When the snapshot was taken (Unix ms); `None` when there is none yet.
    #[serde(default)]
    pub captured_at: Option<i64>,
    /// `"ready"`, or `"missing"`: no snapshot yet (not the same as an empty workspace).
    #[serde(default)]
    pub state: Option<String>,
    /// The server listed only part of the tree.
    #[serde(default)]
    pub truncated: bool,
}

/// One `workspace_file` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceFile {
    /// Relative to `/workspace` (or absolute below it).
    pub path: String,
    /// Bytes, where given.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// `false` for withheld paths (env files, key material): reading them is refused.
    #[serde(default = "yes")]
    pub readable: bool,
    /// `"file"` or `"directory"` where the server says.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

fn yes() -> bool {
    true
}

/// `workspace_file.content`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileContent {
    /// The file's path.
    pub path: String,
    /// When the snapshot it comes from was taken (Unix ms).
    #[serde(default)]
    pub captured_at: Option<i64>,
    /// The text, or base64 of the bytes (see `encoding`).
    pub content: String,
    /// `"utf8"` or `"base64"`.
    #[serde(default)]
    pub encoding: Option<String>,
    /// Only the start of the file was sent.
    #[serde(default)]
    pub truncated: bool,
}

impl ApiClient {
    /// `GET /v1/sessions/{id}/files[?refresh=1]`: the last snapshot's tree; with `refresh`
    /// one is taken first (needs `sessions:write`).
    pub async fn list_files(&self, session_id: &str, refresh: bool) -> Result<FileTree, ApiError> {
        let q = if refresh {
            vec![("refresh", "1".to_string())]
        } else {
            Vec::new()
        };
        self.get(&["sessions", session_id, "files"], q).await
    }

    /// `POST /v1/sessions/{id}/files/refresh`: takes a snapshot (waking a paused sandbox),
    /// then the tree.
    pub async fn refresh_files(&self, session_id: &str) -> Result<FileTree, ApiError> {
        let body = serde_json::Map::new();
        self.write(
            &["sessions", session_id, "files", "refresh"],
            &body,
            &IdempotencyKey::new(),
        )
        .await
    }

    /// `GET /v1/sessions/{id}/files/content?path=…`: one file of the last snapshot.
    pub async fn file_content(
        &self,
        session_id: &str,
        path: &str,
    ) -> Result<FileContent, ApiError> {
        self.get(
            &["sessions", session_id, "files", "content"],
            vec![("path", path.to_string())],
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_with_or_without_type_and_readable() {
        let tree: FileTree = serde_json::from_value(serde_json::json!({
            "object": "list", "captured_at": 5, "state": "ready", "truncated": false,
            "data": [
                {"object": "workspace_file", "type": "file", "path": "a.rs", "size_bytes": 3,
                 "readable": true},
                {"object": "workspace_file", "path": ".env", "size_bytes": 1, "readable": false},
                {"object": "workspace_file", "type": "directory", "path": "src"},
                {"object": "workspace_file", "path": "old.txt"}
            ]
        }))
        .unwrap();
        let seen: Vec<_> = tree
            .data
            .iter()
            .map(|f| (f.path.as_str(), f.kind.as_deref(), f.readable))
            .collect();
        assert_eq!(
            seen,
            [
                ("a.rs", Some("file"), true),
                (".env", None, false),
                ("src", Some("directory"), true),
                ("old.txt", None, true),
            ]
        );
        let missing: FileTree = serde_json::from_value(serde_json::json!({
            "object": "list", "data": [], "captured_at": null, "state": "missing"
        }))
        .unwrap();
        assert_eq!(
            (missing.captured_at, missing.state.as_deref()),
            (None, Some("missing"))
        );
    }
}
