//! The export's Markdown for the agent's work: tool calls and results, file changes, its todo
//! list, compaction, errors, MCP servers.

use super::*;

impl<W: Write> Writing<'_, W> {
    pub(super) fn work(&mut self, payload: &EventPayload) -> io::Result<()> {
        use EventPayload as P;
        let Writing {
            out,
            sections,
            scratch,
            at,
            at_ms,
            ..
        } = self;
        let (at, at_ms) = (*at, *at_ms);
        match payload {
            P::AgentError(m) => message(out, "Error", at, &m.message)?,
            P::AgentToolCall(c) => {
                let name = inline_code(&clean_line(&c.tool_name));
                heading(out, ["Tool call ", &name], at)?;
                json_block(out, scratch, &c.args)?;
            }
            P::AgentToolResult(r) => {
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
                let tokens = |n: Option<u64>| n.map_or("?".to_string(), |n| n.to_string());
                let what = format!(
                    "context compacted ({} → {} tokens)",
                    tokens(c.before),
                    tokens(c.after)
                );
                note(out, what, at)?;
            }
            P::McpUnavailable(m) => {
                let name = inline_code(&clean_line(&m.name));
                let reason = inline(&clean_line(&m.reason));
                note(
                    out,
                    format_args!("MCP server {name} unavailable: {reason}"),
                    at,
                )?;
            }
            _ => {}
        }
        Ok(())
    }
}
