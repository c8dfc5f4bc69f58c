//! One session's events as Markdown, written event by event: messages, tool calls with
//! their arguments and results, diffs, decisions, errors and turn separators.
//!
//! Every piece of server text goes through [`gobare_api::text::line`] (no escape sequence
//! reaches the file, or the terminal that later shows it) and then [`redact`]. Code blocks
//! are fenced with more backticks than their content holds, so no content can close them.
//! Text is written straight to the output, line by line; the only buffers (a code block's
//! body, a pretty-printed JSON value, the time of the last second seen) are reused.

use super::markdown_escape::{body_line, comment_text, inline_code};
use crate::redact::redact;
use gobare_api::model::{Event, EventPayload};
use gobare_api::text;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt::{self, Display};
use std::io::{self, Write};

/// Writes Markdown for events as they come; holds no event after it was written.
pub(crate) struct MarkdownWriter<W: Write> {
    out: W,
    turns: u64,
    clock: Clock,
    scratch: Scratch,
}

/// The last time written (events come many to a second), by its Unix second.
#[derive(Default)]
struct Clock {
    second: Option<i64>,
    text: String,
}

impl Clock {
    /// `2026-12-01 13:04:36 UTC` for `ms`; empty without a time.
    fn at(&mut self, ms: Option<i64>) -> &str {
        let second = ms.map(|ms| ms.div_euclid(1000));
        if second != self.second {
            self.second = second;
            self.text = ms.map(utc).unwrap_or_default();
        }
        &self.text
    }
}

/// Buffers kept from one code block to the next.
#[derive(Default)]
struct Scratch {
    body: String,
    json: Vec<u8>,
}

impl<W: Write> MarkdownWriter<W> {
    /// Starts the document with its title: the session's id and, when known, its title.
    pub(crate) fn new(mut out: W, session_id: &str, title: Option<&str>) -> io::Result<Self> {
        let id = inline_code(&clean_line(session_id));
        match title.map(clean_line).filter(|t| !t.trim().is_empty()) {
            Some(title) => writeln!(out, "# {}\n\nSession {id}\n", text_only(&title))?,
            None => writeln!(out, "# Session {id}\n")?,
        }
        Ok(MarkdownWriter {
            out,
            turns: 0,
            clock: Clock::default(),
            scratch: Scratch::default(),
        })
    }

