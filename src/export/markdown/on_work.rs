//! The export's Markdown for the agent's work: tool calls and results, file changes, its todo
//! list, compaction, errors, MCP servers.

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use crate::session::vocabulary::work as words;
use gobare_api::event_family::WorkEvent;

impl<W: Write> Writing<'_, W> {
    pub(super) fn work(&mut self, event: WorkEvent<'_>) -> io::Result<()> {
        use WorkEvent as P;
        let Writing {
            out,
            sections,
            scratch,
            at,
            at_ms,
            ..
        } = self;
        let (at, at_ms) = (*at, *at_ms);
        match event {
            P::AgentError(m) => message(out, words::ERROR_HEADING, at, &m.message)?,
            P::AgentToolCall(c) => {
                let name = inline_code(&clean_line(&c.tool_name));
                heading(out, ["Tool call ", &name], at)?;
                json_block(out, scratch, &c.args)?;
            }
            P::AgentToolResult(r) => {
                let outcome = words::tool_outcome(r.cancelled, r.is_error);
                let name = inline_code(&clean_line(&r.tool_name));
                match r.exit_code {
                    Some(code) => heading(
                        out,
                        format_args!("Tool result {name} ({outcome}, exit {code})"),
                        at,
                    )?,
                    None => heading(out, ["Tool result ", &name, " (", outcome, ")"], at)?,
                }
                code_block(out, scratch, "text", &r.summary)?;
            }
            P::FileChanged(f) => {
                let kind = inline(&clean_line(f.change_type.as_str()));
                let path = inline_code(&clean_line(&f.path));
                heading(out, ["File ", &kind, ": ", &path], at)?;
                if let Some(diff) = &f.diff {
                    code_block(out, scratch, "diff", diff)?;
                }
            }
            P::AgentTodos(t) => match sections.open.as_mut() {
                Some(open) => match open.todos.as_mut() {
                    Some(track) => track.update(&t.items, at_ms),
                    None => open.todos = Some(TodoTrack::new(&t.items, at_ms)),
                },
                None => todo_list(out, &t.items, at)?,
            },
            P::AgentCompaction(c) => {
                let tokens = words::compaction_tokens(c.before, c.after);
                note(out, format_args!("{} ({tokens})", words::COMPACTED), at)?;
            }
            P::McpUnavailable(m) => {
                let name = inline_code(&clean_line(&m.name));
                let reason = inline(&clean_line(&m.reason));
                note(out, words::mcp_unavailable(name, reason), at)?;
            }
        }
        Ok(())
    }
}
