//! One session's events as Markdown, written event by event: one section per turn (its
//! prompt, what the agent did, decisions, function calls, its todo list once, and a closing
//! line with its outcome and artifacts), messages, tool calls with their arguments and
//! results, diffs and errors.
//!
//! Every piece of server text goes through [`gobare_api::text::line`] (no escape sequence
//! reaches the file, or the terminal that later shows it) and then [`redact`]. Code blocks
//! are fenced with more backticks than their content holds, so no content can close them.
//! Text is written straight to the output, line by line; what is held is small and
//! bounded by one turn: the prompt waiting for its turn's heading, the turn's latest todo
//! list, the approvals still waiting for their decision. A closing line written before its
//! turn's facts are known waits in [`HeldOutput`], with what is written after it, until
//! the caller has them ([`MarkdownWriter::write_first_waiting`]).

use super::agent_body::write_agent_body;
use super::facts_feed::Wanted;
use super::held_output::{Closing, HeldOutput};
use super::markdown_escape::{body_line, comment_text, inline_code, inline_text};
use super::section::{Prompt, Sections, TodoTrack};
use super::turn_facts::{FastMap, TurnFacts};
use crate::readable::times::utc_words;
use crate::readable::units;
use crate::redact::redact;
use crate::session::text::{push_first_line, short_args};
use crate::session::vocabulary::{conversation, decisions};
use gobare_api::event_family::ByFamily;
use gobare_api::model::{ArtifactsState, Event, EventPayload, TodoItem, TurnStatus};
use gobare_api::text;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt::Display;
use std::io::{self, Write};

mod on_conversation;
mod on_decisions;
mod on_turns;
mod on_work;
mod on_workspace;

/// Longest command named in a decision (the request above it has the whole arguments).
const COMMAND_CHARS: usize = 300;
/// Longest first line of a queued message named where it was queued.
const QUEUED_CHARS: usize = 120;

/// Writes Markdown for events as they come; holds no event after it was written (only
/// the Markdown behind a closing line that waits for its turn's facts).
pub(crate) struct MarkdownWriter<W: Write> {
    out: HeldOutput<W>,
    facts: TurnFacts,
    sections: Sections,
    /// Approvals asked and not decided yet, by call id: a decision names the tool and the
    /// command, which `approval.resolved` may lack (§8).
    asked: FastMap<String, Asked>,
    clock: Clock,
    scratch: Scratch,
}

/// The writer's parts lent to one event's family (`on_*.rs`), with the event's time.
struct Writing<'a, W: Write> {
    out: &'a mut HeldOutput<W>,
    facts: &'a TurnFacts,
    sections: &'a mut Sections,
    asked: &'a mut FastMap<String, Asked>,
    scratch: &'a mut Scratch,
    /// The event's time as written; empty without one.
    at: &'a str,
    at_ms: Option<i64>,
    /// What [`MarkdownWriter::facts_wanted`] named is known; else a turn's closing line
    /// waits for it ([`MarkdownWriter::write_first_waiting`]).
    facts_known: bool,
}

/// What an event needs known before it is written ([`MarkdownWriter::facts_wanted`]),
/// borrowed from the writer and the event: asked of every event, it allocates nothing,
/// where the owned [`Wanted`] in its place cost +0.7 % instructions per export with the
/// turns' facts known (1.5–6 M of 477 M at 50,000 events, `benches/export.rs`; docs/perf.md).
#[derive(Default)]
struct Wants<'a> {
    /// The open turn and the one the event names, where there are.
    turns: [Option<&'a str>; 2],
    ended: Option<&'a str>,
    artifacts: bool,
}

/// What an approval asked for.
struct Asked {
    name: String,
    command: String,
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
            self.text = ms.map(utc_words).unwrap_or_default();
        }
        &self.text
    }
}

/// Buffers kept from one code block to the next.
#[derive(Default)]
struct Scratch {
    body: String,
    json: Vec<u8>,
    line: String,
    /// The time of a turn's last todo list, written when the turn closes.
    todo_clock: Clock,
}

