//! Required actions (§9.4, §11.4) between the send executor, the session model and the
//! prompt widget: what an answer's result does to each.

use crate::app::shared::sender::SendReport;
use crate::session::actions::{Actions, answered_call};
use crate::ui::prompt::PromptState;
use gobare_api::model::{ErrorCode, InputOutcome};

/// What an answer's settled send does (§6.4). The text shown is the report's outcome; this
/// only decides whether the call stays answerable: the prompt's send is over either way,
/// and a call nothing waits for any more leaves the model at once.
pub fn apply_answer_report(prompt: &mut PromptState, facts: &mut Actions, report: &SendReport) {
    let Some(call_id) = answered_call(&report.input) else {
        return;
    };
    prompt.send_over(call_id);
    let gone = match &report.result {
        Ok(reply) => matches!(
            reply.outcome,
            Some(InputOutcome::AlreadyResolved)
                | Some(InputOutcome::NoLongerPending)
                | Some(InputOutcome::NotDelivered)
        ),
        Err(failure) => failure.code == Some(ErrorCode::NotFound) || failure.status == Some(404),
    };
    // Accepted: the resolved event (or the next refresh) closes it. Refused or unreachable:
    // it can be answered again (or in the Console).
    if gone {
        facts.resolved(call_id);
    }
}
