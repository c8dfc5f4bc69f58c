//! Scripted agent runs as data (`assets/scenarios/*.json`), embedded in the binary.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use gobare_api::model::ErrorCode;

/// One scripted turn.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Scenario {
    /// What a message names to pick it (`#name`), and what `--scenario` takes.
    name: String,
    /// What the scenario shows, for whoever reads the file; the simulator does not use it.
    #[serde(default, rename = "description")]
    _description: serde::de::IgnoredAny,
    /// The checklist `agent.todos` reports; `{"progress": n}` steps mark the first n done.
    #[serde(default)]
    pub(crate) todos: Vec<String>,
    #[serde(default)]
    pub(crate) pace: Pace,
    pub(crate) steps: Vec<Step>,
}

impl Scenario {
    /// What a turn plays when its scenario is none of the embedded ones (an unknown
    /// `--scenario`): one short reply.
    pub(crate) fn fallback() -> Scenario {
        Scenario {
            name: "fallback".into(),
            _description: serde::de::IgnoredAny,
            todos: Vec::new(),
            pace: Pace::default(),
            steps: vec![Step::Say("Done.".into())],
        }
    }
}

/// Base delays in milliseconds at speed 1.0.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct Pace {
    /// Between two `agent.text`/`agent.thinking` deltas.
    pub(crate) delta_ms: u64,
    /// Between steps.
    pub(crate) step_ms: u64,
    /// A tool's run time, unless the step says otherwise.
    pub(crate) tool_ms: u64,
}

