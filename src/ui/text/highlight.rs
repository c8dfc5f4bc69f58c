//! Syntax-highlighted text for the pager: two-face's grammars (syntect's parser, pure-Rust
//! regexes) loaded once, on first use; scopes mapped onto the theme's named colours (so
//! `NO_COLOR` gives none); lines parsed only as far down as they have been shown.

use crate::ui::theme::Theme;
use gobare_api::text;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use std::ops::Range;
use std::sync::OnceLock;
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

/// Lines longer than this are shown plain: regexes over a minified megabyte take seconds.
const MAX_HIGHLIGHTED_LINE: usize = 4_000;
/// Past this many lines the rest is shown plain (parsing is sequential: jumping to the end
/// of a huge file would parse all of it).
const MAX_HIGHLIGHTED_LINES: usize = 20_000;

/// The grammars, loaded on the first highlight (tens of milliseconds), never at start-up.
fn syntaxes() -> &'static SyntaxSet {
    static SYNTAXES: OnceLock<SyntaxSet> = OnceLock::new();
    SYNTAXES.get_or_init(two_face::syntax::extra_newlines)
}

/// What a scope is drawn as: the first rule whose scope prefixes one on the stack, from the
/// innermost out.
struct Palette {
    rules: Vec<(Scope, Style)>,
}

impl Palette {
    fn new(theme: &Theme) -> Palette {
        let rules = [
            ("comment", theme.dim),
            ("string", theme.ok),
            ("markup.raw", theme.ok),
            ("constant.numeric", theme.warning),
            ("constant.language", theme.warning),
            ("constant.character", theme.warning),
            ("keyword", theme.accent),
            ("storage", theme.accent),
            ("entity.name", theme.title),
            ("support.function", theme.title),
            ("markup.heading", theme.heading),
            ("markup.inserted", theme.diff_add),
            ("markup.deleted", theme.diff_del),
        ];
        Palette {
            rules: rules
                .into_iter()
                .filter_map(|(s, style)| Some((Scope::new(s).ok()?, style)))
                .collect(),
        }
    }

    fn style(&self, stack: &ScopeStack, base: Style) -> Style {
        for scope in stack.as_slice().iter().rev() {
            if let Some((_, style)) = self.rules.iter().find(|(p, _)| p.is_prefix_of(*scope)) {
                return *style;
            }
        }
        base
    }
}

/// Text split into sanitized lines, styled lazily from the top.
pub(crate) struct Highlighted {
    lines: Vec<String>,
    styled: Vec<Line<'static>>,
    /// The parser where `styled` ends; `None` when there is no grammar or it gave up.
    parser: Option<(ParseState, ScopeStack)>,
    palette: Palette,
    base: Style,
    /// The grammar's name ("Rust"), when one was found.
    grammar: Option<&'static str>,
}

impl Highlighted {
    /// `content` from a file named `name` (its extension, or else its first line, picks the
    /// grammar); sanitized here, before any parsing.
    pub(crate) fn new(name: &str, content: &str, theme: &Theme) -> Highlighted {
        let mut lines: Vec<String> = text::lines(content)
            .into_iter()
            .map(|l| text::line(&l).into_owned())
            .collect();
        // A final newline ends the last line; it does not start another.
        if content.ends_with('\n') && lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        let syntax = grammar(name, lines.first().map(String::as_str));
        let parser = syntax.map(|syntax| (ParseState::new(syntax), ScopeStack::new()));
        Highlighted {
            lines,
            styled: Vec::new(),
            grammar: syntax.map(|s| s.name.as_str()),
            parser,
            palette: Palette::new(theme),
            base: theme.text,
        }
    }

    /// The grammar's name, when one was found for it.
    pub(crate) fn grammar(&self) -> Option<&'static str> {
        self.grammar
    }

    pub(crate) fn len(&self) -> usize {
        self.lines.len()
    }

    /// The styled lines of `range`, parsing as far as its end first.
    pub(crate) fn lines(&mut self, range: Range<usize>) -> &[Line<'static>] {
        let end = range.end.min(self.lines.len());
        while self.styled.len() < end {
            let i = self.styled.len();
            let line = self.style_line(i);
            self.styled.push(line);
        }
        &self.styled[range.start.min(end)..end]
    }

    fn style_line(&mut self, i: usize) -> Line<'static> {
        let raw = &self.lines[i];
        let plain = || Line::from(Span::styled(raw.clone(), self.base));
        if i >= MAX_HIGHLIGHTED_LINES {
            self.parser = None;
        }
        let Some((state, stack)) = self.parser.as_mut() else {
            return plain();
        };
        if raw.len() > MAX_HIGHLIGHTED_LINE {
            return plain();
        }
        let with_newline = format!("{raw}\n");
        let Ok(ops) = state.parse_line(&with_newline, syntaxes()) else {
            self.parser = None;
            return plain();
        };
        let mut spans = Vec::new();
        let mut at = 0;
        for (offset, op) in ops {
            let offset = offset.min(raw.len());
            if offset > at {
                let style = self.palette.style(stack, self.base);
                spans.push(Span::styled(raw[at..offset].to_string(), style));
                at = offset;
            }
            if stack.apply(&op).is_err() {
                self.parser = None;
                return plain();
            }
        }
        if at < raw.len() {
            let style = self.palette.style(stack, self.base);
            spans.push(Span::styled(raw[at..].to_string(), style));
        }
        Line::from(spans)
    }
}

