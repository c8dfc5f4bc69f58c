//! A patch or its summary shown on a terminal: the server's bytes made inert line by line
//! (`ESC` as `␛`, a bidi override as `⟨U+202E⟩`, a tab as spaces), as every other command
//! shows server text. To a file or a pipe the patch goes byte for byte instead: `git apply`
//! needs it exact.

use gobare_api::text;

/// `body` as it may be written to a terminal.
pub(crate) fn inert(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    for (i, line) in body.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if line.contains('\t') {
            out.push_str(&text::line(&line.replace('\t', "    ")));
        } else {
            out.push_str(&text::line(line));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_bidi_controls_are_shown_not_sent() {
        let body = "+curl \u{1b}]52;c;Y3VybA==\u{7}\n+\u{1b}]2;owned\u{1b}\\\u{1b}[2J\n \
                    a\tb\r\n  src/\u{202e}evil\u{2066}.rs\n";
        let shown = inert(body);
        assert!(
            !shown.chars().any(|c| c != '\n' && text::is_unsafe(c)),
            "{shown:?}"
        );
        assert!(shown.contains("␛]52;c;Y3VybA==␇"), "{shown:?}");
        assert!(shown.contains("␛]2;owned␛\\␛[2J"), "{shown:?}");
        assert!(shown.contains(" a    b␍"), "{shown:?}");
        assert!(shown.contains("src/⟨U+202E⟩evil⟨U+2066⟩.rs"), "{shown:?}");
        assert_eq!(shown.lines().count(), body.lines().count());
    }

    #[test]
    fn a_plain_patch_is_unchanged() {
        let patch = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-a\n+b\n";
        assert_eq!(inert(patch), patch);
    }
}