impl<W: Write> MarkdownWriter<W> {
    /// Starts the document with its title: the session's id and, when known, its title.
    /// `facts` say how each turn came out.
    pub(crate) fn new(
        mut out: W,
        session_id: &str,
        title: Option<&str>,
        facts: TurnFacts,
    ) -> io::Result<Self> {
        let id = inline_code(&clean_line(session_id));
        match title.map(clean_line).filter(|t| !t.trim().is_empty()) {
            Some(title) => writeln!(out, "# {}\n\nSession {id}\n", text_only(&title))?,
            None => writeln!(out, "# Session {id}\n")?,
        }
        Ok(MarkdownWriter {
            out: HeldOutput::new(out),
            facts,
            sections: Sections::default(),
            asked: FastMap::default(),
            clock: Clock::default(),
            scratch: Scratch::default(),
        })
    }

    /// What the resources must say before `event` is written: the turns whose closing
    /// line it may write (the open one; the one a `turn.ended` names), and the artifact
    /// list for a closing line or an artifact's note.
    pub(crate) fn facts_wanted(&self, event: &Event) -> Wanted {
        let wants = self.wants(event);
        Wanted {
            turns: wants
                .turns
                .into_iter()
                .flatten()
                .map(str::to_string)
                .collect(),
            ended: wants.ended.map(str::to_string),
            artifacts: wants.artifacts,
        }
    }

    /// Whether what [`MarkdownWriter::facts_wanted`] names for `event` is known already,
    /// with no need to ask: each turn it names settled in the facts, the artifact list
    /// read where it is wanted (`artifacts_read`). Stricter than the feed's own answer
    /// (a turn still working may do), and allocates nothing: most turns' facts have come
    /// by the time their events are written.
    pub(crate) fn knows_what_it_wants(&self, event: &Event, artifacts_read: bool) -> bool {
        let wants = self.wants(event);
        let settled = |id: &str| self.facts.turn(id).is_some_and(|f| f.outcome.is_some());
        (artifacts_read || !wants.artifacts) && wants.turns.into_iter().flatten().all(settled)
    }

    /// [`MarkdownWriter::facts_wanted`], borrowed.
    fn wants<'a>(&'a self, event: &'a Event) -> Wants<'a> {
        use EventPayload as P;
        let open = self.sections.open.as_ref().map(|o| o.id.as_str());
        match &event.payload {
            P::TurnStarted(_) => Wants {
                turns: [open, None],
                ended: None,
                artifacts: open.is_some(),
            },
            P::TurnEnded(t) => Wants {
                turns: [open, Some(&t.turn_id)],
                ended: Some(&t.turn_id),
                artifacts: true,
            },
            P::ArtifactCreated(_) => Wants {
                artifacts: true,
                ..Wants::default()
            },
            _ => Wants::default(),
        }
    }

    /// What [`MarkdownWriter::finish`] needs known: the open turn's facts.
    pub(crate) fn facts_wanted_at_end(&self) -> Wanted {
        match &self.sections.open {
            Some(open) => Wanted {
                turns: vec![open.id.clone()],
                ended: None,
                artifacts: true,
            },
            None => Wanted::default(),
        }
    }

    /// Where [`super::facts_feed::TurnFactsFeed::fill`] brings what was read.
    pub(crate) fn facts_mut(&mut self) -> &mut TurnFacts {
        &mut self.facts
    }

    /// Whether `event` may be written before what [`MarkdownWriter::facts_wanted`] names
    /// is known ([`MarkdownWriter::event_ahead_of_facts`]): it only closes turns.
    pub(crate) fn may_go_ahead_of_facts(event: &Event) -> bool {
        matches!(
            event.payload,
            EventPayload::TurnStarted(_) | EventPayload::TurnEnded(_)
        )
    }