impl Default for Pace {
    fn default() -> Self {
        Pace {
            delta_ms: 35,
            step_ms: 250,
            tool_ms: 900,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Step {
    /// Reasoning, streamed as `agent.thinking` deltas only.
    Think(String),
    /// A reply: `agent.text` deltas then the settled `agent.message` (markdown).
    Say(String),
    /// Mark the first n todos done (emits `agent.todos`).
    Progress(usize),
    /// A sandbox tool call: `agent.tool_call` → (`file.changed`) → `agent.tool_result`.
    Tool(ToolStep),
    /// Ask permission (`approval.requested`), wait for `input.approval`, then run the tool.
    Approval(ApprovalStep),
    /// Ask a person (`question.asked`), wait for `input.question_answer`.
    Question(QuestionStep),
    /// Call the client's function (`tool.required`), wait for `input.tool_result`.
    Function(FunctionStep),
    /// A served port answers (`preview.ready`).
    Preview(u16),
    /// A file under /workspace/outputs, published after the turn settles.
    Artifact(ArtifactStep),
    /// Context compaction (`agent.compaction`).
    Compaction { before: u64, after: u64 },
    /// Just wait (ms).
    Wait(u64),
    /// An error inside the run (`agent.error`); a fatal one ends the turn `failed`.
    Error(ErrorStep),
    /// The workspace is reclaimed under the turn (as at the end of its lifetime): it is
    /// `destroyed` (no event) and the turn fails; optionally its next rebuild gives up.
    Reclaim(ReclaimStep),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolStep {
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) args: Value,
    pub(crate) summary: String,
    #[serde(default)]
    pub(crate) is_error: bool,
    #[serde(default)]
    pub(crate) ms: Option<u64>,
    #[serde(default)]
    pub(crate) file: Option<FileStep>,
}

/// A change to one workspace file. The simulator applies it to the file as the workspace
/// holds it and sends the diff of what really changed, so a diff applied to the file
/// before gives the file after, byte for byte.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileStep {
    pub(crate) path: String,
    /// `created` | `modified` | `deleted`: what the step means to do. The event says what
    /// happened: a file that was not there is `created`.
    pub(crate) change: String,
    /// The file as the repository holds it, on the first step of a scenario that changes
    /// it: every workspace starts with it (`repository`).
    #[serde(default)]
    pub(crate) before: Option<String>,
    /// The whole file after the step.
    #[serde(default)]
    pub(crate) content: Option<String>,
    /// Replacements in the file as it is, in order (the first occurrence of each `find`;
    /// one that is not there changes nothing).
    #[serde(default)]
    pub(crate) edits: Vec<Edit>,
    /// Appended to the file as it is (after `edits`).
    #[serde(default)]
    pub(crate) append: Option<String>,
    /// How much of the diff the event carries (`diff` is optional in the reference).
    #[serde(default)]
    pub(crate) diff: DiffSent,
}

/// One replacement of a [`FileStep`].
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Edit {
    pub(crate) find: String,
    pub(crate) replace: String,
}

/// What a `file.changed` event carries of its diff.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DiffSent {
    /// The whole diff.
    #[default]
    Full,
    /// No `diff` field.
    Omitted,
    /// Its first half, cut off with `…`, as a server that bounds payloads may send it.
    Truncated,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ApprovalStep {
    pub(crate) tool: ToolStep,
    #[serde(default)]
    pub(crate) sensitive: bool,
    /// Said when the person refuses.
    pub(crate) on_denied: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct QuestionStep {
    pub(crate) question: String,
    #[serde(default)]
    pub(crate) options: Vec<String>,
    #[serde(default = "yes")]
    pub(crate) allow_freeform: bool,
    /// Lists the action as production does: the question's text as its `name`, the options
    /// as objects with a `label`.
    #[serde(default)]
    pub(crate) production_shape: bool,
    /// Said after the answer; `{answer}` is replaced by it.
    pub(crate) then_say: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FunctionStep {
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) arguments: Value,
    /// Said after the result; `{output}` is replaced by it.
    pub(crate) then_say: String,
    /// Said when the call expired unanswered.
    #[serde(default)]
    pub(crate) on_expired: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ArtifactStep {
    pub(crate) path: String,
    pub(crate) content: String,
    #[serde(default)]
    pub(crate) content_type: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ErrorStep {
    /// The `agent.error` payload's `message`.
    pub(crate) message: String,
    /// Whether the run stops here: the turn settles `failed` with `error: {code,
    /// message}`. A non-fatal error is reported and the run goes on.
    #[serde(default = "yes")]
    pub(crate) fatal: bool,
    /// The turn's `error.code` when fatal (one of §2's codes).
    #[serde(default = "provider_error")]
    pub(crate) code: ErrorCode,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReclaimStep {
    /// The failed turn's `error.message`.
    pub(crate) reason: String,
    /// When set, the next rebuild of this workspace gives up with this message
    /// (`workspace.recovery_failed`); the rebuild after that succeeds.
    #[serde(default)]
    pub(crate) recovery_error: Option<String>,
}

fn provider_error() -> ErrorCode {
    ErrorCode::ProviderError
}

fn yes() -> bool {
    true
}

/// The rotation of the `mix` default: what a demo user sees message after message. A
/// failed run belongs in it; `recovery` does not, because it leaves the workspace unable
/// to start the next message of the rotation.
const MIX: [&str; 6] = ["quick", "approval", "question", "long", "function", "error"];

/// The scenario files, by file name.
const EMBEDDED: &[(&str, &str)] = &[
    (
        "quick.json",
        include_str!("../../assets/scenarios/quick.json"),
    ),
    (
        "long.json",
        include_str!("../../assets/scenarios/long.json"),
    ),
    (
        "approval.json",
        include_str!("../../assets/scenarios/approval.json"),
    ),
    (
        "question.json",
        include_str!("../../assets/scenarios/question.json"),
    ),
    (
        "function.json",
        include_str!("../../assets/scenarios/function.json"),
    ),
    (
        "expiring.json",
        include_str!("../../assets/scenarios/expiring.json"),
    ),
    (
        "choice.json",
        include_str!("../../assets/scenarios/choice.json"),
    ),
    (
        "error.json",
        include_str!("../../assets/scenarios/error.json"),
    ),
    (
        "edits.json",
        include_str!("../../assets/scenarios/edits.json"),
    ),
    (
        "undiffed.json",
        include_str!("../../assets/scenarios/undiffed.json"),
    ),
    (
        "recovery.json",
        include_str!("../../assets/scenarios/recovery.json"),
    ),
];

/// The scenarios shipped in the binary, by name.
#[derive(Debug, Clone)]
pub(crate) struct Scenarios(BTreeMap<String, Scenario>);

impl Scenarios {
    /// Parses the embedded scenarios. They are checked by a test, so a parse failure here
    /// is a build defect; such a scenario is skipped rather than taking the server down.
    pub(crate) fn embedded() -> Self {
        let mut map = BTreeMap::new();
        for (file, text) in EMBEDDED {
            match serde_json::from_str::<Scenario>(text) {
                Ok(s) => {
                    map.insert(s.name.clone(), s);
                }
                Err(e) => tracing::error!("scenario {file} does not parse: {e}"),
            }
        }
        Scenarios(map)
    }

    pub(crate) fn names(&self) -> Vec<String> {
        self.0.keys().cloned().collect()
    }

    pub(crate) fn all(&self) -> impl Iterator<Item = &Scenario> {
        self.0.values()
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Scenario> {
        self.0.get(name)
    }

    /// The scenario a message asks for with `#name`, else `default`; the default `mix`
    /// rotates through the scenarios by the session's turn count.
    pub(crate) fn pick(&self, text: &str, default: &str, turn_index: usize) -> Picked {
        for word in text.split_whitespace() {
            if let Some(name) = word.strip_prefix('#') {
                let name = name.trim_end_matches(|c: char| !c.is_alphanumeric());
                if self.0.contains_key(name) {
                    return Picked {
                        name: name.to_string(),
                        by: PickedBy::Tag,
                    };
                }
            }
        }
        if default != "mix" {
            return Picked {
                name: default.to_string(),
                by: PickedBy::Configured,
            };
        }
        let available: Vec<&str> = MIX
            .iter()
            .copied()
            .filter(|n| self.0.contains_key(*n))
            .collect();
        let name = available
            .get(turn_index % available.len().max(1))
            .copied()
            .unwrap_or("quick");
        Picked {
            name: name.to_string(),
            by: PickedBy::Rotation,
        }
    }
}

/// The scenario a message plays, and how it was chosen.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Picked {
    pub(crate) name: String,
    pub(crate) by: PickedBy,
}

/// How a message's scenario was chosen: what it may do beyond the session's policy.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, Deserialize)]
pub(crate) enum PickedBy {
    /// The message's `#tag` named it: the sender asks for its sensitive steps to ask. It
    /// never changes the session's tools: a function it calls must be declared.
    Tag,
    /// `--scenario` named it: its sensitive steps ask.
    Configured,
    /// The `mix` rotation chose it: only the session's policy asks for approvals, so an
    /// untagged message under the default policy never parks on one.
    Rotation,
}

impl PickedBy {
    /// Whether a step the scenario flags sensitive asks under `auto`.
    pub(crate) fn honours_sensitive(self) -> bool {
        self != PickedBy::Rotation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_scenario_parses_and_is_named_after_its_file() {
        for (file, text) in EMBEDDED {
            let scenario: Scenario =
                serde_json::from_str(text).unwrap_or_else(|e| panic!("{file} does not parse: {e}"));
            assert_eq!(format!("{}.json", scenario.name), *file);
        }
        assert_eq!(Scenarios::embedded().names().len(), EMBEDDED.len());
    }

    #[test]
    fn the_help_lists_every_scenario_and_the_rotation() {
        let mut listed: Vec<&str> = crate::args::SCENARIO_HELP.iter().map(|(n, _)| *n).collect();
        listed.sort_unstable();
        let mut shipped = Scenarios::embedded().names();
        shipped.push("mix".into());
        shipped.sort_unstable();
        assert_eq!(listed, shipped);
    }
}
