//! What the session waits on, with everything known about each wait: `required_actions`
//! from the session resource (authoritative, §11.4) kept current between fetches by events
//! (asked → add, resolved/answered → remove), and the details the list lacks that only the
//! events carry (a question's text and options, an approval's `sensitive` flag). The one
//! owner of these facts: the prompt reads them here and keeps only its view state.

use super::sensitive::SensitiveCalls;
use super::text::short_args;
use gobare_api::model::{Input, RequiredAction, RequiredActionKind, option_labels};
use serde_json::Value;
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PendingAction {
    pub(crate) kind: RequiredActionKind,
    pub(crate) call_id: String,
    /// `None` when only the event was seen (`tool.required` has no turn id, §14.9).
    pub(crate) turn_id: Option<String>,
    pub(crate) name: String,
    /// Short excerpt of the arguments, for display.
    pub(crate) args: String,
    pub(crate) created_at: Option<i64>,
    pub(crate) expires_at: Option<i64>,
    /// The full action as the server listed it (what the answer copies back).
    pub(crate) resource: Option<RequiredAction>,
}

/// The call an answer is about.
pub fn answered_call(input: &Input) -> Option<&str> {
    match input {
        Input::ToolResult { call_id, .. }
        | Input::Approval { call_id, .. }
        | Input::QuestionAnswer { call_id, .. } => Some(call_id),
        _ => None,
    }
}

/// A question as asked: from `question.asked`, else from the action's arguments.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct QuestionDetails {
    pub(crate) question: String,
    pub(crate) options: Vec<String>,
    pub(crate) allow_freeform: Option<bool>,
}

impl QuestionDetails {
    /// Free text is allowed unless the question says otherwise, and always when there are
    /// no options to pick from (it could not be answered at all).
    pub(crate) fn free_text_allowed(&self) -> bool {
        self.options.is_empty() || self.allow_freeform != Some(false)
    }
}

/// An approval as asked: from `approval.requested`, else from the listed action.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ApprovalDetails {
    pub(crate) name: String,
    pub(crate) args: Value,
    pub(crate) sensitive: bool,
}

/// Details kept for calls not (yet) in the list: an event may arrive before the session
/// refresh that lists its action. Past this many, details of unlisted calls are dropped.
const MAX_KEPT_DETAILS: usize = 32;

/// The required actions of one session and what is known about each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Actions {
    pending: Vec<PendingAction>,
    questions: HashMap<String, QuestionDetails>,
    approvals: HashMap<String, ApprovalDetails>,
    /// Approvals asked as sensitive: kept apart from `approvals`, whose details of unlisted
    /// calls are dropped past [`MAX_KEPT_DETAILS`], so the second `y` is never forgotten.
    sensitive: SensitiveCalls,
}

