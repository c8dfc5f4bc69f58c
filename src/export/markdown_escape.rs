//! Keeping server text in its place in the Markdown export: an id inside the HTML comment
//! it is written in, a name or path inside its inline code, and a message body a
//! paragraph of text — no HTML, no link or image that runs or loads anything, no heading,
//! rule or setext underline of the export's own structure.

use std::borrow::Cow;

/// `id` for inside an HTML comment: every byte but letters, digits, `_` and `.` as `%XX`,
/// so nothing in it can close the comment (`-->`, `--!>`) or open markup.
pub(crate) fn comment_text(id: &str) -> Cow<'_, str> {
    let keep = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
    if id.bytes().all(keep) {
        return Cow::Borrowed(id);
    }
    let mut out = String::with_capacity(id.len() + 8);
    for b in id.bytes() {
        if keep(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Cow::Owned(out)
}

/// `s` (one line) as inline code that nothing in it can close: fenced with one backtick
/// more than its longest run, padded where it starts or ends with a backtick or space.
pub(crate) fn inline_code(s: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for b in s.bytes() {
        run = if b == b'`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    if s.is_empty() {
        return "` `".to_string();
    }
    let pad = if s.starts_with(['`', ' ']) || s.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    let mut code = String::with_capacity(s.len() + 2 * (longest + 2));
    (0..=longest).for_each(|_| code.push('`'));
    code.push_str(pad);
    code.push_str(s);
    code.push_str(pad);
    (0..=longest).for_each(|_| code.push('`'));
    code
}

/// One line of a message body (or of any text outside code) as text only: `<` written
/// as `&lt;` (no tag, comment or autolink), an image as its text, a link whose target is
/// not `http`, `https` or `mailto` (or relative) left unlinked, and a line that would
/// start a heading, a code fence, a rule or a setext underline escaped.
pub(crate) fn body_line(line: &str) -> Cow<'_, str> {
    let structural = starts_structure(line);
    if !structural && !holds_inline_marks(line) {
        return Cow::Borrowed(line);
    }
    body_line_marked(line, structural)
}

/// [`body_line`] of a line that may need an escape: each mark checked for.
fn body_line_marked(line: &str, structural: bool) -> Cow<'_, str> {
    let unsafe_link = has_unsafe_link(line);
    if !structural && !unsafe_link && !line.contains('<') && !line.contains("![") {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len() + 8);
    if structural {
        let indent = line.len() - line.trim_start_matches(' ').len();
        out.push_str(&line[..indent]);
        out.push('\\');
        push_inline(&mut out, &line[indent..]);
    } else {
        push_inline(&mut out, line);
    }
    Cow::Owned(out)
}

/// Server text inside one of the export's own lines (never at its start) as text only: as
/// [`body_line`], without the escape of what would only be structure at a line's start.
pub(crate) fn inline_text(text: &str) -> Cow<'_, str> {
    if !holds_inline_marks(text) {
        return Cow::Borrowed(text);
    }
    inline_text_marked(text)
}

/// [`inline_text`] of text that may need an escape: each mark checked for.
fn inline_text_marked(text: &str) -> Cow<'_, str> {
    if !has_unsafe_link(text) && !text.contains('<') && !text.contains("![") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    push_inline(&mut out, text);
    Cow::Owned(out)
}

/// Whether `text` holds a byte that any escape of [`push_inline`] starts from (a link's
/// `]`, a tag's `<`, an image's `!`): most text holds none, told in one vectorized pass.
fn holds_inline_marks(text: &str) -> bool {
    memchr::memchr3(b']', b'<', b'!', text.as_bytes()).is_some()
}

