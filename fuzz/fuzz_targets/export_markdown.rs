//! The export's Markdown writer on hostile events: arbitrary ids, texts, tool names, paths
//! and diffs, a planted token among them. In what comes out, outside code blocks: the
//! export's structure (its headings of levels 1–3, rules and HTML comments) is exactly the
//! structure of the same events with every text replaced by a neutral word, so no server
//! text adds, removes or moves a section (an agent's own headings, demoted to level 4 and
//! deeper, are its body); no `<` opens markup outside inline code; a name or path stays
//! inside its inline code; the token never survives.
#![no_main]

use gobare_api::model::Event;
use gobare_tui::fuzzing::export_markdown;
use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use serde_json::json;

/// The planted token: `gbr_pat_` and 32 letters and digits.
const SECRET: &str = "gbr_pat_Q7fK2mZp9LxR4tWv8NcB3hJs6DgY1aEu";
/// Marks both ends of every name and path: inline code must hold them, and bodies never
/// hold one.
const MARK: char = '§';

/// Server text: arbitrary bytes as UTF-8, the token planted in some of it.
fn text(u: &mut Unstructured<'_>) -> String {
    let len = u.int_in_range(0..=64).unwrap_or(0);
    let bytes = u.bytes(len).unwrap_or_default();
    let mut s = String::from_utf8_lossy(bytes).replace(MARK, "");
    if u.ratio(1, 4).unwrap_or(false) {
        let mut at = usize::from(u.arbitrary::<u8>().unwrap_or(0)) % (s.len() + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        // A token starts a word (see the redactor's formats): planted after a separator.
        s.insert_str(at, &format!(" {SECRET}"));
    }
    s
}

/// A name or path, between marks.
fn name(u: &mut Unstructured<'_>) -> String {
    format!("{MARK}{}{MARK}", text(u))
}

/// One event of a kind chosen by the input.
fn event(u: &mut Unstructured<'_>, seq: u64) -> serde_json::Value {
    let (kind, payload) = match u.int_in_range(0..=11).unwrap_or(0) {
        0 => ("turn.started", json!({"turnId": text(u)})),
        1 => ("turn.ended", json!({"turnId": text(u)})),
        2 => ("user.message", json!({"text": text(u)})),
        3 => ("agent.message", json!({"text": text(u)})),
        4 => (
            "agent.tool_call",
            json!({"toolCallId": text(u), "toolName": name(u), "args": {"command": text(u)}}),
        ),
        5 => (
            "agent.tool_result",
            json!({"toolCallId": text(u), "toolName": name(u), "isError": false,
                   "cancelled": false, "summary": text(u)}),
        ),
        6 => (
            "file.changed",
            json!({"path": name(u), "changeType": "modified", "diff": text(u)}),
        ),
        7 => (
            "approval.requested",
            json!({"toolCallId": text(u), "name": name(u), "args": {"x": text(u)}, "sensitive": true}),
        ),
        8 => (
            "question.asked",
            json!({"toolCallId": text(u), "question": text(u), "options": [text(u), text(u)]}),
        ),
        9 => (
            "artifact.created",
            json!({"id": text(u), "path": name(u), "size_bytes": 1, "turn_id": "t"}),
        ),
        10 => ("agent.error", json!({"message": text(u)})),
        _ => (
            "agent.todos",
            json!({"items": [{"label": text(u), "status": "done"}]}),
        ),
    };
    json!({"type": kind, "seq": seq, "session_id": "s", "created_at": 1_789_000_000_000i64, "payload": payload})
}

/// `value` with every string replaced by a neutral word, the same word for the same text
/// (so turn ids still pair), a blank one kept as it is.
fn neutral(value: &serde_json::Value, words: &mut Vec<String>) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(s) => Value::String(neutral_text(s, words)),
        Value::Array(items) => Value::Array(items.iter().map(|v| neutral(v, words)).collect()),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| {
                    let keep = matches!(
                        k.as_str(),
                        "type" | "session_id" | "changeType" | "status" | "turn_id"
                    );
                    (k.clone(), if keep { v.clone() } else { neutral(v, words) })
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn neutral_text(s: &str, words: &mut Vec<String>) -> String {
    if s.trim().is_empty() {
        return s.to_string();
    }
    let at = words.iter().position(|w| w == s).unwrap_or_else(|| {
        words.push(s.to_string());
        words.len() - 1
    });
    format!("word{at}")
}

/// `line` without its inline code spans (CommonMark: a run of n backticks up to the next
/// run of exactly n), and the spans' contents.
fn split_code_spans(line: &str) -> (String, Vec<String>) {
    let b = line.as_bytes();
    let (mut text, mut spans) = (String::new(), Vec::new());
    let mut i = 0;
    let run = |at: usize| b[at..].iter().take_while(|&&c| c == b'`').count();
    while i < b.len() {
        if b[i] != b'`' {
            let next = line[i..].find('`').map_or(line.len(), |n| i + n);
            text.push_str(&line[i..next]);
            i = next;
            continue;
        }
        let n = run(i);
        let mut j = i + n;
        let close = loop {
            match line[j..].find('`') {
                None => break None,
                Some(k) => {
                    let at = j + k;
                    let m = run(at);
                    if m == n {
                        break Some(at);
                    }
                    j = at + m;
                }
            }
        };
        match close {
            Some(at) => {
                let inner = &line[i + n..at];
                let stripped = match inner.strip_prefix(' ').and_then(|s| s.strip_suffix(' ')) {
                    Some(s) if !inner.trim().is_empty() => s,
                    _ => inner,
                };
                spans.push(stripped.to_string());
                i = at + n;
            }
            None => {
                text.push_str(&line[i..i + n]);
                i += n;
            }
        }
    }
    (text, spans)
}

/// The ATX heading's level, if `line` is one.
fn heading_level(line: &str) -> Option<usize> {
    let t = line.trim_start_matches(' ');
    let hashes = t.bytes().take_while(|&c| c == b'#').count();
    (line.len() - t.len() <= 3
        && (1..=6).contains(&hashes)
        && t[hashes..]
            .chars()
            .next()
            .is_none_or(|c| c == ' ' || c == '\t'))
    .then_some(hashes)
}

/// A code fence's mark, length and the rest of the line, if `line` is one (CommonMark: up
/// to three spaces, then three or more backticks or tildes; a backtick fence's info string
/// holds no backtick).
fn fence_of(line: &str) -> Option<(u8, usize, &str)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let mark = *t.as_bytes().first()?;
    if mark != b'`' && mark != b'~' {
        return None;
    }
    let n = t.bytes().take_while(|&c| c == mark).count();
    let rest = &t[n..];
    (n >= 3 && !(mark == b'`' && rest.contains('`'))).then_some((mark, n, rest))
}

fn is_rule_or_underline(line: &str) -> bool {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return false;
    }
    let t = t.trim_end();
    let marks: Vec<char> = t.chars().filter(|c| !matches!(c, ' ' | '\t')).collect();
    let rule = marks.len() >= 3
        && marks.iter().all(|&c| c == marks[0])
        && matches!(marks[0], '-' | '*' | '_');
    let underline = !t.is_empty() && t.chars().all(|c| c == '=');
    rule || underline
}