impl Actions {
    pub(crate) fn pending(&self) -> &[PendingAction] {
        &self.pending
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The actions the server lists, in its order: what can be answered.
    pub fn listed(&self) -> impl Iterator<Item = &RequiredAction> {
        self.pending.iter().filter_map(|a| a.resource.as_ref())
    }

    /// A listed action has a deadline: its countdown moves every second.
    pub(crate) fn counts_down(&self) -> bool {
        self.listed().any(|a| a.expires_at.is_some())
    }

    /// Nothing listed waits on the user.
    pub fn nothing_listed(&self) -> bool {
        self.listed().next().is_none()
    }

    /// The session's list replaces whatever the events suggested.
    pub fn replace(&mut self, list: &[RequiredAction]) -> bool {
        let next: Vec<PendingAction> = list
            .iter()
            .map(|a| PendingAction {
                kind: a.kind.clone(),
                call_id: a.call_id.clone(),
                turn_id: Some(a.turn_id.clone()),
                name: a.name.clone().unwrap_or_default(),
                args: short_args(&a.arguments, 200),
                created_at: a.created_at,
                expires_at: a.expires_at,
                resource: Some(a.clone()),
            })
            .collect();
        let changed = next != self.pending;
        self.pending = next;
        if self.questions.len() + self.approvals.len() > MAX_KEPT_DETAILS {
            let listed: Vec<String> = list.iter().map(|a| a.call_id.clone()).collect();
            self.questions.retain(|id, _| listed.contains(id));
            self.approvals.retain(|id, _| listed.contains(id));
        }
        changed
    }

    /// An asking event, until the next session fetch confirms it.
    pub(crate) fn asked(
        &mut self,
        kind: RequiredActionKind,
        call_id: &str,
        name: &str,
        args: &Value,
        at: Option<i64>,
    ) {
        if self.pending.iter().any(|a| a.call_id == call_id) {
            return;
        }
        self.pending.push(PendingAction {
            kind,
            call_id: call_id.to_string(),
            turn_id: None,
            name: name.to_string(),
            args: short_args(args, 200),
            created_at: at,
            expires_at: None,
            resource: None,
        });
    }

    /// The call was resolved or answered (here, in the Console, or by a rule), or nothing
    /// waits for it any more: forget it and its details.
    pub fn resolved(&mut self, call_id: &str) {
        self.pending.retain(|a| a.call_id != call_id);
        self.questions.remove(call_id);
        self.approvals.remove(call_id);
        self.sensitive.forget(call_id);
    }

    /// From `question.asked` (`toolCallId`, `question`, `options`, `allowFreeform`).
    pub fn set_question_details(
        &mut self,
        call_id: &str,
        question: &str,
        options: Vec<String>,
        allow_freeform: Option<bool>,
    ) {
        self.questions.insert(
            call_id.to_string(),
            QuestionDetails {
                question: question.to_string(),
                options,
                allow_freeform,
            },
        );
    }

    /// From `approval.requested` (`toolCallId`, `name`, `args`, `sensitive`).
    pub fn set_approval_details(
        &mut self,
        call_id: &str,
        name: &str,
        args: Value,
        sensitive: bool,
    ) {
        let sensitive = self.sensitive.note(call_id, sensitive);
        self.approvals.insert(
            call_id.to_string(),
            ApprovalDetails {
                name: name.to_string(),
                args,
                sensitive,
            },
        );
    }

    /// Marks `call_id` sensitive before (or after) its details are known (a restart
    /// remembers what the history no longer says).
    pub(crate) fn mark_sensitive(&mut self, call_id: &str) {
        self.sensitive.note(call_id, true);
        if let Some(d) = self.approvals.get_mut(call_id) {
            d.sensitive = true;
        }
    }

    /// Whether the approval `call_id`'s own event was seen (only it says `sensitive`).
    pub(crate) fn knows_approval(&self, call_id: &str) -> bool {
        self.approvals.contains_key(call_id)
    }

    /// The session's one set of calls asked as sensitive (the transcript applies into it).
    pub(crate) fn sensitive_calls(&self) -> &SensitiveCalls {
        &self.sensitive
    }

    pub(crate) fn sensitive_calls_mut(&mut self) -> &mut SensitiveCalls {
        &mut self.sensitive
    }

    /// Whether the approval `call_id` is known to be sensitive.
    pub(crate) fn is_sensitive(&self, call_id: &str) -> bool {
        self.sensitive.contains(call_id)
    }

    /// The question `call_id` as its event asked it, if the event was seen.
    pub(crate) fn question_asked(&self, call_id: &str) -> Option<&QuestionDetails> {
        self.questions.get(call_id)
    }

    /// The facts of the call `call_id` alone, as a prompt shows and answers it (the prompt
    /// answers the first listed action): its listing with its details. An approval or a
    /// question seen only as its event is listed from the event — its answer names the
    /// call alone (§9.4) — a function call is not: its answer needs the turn only the
    /// listing gives (§14.9).
    pub(crate) fn only(&self, call_id: &str) -> Option<Actions> {
        let pending = self.pending.iter().find(|a| a.call_id == call_id)?;
        let mut one = pending.clone();
        if one.resource.is_none() {
            if one.kind == RequiredActionKind::FunctionCall {
                return None;
            }
            one.resource = Some(RequiredAction {
                kind: one.kind.clone(),
                turn_id: one.turn_id.clone().unwrap_or_default(),
                call_id: one.call_id.clone(),
                name: (!one.name.is_empty()).then(|| one.name.clone()),
                arguments: Value::Null,
                created_at: one.created_at,
                expires_at: one.expires_at,
            });
        }
        Some(Actions {
            pending: vec![one],
            questions: self
                .questions
                .get(call_id)
                .map(|d| HashMap::from([(call_id.to_string(), d.clone())]))
                .unwrap_or_default(),
            approvals: self
                .approvals
                .get(call_id)
                .map(|d| HashMap::from([(call_id.to_string(), d.clone())]))
                .unwrap_or_default(),
            sensitive: {
                let mut one = SensitiveCalls::default();
                one.note(call_id, self.sensitive.contains(call_id));
                one
            },
        })
    }

    /// The request of `action` in one line, as the inbox's row and the away digest say it:
    /// "bash systemctl restart worker", "Roll back or patch? [roll back · patch]",
    /// "lookup_order({…})".
    pub(crate) fn request_line(&self, action: &PendingAction) -> String {
        match action.kind {
            RequiredActionKind::Approval => approval_line(self, action),
            RequiredActionKind::Question => question_line(self, action),
            _ => format!("{}({})", action.name, action.args),
        }
    }

    /// The question as best known: the event's details, else what the action's arguments
    /// carry, else its name (production puts the question's text there), with options
    /// as plain strings or objects with a `label`.
    pub(crate) fn question(&self, action: &RequiredAction) -> QuestionDetails {
        if let Some(d) = self.questions.get(&action.call_id) {
            return d.clone();
        }
        let args = &action.arguments;
        let text = args
            .get("question")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| action.name.clone())
            .unwrap_or_default();
        let options = args.get("options").map(option_labels).unwrap_or_default();
        let allow_freeform = args
            .get("allowFreeform")
            .or_else(|| args.get("allow_freeform"))
            .and_then(Value::as_bool);
        QuestionDetails {
            question: text,
            options,
            allow_freeform,
        }
    }