    /// What the first closing line still waiting for its turn's facts needs known, as
    /// [`MarkdownWriter::facts_wanted`] says it.
    pub(crate) fn first_waiting(&self) -> Option<Wanted> {
        self.out.first_waiting().map(|closing| Wanted {
            turns: vec![closing.turn_id.clone()],
            ended: closing.ended.then(|| closing.turn_id.clone()),
            artifacts: true,
        })
    }

    /// Writes the first waiting closing line with the facts known now, then what was
    /// written after it.
    pub(crate) fn write_first_waiting(&mut self) -> io::Result<()> {
        let facts = &self.facts;
        self.out.write_first_waiting(|out, closing| {
            write_outcome(out, facts, &closing.turn_id, closing.number, &closing.at)
        })
    }

    /// Bytes written after closing lines that wait.
    pub(crate) fn held_bytes(&self) -> usize {
        self.out.held_bytes()
    }

    /// Appends one persisted event, what [`MarkdownWriter::facts_wanted`] names known.
    pub(crate) fn event(&mut self, event: &Event) -> io::Result<()> {
        self.write_event(event, true)
    }

    /// Appends one persisted event that [`MarkdownWriter::may_go_ahead_of_facts`], before
    /// what [`MarkdownWriter::facts_wanted`] names is known: the closing lines it writes
    /// wait ([`MarkdownWriter::first_waiting`]).
    pub(crate) fn event_ahead_of_facts(&mut self, event: &Event) -> io::Result<()> {
        self.write_event(event, false)
    }

    fn write_event(&mut self, event: &Event, facts_known: bool) -> io::Result<()> {
        let MarkdownWriter {
            out,
            facts,
            sections,
            asked,
            clock,
            scratch,
        } = self;
        let at_ms = event.created_at;
        let at = clock.at(at_ms);
        if starts_turn_content(&event.payload) && sections.open.is_none() {
            write_unanswered_prompt(out, sections)?;
        }
        let mut writing = Writing {
            out,
            facts,
            sections,
            asked,
            scratch,
            at,
            at_ms,
            facts_known,
        };
        match event.payload.by_family() {
            ByFamily::Turns(e) => writing.turns(e),
            ByFamily::Conversation(e) => writing.conversation(e),
            ByFamily::Work(e) => writing.work(e),
            ByFamily::Decisions(e) => writing.decisions(e),
            ByFamily::Workspace(e) => writing.workspace(e),
        }
    }

    /// Ends the document (the turn still open, the message still waiting for its turn,
    /// then what was exported), and hands the writer back, with the turn facts for the
    /// caller to free when it suits it. Closing lines still waiting are written with the
    /// facts known now.
    pub(crate) fn finish(
        mut self,
        events: u64,
        last_seq: Option<u64>,
    ) -> io::Result<(W, TurnFacts)> {
        let MarkdownWriter {
            out,
            facts,
            sections,
            scratch,
            ..
        } = &mut self;
        close_turn(out, facts, sections, scratch, "", Close::known())?;
        write_unanswered_prompt(out, sections)?;
        let through = last_seq.map_or(String::new(), |s| format!(", through seq {s}"));
        writeln!(self.out, "---\n\n*{events} events exported{through}.*")?;
        while self.out.first_waiting().is_some() {
            self.write_first_waiting()?;
        }
        let mut out = self.out.into_inner()?;
        out.flush()?;
        Ok((out, self.facts))
    }
}

