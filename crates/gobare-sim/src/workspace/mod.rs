//! A session's workspace: its files and snapshots (`files`), the scenarios' repository it
//! starts from (`repository`), the changes a step makes and their diffs (`file_change`,
//! `tree`), the artifact archive (`tar`) and the sandbox's timers (`lifecycle`).
pub(crate) mod file_change;
pub(crate) mod files;
pub(crate) mod lifecycle;
pub(crate) mod repository;
pub(crate) mod tar;
pub(crate) mod tree;
