//! The trace's fleet as the fleet's task holds it, for the tests that play it: the model
//! listed, the needs already waiting known, and each event applied as the task applies it
//! (`live::Task::apply`), hearing the needs it announces.

use crate::fleet::announced::Announced;
use crate::fleet::model::FleetModel;
use crate::fleet::news::announcement;
use crate::fleet::pacer::Pacer;
use gobare_api::model::{Event, EventPayload, Session};

pub(super) struct Task {
    pub(super) model: FleetModel,
    pub(super) announced: Announced,
    pub(super) pacer: Pacer,
}

impl Task {
    /// The fleet as first listed: what waits already is not news.
    pub(super) fn listed(listed: &[Session]) -> Task {
        let mut model = FleetModel::new();
        model.apply_full_list(listed);
        let mut announced = Announced::default();
        announced.already_waiting(
            model
                .rows()
                .flat_map(|r| r.waiting.iter().map(|(c, _)| c.as_str())),
        );
        Task {
            model,
            announced,
            pacer: Pacer::default(),
        }
    }

    pub(super) fn apply(&mut self, event: &Event) {
        self.model.apply_event(event);
        let call = match &event.payload {
            EventPayload::ApprovalRequested(a) => Some(&a.tool_call_id),
            EventPayload::QuestionAsked(q) => Some(&q.tool_call_id),
            _ => None,
        };
        if let (Some(call), Some(id)) = (call, &event.session_id)
            && self.announced.call(call)
            && let Some(news) = announcement(&self.model, id.to_string(), call)
        {
            self.pacer.hear(news, tokio::time::Instant::now());
        }
    }
}