    /// Appends one persisted event.
    pub(crate) fn event(&mut self, event: &Event) -> io::Result<()> {
        let MarkdownWriter {
            out,
            turns,
            clock,
            scratch,
        } = self;
        let at = clock.at(event.created_at);
        match &event.payload {
            EventPayload::TurnStarted(t) => {
                *turns += 1;
                writeln!(
                    out,
                    "---\n\n## Turn {turns} · {at}\n\n<!-- {} -->\n",
                    comment_text(&clean_line(&t.turn_id))
                )?;
            }
            EventPayload::TurnEnded(_) => writeln!(out, "*Turn {turns} ended · {at}*\n")?,
            EventPayload::UserMessage(t) => message(out, "You", at, &t.text)?,
            EventPayload::UserContext(t) => message(out, "You (context)", at, &t.text)?,
            EventPayload::MessageQueued(m) => message(out, "You (queued)", at, &m.text)?,
            EventPayload::MessageDequeued(_) => {}
            EventPayload::AgentMessage(t) => message(out, "Agent", at, &t.text)?,
            EventPayload::AgentError(m) => message(out, "Error", at, &m.message)?,
            EventPayload::WorkspaceRecoveryFailed(m) => {
                message(out, "Error: workspace recovery failed", at, &m.message)?
            }
            EventPayload::AgentToolCall(c) => {
                let name = inline_code(&clean_line(&c.tool_name));
                heading(out, format_args!("Tool call {name}"), at)?;
                json_block(out, scratch, &c.args)?;
            }
            EventPayload::AgentToolResult(r) => {
                let outcome = if r.cancelled {
                    "cancelled"
                } else if r.is_error {
                    "error"
                } else {
                    "ok"
                };
                let name = inline_code(&clean_line(&r.tool_name));
                match r.exit_code {
                    Some(code) => heading(
                        out,
                        format_args!("Tool result {name} ({outcome}, exit {code})"),
                        at,
                    )?,
                    None => heading(out, format_args!("Tool result {name} ({outcome})"), at)?,
                }
                code_block(out, scratch, "text", &r.summary)?;
            }
            EventPayload::FileChanged(f) => {
                let kind = text_only(&clean_line(f.change_type.as_str()));
                let path = inline_code(&clean_line(&f.path));
                heading(out, format_args!("File {kind}: {path}"), at)?;
                if let Some(diff) = &f.diff {
                    code_block(out, scratch, "diff", diff)?;
                }
            }
            EventPayload::ApprovalRequested(a) => {
                let sensitive = if a.sensitive { " (sensitive)" } else { "" };
                let name = inline_code(&clean_line(&a.name));
                heading(
                    out,
                    format_args!("Approval asked for {name}{sensitive}"),
                    at,
                )?;
                json_block(out, scratch, &a.args)?;
            }
            EventPayload::ApprovalResolved(a) => {
                let decision = if a.approved { "approved" } else { "refused" };
                let name = inline_code(&a.name.as_deref().map(clean_line).unwrap_or_default());
                heading(out, format_args!("Decision: {decision} {name}"), at)?;
                if let Some(reason) = a.reason() {
                    paragraph(out, reason)?;
                }
            }
            EventPayload::QuestionAsked(q) => {
                heading(out, "Question", at)?;
                paragraph(out, &q.question)?;
                for option in &q.options {
                    out.write_all(b"- ")?;
                    write_clean(out, option)?;
                    out.write_all(b"\n")?;
                }
                if !q.options.is_empty() {
                    writeln!(out)?;
                }
            }
            EventPayload::QuestionAnswered(a) => message(out, "Answer", at, &a.answer)?,
            EventPayload::ToolRequired(f) => {
                let name = inline_code(&clean_line(&f.name));
                heading(out, format_args!("Client tool asked: {name}"), at)?;
                json_block(out, scratch, &f.arguments)?;
            }
            EventPayload::ToolResolved(f) => {
                let how = if f.success { "succeeded" } else { "failed" };
                let name = inline_code(&clean_line(&f.name));
                note(out, format_args!("client tool {name} {how}"), at)?;
            }
            EventPayload::AgentTodos(t) => {
                heading(out, "Todos", at)?;
                for item in &t.items {
                    let mark = if item.status == "done" { "x" } else { " " };
                    write!(out, "- [{mark}] ")?;
                    write_clean(out, &item.label)?;
                    out.write_all(b"\n")?;
                }
                writeln!(out)?;
            }
            EventPayload::AgentCompaction(c) => {
                let tokens = |n: Option<u64>| n.map_or("?".to_string(), |n| n.to_string());
                let what = format!(
                    "context compacted ({} → {} tokens)",
                    tokens(c.before),
                    tokens(c.after)
                );
                note(out, what, at)?;
            }
            EventPayload::SandboxCreated(_) => note(out, "workspace created", at)?,
            EventPayload::SandboxPaused(_) => note(out, "workspace paused", at)?,
            EventPayload::SandboxResumed(_) => note(out, "workspace resumed", at)?,
            EventPayload::PreviewReady(p) => {
                let url = text_only(&p.url.as_deref().map(clean_line).unwrap_or_default());
                note(out, format_args!("preview ready: {url}"), at)?;
            }
            EventPayload::ArtifactCreated(a) => {
                let path = inline_code(&clean_line(&a.path));
                note(out, format_args!("artifact: {path}"), at)?
            }
            EventPayload::McpUnavailable(m) => {
                let name = inline_code(&clean_line(&m.name));
                let reason = text_only(&clean_line(&m.reason));
                note(
                    out,
                    format_args!("MCP server {name} unavailable: {reason}"),
                    at,
                )?;
            }
            EventPayload::AgentText(_)
            | EventPayload::AgentThinking(_)
            | EventPayload::ReplayTruncated(_) => {}
            EventPayload::Unknown { kind, raw } => {
                let kind = inline_code(&clean_line(kind));
                heading(out, format_args!("Event {kind}"), at)?;
                json_block(out, scratch, raw)?;
            }
        }
        Ok(())
    }