/// The export's structure outside code blocks: the levels of its headings of levels 1–3
/// in order, its rules and its HTML comments, after checking each line's own rules.
fn structure(out: &str) -> (Vec<usize>, usize, usize) {
    let (mut headings, mut rules, mut comments) = (Vec::new(), 0, 0);
    let mut fence: Option<(u8, usize)> = None;
    for line in out.lines() {
        match (fence, fence_of(line)) {
            (Some((mark, n)), Some((m, k, rest)))
                if m == mark && k >= n && rest.trim().is_empty() =>
            {
                fence = None;
                continue;
            }
            (Some(_), _) => continue,
            (None, Some((mark, n, _))) => {
                fence = Some((mark, n));
                continue;
            }
            (None, None) => {}
        }
        if line.starts_with("<!-- ") {
            comments += 1;
            let id = line
                .strip_prefix("<!-- ")
                .and_then(|l| l.strip_suffix(" -->"));
            assert!(
                id.is_some_and(|id| id
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || b"_.%".contains(&c))),
                "a comment the writer did not make: {line:?}\n{out}"
            );
            continue;
        }
        if let Some(level) = heading_level(line).filter(|&l| l <= 3) {
            headings.push(level);
        }
        rules += usize::from(is_rule_or_underline(line));
        let (outside, spans) = split_code_spans(line);
        assert!(
            !outside.contains('<'),
            "markup outside code: {line:?}\n{out}"
        );
        assert!(
            !outside.contains(MARK),
            "a name escaped its inline code: {line:?}\n{out}"
        );
        for span in spans.iter().filter(|s| s.contains(MARK)) {
            assert!(
                span.starts_with(MARK) && span.ends_with(MARK) && span.matches(MARK).count() == 2,
                "a name split across inline code: {line:?}\n{out}"
            );
        }
    }
    assert_eq!(fence, None, "a code block left open:\n{out}");
    (headings, rules, comments)
}

fuzz_target!(|input: &[u8]| {
    let mut u = Unstructured::new(input);
    let mut words = Vec::new();
    let session_id = name(&mut u);
    let title = u.arbitrary::<bool>().unwrap_or(false).then(|| text(&mut u));
    let (mut events, mut neutral_events) = (Vec::new(), Vec::new());
    for seq in 1..=u.int_in_range(0..=12).unwrap_or(0) {
        let envelope = event(&mut u, seq);
        let (Ok(event), Ok(plain)) = (
            Event::parse(&envelope.to_string()),
            Event::parse(&neutral(&envelope, &mut words).to_string()),
        ) else {
            continue;
        };
        events.push(event);
        neutral_events.push(plain);
    }
    let out = export_markdown(&session_id, title.as_deref(), &events);
    assert!(!out.contains(SECRET), "the token survived: {out}");
    let plain = export_markdown(
        &neutral_text(&session_id, &mut words),
        title.map(|t| neutral_text(&t, &mut words)).as_deref(),
        &neutral_events,
    );
    assert_eq!(
        structure(&out),
        structure(&plain),
        "server text changed the export's structure:\n{out}\n--- the same events, neutral:\n{plain}"
    );
});