/// Whether an event is something a turn does: seen with a message waiting and no turn
/// open, that message got no turn. The workspace's own news, context and publication
/// come between turns as well.
fn starts_turn_content(payload: &EventPayload) -> bool {
    use gobare_api::event_family::{
        ConversationEvent as C, DecisionsEvent as D, WorkEvent as W, WorkspaceEvent as S,
    };
    match payload.by_family() {
        ByFamily::Turns(_) => false,
        ByFamily::Conversation(c) => match c {
            C::AgentMessage(_) | C::MessageQueued(_) => true,
            C::UserMessage(_)
            | C::UserContext(_)
            | C::MessageDequeued(_)
            | C::AgentText(_)
            | C::AgentThinking(_) => false,
        },
        ByFamily::Work(w) => match w {
            W::AgentToolCall(_)
            | W::AgentToolResult(_)
            | W::AgentCompaction(_)
            | W::AgentError(_)
            | W::AgentTodos(_)
            | W::FileChanged(_) => true,
            W::McpUnavailable(_) => false,
        },
        ByFamily::Decisions(d) => match d {
            D::ApprovalRequested(_)
            | D::ApprovalResolved(_)
            | D::QuestionAsked(_)
            | D::QuestionAnswered(_)
            | D::ToolRequired(_)
            | D::ToolResolved(_) => true,
        },
        ByFamily::Workspace(s) => match s {
            S::WorkspaceRecoveryFailed(_) | S::Unknown { .. } => true,
            S::SandboxCreated(_)
            | S::SandboxPaused(_)
            | S::SandboxResumed(_)
            | S::ArtifactCreated(_)
            | S::PreviewReady(_)
            | S::ReplayTruncated(_) => false,
        },
    }
}

/// `## Turn N` for `turn_id`, then the prompt that was waiting for it.
fn open_turn(
    out: &mut impl Write,
    sections: &mut Sections,
    turn_id: &str,
    at: &str,
) -> io::Result<()> {
    let (number, prompt) = sections.open(turn_id);
    out.write_all(b"---\n\n## Turn ")?;
    out.write_all(itoa::Buffer::new().format(number).as_bytes())?;
    out.write_all(" · ".as_bytes())?;
    out.write_all(at.as_bytes())?;
    out.write_all(b"\n\n<!-- ")?;
    out.write_all(comment_text(&clean_line(turn_id)).as_bytes())?;
    out.write_all(b" -->\n\n")?;
    if let Some(prompt) = prompt {
        let who = if prompt.queued {
            conversation::QUEUED_HEADING
        } else {
            conversation::YOU_HEADING
        };
        message(out, who, &at_text(prompt.at), &prompt.text)?;
    }
    Ok(())
}

/// How a turn's section is closed.
#[derive(Debug, Clone, Copy)]
struct Close {
    /// Its facts are known: its closing line is written now, else it waits.
    facts_known: bool,
    /// By its own `turn.ended`.
    ended: bool,
}

impl Close {
    /// With the facts known, not by its own end (the history's end).
    fn known() -> Close {
        Close {
            facts_known: true,
            ended: false,
        }
    }
}

/// Ends the open turn's section, if one is: its todo list at its final state, then how
/// it came out (`at`: when it ended; empty when the history ended first), now or, with
/// its facts not known yet, once they are.
fn close_turn(
    out: &mut HeldOutput<impl Write>,
    facts: &TurnFacts,
    sections: &mut Sections,
    scratch: &mut Scratch,
    at: &str,
    close: Close,
) -> io::Result<()> {
    let Some(open) = sections.open.take() else {
        return Ok(());
    };
    if let Some(track) = &open.todos {
        todo_list(out, &track.last, scratch.todo_clock.at(track.at))?;
        changes(out, scratch, "Added during the turn", &track.added())?;
        changes(out, scratch, "Dropped during the turn", &track.dropped())?;
    }
    if close.facts_known {
        return write_outcome(out, facts, &open.id, open.number, at);
    }
    out.hold(Closing {
        turn_id: open.id,
        number: open.number,
        at: at.to_string(),
        ended: close.ended,
    });
    Ok(())
}

