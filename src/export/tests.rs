//! Hostile server text through the whole Markdown writer, read back by a CommonMark
//! parser: the export's structure (its headings, comments, code) is all there is.

use super::markdown::MarkdownWriter;
use super::turn_facts::TurnFacts;
use gobare_api::model::Event;
use pulldown_cmark::{Event as Md, HeadingLevel, Parser, Tag};
use serde_json::json;

fn export(events: &[serde_json::Value]) -> String {
    let mut w = MarkdownWriter::new(
        Vec::new(),
        "s1",
        Some("<img src=x onerror=alert(1)>"),
        TurnFacts::unknown(),
    )
    .unwrap();
    for (seq, e) in events.iter().enumerate() {
        let mut e = e.clone();
        e["seq"] = json!(seq + 1);
        e["created_at"] = json!(0);
        w.event(&Event::parse(&e.to_string()).unwrap()).unwrap();
    }
    String::from_utf8(w.finish(events.len() as u64, None).unwrap().0).unwrap()
}

const BODY: &str = "<script>alert(1)</script>\n<img src=https://evil.example/beacon.png>\n\
### You\n## Turn 99\nforged\n---\n[click](javascript:alert(1)) ![b](https://evil.example/p.png)\n\
<!-- open comment";

#[test]
fn server_text_stays_in_its_place() {
    let md = export(&[
        json!({"type": "turn.started", "payload": {"turnId": "--><img src=x onerror=alert(1)><!--"}}),
        json!({"type": "user.message", "payload": {"text": BODY}}),
        json!({"type": "agent.message", "payload": {"text": BODY}}),
        json!({"type": "agent.tool_call", "payload": {"toolCallId": "c", "toolName": "a` <b>`c", "args": {}}}),
        json!({"type": "file.changed", "payload": {"path": "x`](javascript:y)`", "changeType": "modified"}}),
        json!({"type": "turn.ended", "payload": {"turnId": "--><img src=x onerror=alert(1)><!--"}}),
    ]);
    // The export's own structure is its headings of levels 1 to 3; an agent's own headings
    // sit below them.
    let mut headings = Vec::new();
    let mut agent_headings = Vec::new();
    let mut in_heading = false;
    let mut html = Vec::new();
    let mut codes = Vec::new();
    for event in Parser::new(&md) {
        if let Md::Code(c) = &event {
            codes.push(c.to_string());
        }
        match event {
            Md::Start(Tag::Heading { level, .. }) if level <= HeadingLevel::H3 => {
                in_heading = true;
                headings.push(String::new());
            }
            Md::Start(Tag::Heading { level, .. }) => agent_headings.push(level),
            Md::End(_) => in_heading = false,
            Md::Text(t) | Md::Code(t) if in_heading => headings.last_mut().unwrap().push_str(&t),
            Md::Html(h) | Md::InlineHtml(h) => html.push(h.to_string()),
            Md::Start(Tag::Link { dest_url, .. }) => panic!("a link to {dest_url} in\n{md}"),
            Md::Start(Tag::Image { dest_url, .. }) => panic!("an image from {dest_url} in\n{md}"),
            _ => {}
        }
    }
    let heads: Vec<&str> = headings
        .iter()
        .map(|h| h.split(" · ").next().unwrap())
        .collect();
    assert_eq!(
        heads,
        [
            "<img src=x onerror=alert(1)>",
            "Turn 1",
            "You",
            "Agent",
            "Tool call a` <b>`c",
            "File modified: x`](javascript:y)`",
        ],
        "{md}"
    );
    assert_eq!(
        agent_headings,
        [HeadingLevel::H6, HeadingLevel::H5],
        "the agent's `### You` and `## Turn 99`, demoted"
    );
    // The one HTML is the export's own comment, whole.
    assert_eq!(html.len(), 1, "{html:?}\n{md}");
    assert!(
        html[0].starts_with("<!-- ") && html[0].trim_end().ends_with(" -->"),
        "{html:?}"
    );
    assert_eq!(html[0].matches("-->").count(), 1, "{html:?}");
    assert!(codes.contains(&"a` <b>`c".to_string()), "{codes:?}");
}
