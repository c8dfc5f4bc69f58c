//! Ctrl+G: the draft in the person's own editor — `$VISUAL`, else `$EDITOR`, else `vi`, as
//! git picks one. The draft goes to a private temp file, the terminal to the editor (the UI
//! steps aside as it does for the shell), and the file comes back into the box when the
//! editor exits 0; otherwise the draft stays as it was. At most [`DRAFT_BACK_MAX_BYTES`]
//! come back (a message can be no longer): a larger file is kept where it is, and named.

use super::SessionFront;
use crate::session::Severity;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

/// The editor when neither `VISUAL` nor `EDITOR` names one.
const FALLBACK_EDITOR: &str = "vi";

/// The most the box takes back from the editor: the API's request body limit (§ limits,
/// 1 MiB), so nothing larger could be sent, and the box stays quick to edit.
pub(crate) const DRAFT_BACK_MAX_BYTES: u64 = 1024 * 1024;

/// What the editor's file gave back.
#[derive(Debug, PartialEq, Eq)]
enum Back {
    Draft(String),
    /// Over [`DRAFT_BACK_MAX_BYTES`]: not read further.
    TooLarge,
}

/// The file at `path`, read no further than the bound.
fn read_back(path: &Path) -> std::io::Result<Back> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(DRAFT_BACK_MAX_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > DRAFT_BACK_MAX_BYTES {
        return Ok(Back::TooLarge);
    }
    Ok(Back::Draft(
        draft_text(&String::from_utf8_lossy(&bytes)).to_string(),
    ))
}

/// The editor's file kept past the app's temp-file cleanup, for a draft too large to take.
fn keep(file: tempfile::NamedTempFile) -> Option<PathBuf> {
    file.keep().ok().map(|(_, path)| path)
}

/// The editor command: the first of `VISUAL`, `EDITOR` that is set and not blank.
pub(crate) fn editor_from(visual: Option<String>, editor: Option<String>) -> String {
    [visual, editor]
        .into_iter()
        .flatten()
        .find(|e| !e.trim().is_empty())
        .unwrap_or_else(|| FALLBACK_EDITOR.to_string())
}

/// Runs `editor` on `file`: through `sh -c '<editor> "$1"'`, as git does, so an editor
/// given with its arguments (`code --wait`, `emacsclient -t`) works and the file name is
/// never split or expanded.
fn run_editor(editor: &str, file: &Path) -> std::io::Result<ExitStatus> {
    Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg(editor)
        .arg(file)
        .status()
}

/// The draft as the editor gets it: a text file ends with a line break.
fn file_text(draft: &str) -> String {
    if draft.is_empty() || draft.ends_with('\n') {
        draft.to_string()
    } else {
        format!("{draft}\n")
    }
}

/// The file as the box gets it back: the one line break editors end a file with dropped.
fn draft_text(file: &str) -> &str {
    let file = file.strip_suffix('\n').unwrap_or(file);
    file.strip_suffix('\r').unwrap_or(file)
}

impl SessionFront {
    pub(crate) fn act_edit_externally(&mut self) {
        let editor = editor_from(std::env::var("VISUAL").ok(), std::env::var("EDITOR").ok());
        let file = match write_draft(&self.screen.composer.text()) {
            Ok(file) => file,
            Err(e) => {
                return self.notice_at(
                    Severity::Error,
                    format!("could not write the draft for the editor: {e}"),
                );
            }
        };
        let shown = gobare_api::text::one_line(&editor, 40);
        let outside = self.tui.run_outside(|| run_editor(&editor, file.path()));
        if let Some(spoken) = &mut self.spoken {
            spoken.forget_input_line();
        }
        match outside {
            Err(e) => self.fail(e.into()),
            Ok(Ok(status)) if status.success() => match read_back(file.path()) {
                Ok(Back::Draft(text)) => {
                    self.screen.composer.set_text(&text);
                    self.act_draft_changed();
                }
                Ok(Back::TooLarge) => {
                    let kept = keep(file).map_or_else(
                        || "it could not be kept".to_string(),
                        |p| {
                            format!(
                                "it is kept in {}",
                                gobare_api::text::one_line(&p.display().to_string(), 200)
                            )
                        },
                    );
                    self.notice_at(
                        Severity::Warn,
                        format!(
                            "the edited draft is over 1 MiB, more than a message can hold: \
                             the box keeps the old one; {kept}"
                        ),
                    );
                }
                Err(e) => self.notice_at(
                    Severity::Error,
                    format!("could not read the draft back: {e}; the box keeps the old one"),
                ),
            },
            Ok(Ok(status)) => self.notice_at(
                Severity::Warn,
                format!("{shown} ended with {status}: the draft is as it was"),
            ),
            Ok(Err(e)) => self.notice_at(
                Severity::Error,
                format!("could not run {shown}: {e}; the draft is as it was"),
            ),
        }
        self.request_frame();
    }
}

/// The draft in a new temp file only this user can read (tempfile makes it 0600); it is
/// removed when the returned handle drops.
fn write_draft(draft: &str) -> std::io::Result<tempfile::NamedTempFile> {
    let mut file = tempfile::Builder::new()
        .prefix("gobare-draft-")
        .suffix(".md")
        .tempfile()?;
    file.write_all(file_text(draft).as_bytes())?;
    file.flush()?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visual_then_editor_then_vi_and_blank_ones_do_not_count() {
        let s = |v: &str| Some(v.to_string());
        assert_eq!(editor_from(s("code --wait"), s("nano")), "code --wait");
        assert_eq!(editor_from(None, s("nano")), "nano");
        assert_eq!(editor_from(s("  "), s("nano")), "nano");
        assert_eq!(editor_from(s(""), None), "vi");
        assert_eq!(editor_from(None, None), "vi");
    }

    #[test]
    fn the_draft_round_trips_through_the_file_with_one_final_line_break() {
        assert_eq!(file_text("fix it"), "fix it\n");
        assert_eq!(file_text(""), "");
        assert_eq!(draft_text(&file_text("fix it\nnow")), "fix it\nnow");
        assert_eq!(draft_text("kept\n\n"), "kept\n");
        assert_eq!(draft_text("crlf\r\n"), "crlf");
    }

    #[test]
    fn at_most_the_bound_comes_back_from_the_editor() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("draft.md");
        let at_bound = "x".repeat(DRAFT_BACK_MAX_BYTES as usize - 1) + "\n";
        std::fs::write(&file, &at_bound).unwrap();
        assert_eq!(
            read_back(&file).unwrap(),
            Back::Draft(at_bound.trim_end().to_string())
        );
        std::fs::write(&file, "y".repeat(8 * 1024 * 1024)).unwrap();
        assert_eq!(read_back(&file).unwrap(), Back::TooLarge);
        let over = "z".repeat(DRAFT_BACK_MAX_BYTES as usize + 1);
        std::fs::write(&file, over).unwrap();
        assert_eq!(read_back(&file).unwrap(), Back::TooLarge);
    }

    #[test]
    fn the_editor_gets_the_file_as_one_word_and_its_own_arguments_split() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a draft $HOME.md");
        std::fs::write(&file, "x\n").unwrap();
        // An editor given with an argument, writing what it was given.
        let status = run_editor("printf '%s|%s' extra >", &file).unwrap();
        assert!(status.success());
        let got = std::fs::read_to_string(&file).unwrap();
        assert_eq!(got, "extra|");
        let status = run_editor("exit 3 ||", &file).unwrap();
        assert_eq!(status.code(), Some(3));
    }
}
