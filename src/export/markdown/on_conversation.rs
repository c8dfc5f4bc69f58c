//! The export's Markdown for the conversation: prompts, steers, queued messages, context and
//! the agent's messages (streaming text and reasoning are not written: the settled message is).

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use crate::session::vocabulary::conversation as words;
use gobare_api::event_family::ConversationEvent;

impl<W: Write> Writing<'_, W> {
    pub(super) fn conversation(&mut self, event: ConversationEvent<'_>) -> io::Result<()> {
        use ConversationEvent as P;
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
            P::UserMessage(t) => match sections.open.as_mut() {
                Some(open) if open.dequeued.as_deref() == Some(t.text.as_str()) => {
                    open.dequeued = None; // the queued prompt's own `user.message`
                }
                Some(open) if !open.asked => {
                    open.asked = true;
                    message(out, words::YOU_HEADING, at, &t.text)?;
                }
                Some(_) => message(out, words::STEER_HEADING, at, &t.text)?,
                None => match sections.prompt.as_mut() {
                    Some(p) if p.queued && !p.echoed && p.text == t.text => p.echoed = true,
                    Some(_) | None => {
                        write_unanswered_prompt(out, sections)?;
                        sections.prompt = Some(Prompt {
                            text: t.text.clone(),
                            at: at_ms,
                            queued: false,
                            echoed: false,
                        });
                    }
                },
            },
            P::MessageDequeued(m) => match sections.open.as_mut() {
                Some(open) if !open.asked => {
                    open.asked = true;
                    open.dequeued = Some(m.text.clone());
                    message(out, words::QUEUED_HEADING, at, &m.text)?;
                }
                Some(_) => {}
                None => {
                    write_unanswered_prompt(out, sections)?;
                    sections.prompt = Some(Prompt {
                        text: m.text.clone(),
                        at: at_ms,
                        queued: true,
                        echoed: false,
                    });
                }
            },
            P::MessageQueued(m) => {
                let line = &mut scratch.line;
                line.clear();
                push_first_line(line, &m.text, QUEUED_CHARS);
                let text = inline(&clean_line(line));
                let label = words::queue_label(m.position);
                note(out, format_args!("{label}: {text}"), at)?;
            }
            P::UserContext(t) => message(out, words::CONTEXT_HEADING, at, &t.text)?,
            P::AgentMessage(t) => {
                heading(out, words::AGENT_HEADING, at)?;
                clean_into(&mut scratch.body, &t.text);
                write_agent_body(out, &scratch.body)?;
                out.write_all(b"\n\n")?;
            }
            P::AgentText(_) | P::AgentThinking(_) => {}
        }
        Ok(())
    }
}
