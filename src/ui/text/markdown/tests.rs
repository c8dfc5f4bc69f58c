use super::*;
use proptest::prelude::*;
use ratatui::style::Modifier;

fn plain(lines: &[Line<'_>]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

fn md(text: &str, width: u16) -> Vec<String> {
    plain(&render(text, width, &Theme::default()))
}

fn span_with<'a>(lines: &'a [Line<'static>], needle: &str) -> &'a Span<'static> {
    lines
        .iter()
        .flat_map(|l| &l.spans)
        .find(|s| s.content.contains(needle))
        .unwrap_or_else(|| panic!("no span containing {needle:?} in {lines:?}"))
}

#[test]
fn heading_shows_level_and_is_styled() {
    let theme = Theme::default();
    let lines = render("## Plan\n\ntext", 40, &theme);
    assert_eq!(plain(&lines), vec!["## Plan", "", "text"]);
    let span = span_with(&lines, "Plan");
    assert!(span.style.add_modifier.contains(Modifier::BOLD));
    assert_eq!(span.style.fg, theme.heading.fg);
}

#[test]
fn paragraphs_wrap_by_width_and_are_separated() {
    assert_eq!(
        md("one two three four five\n\nsix", 10),
        vec!["one two", "three four", "five", "", "six"]
    );
}

#[test]
fn soft_breaks_join_lines() {
    assert_eq!(md("one\ntwo", 40), vec!["one two"]);
}

#[test]
fn long_words_are_hard_wrapped() {
    assert_eq!(md("abcdefghijklmnop", 10), vec!["abcdefghij", "klmnop"]);
}

#[test]
fn bullet_list_has_hanging_indent() {
    assert_eq!(
        md("- alpha beta gamma\n- delta", 12),
        vec!["• alpha beta", "  gamma", "• delta"]
    );
}

#[test]
fn nested_and_numbered_lists() {
    assert_eq!(
        md("1. first\n   - inner item\n2. second", 40),
        vec!["1. first", "   ◦ inner item", "2. second"]
    );
}

#[test]
fn emphasis_strong_strikethrough_and_inline_code_are_styled() {
    let theme = Theme::default();
    let lines = render("*em* **strong** ~~gone~~ `code`", 80, &theme);
    assert_eq!(plain(&lines), vec!["em strong gone code"]);
    assert!(
        span_with(&lines, "em")
            .style
            .add_modifier
            .contains(Modifier::ITALIC)
    );
    assert!(
        span_with(&lines, "strong")
            .style
            .add_modifier
            .contains(Modifier::BOLD)
    );
    assert!(
        span_with(&lines, "gone")
            .style
            .add_modifier
            .contains(Modifier::CROSSED_OUT)
    );
    assert_eq!(span_with(&lines, "code").style.fg, theme.code.fg);
}

#[test]
fn punctuation_stays_with_styled_word() {
    assert_eq!(md("aaaa **bb**, cc", 7), vec!["aaaa", "bb, cc"]);
}

#[test]
fn fenced_code_block_has_gutter_and_is_not_reflowed() {
    let out = md(
        "text\n\n```rust\nfn main() {\n    let x = 1;\n}\n```\n\nafter",
        40,
    );
    assert_eq!(
        out,
        vec![
            "text",
            "",
            "╭ rust",
            "│ fn main() {",
            "│     let x = 1;",
            "│ }",
            "",
            "after"
        ]
    );
}

#[test]
fn long_code_lines_wrap_with_marker() {
    assert_eq!(
        md("```\nabcdefghijkl\n```", 8),
        vec!["│ abcdef", "↪ ghijkl"]
    );
}

#[test]
fn indented_code_block_is_set_apart() {
    assert_eq!(
        md("para\n\n    code  here\n", 40),
        vec!["para", "", "│ code  here"]
    );
}

#[test]
fn block_quote_has_bar() {
    let theme = Theme::default();
    let lines = render("> quoted words here", 12, &theme);
    assert_eq!(plain(&lines), vec!["┃ quoted", "┃ words here"]);
    assert!(
        span_with(&lines, "quoted")
            .style
            .add_modifier
            .contains(Modifier::ITALIC)
    );
}

#[test]
fn horizontal_rule_spans_width() {
    assert_eq!(md("a\n\n---\n\nb", 5), vec!["a", "", "─────", "", "b"]);
}

#[test]
fn links_show_text_then_dimmed_url() {
    let theme = Theme::default();
    let lines = render("see [docs](https://x.io/d) now", 80, &theme);
    assert_eq!(plain(&lines), vec!["see docs (https://x.io/d) now"]);
    assert_eq!(span_with(&lines, "(https").style, theme.link_url);
    assert_eq!(md("<https://x.io>", 80), vec!["https://x.io"]);
}

#[test]
fn tables_render_as_rows() {
    assert_eq!(
        md("| a | bb |\n|---|---|\n| 1 | 2 |\n| 333 | 4 |", 40),
        vec![" a   │ bb ", "─────┼────", " 1   │ 2  ", " 333 │ 4  "]
    );
}

#[test]
fn a_table_whose_header_is_blank_shows_its_rows_alone() {
    assert_eq!(
        md("| | |\n|---|---|\n| tests | 412 |\n| hot path | −3% |", 40),
        vec![" tests    │ 412 ", " hot path │ −3% "]
    );
}

#[test]
fn wide_tables_shrink_to_fit() {
    let out = md("| aaaaaaaaaa | bbbbbbbbbb |\n|---|---|\n| x | y |", 15);
    assert!(out.iter().all(|l| text::width(l) <= 15), "{out:?}");
    assert!(out[0].contains('…'));
}

#[test]
fn task_list_markers() {
    assert_eq!(
        md("- [x] done\n- [ ] todo", 40),
        vec!["• [x] done", "• [ ] todo"]
    );
}

#[test]
fn hostile_escapes_in_text_are_sanitized() {
    let out = md("hi \x1b]52;c;ZXZpbA==\x07 and \x1b[2J\u{202e}gnp.exe", 80).join("\n");
    assert!(!out.contains('\x1b') && !out.contains('\x07') && !out.contains('\u{202e}'));
    assert!(out.contains("␛]52;c;ZXZpbA==␇"));
    assert!(out.contains("⟨U+202E⟩"));
}

#[test]
fn hostile_escapes_in_code_are_sanitized() {
    let out = md("```\n\x1b[?1049h\u{9b}31m\x1b]0;pwn\x07\n```", 80).join("\n");
    assert!(
        !out.chars()
            .any(|c| c == '\x1b' || c == '\u{9b}' || c == '\x07')
    );
    assert!(out.contains("␛[?1049h"));
    let inline = md("`\x1b[31m`", 80).join("");
    assert_eq!(inline, "␛[31m");
}

#[test]
fn hostile_text_in_links_and_language_tags_is_sanitized() {
    let out = md("[a](http://x/\x1b]8;;) and\n\n```\x1b[31m\ncode\n```", 80).join("\n");
    assert!(!out.contains('\x1b'), "{out:?}");
}

#[test]
fn cjk_wraps_by_display_width() {
    assert_eq!(md("世界世界世界", 8), vec!["世界世界", "世界"]);
}

fn markdownish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "word",
        "longerwordthatneedswrapping",
        " ",
        " ",
        " ",
        "\n",
        "\n\n",
        "# ",
        "## ",
        "- ",
        "  - ",
        "1. ",
        "> ",
        "**",
        "*",
        "~~",
        "`",
        "```\n",
        "    ",
        "[link](http://example.com/a/b)",
        "<http://x.y>",
        "| a | b |\n|---|---|\n| c | d |\n",
        "---\n",
        "\t",
        "世界",
        "👍🏽",
        "e\u{301}",
        "\x1b[31m",
        "\u{202e}",
        "\u{200b}",
        "- [x] ",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn lines_never_exceed_width(text in markdownish(), width in 1u16..200) {
        for line in render(&text, width, &Theme::default()) {
            let w: usize = line.spans.iter().map(|s| text::width(&s.content)).sum();
            prop_assert!(w <= usize::from(width), "{w} > {width}: {line:?} from {text:?}");
            prop_assert!(!line.spans.iter().any(|s| s.content.chars().any(|c| c == '\x1b')));
        }
    }
}

#[test]
fn blank_lines_inside_quotes_keep_the_bar() {
    assert_eq!(md("> one\n>\n> two", 40), vec!["┃ one", "┃", "┃ two"]);
}

#[test]
fn loose_list_items_keep_their_markers() {
    let out = md("- a\n\n  more\n- b", 40);
    assert_eq!(out, vec!["• a", "", "  more", "• b"]);
}

#[test]
fn snapshot_of_a_typical_agent_message() {
    let text = "## Summary\n\nI changed **two files** and ran the *tests*; see [the PR](https://example.com/pr/1).\n\n\
1. Fixed the `parse_frame` bug\n   - it split on `\\r` only\n2. Added a test\n\n\
```rust\nfn main() {\n    println!(\"hello, a line long enough to wrap at forty columns\");\n}\n```\n\n\
> Note: the build takes ~2 min.\n\n| file | lines |\n|---|---|\n| sse.rs | +40 |\n\n---\n\nDone.";
    insta::assert_snapshot!(md(text, 40).join("\n"));
}