/// A turn's closing line: how it came out, what it published, what it skipped.
fn write_outcome(
    out: &mut impl Write,
    facts: &TurnFacts,
    turn_id: &str,
    number: u64,
    at: &str,
) -> io::Result<()> {
    let fact = facts.turn(turn_id);
    let outcome = fact.and_then(|f| f.outcome.as_ref());
    out.write_all(b"**Turn ")?;
    out.write_all(itoa::Buffer::new().format(number).as_bytes())?;
    out.write_all(b": ")?;
    match (fact, outcome) {
        (_, Some(outcome)) => write!(out, "{}", outcome.shown_words())?,
        (Some(_), None) => out.write_all(b"still working when exported")?,
        (None, None) if at.is_empty() => out.write_all(b"still working when exported")?,
        (None, None) => out.write_all(b"ended (its outcome could not be read)")?,
    }
    out.write_all(b"**")?;
    if !at.is_empty() {
        out.write_all(" · ".as_bytes())?;
        out.write_all(at.as_bytes())?;
    }
    if let Some(reason) = outcome
        .filter(|o| o.status == TurnStatus::Failed)
        .and_then(|o| o.error.as_deref())
    {
        write!(out, " — {}", inline(&clean_line(reason)))?;
    }
    out.write_all(b"\n\n")?;
    let published = facts.artifacts_of(turn_id);
    if !published.is_empty() {
        out.write_all(b"Artifacts: ")?;
        for (i, a) in published.iter().enumerate() {
            if i > 0 {
                out.write_all(b", ")?;
            }
            let path = inline_code(&clean_line(&a.path));
            write!(out, "{path} ({})", units::size(a.size_bytes))?;
        }
        out.write_all(b"\n\n")?;
    }
    match fact.and_then(|f| f.artifacts.as_ref()) {
        Some(ArtifactsState::Pending) => writeln!(out, "Artifacts: still being published.\n")?,
        Some(ArtifactsState::Failed) => writeln!(out, "Artifacts: publishing failed.\n")?,
        _ => {}
    }
    for (path, reason) in fact.map_or(&[][..], |f| f.skipped.as_slice()) {
        let path = inline_code(&clean_line(path));
        let reason = inline(&clean_line(reason));
        writeln!(out, "Skipped: {path}: {reason}\n")?;
    }
    Ok(())
}

/// A message that waited for a turn none started for: under a heading of its own, so it
/// is not read as part of the turn before.
fn write_unanswered_prompt(out: &mut impl Write, sections: &mut Sections) -> io::Result<()> {
    let Some(prompt) = sections.prompt.take() else {
        return Ok(());
    };
    let at = at_text(prompt.at);
    writeln!(out, "---\n\n## Message without a turn · {at}\n")?;
    let who = if prompt.queued {
        conversation::QUEUED_HEADING
    } else {
        conversation::YOU_HEADING
    };
    message(out, who, &at, &prompt.text)
}

fn todo_list(out: &mut impl Write, items: &[TodoItem], at: &str) -> io::Result<()> {
    heading(out, "Todos", at)?;
    for item in items {
        let mark: &[u8] = if item.status == "done" {
            b"- [x] "
        } else {
            b"- [ ] "
        };
        out.write_all(mark)?;
        write_clean(out, &item.label)?;
        out.write_all(b"\n")?;
    }
    writeln!(out)
}

/// `*Added during the turn: a; b.*`, when there are any.
fn changes(
    out: &mut impl Write,
    scratch: &mut Scratch,
    what: &str,
    labels: &[&str],
) -> io::Result<()> {
    if labels.is_empty() {
        return Ok(());
    }
    let line = &mut scratch.line;
    line.clear();
    for (i, label) in labels.iter().enumerate() {
        if i > 0 {
            line.push_str("; ");
        }
        line.push_str(&clean_line(label));
    }
    writeln!(out, "{what}: {}.\n", inline(line))
}

/// [`utc_words`] of a time that may be missing.
fn at_text(ms: Option<i64>) -> String {
    ms.map(utc_words).unwrap_or_default()
}

/// One line of server text as text only, where it starts one of the export's own lines.
fn text_only(line: &str) -> String {
    body_line(line).into_owned()
}

