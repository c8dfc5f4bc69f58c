//! The session's rules and mode from the session front: `a` / `d` on a waiting approval
//! decide it and add an exact `allow` / `deny` rule (the whole rule shown and `y` asked
//! first), `M` in the panes sets the next approval mode and `X` removes the newest rule
//! (each asked first). Each change is one keyed `PATCH`, a person's action, in the
//! background; the session as answered replaces the one shown, so the Workspace pane shows
//! the new rules and mode. `R`, `l` and `C` (any rule, the labels, the model) are in
//! [`edits`].

mod edits;

use super::SessionFront;
use super::msg::AppMsg;
use crate::keys::mode::Confirm;
use crate::session::{Severity, Update};
use crate::sessions::policy::{self, MODE_TIMING, Policy, PolicyChange, WHERE_TO_SEE};
use gobare_api::error::ApiError;
use gobare_api::model::{RequiredActionKind, Session};
use gobare_api::retry::SendRetry;
use gobare_api::session_patch::{PermissionRule, RuleDecision, SessionPatch};

impl SessionFront {
    /// `a` / `d` while an approval is shown: ask, naming the whole rule, before anything
    /// is sent. Returns false when the shown decision is not an approval (the key is then
    /// the prompt's as before).
    pub(super) fn act_rule_from_approval(&mut self, approve: bool) -> bool {
        let (call_id, details) = {
            let facts = self.session.actions();
            let Some(action) = facts.listed().next() else {
                return false;
            };
            if action.kind != RequiredActionKind::Approval {
                return false;
            }
            (action.call_id.clone(), facts.approval(action))
        };
        if self.refused_read_only() {
            return true;
        }
        if self.current_rules().is_none() {
            self.notice_at(
                Severity::Warn,
                "no rule can be added here: the session holds a rule this client cannot read, \
                 and a change replaces the whole list — y / n still decide"
                    .into(),
            );
            return true;
        }
        let decision = if approve {
            RuleDecision::Allow
        } else {
            RuleDecision::Deny
        };
        let rule = policy::rule_for_call(decision, &details.name, &details.args);
        self.screen.ask(Confirm::RuleFromApproval {
            call_id,
            approve,
            rule,
            sensitive: details.sensitive,
        });
        true
    }

    /// The session's rules as last read, `None` when one cannot be read (then the list is
    /// never replaced); an unread session has none.
    fn current_rules(&self) -> Option<Vec<PermissionRule>> {
        match self.session.session_object() {
            Some(session) => Policy::of(session).rules,
            None => Some(Vec::new()),
        }
    }

    /// `y` to [`Confirm::RuleFromApproval`]: the decision as `y` / `n` would send it,
    /// then the rule list with the rule added.
    pub(super) fn act_rule_confirmed(
        &mut self,
        call_id: &str,
        approve: bool,
        rule: PermissionRule,
    ) {
        self.enter_decided();
        let Some(input) =
            self.screen
                .prompt
                .decide_confirmed(self.session.actions(), call_id, approve)
        else {
            self.notice(Some(
                "that decision no longer waits: nothing sent, no rule added".into(),
            ));
            return;
        };
        self.act_answer(input);
        if approve {
            self.act_note_after_decision();
        }
        let Some(mut rules) = self.current_rules() else {
            return;
        };
        rules.push(rule.clone());
        self.write_policy(SessionPatch::rules(rules), PolicyChange::Rule(rule));
    }

    /// `M` in the panes: ask to set the mode after the current one.
    pub(super) fn act_cycle_mode(&mut self) {
        if self.refused_read_only() {
            return;
        }
        let next = self
            .session
            .session_object()
            .map(Policy::of)
            .map_or(gobare_api::session_patch::ApprovalMode::PerStep, |p| {
                p.next_mode()
            });
        self.screen.ask(Confirm::SetMode(next));
    }

    /// `X` in the panes: ask, naming it, to remove the newest rule.
    pub(super) fn act_remove_newest_rule(&mut self) {
        if self.refused_read_only() {
            return;
        }
        match self.current_rules() {
            None => self.notice_at(
                Severity::Warn,
                "the session holds a rule this client cannot read: nothing is removed here".into(),
            ),
            Some(rules) => match rules.last() {
                None => self.notice(Some("the session has no rules to remove".into())),
                Some(newest) => self.screen.ask(Confirm::RemoveRule(newest.clone())),
            },
        }
    }