    /// Ends the document with what was exported, and hands the writer back.
    pub(crate) fn finish(mut self, events: u64, last_seq: Option<u64>) -> io::Result<W> {
        let through = last_seq.map_or(String::new(), |s| format!(", through seq {s}"));
        writeln!(self.out, "---\n\n*{events} events exported{through}.*")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// One line of server text as text only, where it stands in the export's own lines.
fn text_only(line: &str) -> String {
    body_line(line).into_owned()
}

/// One line of server text, inert and redacted.
fn clean_line(s: &str) -> Cow<'_, str> {
    match text::line(s) {
        Cow::Borrowed(line) => redact(line),
        Cow::Owned(line) => Cow::Owned(redact(&line).into_owned()),
    }
}

/// Server text of any length outside code, line by line, inert, redacted and text only
/// ([`body_line`]), written to `out`.
fn write_clean(out: &mut impl Write, s: &str) -> io::Result<()> {
    if text::is_plain_ascii_lines(s) {
        // Nothing to make inert; redaction reads a line break as the end of a word.
        let s = redact(s);
        for (i, line) in s.split('\n').enumerate() {
            if i > 0 {
                out.write_all(b"\n")?;
            }
            out.write_all(body_line(line).as_bytes())?;
        }
        return Ok(());
    }
    // Whole first: a secret may span lines (a PEM key's body).
    let s = redact(s);
    for (i, line) in text::lines_iter(&s).enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        out.write_all(body_line(&redact(&line)).as_bytes())?;
    }
    Ok(())
}

/// [`write_clean`] into `body`, emptied first.
fn clean_into(body: &mut String, s: &str) {
    body.clear();
    if text::is_plain_ascii_lines(s) {
        // Nothing to make inert; redaction reads a line break as the end of a word.
        body.push_str(&redact(s));
        return;
    }
    clean_lines_into(body, s);
}

/// [`clean_into`] line by line, for any text.
fn clean_lines_into(body: &mut String, s: &str) {
    // Whole first: a secret may span lines (a PEM key's body).
    let s = redact(s);
    for (i, line) in text::lines_iter(&s).enumerate() {
        if i > 0 {
            body.push('\n');
        }
        body.push_str(&redact(&line));
    }
}

fn heading(out: &mut impl Write, title: impl Display, at: &str) -> io::Result<()> {
    writeln!(out, "### {title} · {at}\n")
}

fn note(out: &mut impl Write, what: impl Display, at: &str) -> io::Result<()> {
    writeln!(out, "*{at}: {what}*\n")
}

fn paragraph(out: &mut impl Write, s: &str) -> io::Result<()> {
    write_clean(out, s)?;
    out.write_all(b"\n\n")
}

fn message(out: &mut impl Write, who: &str, at: &str, s: &str) -> io::Result<()> {
    heading(out, who, at)?;
    paragraph(out, s)
}

fn json_block(out: &mut impl Write, scratch: &mut Scratch, value: &Value) -> io::Result<()> {
    if value.is_null() || value.as_object().is_some_and(|o| o.is_empty()) {
        return Ok(());
    }
    let mut json = std::mem::take(&mut scratch.json);
    json.clear();
    // Writing a `Value` to memory cannot fail; were it to, the block is empty, as before.
    if serde_json::to_writer_pretty(&mut json, value).is_err() {
        json.clear();
    }
    let written = code_block(
        out,
        scratch,
        "json",
        std::str::from_utf8(&json).unwrap_or_default(),
    );
    scratch.json = json;
    written
}

fn code_block(out: &mut impl Write, scratch: &mut Scratch, lang: &str, s: &str) -> io::Result<()> {
    // The block's own line break closes it; a trailing one in the content would add a line.
    let body = &mut scratch.body;
    clean_into(body, s.strip_suffix('\n').unwrap_or(s));
    let fence = Fence(longest_backtick_run(body).max(2) + 1);
    writeln!(out, "{fence}{lang}\n{body}\n{fence}\n")
}

/// A code fence of this many backticks.
struct Fence(usize);

impl Display for Fence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (0..self.0).try_for_each(|_| f.write_str("`"))
    }
}

fn longest_backtick_run(s: &str) -> usize {
    let bytes = s.as_bytes();
    let mut longest = 0;
    let mut from = 0;
    while let Some(at) = memchr::memchr(b'`', &bytes[from..]) {
        let start = from + at;
        let end = bytes[start..]
            .iter()
            .position(|&b| b != b'`')
            .map_or(bytes.len(), |n| start + n);
        longest = longest.max(end - start);
        from = end;
    }
    longest
}

