//! What the disk refused at quit, said on stderr once the screen has closed: the draft and
//! an unconfirmed send are written to a private file of their own in the temporary
//! directory, or printed when that is refused too, so typed text is never lost without a
//! word.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A session's typed text that could not be saved at quit, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unsaved {
    pub(crate) session_id: String,
    pub(crate) why: String,
    pub(crate) draft: String,
    /// A message or steer sent but not confirmed by the server.
    pub(crate) unconfirmed: Option<String>,
}

impl Unsaved {
    /// Whether anything typed would be lost (a cursor alone is not worth a word).
    pub(crate) fn has_text(&self) -> bool {
        !self.draft.trim().is_empty() || self.unconfirmed.is_some()
    }

    /// The lost text, as the fallback file holds it.
    fn text(&self) -> String {
        let mut text = String::new();
        if let Some(sent) = &self.unconfirmed {
            text.push_str("# sent, not confirmed by the server:\n");
            text.push_str(sent);
            text.push('\n');
        }
        if !self.draft.trim().is_empty() {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str("# draft:\n");
            text.push_str(&self.draft);
            text.push('\n');
        }
        text
    }

    /// Writes the text to a new file in `dir` (created for this, readable by the user
    /// alone) and says on `out` where it went; when that file is refused too, the text
    /// itself goes to `out`, every line sanitized.
    pub(crate) fn report(&self, dir: &Path, out: &mut impl Write) -> io::Result<()> {
        let session = gobare_api::text::line(&self.session_id);
        let why = gobare_api::text::line(&self.why);
        writeln!(
            out,
            "gobare-tui: could not save what was typed in session {session}: {why}"
        )?;
        match write_fallback(dir, &self.text()) {
            Ok(path) => writeln!(out, "gobare-tui: it is in {}", path.display()),
            Err(e) => {
                let dir = dir.display();
                writeln!(out, "gobare-tui: nor in {dir} ({e}); here it is:")?;
                for line in gobare_api::text::lines_iter(&self.text()) {
                    writeln!(out, "  {line}")?;
                }
                Ok(())
            }
        }
    }
}

/// A new file in `dir` holding `text`, kept (not removed when closed).
fn write_fallback(dir: &Path, text: &str) -> io::Result<PathBuf> {
    // tempfile: a name nobody else holds, created exclusively, mode 0600.
    let mut file = tempfile::Builder::new()
        .prefix("gobare-tui-unsaved-")
        .suffix(".txt")
        .tempfile_in(dir)?;
    file.write_all(text.as_bytes())?;
    file.as_file().sync_all()?;
    let (_, path) = file.keep().map_err(|e| e.error)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unsaved() -> Unsaved {
        Unsaved {
            session_id: "ses_1\x1b[2J".into(),
            why: "No space left on device (os error 28)".into(),
            draft: "half a thought\nand its second line".into(),
            unconfirmed: Some("the message in flight".into()),
        }
    }

    #[test]
    fn the_text_goes_to_a_private_file_that_is_named_on_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = Vec::new();
        unsaved().report(dir.path(), &mut out).unwrap();
        let said = String::from_utf8(out).unwrap();
        assert!(said.contains("No space left on device"), "{said}");
        assert!(!said.contains('\x1b'), "server text sanitized: {said:?}");
        let file = std::fs::read_dir(dir.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        assert!(said.contains(&*file.to_string_lossy()), "{said}");
        let kept = std::fs::read_to_string(&file).unwrap();
        assert!(
            kept.contains("half a thought\nand its second line"),
            "{kept}"
        );
        assert!(kept.contains("the message in flight"), "{kept}");
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the user's alone: {mode:o}");
    }

    #[test]
    fn when_no_file_can_be_written_the_text_itself_is_printed() {
        let home = tempfile::tempdir().unwrap();
        let not_a_dir = home.path().join("a file");
        std::fs::write(&not_a_dir, "").unwrap();
        let mut out = Vec::new();
        let mut lost = unsaved();
        lost.draft.push_str("\x1b]52;c;Zm9v\x07");
        lost.report(&not_a_dir, &mut out).unwrap();
        let said = String::from_utf8(out).unwrap();
        assert!(
            said.contains("  half a thought\n  and its second line"),
            "{said}"
        );
        assert!(said.contains("the message in flight"), "{said}");
        assert!(
            !said.contains('\x1b'),
            "nothing the terminal acts on: {said:?}"
        );
    }

    #[test]
    fn a_cursor_alone_is_not_worth_a_word() {
        let lost = Unsaved {
            draft: " \n".into(),
            unconfirmed: None,
            ..unsaved()
        };
        assert!(!lost.has_text());
        assert!(unsaved().has_text());
    }
}
