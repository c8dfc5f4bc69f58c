//! Web links in server text: where one ends, and what is handed on to a browser opener or
//! an OSC 8 hyperlink — an http(s) URL with a host, normalised by the `url` crate, with no
//! control or invisible character in it.

use gobare_api::text::is_unsafe;

/// `s` as a browser gets it, when it is an http(s) URL with a host and nothing else: no
/// whitespace, control or invisible character (the `url` crate would drop or encode them,
/// hiding what the server sent), normalised (`HTTPS://Example.COM` → `https://example.com/`).
pub(crate) fn web_link(s: &str) -> Option<String> {
    if s.chars().any(|c| c.is_whitespace() || is_unsafe(c)) {
        return None;
    }
    let parsed = url::Url::parse(s).ok()?;
    (matches!(parsed.scheme(), "http" | "https") && parsed.host().is_some()).then(|| parsed.into())
}

/// Where a URL that starts `candidate` ends: at whitespace, a quote, an angle bracket, a
/// backtick, any control or invisible character, or a Markdown `](` (a link's text ending
/// and its target starting: `[https://a](https://b)` is two URLs, not one).
pub(crate) fn link_end(candidate: &str) -> usize {
    let stop = candidate
        .find(|c: char| {
            c.is_whitespace() || is_unsafe(c) || matches!(c, '<' | '>' | '"' | '\'' | '`')
        })
        .unwrap_or(candidate.len());
    match candidate[..stop].find("](") {
        Some(at) => at,
        None => stop,
    }
}

/// The first http(s) URL in `text`, without trailing punctuation, normalised.
pub(crate) fn first_web_link(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(at) = rest.find("http") {
        let candidate = &rest[at..];
        let url = candidate[..link_end(candidate)]
            .trim_end_matches(['.', ',', ';', ':', ')', ']', '!', '?']);
        if let Some(url) = web_link(url) {
            return Some(url);
        }
        rest = &candidate[4..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_links_are_links() {
        assert_eq!(
            first_web_link("see (https://example.com/a?b=1). done").as_deref(),
            Some("https://example.com/a?b=1")
        );
        assert_eq!(first_web_link("file:///etc/passwd javascript:x"), None);
        assert_eq!(first_web_link("httpfoo http://"), None);
        assert_eq!(web_link("ftp://example.com"), None);
    }

    #[test]
    fn an_escape_in_a_link_ends_it_and_never_reaches_the_opener() {
        for hostile in [
            "see https://example.com/a\x1b]8;;https://evil.example\x07 now",
            "see https://example.com/a\x1b[31m",
            "see https://example.com/a\u{9b}31m",
            "see https://example.com/a\u{202e}txt.exe",
            "see https://example.com/a\0b",
        ] {
            let link = first_web_link(hostile);
            assert_eq!(
                link.as_deref(),
                Some("https://example.com/a"),
                "{hostile:?}"
            );
        }
        assert_eq!(web_link("https://example.com/\x1b[31m"), None);
        assert_eq!(web_link("https://example.com/\ta"), None);
        assert_eq!(web_link("https://exa\u{200b}mple.com/"), None);
    }

    #[test]
    fn a_markdown_link_boundary_ends_the_url() {
        assert_eq!(
            first_web_link("https://a.example/x](https://b.example/y)").as_deref(),
            Some("https://a.example/x")
        );
        assert_eq!(
            first_web_link("[docs](https://b.example/y)").as_deref(),
            Some("https://b.example/y")
        );
        assert_eq!(link_end("https://a](https://b"), "https://a".len());
    }

    #[test]
    fn links_are_handed_on_normalised() {
        assert_eq!(
            web_link("HTTPS://Example.COM").as_deref(),
            Some("https://example.com/")
        );
        assert_eq!(
            web_link("https://example.com/a b").as_deref(),
            None,
            "a space is never part of what is opened"
        );
        assert_eq!(
            web_link("https://example.com/ü?q=é").as_deref(),
            Some("https://example.com/%C3%BC?q=%C3%A9")
        );
    }
}
