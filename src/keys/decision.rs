//! What the decision shown waits for, as the key table's hints need it: the same keys mean
//! different things (or nothing) for an approval, a question and a function call.

use crate::session::actions::Actions;
use gobare_api::model::RequiredActionKind;

/// The kind of decision the prompt shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    /// y / n (a sensitive one asks once more).
    Approval,
    /// Options to pick; `choice_only`: no typed answer but an option's own words.
    Question { options: bool, choice_only: bool },
    /// A result typed, or `f` for failure.
    FunctionCall,
    /// A kind this client cannot answer.
    Other,
}

impl Decision {
    /// The decision `facts` shows first, if one waits.
    pub(crate) fn of(facts: &Actions) -> Option<Decision> {
        let action = facts.listed().next()?;
        Some(match &action.kind {
            RequiredActionKind::Approval => Decision::Approval,
            RequiredActionKind::Question => {
                let question = facts.question(action);
                Decision::Question {
                    options: !question.options.is_empty(),
                    choice_only: !question.free_text_allowed(),
                }
            }
            RequiredActionKind::FunctionCall => Decision::FunctionCall,
            RequiredActionKind::Other(_) => Decision::Other,
        })
    }

    /// Whether a typed text answers it whatever the words.
    pub(crate) fn takes_any_text(self) -> bool {
        matches!(
            self,
            Decision::FunctionCall
                | Decision::Question {
                    choice_only: false,
                    ..
                }
        )
    }
}
