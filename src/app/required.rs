//! Required actions (§9.4, §11.3, §11.4) between the stream, the send executor and the
//! prompt widget: which events feed the prompt or close a call, which ones mean the session
//! must be re-read (its `required_actions` is authoritative), and what an answer's result
//! does to the prompt.

use crate::app::sender::SendReport;
use crate::ui::prompt::PromptState;
use gobare_api::model::{ErrorCode, EventPayload, Input, InputOutcome};

/// The call an answer is about.
pub(crate) fn answered_call(input: &Input) -> Option<&str> {
    match input {
        Input::ToolResult { call_id, .. }
        | Input::Approval { call_id, .. }
        | Input::QuestionAnswer { call_id, .. } => Some(call_id),
        _ => None,
    }
}

/// Feeds one stream event to the prompt: details the list lacks, and closing a call that
/// was resolved or answered from anywhere (here, the Console, a rule). Returns whether the
/// prompt changed.
pub(crate) fn apply_event(prompt: &mut PromptState, payload: &EventPayload) -> bool {
    match payload {
        EventPayload::ApprovalRequested(a) => {
            prompt.set_approval_details(&a.tool_call_id, &a.name, a.args.clone(), a.sensitive);
            true
        }
        EventPayload::QuestionAsked(q) => {
            prompt.set_question_details(
                &q.tool_call_id,
                &q.question,
                q.options.clone(),
                q.allow_freeform,
            );
            true
        }
        EventPayload::ApprovalResolved(r) => close(prompt, &r.tool_call_id),
        EventPayload::QuestionAnswered(a) => close(prompt, &a.tool_call_id),
        EventPayload::ToolResolved(r) => close(prompt, &r.tool_call_id),
        _ => false,
    }
}

fn close(prompt: &mut PromptState, call_id: &str) -> bool {
    let before = prompt.pending_count();
    prompt.close_call(call_id);
    before != prompt.pending_count()
}

/// What an answer's settled send does to the prompt (§6.4). The text shown is the report's
/// outcome; this only decides whether the call stays answerable.
pub fn apply_answer_report(prompt: &mut PromptState, report: &SendReport) {
    let Some(call_id) = answered_call(&report.input) else {
        return;
    };
    match &report.result {
        // Accepted: the resolved event (or the next refresh) closes it.
        Ok(reply) => match reply.outcome {
            // Nothing is waiting for this call any more: don't leave it on screen.
            Some(InputOutcome::AlreadyResolved) | Some(InputOutcome::NotDelivered) => {
                prompt.close_call(call_id)
            }
            _ => {}
        },
        Err(failure)
            if failure.code == Some(ErrorCode::NotFound) || failure.status == Some(404) =>
        {
            prompt.close_call(call_id)
        }
        // Refused or unreachable: it can be answered again (or in the Console).
        Err(_) => prompt.send_failed(call_id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prompt as the app builds it: empty, then the session's list of required actions.
    fn prompt_for(actions: &[RequiredAction]) -> PromptState {
        let mut prompt = PromptState::default();
        prompt.replace(actions);
        prompt
    }
    use gobare_api::model::{Event, RequiredAction};

    fn payload(kind: &str, payload: serde_json::Value) -> EventPayload {
        let data = serde_json::json!({"type": kind, "seq": 1, "payload": payload}).to_string();
        Event::parse(&data).unwrap().payload
    }

    fn action(kind: &str, call: &str) -> gobare_api::model::RequiredAction {
        serde_json::from_value(serde_json::json!({"type": kind, "turn_id": "t", "call_id": call}))
            .unwrap()
    }

    #[test]
    fn a_resolved_event_from_anywhere_closes_its_call_only() {
        let mut prompt = prompt_for(&[action("approval", "c1"), action("question", "c2")]);
        let other = payload(
            "approval.resolved",
            serde_json::json!({"toolCallId": "zz", "approved": true}),
        );
        assert!(!apply_event(&mut prompt, &other));
        let mine = payload(
            "approval.resolved",
            serde_json::json!({"toolCallId": "c1", "approved": true}),
        );
        assert!(apply_event(&mut prompt, &mine));
        assert_eq!(prompt.current().unwrap().call_id, "c2");
        let answered = payload(
            "question.answered",
            serde_json::json!({"toolCallId": "c2", "answer": "a"}),
        );
        assert!(apply_event(&mut prompt, &answered));
        assert!(prompt.is_empty());
    }
}
