//! A session's file changes gathered from its `file.changed` events: each file's history
//! as far as the diffs tell (`file_history`), composed over a range of turns into one
//! diff per file (`compose`), and written as a patch `git apply` takes (`patch`).

pub(crate) mod compose;
pub(crate) mod file_history;
pub(crate) mod patch;
pub(crate) mod paths;
pub mod perf;
pub(crate) mod reading;
pub(crate) mod session_changes;
#[cfg(test)]
mod tests;
