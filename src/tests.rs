//! Server-shaped data nested as deep as a hostile server likes (JSON, Markdown): read and
//! shown without recursion that could overflow the stack.

use crate::ui::theme::Theme;
use proptest::prelude::*;

/// An agent message whose JSON nests `depth` arrays inside its payload.
fn deep_envelope(depth: usize) -> String {
    format!(
        r#"{{"type":"agent.message","seq":1,"payload":{{"text":"x","extra":{}{}}}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    )
}

#[test]
fn json_nested_a_million_deep_is_refused_or_read_never_overflows() {
    let envelope = deep_envelope(1_000_000);
    // The parser's own depth limit answers with an error, not a crash.
    let _ = gobare_api::model::Event::parse(&envelope);
    let line = crate::export::jsonl::envelope_line(&envelope);
    assert!(line.len() >= 2_000_000);
}

#[test]
fn markdown_nested_deep_renders() {
    let theme = Theme::default();
    for nested in [
        "> ".repeat(100_000),
        "- ".repeat(100_000),
        "* [".repeat(50_000),
        "<div>".repeat(100_000),
    ] {
        let text = format!("{nested}x");
        let lines = crate::ui::text::markdown::render(&text, 80, &theme);
        assert!(!lines.is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4))]
    /// Any depth up to 1,000,000 of quotes in an agent's Markdown. Half a minute of a debug
    /// build: `cargo test -- --ignored markdown_quotes_of_any_depth`.
    #[test]
    #[ignore = "half a minute of a debug build"]
    fn markdown_quotes_of_any_depth_render(depth in 1usize..=1_000_000) {
        let text = format!("{}x", "> ".repeat(depth));
        let lines = crate::ui::text::markdown::render(&text, 80, &Theme::default());
        prop_assert!(!lines.is_empty());
    }
}
