//! The export's Markdown for what the agent waits for: approvals with their decisions,
//! questions and answers, function calls and results.

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use gobare_api::event_family::DecisionsEvent;

impl<W: Write> Writing<'_, W> {
    pub(super) fn decisions(&mut self, event: DecisionsEvent<'_>) -> io::Result<()> {
        use DecisionsEvent as P;
        let Writing {
            out,
            asked,
            scratch,
            at,
            ..
        } = self;
        let at = *at;
        match event {
            P::ApprovalRequested(a) => {
                let sensitive = if a.sensitive {
                    format!(" ({})", decisions::SENSITIVE)
                } else {
                    String::new()
                };
                let name = inline_code(&clean_line(&a.name));
                heading(
                    out,
                    format_args!("Approval asked for {name}{sensitive}"),
                    at,
                )?;
                json_block(out, scratch, &a.args)?;
                let command = short_args(&a.args, COMMAND_CHARS);
                let what = Asked {
                    name: a.name.clone(),
                    command,
                };
                asked.insert(a.tool_call_id.clone(), what);
            }
            P::ApprovalResolved(a) => {
                let request = asked.remove(&a.tool_call_id);
                let decision = decisions::verdict(a.approved);
                let name = a
                    .name
                    .as_deref()
                    .filter(|n| !n.is_empty())
                    .or(request.as_ref().map(|r| r.name.as_str()));
                match name {
                    Some(name) => {
                        let name = inline_code(&clean_line(name));
                        heading(out, format_args!("Decision: {decision} {name}"), at)?;
                    }
                    None => heading(out, format_args!("Decision: {decision}"), at)?,
                }
                if let Some(command) = request.as_ref().map(|r| &r.command) {
                    let command = inline_code(&clean_line(command));
                    writeln!(out, "Command: {command}\n")?;
                }
                if let Some(code) = a.code.as_deref().filter(|_| !a.approved) {
                    writeln!(out, "Code: {}\n", inline_code(&clean_line(code)))?;
                }
                if let Some(reason) = a.reason() {
                    paragraph(out, reason)?;
                }
            }
            P::QuestionAsked(q) => {
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
            P::QuestionAnswered(a) => message(out, "Answer", at, &a.answer)?,
            P::ToolRequired(f) => {
                let name = inline_code(&clean_line(&f.name));
                heading(out, format_args!("Function call {name}"), at)?;
                json_block(out, scratch, &f.arguments)?;
            }
            P::ToolResolved(f) => {
                let how = decisions::function_outcome(f.success, false);
                let name = inline_code(&clean_line(&f.name));
                heading(out, format_args!("Function result {name}: {how}"), at)?;
            }
        }
        Ok(())
    }
}