/// One line of server text as text only, inside one of the export's own lines.
fn inline(line: &str) -> String {
    inline_text(line).into_owned()
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

/// A heading's title: written in pieces, through the formatter only where it must be (a
/// heading is written for most events).
trait Title {
    fn write_to(self, out: &mut impl Write) -> io::Result<()>;
}

impl Title for &str {
    fn write_to(self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(self.as_bytes())
    }
}

impl<const N: usize> Title for [&str; N] {
    fn write_to(self, out: &mut impl Write) -> io::Result<()> {
        self.iter()
            .try_for_each(|piece| out.write_all(piece.as_bytes()))
    }
}

impl Title for std::fmt::Arguments<'_> {
    fn write_to(self, out: &mut impl Write) -> io::Result<()> {
        out.write_fmt(self)
    }
}

fn heading(out: &mut impl Write, title: impl Title, at: &str) -> io::Result<()> {
    out.write_all(b"### ")?;
    title.write_to(out)?;
    out.write_all(" · ".as_bytes())?;
    out.write_all(at.as_bytes())?;
    out.write_all(b"\n\n")
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
    // Pieces written as they are: through `writeln!` each went through the formatter.
    fence.write_to(out)?;
    out.write_all(lang.as_bytes())?;
    out.write_all(b"\n")?;
    out.write_all(body.as_bytes())?;
    out.write_all(b"\n")?;
    fence.write_to(out)?;
    out.write_all(b"\n\n")
}

/// A code fence of this many backticks.
struct Fence(usize);

impl Fence {
    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        const TICKS: &[u8] = b"````````````````";
        let mut left = self.0;
        while left > 0 {
            let n = left.min(TICKS.len());
            out.write_all(&TICKS[..n])?;
            left -= n;
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use gobare_api::model::{Artifact, Turn};
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

    #[test]
    fn a_code_block_is_fenced_by_one_more_backtick_than_its_longest_run() {
        for run in [0, 2, 3, 15, 16, 17, 40] {
            let body = format!("a{}b", "`".repeat(run));
            let mut out = Vec::new();
            code_block(&mut out, &mut Scratch::default(), "text", &body).unwrap();
            let fence = "`".repeat(run.max(2) + 1);
            let expected = format!("{fence}text\n{body}\n{fence}\n\n");
            assert_eq!(String::from_utf8(out).unwrap(), expected, "run {run}");
        }
    }

    fn render(events: &[&str]) -> String {
        render_with(TurnFacts::unknown(), events)
    }

    fn render_with(facts: TurnFacts, events: &[&str]) -> String {
        let title = Some("Fix \x1b[31mthe\x1b[0m bug");
        let mut w = MarkdownWriter::new(Vec::new(), "s1", title, facts).unwrap();
        for data in events {
            w.event(&Event::parse(data).unwrap()).unwrap();
        }
        String::from_utf8(w.finish(events.len() as u64, Some(9)).unwrap().0).unwrap()
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
            "### Decision: denied `deploy`",
            "not today",
            "### Error · 1970-01-01 00:00:00 UTC\n\nBearer [redacted] refused",
            "**Turn 1: ended (its outcome could not be read)** · 1970-01-01 00:00:00 UTC",
            "*9 events exported, through seq 9.*",
        ] {
            assert!(md.contains(expected), "missing {expected:?} in\n{md}");
        }
        assert!(!md.contains("ghs_abcdefghij123"));
    }

    /// Turn 1 completed with a decision, a function call, a steer and an artifact; turn 2
    /// (the queued message) failed; turn 3 failed before it started.
    fn story_facts() -> TurnFacts {
        let turn = |id: &str, status: &str, started: Option<i64>, error: Value| -> Turn {
            serde_json::from_value(serde_json::json!({
                "id": id, "status": status, "created_at": 1_000, "started_at": started,
                "completed_at": 125_000, "artifacts": "ready", "error": error,
            }))
            .unwrap()
        };
        let drained = serde_json::json!({"code": "sandbox_lost",
            "message": "the sandbox host was drained and the workspace reclaimed"});
        let recovery = serde_json::json!({"code": "workspace_recovery_failed",
            "message": "no snapshot was available"});
        let report: Artifact = serde_json::from_value(serde_json::json!({
            "id": "art_1", "session_id": "s1", "turn_id": "turn_1",
            "path": "/workspace/outputs/report.md", "size_bytes": 151,
        }))
        .unwrap();
        TurnFacts::from_resources(
            vec![
                turn("turn_1", "completed", Some(1_000), Value::Null),
                turn("turn_2", "failed", Some(120_000), drained),
                turn("turn_3", "failed", None, recovery),
            ],
            vec![report],
        )
    }