    /// The approval as best known: the event's details filled in from the listed action.
    pub(crate) fn approval(&self, action: &RequiredAction) -> ApprovalDetails {
        match self.approvals.get(&action.call_id) {
            Some(d) => ApprovalDetails {
                name: if d.name.is_empty() {
                    action.name.clone().unwrap_or_default()
                } else {
                    d.name.clone()
                },
                args: if d.args.is_null() {
                    action.arguments.clone()
                } else {
                    d.args.clone()
                },
                sensitive: self.sensitive.contains(&action.call_id),
            },
            None => ApprovalDetails {
                name: action.name.clone().unwrap_or_default(),
                args: action.arguments.clone(),
                sensitive: self.sensitive.contains(&action.call_id),
            },
        }
    }
}

/// Options named in a question's row before "…".
const ROW_OPTIONS: usize = 6;

/// "bash systemctl restart worker": the name and short arguments kept with the wait (the
/// event's or the listing's), no copy of the whole arguments per row; the event's details
/// when the listing has no name.
fn approval_line(facts: &Actions, action: &PendingAction) -> String {
    match &action.resource {
        Some(listed) if action.name.is_empty() => {
            let d = facts.approval(listed);
            format!("{} {}", d.name, short_args(&d.args, 200))
        }
        _ => format!("{} {}", action.name, action.args),
    }
}

/// "Roll back or patch? [roll back · patch]".
fn question_line(facts: &Actions, action: &PendingAction) -> String {
    // The event's details borrowed; read from the listing only without them.
    let read;
    let question = match (facts.question_asked(&action.call_id), &action.resource) {
        (Some(asked), _) => asked,
        (None, Some(listed)) => {
            read = facts.question(listed);
            &read
        }
        (None, None) => return String::new(),
    };
    let mut line = question.question.clone();
    if !question.options.is_empty() {
        let mut named: Vec<&str> = question
            .options
            .iter()
            .take(ROW_OPTIONS)
            .map(String::as_str)
            .collect();
        if question.options.len() > ROW_OPTIONS {
            named.push("…");
        }
        line.push_str(&format!(" [{}]", named.join(" · ")));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_production_question_reads_its_text_from_name_and_options_from_labels() {
        let action: RequiredAction = serde_json::from_value(json!({
            "type": "question", "turn_id": "turn_1", "call_id": "call_1",
            "name": "Roll back or patch forward?",
            "arguments": {"options": [{"label": "roll back"}, {"label": "patch"}]}
        }))
        .unwrap();
        let mut facts = Actions::default();
        facts.replace(std::slice::from_ref(&action));
        let q = facts.question(&action);
        assert_eq!(q.question, "Roll back or patch forward?");
        assert_eq!(q.options, ["roll back", "patch"]);
    }
}
