//! What a turn's message asks: its subject and the files it names. The scripted agent's
//! plan, checklist and closing reply name them, so a reply answers the message it follows
//! even though the work it shows is the scenario's own.

/// The longest subject quoted, in characters.
const SUBJECT_CHARS: usize = 80;
/// The most files named back.
const FILES_NAMED: usize = 5;

/// A message's subject and the files it names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Asked {
    /// The message's first sentence on one line, its `#tags` left out, cut to
    /// [`SUBJECT_CHARS`].
    pub(crate) subject: String,
    /// Words that look like file paths (`robots.py`, `src/export.ts`), in order, once each.
    pub(crate) files: Vec<String>,
}

impl Asked {
    pub(crate) fn of(message: &str) -> Asked {
        let words: Vec<&str> = message.split_whitespace().filter(|w| !is_tag(w)).collect();
        let line = words.join(" ");
        let sentence = first_sentence(&line);
        let mut subject: String = sentence.chars().take(SUBJECT_CHARS).collect();
        if sentence.chars().count() > SUBJECT_CHARS {
            subject.push('…');
        }
        if subject.is_empty() {
            subject = "your request".into();
        }
        let mut files: Vec<String> = Vec::new();
        for word in &words {
            let word = word.trim_matches(|c: char| "`'\"()[]{}<>,;:!?“”‘’".contains(c));
            let word = word.trim_end_matches('.');
            if looks_like_a_file(word) && !files.iter().any(|f| f == word) {
                files.push(word.to_string());
            }
        }
        files.truncate(FILES_NAMED);
        Asked { subject, files }
    }

    /// The files as a Markdown list of code spans (`` `a.py`, `b.py` ``).
    fn files_list(&self) -> String {
        self.files
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The turn's first reply (its plan), opened by what was asked and, in a follow-up,
    /// the request it follows.
    pub(crate) fn plan(&self, reply: &str, earlier: Option<&str>) -> String {
        let mut opening = format!("You asked: “{}”.", self.subject);
        if !self.files.is_empty() {
            opening.push_str(&format!(" I'll work in {}.", self.files_list()));
        }
        if let Some(earlier) = earlier {
            opening.push_str(&format!(
                " This builds on your earlier request, “{earlier}”."
            ));
        }
        format!("{opening}\n\n{reply}")
    }

    /// The checklist's first entry, done from the start: the request read.
    pub(crate) fn first_todo(&self) -> String {
        format!("Read the request: {}", self.subject)
    }

    /// The turn's closing reply, opened by a line saying what it answers.
    pub(crate) fn closing(&self, reply: &str) -> String {
        let mut opening = format!("**Done: {}**", self.subject);
        if !self.files.is_empty() {
            opening.push_str(&format!(" (files: {})", self.files_list()));
        }
        format!("{opening}\n\n{reply}")
    }
}

/// A `#tag` that picks a scenario: not part of what was asked.
fn is_tag(word: &str) -> bool {
    word.strip_prefix('#')
        .is_some_and(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// Up to the first `. `, `? ` or `! ` (a file name's dot is not an end).
fn first_sentence(line: &str) -> &str {
    let ends = [". ", "? ", "! "];
    let end = ends.iter().filter_map(|e| line.find(e)).min();
    match end {
        Some(at) => &line[..at],
        None => line.trim_end_matches(['.', '!']),
    }
}

/// `name.ext` (an extension of 1 to 5 letters or digits, not all digits), or a relative
/// path with a slash in it (`src/money`); never a URL, nor a route like `/health`.
fn looks_like_a_file(word: &str) -> bool {
    if word.contains("://") || word.len() < 3 {
        return false;
    }
    let last = word.rsplit('/').next().unwrap_or(word);
    if word.contains('/') && !word.starts_with('/') && !last.is_empty() {
        return true;
    }
    let Some((name, ext)) = last.rsplit_once('.') else {
        return false;
    };
    // `e.g` is no file: one letter each side of the dot.
    (name.len() > 1 || ext.len() > 1)
        && !name.is_empty()
        && (1..=5).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && !ext.chars().all(|c| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "_-.".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_subject_is_the_first_sentence_without_tags_and_files_are_named_once() {
        let asked = Asked::of(
            "#quick Build robots.py: a warehouse robot status API. Use src/app.ts and \
             robots.py, see https://x.dev/a.html and /health",
        );
        assert_eq!(
            asked.subject,
            "Build robots.py: a warehouse robot status API"
        );
        assert_eq!(asked.files, ["robots.py", "src/app.ts"]);
        assert_eq!(Asked::of("#approval").subject, "your request");
        assert!(Asked::of("version 1.2 or e.g. later").files.is_empty());
        let long = Asked::of(&"word ".repeat(40));
        assert_eq!(long.subject.chars().count(), SUBJECT_CHARS + 1);
    }
}