    const STORY: &[&str] = &[
        r###"{"type":"user.message","seq":1,"created_at":1000,"payload":{"text":"restart the worker"}}"###,
        r###"{"type":"sandbox.created","seq":2,"created_at":1000,"payload":{"state":"running"}}"###,
        r###"{"type":"turn.started","seq":3,"created_at":1000,"payload":{"turnId":"turn_1"}}"###,
        r###"{"type":"agent.todos","seq":4,"created_at":2000,"payload":{"items":[{"label":"Diagnose","status":"pending"},{"label":"Restart","status":"pending"}]}}"###,
        r###"{"type":"approval.requested","seq":5,"created_at":3000,"payload":{"toolCallId":"call_a","name":"bash","args":{"command":"systemctl restart worker"},"sensitive":true}}"###,
        r###"{"type":"user.message","seq":6,"created_at":4000,"payload":{"text":"keep its logs"}}"###,
        r###"{"type":"message.queued","seq":7,"created_at":5000,"payload":{"text":"look up the order\nA-4471","position":1}}"###,
        r###"{"type":"approval.resolved","seq":8,"created_at":6000,"payload":{"toolCallId":"call_a","approved":true}}"###,
        r###"{"type":"tool.required","seq":9,"created_at":7000,"payload":{"toolCallId":"call_f","name":"lookup_order","arguments":{"order_id":"A-4471"}}}"###,
        r###"{"type":"tool.resolved","seq":10,"created_at":8000,"payload":{"toolCallId":"call_f","name":"lookup_order","success":true}}"###,
        r###"{"type":"agent.todos","seq":11,"created_at":9000,"payload":{"items":[{"label":"Diagnose","status":"done"},{"label":"Verify","status":"done"}]}}"###,
        r###"{"type":"agent.message","seq":12,"created_at":10000,"payload":{"text":"## Plan\n\n- restart\n\n```sh\n# as root"}}"###,
        r###"{"type":"turn.ended","seq":13,"created_at":125000,"payload":{"turnId":"turn_1"}}"###,
        r###"{"type":"message.dequeued","seq":14,"created_at":125000,"payload":{"text":"look up the order\nA-4471"}}"###,
        r###"{"type":"user.message","seq":15,"created_at":125000,"payload":{"text":"look up the order\nA-4471"}}"###,
        r###"{"type":"turn.started","seq":16,"created_at":125000,"payload":{"turnId":"turn_2"}}"###,
        r###"{"type":"artifact.created","seq":17,"created_at":125500,"payload":{"id":"art_1","path":"/workspace/outputs/report.md","size_bytes":151,"turn_id":"turn_1"}}"###,
        r###"{"type":"turn.ended","seq":18,"created_at":125000,"payload":{"turnId":"turn_2"}}"###,
        r###"{"type":"user.message","seq":19,"created_at":130000,"payload":{"text":"try again"}}"###,
        r###"{"type":"turn.ended","seq":20,"created_at":131000,"payload":{"turnId":"turn_3"}}"###,
        r###"{"type":"user.message","seq":21,"created_at":140000,"payload":{"text":"still there?"}}"###,
    ];

    #[test]
    fn each_turn_reads_from_its_prompt_to_its_outcome() {
        let md = render_with(story_facts(), STORY);
        insta::assert_snapshot!(md);
    }
}
