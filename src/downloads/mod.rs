//! Saving what a session produced (artifacts, a turn's archive) to the local disk: which
//! artifacts to save where, and safely. The `artifacts` command
//! and the app's artifact list both save through it.

pub(crate) mod beneath;
pub(crate) mod save;
pub(crate) mod save_dir;
pub(crate) mod target;

use gobare_api::client::{ApiClient, Order, Page};
use gobare_api::error::ApiError;
use gobare_api::model::Artifact;
use gobare_api::paging::{self, Listed, PageLimits};
use gobare_api::text;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Characters of a path in a message.
const PATH_CHARS: usize = 120;
/// Artifacts per list page.
const PAGE: u32 = 100;
/// The most of a session's artifact list read: 100,000 artifacts.
const LIMITS: PageLimits = PageLimits {
    pages: 1_000,
    items: 100_000,
};

/// Every page of `GET …/artifacts`, oldest first; a list the server does not end is cut
/// (see [`gobare_api::paging`]).
pub(crate) async fn list_all(
    client: &ApiClient,
    session: &str,
    turn: Option<&str>,
) -> Result<Listed<Artifact>, ApiError> {
    let first = Page::ordered(Order::Asc).with_limit(PAGE);
    paging::read_all(
        first,
        LIMITS,
        |a: &Artifact| &a.id,
        |page| async move { client.list_artifacts(session, &page, turn).await },
    )
    .await
}

/// The artifacts to save, newest per local path by `created_at` (a later turn's file of
/// the same name replaces an earlier one; the list's order breaks a tie), each with its
/// checked relative path; or one line per refused path, which refuses them all. A path
/// that is both a file and a directory of another (`r` and `r/x`) is refused.
pub(crate) fn plan(artifacts: &[Artifact]) -> Result<Vec<(PathBuf, &Artifact)>, Vec<String>> {
    let mut by_path: BTreeMap<PathBuf, (usize, &Artifact)> = BTreeMap::new();
    let mut refused = Vec::new();
    let newness = |i: usize, a: &Artifact| (a.created_at.unwrap_or(i64::MIN), i);
    for (i, a) in artifacts.iter().enumerate() {
        match target::relative(&a.path) {
            Ok(rel) => {
                let kept = by_path.entry(rel).or_insert((i, a));
                if newness(i, a) > newness(kept.0, kept.1) {
                    *kept = (i, a);
                }
            }
            Err(why) => refused.push(format!(
                "refusing {}: {why}",
                text::one_line(&a.path, PATH_CHARS)
            )),
        }
    }
    for (rel, (_, a)) in &by_path {
        let parent_file = rel
            .ancestors()
            .skip(1)
            .filter(|p| !p.as_os_str().is_empty())
            .find(|p| by_path.contains_key(*p));
        if let Some(file) = parent_file {
            refused.push(format!(
                "refusing {}: {} is a file of its own",
                text::one_line(&a.path, PATH_CHARS),
                text::one_line(&file.display().to_string(), PATH_CHARS)
            ));
        }
    }
    if !refused.is_empty() {
        return Err(refused);
    }
    Ok(by_path.into_iter().map(|(rel, (_, a))| (rel, a)).collect())
}

/// The turn of the newest artifact.
pub(crate) fn latest_turn(artifacts: &[Artifact]) -> Option<String> {
    artifacts
        .iter()
        .enumerate()
        .max_by_key(|(i, a)| (a.created_at.unwrap_or(i64::MIN), *i))
        .map(|(_, a)| a.turn_id.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn artifact(id: &str, turn: &str, path: &str, at: i64) -> Artifact {
        serde_json::from_value(
            json!({"id": id, "turn_id": turn, "path": path, "size_bytes": 3, "created_at": at}),
        )
        .unwrap()
    }

    #[test]
    fn the_newest_artifact_per_path_is_saved_and_a_hostile_one_refuses_all() {
        let a = artifact("a1", "t1", "/workspace/outputs/r.md", 1);
        let b = artifact("a2", "t2", "/workspace/outputs/r.md", 2);
        let c = artifact("a3", "t2", "/workspace/outputs/x/y.txt", 3);
        let all = [a, b, c];
        let planned = plan(&all).unwrap();
        let ids: Vec<_> = planned
            .iter()
            .map(|(p, a)| (p.to_str().unwrap(), a.id.as_str()))
            .collect();
        assert_eq!(ids, [("r.md", "a2"), ("x/y.txt", "a3")]);
        assert_eq!(latest_turn(&all).as_deref(), Some("t2"));

        // Newest by its time, not by its place in the list.
        let older_last = [
            artifact("a5", "t2", "/workspace/outputs/r.md", 9),
            artifact("a6", "t1", "/workspace/outputs/r.md", 3),
        ];
        let planned = plan(&older_last).unwrap();
        assert_eq!(planned[0].1.id, "a5");

        // A file and a directory at one path cannot both be saved: nothing is.
        let clash = [
            artifact("a7", "t1", "/workspace/outputs/r", 1),
            artifact("a8", "t1", "/workspace/outputs/r/x.txt", 1),
        ];
        let err = plan(&clash).unwrap_err().join("\n");
        assert!(
            err.contains("refusing /workspace/outputs/r/x.txt: r is a file of its own"),
            "{err}"
        );

        let evil = artifact("a4", "t3", "/workspace/outputs/../../.bashrc", 4);
        let err = plan(&[evil]).unwrap_err().join("\n");
        assert!(
            err.contains("refusing /workspace/outputs/../../.bashrc"),
            "{err}"
        );
    }
}