/// The grammar for a file named `name`: by extension, by whole name (`Makefile`), or by its
/// first line (`#!/usr/bin/env python`).
fn grammar(name: &str, first_line: Option<&str>) -> Option<&'static SyntaxReference> {
    let set = syntaxes();
    let file = name.rsplit('/').next().unwrap_or(name);
    let by_name = file
        .rsplit_once('.')
        .and_then(|(_, ext)| set.find_syntax_by_extension(ext))
        .or_else(|| set.find_syntax_by_extension(file));
    by_name
        .or_else(|| first_line.and_then(|l| set.find_syntax_by_first_line(l)))
        .filter(|s| s.name != "Plain Text")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Color;

    fn colours(line: &Line<'_>) -> Vec<(String, Option<Color>)> {
        line.spans
            .iter()
            .map(|s| (s.content.to_string(), s.style.fg))
            .collect()
    }

    #[test]
    fn rust_keywords_strings_and_comments_get_the_themes_colours() {
        let src = "fn main() {\n    let s = \"hi\"; // note\n}\n";
        let mut h = Highlighted::new("src/main.rs", src, &Theme::default());
        assert!(h.grammar().is_some());
        let lines = h.lines(0..3).to_vec();
        let first = colours(&lines[0]);
        assert!(
            first.contains(&("fn".into(), Some(Color::Cyan))),
            "{first:?}"
        );
        let second = colours(&lines[1]);
        assert!(
            second
                .iter()
                .any(|(t, c)| t.contains("hi") && *c == Some(Color::Green)),
            "{second:?}"
        );
        let comment = lines[1].spans.last().unwrap();
        assert!(comment.content.contains("note"));
        assert_eq!(comment.style, Theme::default().dim);
    }

    #[test]
    fn no_color_gives_no_colour_and_unknown_files_are_plain() {
        let src = "def f():\n    return 1  # one\n";
        let mut h = Highlighted::new("a.py", src, &Theme::no_color());
        for line in h.lines(0..2) {
            assert!(line.spans.iter().all(|s| s.style.fg.is_none()), "{line:?}");
        }
        let mut plain = Highlighted::new("notes.unknownext", "fn x", &Theme::default());
        assert_eq!(plain.grammar(), None);
        assert_eq!(plain.lines(0..1)[0].spans[0].style, Theme::default().text);
    }

    #[test]
    fn lines_are_parsed_only_as_far_as_shown_and_text_is_sanitized_first() {
        let src: String = (0..1000).map(|i| format!("x = {i} # \x1b[2J\n")).collect();
        let mut h = Highlighted::new("a.py", &src, &Theme::default());
        assert_eq!(h.len(), 1000);
        let shown: String = h.lines(0..5).iter().map(|l| l.to_string()).collect();
        assert_eq!(h.styled.len(), 5, "nothing parsed beyond what was asked");
        assert!(!shown.contains('\x1b') && shown.contains('␛'), "{shown}");
    }

    #[test]
    fn a_shebang_picks_the_grammar() {
        let mut h = Highlighted::new("run", "#!/bin/sh\necho hi\n", &Theme::default());
        assert!(h.grammar().is_some());
        assert!(!h.lines(0..2).is_empty());
    }

    /// What the first pager pays: loading the grammars (once per process) and styling the
    /// first screenful, then the next one. Run with `cargo test --release --lib
    /// highlight_cost -- --ignored --nocapture`.
    #[test]
    #[ignore = "performance figure: run with --ignored --nocapture"]
    fn highlight_cost() {
        let started = std::time::Instant::now();
        let count = syntaxes().syntaxes().len();
        let load = started.elapsed();
        let src = include_str!("markdown.rs").repeat(4);
        let theme = Theme::default();
        let t = std::time::Instant::now();
        let mut h = Highlighted::new("markdown.rs", &src, &theme);
        h.lines(0..50);
        let first = t.elapsed();
        let t = std::time::Instant::now();
        h.lines(50..100);
        let next = t.elapsed();
        let t = std::time::Instant::now();
        h.lines(0..h.len());
        let all = t.elapsed();
        println!(
            "perf: grammars loaded in {:.1} ms ({count} syntaxes); first 50 lines {:.1} ms, next 50 \
             {:.1} ms; the whole {} lines {:.0} ms",
            load.as_secs_f64() * 1e3,
            first.as_secs_f64() * 1e3,
            next.as_secs_f64() * 1e3,
            h.len(),
            all.as_secs_f64() * 1e3
        );
    }
}