fn push_inline(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let definition = starts_definition(text);
    let mut copied = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = match b {
            b'<' => Some("&lt;"),
            b'[' if i > 0 && bytes[i - 1] == b'!' => Some("\\["),
            b'(' if i > 0 && bytes[i - 1] == b']' && !safe_target(&text[i + 1..]) => Some("\\("),
            b':' if definition && i > 0 && bytes[i - 1] == b']' && !safe_target(&text[i + 1..]) => {
                Some("\\:")
            }
            _ => None,
        };
        if let Some(escape) = escape {
            out.push_str(&text[copied..i]);
            out.push_str(escape);
            copied = i + 1;
        }
    }
    out.push_str(&text[copied..]);
}

/// Whether a line would be read as a heading (`#`), a code fence (```` ``` ````, `~~~`:
/// the rest of the export would be code), a thematic break or a setext underline (`---`,
/// `===`, `***`, `___`) rather than text.
fn starts_structure(line: &str) -> bool {
    let rest = line.trim_start_matches(' ');
    if line.len() - rest.len() > 3 {
        return false; // indented code, not structure
    }
    if rest.starts_with('#') || rest.starts_with("```") || rest.starts_with("~~~") {
        return true;
    }
    // A thematic break or setext underline: one mark repeated, spaces between. Most lines
    // are told apart by their first character, without a copy.
    let mut marks = rest.chars().filter(|c| !c.is_whitespace());
    let Some(first @ ('-' | '=' | '*' | '_')) = marks.next() else {
        return false;
    };
    let mut count = 1;
    for c in marks {
        if c != first {
            return false;
        }
        count += 1;
    }
    count >= 3 || first == '=' || first == '-'
}

fn has_unsafe_link(line: &str) -> bool {
    let bytes = line.as_bytes();
    let definition = starts_definition(line);
    bytes.windows(2).enumerate().any(|(i, w)| {
        w[0] == b']'
            && (w[1] == b'(' || (w[1] == b':' && definition))
            && !safe_target(&line[i + 2..])
    })
}

/// Whether a line may be a link reference definition (`[label]: target`).
fn starts_definition(line: &str) -> bool {
    let rest = line.trim_start_matches(' ');
    line.len() - rest.len() <= 3 && rest.starts_with('[')
}

