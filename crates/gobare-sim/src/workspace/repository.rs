//! The repository every scenario works in, as a workspace holds it before any turn: each
//! file a scenario changes without creating it first, with the text the scenario says it
//! held (`before` of its first step on that path). Built once and shared by every
//! session's workspace ([`Tree`]); the first scenario naming a path decides its text.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use crate::agent::scenario::{Scenarios, Step};
use crate::workspace::files::{Files, workspace_path};
use crate::workspace::tree::Tree;

/// The repository's files.
pub(crate) fn tree() -> &'static Tree {
    static TREE: OnceLock<Tree> = OnceLock::new();
    TREE.get_or_init(|| Tree::from_files(files_of(&Scenarios::embedded())))
}

/// A new workspace: the repository, then the session's seed files where it has none.
pub(crate) fn workspace(seed_files: &Files) -> Tree {
    let mut tree = tree().clone();
    tree.write_missing(seed_files);
    tree
}

fn files_of(scenarios: &Scenarios) -> Files {
    let mut files = Files::new();
    for scenario in scenarios.all() {
        // Paths this scenario touched already: a later step starts from its own change.
        let mut touched = BTreeSet::new();
        for step in &scenario.steps {
            let file = match step {
                Step::Tool(tool) => tool.file.as_ref(),
                Step::Approval(approval) => approval.tool.file.as_ref(),
                _ => None,
            };
            let Some(file) = file else { continue };
            let Ok(path) = workspace_path(&file.path) else {
                continue;
            };
            if !touched.insert(path.clone()) || file.change == "created" {
                continue;
            }
            if let Some(before) = &file.before {
                files
                    .entry(path)
                    .or_insert_with(|| before.clone().into_bytes());
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_holds_what_scenarios_change_and_not_what_they_create() {
        let repo = tree();
        for path in [
            "src/export.ts",
            "src/lib.rs",
            "docs/old.md",
            "src/billing/service.rs",
        ] {
            assert!(repo.get(path).is_some(), "{path} is in the repository");
        }
        for created in ["outputs/report.md", "notes/todo.md", "src/storage/pg.rs"] {
            assert!(repo.get(created).is_none(), "{created} is the agent's");
        }
        assert!(workspace(&Files::new()).shares_map_with(repo));
    }
}