    /// `y` to [`Confirm::RemoveRule`]: removed only while it is still the newest.
    pub(super) fn act_remove_confirmed(&mut self, rule: PermissionRule) {
        let Some(mut rules) = self.current_rules() else {
            return;
        };
        if rules.last() != Some(&rule) {
            self.notice(Some(
                "the rules changed meanwhile: nothing removed (X again shows the newest)".into(),
            ));
            return;
        }
        rules.pop();
        self.write_policy(SessionPatch::rules(rules), PolicyChange::Removed(rule));
    }

    /// `y` to [`Confirm::SetMode`].
    pub(super) fn act_mode_confirmed(&mut self, mode: gobare_api::session_patch::ApprovalMode) {
        self.write_policy(SessionPatch::mode(mode), PolicyChange::Mode(mode));
    }

    fn write_policy(&mut self, patch: SessionPatch, change: PolicyChange) {
        let job = crate::app::shared::jobs::Job::PolicyWrite;
        let client = job.client(&self.client);
        let id = self.session_id.clone();
        let tx = self.msgs.clone();
        let doing = change_doing(&change);
        crate::app::shared::jobs::spawn(job, async move {
            let result = policy::send(&client, &SendRetry::default(), &id, &patch).await;
            let _ = tx.send(AppMsg::PolicyWritten {
                change,
                result: Box::new(result),
            });
        });
        self.notice(Some(format!("{doing}…")));
    }

    pub(super) fn on_policy_written(
        &mut self,
        change: PolicyChange,
        result: Result<Session, ApiError>,
    ) {
        match result {
            Ok(session) => {
                self.session.apply(Update::Session(Box::new(session)));
                let said = match change {
                    PolicyChange::Rule(rule) => format!(
                        "rule added: {} — when it applies is not in the reference, and the \
                         service may match more widely; {WHERE_TO_SEE}",
                        policy::rule_line(&rule)
                    ),
                    PolicyChange::Removed(rule) => {
                        format!("rule removed: {}", policy::rule_line(&rule))
                    }
                    PolicyChange::Edited { to, .. } => format!(
                        "rule now: {} — sent as written; the service may match more widely",
                        policy::rule_line(&to)
                    ),
                    PolicyChange::Mode(mode) => {
                        format!("approval mode {mode}: {MODE_TIMING}")
                    }
                    PolicyChange::Labels(set) => format!(
                        "labels now: {}",
                        crate::sessions::labels::words_of(&set).unwrap_or_else(|| "none".into())
                    ),
                    PolicyChange::Model { model, credential } => format!(
                        "model now {} via {} (workspace and transcript kept)",
                        gobare_api::text::one_line(&model, 60),
                        gobare_api::text::one_line(&credential, 60)
                    ),
                };
                self.notice(Some(said));
            }
            Err(e) => {
                let what = match change {
                    PolicyChange::Rule(_) => "add the rule (the decision itself was sent)",
                    PolicyChange::Removed(_) => "remove the rule",
                    PolicyChange::Edited { .. } => "change the rule",
                    PolicyChange::Mode(_) => "set the approval mode",
                    PolicyChange::Labels(_) => "set the labels",
                    PolicyChange::Model { .. } => "switch the model",
                };
                self.notice_at(
                    Severity::Error,
                    format!("could not {what}: {}", e.summary()),
                );
            }
        }
        self.request_frame();
    }
}

/// What a write is doing, for the notice while it is sent.
fn change_doing(change: &PolicyChange) -> &'static str {
    match change {
        PolicyChange::Rule(_) | PolicyChange::Removed(_) | PolicyChange::Edited { .. } => {
            "changing the session's rules"
        }
        PolicyChange::Mode(_) => "setting the approval mode",
        PolicyChange::Labels(_) => "setting the session's labels",
        PolicyChange::Model { .. } => "switching the model",
    }
}
