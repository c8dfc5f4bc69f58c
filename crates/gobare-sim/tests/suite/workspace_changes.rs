//! The simulator's file changes are real: the workspace holds the scenarios' repository
//! from the start, and its `file.changed` diffs, replayed in order on the workspace as
//! first listed, give it as last listed byte for byte, over several turns editing the same
//! file, with files created and deleted among them; a file is `modified` or `deleted` only
//! when the listing held it.

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

/// The workspace's files as `GET …/files?refresh=1` and `files/content` read them. A
/// workspace that is not up yet answers 409 while it starts: asked again until it is.
async fn workspace(api: &Api, id: &str) -> BTreeMap<String, String> {
    let deadline = tokio::time::Instant::now() + crate::support::WAIT;
    let tree = loop {
        let (status, tree) = api.get(&format!("/v1/sessions/{id}/files?refresh=1")).await;
        if status == 409 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            continue;
        }
        assert_eq!(status, 200, "{tree}");
        break tree;
    };
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

/// `start` with the `file.changed` diffs of `frames` applied in order, and each change as
/// `"kind path"`; a change that is not `created` must find its file, a `created` one must
/// not.
fn replayed(
    start: &BTreeMap<String, String>,
    frames: &[Frame],
) -> (BTreeMap<String, String>, Vec<String>) {
    let mut files = start.clone();
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
    let first = workspace(&api, &id).await;
    for (path, text) in SEEDS {
        assert_eq!(
            first[path], text,
            "the seed files, as the repository has them"
        );
    }
    let mut frames = Vec::new();
    for text in [
        "#edits first pass",
        "#edits second pass",
        "#quick fix the totals",
    ] {
        api.message(&id, text).await;
        frames.extend(sse.events_until("turn.ended").await);
    }
    let (expected, kinds) = replayed(&first, &frames);
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

/// Frames until the turn ends, answering what it asks on the way: approvals granted,
/// questions answered with their first option, function calls answered.
async fn play_to_the_end(api: &Api, id: &str, sse: &mut crate::support::Sse) -> Vec<Frame> {
    let mut frames = Vec::new();
    loop {
        let frame = sse
            .next(crate::support::WAIT)
            .await
            .unwrap_or_else(|| panic!("the turn ends; saw {:?}", crate::support::kinds(&frames)));
        let payload = frame.json()["payload"].clone();
        let answer = match frame.kind().as_str() {
            "approval.requested" => Some(json!({"type": "input.approval",
                "call_id": payload["toolCallId"], "approved": true})),
            "question.asked" => Some(json!({"type": "input.question_answer",
                "call_id": payload["toolCallId"],
                "answer": payload["options"][0]["label"].as_str()
                    .or(payload["options"][0].as_str()).unwrap_or("yes")})),
            "tool.required" => {
                let action = api.session(id).await["required_actions"][0].clone();
                Some(json!({"type": "input.tool_result",
                    "turn_id": action["turn_id"], "call_id": payload["toolCallId"],
                    "success": true, "output": "{\"status\": \"shipped\"}"}))
            }
            _ => None,
        };
        if let Some(answer) = answer {
            let (status, body) = api.send(id, answer).await;
            assert_eq!(status, 202, "{body}");
        }
        let ended = frame.kind() == "turn.ended";
        frames.push(frame);
        if ended {
            return frames;
        }
    }
}

/// Every scenario, played twice on a workspace nobody seeded: it starts with the
/// repository (listed and readable before any turn), and each turn's diffs applied to the
/// listing before it give the listing after it. `recovery` is left out: its workspace is
/// reclaimed and not rebuilt, so there is no listing after; `undiffed` sends no whole
/// diffs, so only its kinds are checked.
#[tokio::test]
async fn every_scenario_s_diffs_applied_to_the_listing_before_each_turn_give_the_one_after() {
    let api = Api::test().await;
    let mut names = api.sim.scenarios();
    names.retain(|n| n != "recovery");
    for name in names {
        let id = api.new_session().await;
        api.sim.declare_function(&id, "lookup_order", None);
        let mut sse = api.stream(&id, None).await;
        let mut listed = workspace(&api, &id).await;
        assert!(
            listed.contains_key("src/export.ts") && listed.contains_key("src/lib.rs"),
            "#{name}: the repository before any turn: {:?}",
            listed.keys()
        );
        for pass in ["first", "second"] {
            let (status, body) = api.message(&id, &format!("#{name} {pass} pass")).await;
            assert_eq!(status, 202, "{body}");
            let frames = play_to_the_end(&api, &id, &mut sse).await;
            let after = workspace(&api, &id).await;
            if name == "undiffed" {
                continue;
            }
            let (expected, kinds) = replayed(&listed, &frames);
            assert_eq!(after, expected, "#{name} {pass} pass: {kinds:?}");
            listed = after;
        }
    }
}