/// Whether a link target (what follows `](` or `]:`) is one a reader may follow: `http`,
/// `https` or `mailto`, or no scheme at all (a relative path, an anchor).
fn safe_target(after: &str) -> bool {
    let target = after.trim_start_matches([' ', '<']);
    let end = target
        .find(|c: char| c.is_whitespace() || c == ')' || c == '>')
        .unwrap_or(target.len());
    let target = &target[..end];
    match target.find(':') {
        None => true,
        Some(colon) => {
            let scheme = &target[..colon];
            // A `:` after a path, query or anchor began is not a scheme's.
            scheme.contains(['/', '?', '#'])
                || ["http", "https", "mailto"]
                    .iter()
                    .any(|s| scheme.eq_ignore_ascii_case(s))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`starts_structure`] as first written: every non-space character collected.
    fn starts_structure_collecting(line: &str) -> bool {
        let rest = line.trim_start_matches(' ');
        if line.len() - rest.len() > 3 {
            return false;
        }
        if rest.starts_with('#') || rest.starts_with("```") || rest.starts_with("~~~") {
            return true;
        }
        let marks: String = rest.chars().filter(|c| !c.is_whitespace()).collect();
        let first = marks.chars().next();
        matches!(first, Some('-' | '=' | '*' | '_'))
            && marks.chars().all(|c| Some(c) == first)
            && (marks.len() >= 3 || first == Some('=') || first == Some('-'))
    }

    /// [`inline_code`] as first written, through `format!`.
    fn inline_code_formatted(s: &str) -> String {
        let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
        if s.is_empty() {
            return "` `".to_string();
        }
        let fence = "`".repeat(longest + 1);
        let pad = if s.starts_with(['`', ' ']) || s.ends_with(['`', ' ']) {
            " "
        } else {
            ""
        };
        format!("{fence}{pad}{s}{pad}{fence}")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_048))]

        /// Lines made of marks, spaces, tabs and other text, any mix.
        #[test]
        fn a_line_is_structure_as_when_its_marks_were_collected(
            line in r"[ \t\u{a0}\-=*_#`~ab]{0,12}"
        ) {
            prop_assert_eq!(starts_structure(&line), starts_structure_collecting(&line));
        }

        #[test]
        fn text_without_marks_is_passed_as_when_every_check_ran(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "]", "(", ")", "<", "!", "[", "#", "-", "=", "```", ":", " ", "a", "é",
                "javascript:x", "http://a", "mailto:b", "/path",
            ]), 0..10),
        ) {
            let line = pieces.concat();
            // Without the one-pass check for marks: each mark checked for.
            prop_assert_eq!(body_line(&line), body_line_marked(&line, starts_structure(&line)));
            prop_assert_eq!(inline_text(&line), inline_text_marked(&line));
        }

        #[test]
        fn inline_code_is_as_formatted(s in r"[`a ]{0,10}|\PC{0,8}") {
            prop_assert_eq!(inline_code(&s), inline_code_formatted(&s));
        }
    }

    #[test]
    fn an_id_cannot_close_its_comment() {
        assert_eq!(
            comment_text("turn_9d41c7e0a8b24f36"),
            "turn_9d41c7e0a8b24f36"
        );
        let id = comment_text("--><img src=x onerror=alert(1)>");
        assert!(
            !id.contains("--") && !id.contains('>') && !id.contains('<'),
            "{id}"
        );
    }

    #[test]
    fn inline_code_outlasts_its_backticks() {
        assert_eq!(inline_code("bash"), "`bash`");
        assert_eq!(inline_code("a`b"), "``a`b``");
        assert_eq!(inline_code("`x``"), "``` `x`` ```");
        assert_eq!(inline_code(""), "` `");
    }

    #[test]
    fn html_links_and_images_in_a_body_are_text() {
        assert_eq!(
            body_line("<script>alert(1)</script> <img src=x>"),
            "&lt;script>alert(1)&lt;/script> &lt;img src=x>"
        );
        assert_eq!(
            body_line("[c](javascript:alert(1))"),
            "[c]\\(javascript:alert(1))"
        );
        assert_eq!(body_line("[c]( JavaScript:x)"), "[c]\\( JavaScript:x)");
        assert_eq!(
            body_line("[d]: data:text/html,x"),
            "[d]\\: data:text/html,x"
        );
        assert_eq!(
            body_line("![b](https://evil/p.png)"),
            "!\\[b](https://evil/p.png)"
        );
        for kept in [
            "[docs](https://x.dev/a:b)",
            "[rel](src/main.rs)",
            "[m](mailto:a@b)",
            "a < b",
        ] {
            assert!(!body_line(kept).contains('\\'), "{kept}");
        }
    }

    #[test]
    fn text_inside_a_line_is_inert_and_not_escaped_as_structure() {
        assert_eq!(inline_text("#function call"), "#function call");
        assert_eq!(inline_text("--- a <b>"), "--- a &lt;b>");
        assert_eq!(inline_text("[c](javascript:x)"), "[c]\\(javascript:x)");
    }

    #[test]
    fn a_body_never_starts_the_exports_structure() {
        for line in [
            "### You",
            "## Turn 99",
            "  # x",
            "---",
            "===",
            "* * *",
            "___",
            "-",
        ] {
            assert!(body_line(line).trim_start().starts_with('\\'), "{line}");
        }
        for line in ["text", "- item", "    # indented code", "#hashtag"] {
            let escaped = body_line(line);
            assert_eq!(escaped.starts_with('\\'), line.starts_with('#'), "{line}");
        }
    }

    /// Found by the `export_markdown` fuzz target: a body line opening a fence made the
    /// rest of the export, its own headings too, one code block.
    #[test]
    fn a_fence_in_a_body_is_text() {
        assert_eq!(body_line("```"), "\\```");
        assert_eq!(body_line("  ~~~rust"), "  \\~~~rust");
        assert_eq!(body_line("a ``` b"), "a ``` b");
    }
}
