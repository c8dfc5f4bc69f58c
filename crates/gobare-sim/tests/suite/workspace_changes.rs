//! The simulator's file changes are real: its `file.changed` diffs, replayed in order on
//! the session's seed files, give its workspace byte for byte, over several turns editing
//! the same file, with files created and deleted among them.

use crate::support::{Api, Frame};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub(crate) const SEEDS: [(&str, &str); 4] = [
    (
        "src/lib.rs",
        "//! A small library.\n\npub const VERSION: u32 = 1;\n\npub fn hello() -> &'static str {\n    \"hello\"\n}\n",
    ),
    ("docs/old.md", "# Old\n\nNobody reads this.\n"),
    ("README.md", "# Project\n"),
    // What `#quick` edits, as the repository would hold it.
    (
        "src/export.ts",
        "  const lines = [HEADER];\n  let total = 0;\n  for (const row of rows) {\n    lines.push(formatRow(row));\n    total += Math.round(row.amount * 100) / 100;\n  }\n  lines.push(`TOTAL,,${total.toFixed(2)}`);\n  return lines.join(\"\\n\");\n}\n",
    ),
];

async fn seeded_session(api: &Api) -> String {
    let files: Vec<Value> = SEEDS
        .iter()
        .map(|(path, text)| json!({"path": path, "data": BASE64.encode(text)}))
        .collect();
    let (status, body) = api
        .post("/v1/sessions", json!({"environment": {"files": files}}))
        .await;
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().unwrap().to_string()
}

/// The workspace's files as `GET …/files?refresh=1` and `files/content` read them.
async fn workspace(api: &Api, id: &str) -> BTreeMap<String, String> {
    let (status, tree) = api.get(&format!("/v1/sessions/{id}/files?refresh=1")).await;
    assert_eq!(status, 200, "{tree}");
    let mut files = BTreeMap::new();
    for entry in tree["data"].as_array().unwrap() {
        if entry["type"] == "directory" {
            continue;
        }
        let path = entry["path"].as_str().unwrap();
        let (status, file) = api
            .get(&format!("/v1/sessions/{id}/files/content?path={path}"))
            .await;
        assert_eq!(status, 200, "{file}");
        assert_eq!(file["encoding"], "utf8");
        files.insert(
            path.to_string(),
            file["content"].as_str().unwrap().to_string(),
        );
    }
    files
}

fn replayed(frames: &[Frame]) -> (BTreeMap<String, String>, Vec<String>) {
    let mut files: BTreeMap<String, String> = SEEDS
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    let mut kinds = Vec::new();
    for frame in frames.iter().filter(|f| f.kind() == "file.changed") {
        let payload = &frame.json()["payload"];
        let path = payload["path"]
            .as_str()
            .unwrap()
            .trim_start_matches("/workspace/")
            .to_string();
        let kind = payload["changeType"].as_str().unwrap().to_string();
        let diff = payload["diff"]
            .as_str()
            .expect("every change here has its diff");
        let patch = diffy::Patch::from_str(diff).unwrap_or_else(|e| panic!("{e}: {diff}"));
        let before = files.get(&path).cloned();
        assert_eq!(before.is_none(), kind == "created", "{path}: {kind}");
        let after = diffy::apply(before.as_deref().unwrap_or(""), &patch)
            .unwrap_or_else(|e| panic!("{path}: {e}: {diff}"));
        if kind == "deleted" {
            assert_eq!(after, "", "a removal's diff takes the whole file");
            files.remove(&path);
        } else {
            files.insert(path.clone(), after);
        }
        kinds.push(format!("{kind} {path}"));
    }
    (files, kinds)
}

#[tokio::test]
async fn diffs_replayed_on_the_seed_files_give_the_workspace_byte_for_byte() {
    let api = Api::test().await;
    let id = seeded_session(&api).await;
    let mut sse = api.stream(&id, None).await;
    let mut frames = Vec::new();
    for text in [
        "#edits first pass",
        "#edits second pass",
        "#quick fix the totals",
    ] {
        api.message(&id, text).await;
        frames.extend(sse.events_until("turn.ended").await);
    }
    let (expected, kinds) = replayed(&frames);
    assert_eq!(
        kinds,
        [
            "modified src/lib.rs",
            "modified src/lib.rs",
            "created notes/todo.md",
            "created scratch.txt",
            "deleted scratch.txt",
            "deleted docs/old.md",
            // The second pass: the greeting and version are done; the helper and the note grow.
            "modified src/lib.rs",
            "modified notes/todo.md",
            "created scratch.txt",
            "deleted scratch.txt",
            "modified src/export.ts",
            "created outputs/report.md",
        ]
    );
    let actual = workspace(&api, &id).await;
    assert_eq!(actual, expected);
    assert!(actual["src/lib.rs"].contains("VERSION: u32 = 2"));
    assert_eq!(actual["src/lib.rs"].matches("pub fn helper").count(), 2);
}

#[tokio::test]
async fn undiffed_changes_carry_no_diff_or_a_cut_one() {
    let api = Api::test().await;
    let id = seeded_session(&api).await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#edits").await;
    sse.events_until("turn.ended").await;
    api.message(&id, "#undiffed").await;
    let frames = sse.events_until("turn.ended").await;
    let changes: Vec<Value> = frames
        .iter()
        .filter(|f| f.kind() == "file.changed")
        .map(|f| f.json()["payload"].clone())
        .collect();
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert!(changes[0].get("diff").is_none(), "{:?}", changes[0]);
    let cut = changes[1]["diff"].as_str().unwrap();
    assert!(
        cut.ends_with('…') && diffy::Patch::from_str(cut).is_err(),
        "{cut}"
    );
}
