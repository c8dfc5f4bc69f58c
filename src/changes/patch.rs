//! Composed file changes written in `git diff` format, which `git apply` takes: one
//! `diff --git` section per file, sorted by path, new and deleted files with their mode.

use super::compose::{FileDiff, Hunk, LineTag, Status};
use std::fmt::Write;

/// The mode written for new and removed files: the reference does not say more.
const FILE_MODE: &str = "100644";

/// `files` (relative path, change) as one patch.
pub(crate) fn write_patch<'a>(files: impl IntoIterator<Item = (&'a str, &'a FileDiff)>) -> String {
    let mut out = String::new();
    for (path, diff) in files {
        file_section(&mut out, path, diff);
    }
    out
}

fn file_section(out: &mut String, path: &str, diff: &FileDiff) {
    let _ = writeln!(out, "diff --git a/{path} b/{path}");
    match diff.status {
        Status::Added => {
            let _ = writeln!(out, "new file mode {FILE_MODE}");
        }
        Status::Deleted => {
            let _ = writeln!(out, "deleted file mode {FILE_MODE}");
        }
        Status::Modified => {}
    }
    if diff.hunks.is_empty() {
        return;
    }
    let (old, new) = match diff.status {
        Status::Added => ("/dev/null".to_string(), format!("b/{path}")),
        Status::Deleted => (format!("a/{path}"), "/dev/null".to_string()),
        Status::Modified => (format!("a/{path}"), format!("b/{path}")),
    };
    let _ = writeln!(out, "--- {old}\n+++ {new}");
    for hunk in &diff.hunks {
        write_hunk(out, hunk);
    }
}

/// One hunk: its header and its lines, a last line without `\n` marked as `git` marks it.
pub(crate) fn write_hunk(out: &mut String, hunk: &Hunk) {
    let _ = writeln!(
        out,
        "@@ -{},{} +{},{} @@",
        hunk.old_start, hunk.old_len, hunk.new_start, hunk.new_len
    );
    for line in &hunk.lines {
        out.push(match line.tag {
            LineTag::Context => ' ',
            LineTag::Removed => '-',
            LineTag::Added => '+',
        });
        out.push_str(&line.text);
        if !line.text.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}