/// `2026-12-01 13:04:36 UTC` from Unix milliseconds.
fn utc(ms: i64) -> String {
    let (day, clock) = gobare_api::clock::utc_date_and_clock(ms);
    format!("{day} {clock} UTC")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Plain ASCII text, redacted whole, reads as it does made inert and redacted line
        /// by line; and any text still goes line by line.
        #[test]
        fn plain_text_is_cleaned_whole_as_it_is_line_by_line(
            s in crate::redact::text_with_secrets(&["`", "\t", "\r", "\u{1b}[2J", "\u{202e}"]),
        ) {
            let (mut whole, mut lines) = (String::new(), String::new());
            clean_into(&mut whole, &s);
            clean_lines_into(&mut lines, &s);
            prop_assert_eq!(&whole, &lines);
            let mut written = Vec::new();
            write_clean(&mut written, &s).unwrap();
            let text_only: Vec<_> = lines.split('\n').map(body_line).collect();
            prop_assert_eq!(String::from_utf8(written).unwrap(), text_only.join("\n"));
        }
    }

    #[test]
    fn the_longest_run_of_backticks_sets_the_fence() {
        assert_eq!(longest_backtick_run(""), 0);
        assert_eq!(longest_backtick_run("no ticks"), 0);
        assert_eq!(longest_backtick_run("a``b````c`"), 4);
        assert_eq!(longest_backtick_run("```"), 3);
        assert_eq!(longest_backtick_run("é`é``"), 2);
    }

    fn render(events: &[&str]) -> String {
        let mut w =
            MarkdownWriter::new(Vec::new(), "s1", Some("Fix \x1b[31mthe\x1b[0m bug")).unwrap();
        for data in events {
            w.event(&Event::parse(data).unwrap()).unwrap();
        }
        String::from_utf8(w.finish(events.len() as u64, Some(9)).unwrap()).unwrap()
    }

    #[test]
    fn dates_are_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(1_789_319_090_764), "2026-09-13 17:04:50 UTC");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00 UTC");
    }

    #[test]
    fn every_kind_of_entry_is_written_inert_and_redacted() {
        let md = render(&[
            r#"{"type":"turn.started","seq":1,"created_at":0,"payload":{"turnId":"turn_1"}}"#,
            r#"{"type":"user.message","seq":2,"created_at":0,"payload":{"text":"please \u001b]52;c;AAAA\u0007 push\nsecond line"}}"#,
            r#"{"type":"agent.tool_call","seq":3,"created_at":0,"payload":{"toolCallId":"c1","toolName":"bash","args":{"command":"git remote -v"}}}"#,
            r#"{"type":"agent.tool_result","seq":4,"created_at":0,"payload":{"toolCallId":"c1","toolName":"bash","summary":"origin https://x-access-token:ghs_abcdefghij123@github.com/a/b (fetch)\n```\nfence","exitCode":0}}"#,
            r#"{"type":"file.changed","seq":5,"created_at":0,"payload":{"path":"src/a.rs","changeType":"modified","diff":"--- a\n+++ b\n-x\n+y"}}"#,
            r#"{"type":"approval.requested","seq":6,"created_at":0,"payload":{"toolCallId":"c2","name":"deploy","args":{"env":"prod"},"sensitive":true}}"#,
            r#"{"type":"approval.resolved","seq":7,"created_at":0,"payload":{"toolCallId":"c2","approved":false,"name":"deploy","reason":"not today"}}"#,
            r#"{"type":"agent.error","seq":8,"created_at":0,"payload":{"message":"Bearer abcdef123456 refused"}}"#,
            r#"{"type":"turn.ended","seq":9,"created_at":0,"payload":{"turnId":"turn_1"}}"#,
        ]);
        assert!(!md.contains('\x1b') && !md.contains('\x07'), "{md}");
        for expected in [
            "# Fix ␛[31mthe␛[0m bug",
            "## Turn 1 · 1970-01-01 00:00:00 UTC",
            "### You · 1970-01-01 00:00:00 UTC\n\nplease ␛]52;c;AAAA␇ push\nsecond line\n",
            "### Tool call `bash`",
            "\"command\": \"git remote -v\"",
            "### Tool result `bash` (ok, exit 0)",
            "````text\norigin https://x-access-token:[redacted]@github.com/a/b (fetch)\n```\nfence\n````",
            "### File modified: `src/a.rs`",
            "```diff\n--- a\n+++ b\n-x\n+y\n```",
            "### Approval asked for `deploy` (sensitive)",
            "### Decision: refused `deploy`",
            "not today",
            "### Error · 1970-01-01 00:00:00 UTC\n\nBearer [redacted] refused",
            "*Turn 1 ended",
            "*9 events exported, through seq 9.*",
        ] {
            assert!(md.contains(expected), "missing {expected:?} in\n{md}");
        }
        assert!(!md.contains("ghs_abcdefghij123"));
    }
}
