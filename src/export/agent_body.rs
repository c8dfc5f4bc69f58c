//! An agent's message as Markdown inside the export: its own headings demoted below the
//! export's (`#` becomes `####`, `##` `#####`, deeper ones `######`), so a `## Plan` sits
//! under its turn rather than beside it; its fenced code kept as written (a fence left open
//! is closed where the message ends, so it cannot swallow the rest of the export); every
//! other line text only ([`body_line`]).

use super::markdown_escape::body_line;
use std::io::{self, Write};

/// Levels the export's own structure uses (`#` title, `##` turn, `###` entry).
const EXPORT_LEVELS: usize = 3;
/// The deepest heading Markdown has.
const DEEPEST: usize = 6;

/// Writes `cleaned` (already inert and redacted, lines split by `\n`) to `out`.
pub(crate) fn write_agent_body(out: &mut impl Write, cleaned: &str) -> io::Result<()> {
    let mut fence: Option<Fence> = None;
    for (i, line) in cleaned.split('\n').enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        match &fence {
            Some(open) => {
                out.write_all(line.as_bytes())?;
                if open.closed_by(line) {
                    fence = None;
                }
            }
            None => {
                if let Some(opened) = Fence::opened_by(line) {
                    out.write_all(line.as_bytes())?;
                    fence = Some(opened);
                } else if let Some((level, rest)) = atx_heading(line) {
                    let level = (level + EXPORT_LEVELS).min(DEEPEST);
                    (0..level).try_for_each(|_| out.write_all(b"#"))?;
                    out.write_all(body_line(rest).as_bytes())?;
                } else {
                    out.write_all(body_line(line).as_bytes())?;
                }
            }
        }
    }
    if let Some(open) = fence {
        out.write_all(b"\n")?;
        (0..open.len).try_for_each(|_| out.write_all(&[open.mark]))?;
    }
    Ok(())
}

/// An open code fence: its character and length.
struct Fence {
    mark: u8,
    len: usize,
}

impl Fence {
    /// The fence `line` opens (CommonMark: up to three spaces, then three or more of one
    /// of `` ` `` or `~`; a backtick fence's info string holds no backtick).
    fn opened_by(line: &str) -> Option<Fence> {
        let rest = unindented(line)?;
        let mark = *rest.as_bytes().first()?;
        if mark != b'`' && mark != b'~' {
            return None;
        }
        let len = rest.bytes().take_while(|&b| b == mark).count();
        let info = &rest[len..];
        (len >= 3 && !(mark == b'`' && info.contains('`'))).then_some(Fence { mark, len })
    }

    /// Whether `line` closes this fence: the same character, at least as many, nothing
    /// after but blanks.
    fn closed_by(&self, line: &str) -> bool {
        let Some(rest) = unindented(line) else {
            return false;
        };
        let len = rest.bytes().take_while(|&b| b == self.mark).count();
        len >= self.len && rest[len..].trim_matches([' ', '\t']).is_empty()
    }
}

/// `line` without up to three leading spaces; `None` when indented further (code).
fn unindented(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches(' ');
    (line.len() - rest.len() <= 3).then_some(rest)
}

/// An ATX heading's level and what follows its `#`s (from the blank after them).
fn atx_heading(line: &str) -> Option<(usize, &str)> {
    let rest = unindented(line)?;
    let level = rest.bytes().take_while(|&b| b == b'#').count();
    let after = &rest[level..];
    let heading =
        (1..=DEEPEST).contains(&level) && (after.is_empty() || after.starts_with([' ', '\t']));
    heading.then_some((level, after))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(s: &str) -> String {
        let mut out = Vec::new();
        write_agent_body(&mut out, s).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn headings_sit_below_the_exports_own() {
        assert_eq!(written("# Title"), "#### Title");
        assert_eq!(written("## Plan\n\n- a"), "##### Plan\n\n- a");
        assert_eq!(written("### Turn 99"), "###### Turn 99");
        assert_eq!(written("###### deep"), "###### deep");
        assert_eq!(written("  ## indented"), "##### indented");
        assert_eq!(
            written("#hashtag"),
            "\\#hashtag",
            "not a heading, still text"
        );
        assert_eq!(written("## <b>x</b>"), "##### &lt;b>x&lt;/b>");
    }

    #[test]
    fn code_is_kept_as_written_and_an_open_fence_is_closed() {
        let code = "```sh\n# a comment\n<b>\n```\n## After";
        assert_eq!(written(code), "```sh\n# a comment\n<b>\n```\n##### After");
        assert_eq!(written("~~~~\nx\n~~~"), "~~~~\nx\n~~~\n~~~~");
        // Not a fence (a backtick in its info string): text, its backticks escaped as every
        // body line's are, so no reader takes it for one.
        assert_eq!(written("``` a`b\n# x"), "\\``` a`b\n#### x", "not a fence");
        assert_eq!(written("    ```\n# x"), "    ```\n#### x", "indented code");
    }
}
