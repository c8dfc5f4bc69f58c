//! A session's file changes over a range of its turns: events fed in order, each file's
//! history kept from its first event, its state taken as the range begins and ends.

use super::compose::{self, FileDiff, Incomplete};
use super::file_history::{FileHistory, FileState};
use super::paths;
use gobare_api::model::{ChangeKind, Event, EventPayload};
use std::collections::BTreeMap;

/// Which turns' changes: the whole session, one turn, or one and every later turn. A turn
/// is named by its id or its 1-based number in the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Range {
    Session,
    Turn(String),
    Since(String),
}

impl Range {
    fn names(selector: &str, id: &str, number: usize) -> bool {
        selector == id || selector.parse::<usize>().is_ok_and(|n| n == number)
    }
}

/// Where the feed is relative to the range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Before,
    Inside,
    After,
}

/// One file's record.
#[derive(Debug, Clone)]
struct FileRecord {
    history: FileHistory,
    /// Its state as the range's first event on it arrived.
    start: Option<FileState>,
    /// The seq and time of the range's last event on it.
    last: Option<(u64, Option<i64>)>,
    /// Whether an event after the range touched it.
    touched_after: bool,
}

/// A file's outcome over the range.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FileOutcome {
    /// Relative to the workspace.
    pub(crate) path: String,
    pub(crate) change: Result<FileDiff, Incomplete>,
}

/// The feed: events in, outcomes out.
#[derive(Debug)]
pub(crate) struct SessionChanges {
    range: Range,
    place: Place,
    turns: usize,
    turn_found: bool,
    files: BTreeMap<String, FileRecord>,
    /// Paths refused as unsafe, with why.
    pub(crate) refused: Vec<(String, &'static str)>,
    /// `file.changed` events read.
    pub(crate) events: usize,
}

impl SessionChanges {
    pub(crate) fn new(range: Range) -> SessionChanges {
        let place = match range {
            Range::Session => Place::Inside,
            _ => Place::Before,
        };
        SessionChanges {
            range,
            place,
            turns: 0,
            turn_found: false,
            files: BTreeMap::new(),
            refused: Vec::new(),
            events: 0,
        }
    }

    /// Whether the named turn was seen (always, for the whole session).
    pub(crate) fn turn_found(&self) -> bool {
        self.range == Range::Session || self.turn_found
    }

    /// How many turns the history had.
    pub(crate) fn turns(&self) -> usize {
        self.turns
    }

    pub(crate) fn feed(&mut self, event: &Event) {
        match &event.payload {
            EventPayload::TurnStarted(turn) => {
                self.turns += 1;
                let number = self.turns;
                match &self.range {
                    Range::Turn(t) | Range::Since(t)
                        if self.place == Place::Before
                            && Range::names(t, &turn.turn_id, number) =>
                    {
                        self.place = Place::Inside;
                        self.turn_found = true;
                    }
                    Range::Turn(_) if self.place == Place::Inside => self.place = Place::After,
                    _ => {}
                }
            }
            EventPayload::FileChanged(change) => {
                self.events += 1;
                let path = match paths::relative(&change.path) {
                    Ok(path) => path,
                    Err(why) => {
                        self.refused.push((change.path.clone(), why));
                        return;
                    }
                };
                let seq = event.seq.unwrap_or_default();
                let record = self.files.entry(path).or_insert_with(|| FileRecord {
                    history: FileHistory::new(&change.change_type),
                    start: None,
                    last: None,
                    touched_after: false,
                });
                match self.place {
                    Place::Before => {}
                    Place::Inside => {
                        if record.start.is_none() {
                            record.start = Some(record.history.state.clone());
                        }
                        record.last = Some((seq, event.created_at));
                    }
                    Place::After => {
                        record.touched_after = true;
                        return;
                    }
                }
                record
                    .history
                    .apply(seq, &kind_of(&change.change_type), change.diff.as_deref());
                record.history.sweep(record.start.as_ref());
            }
            _ => {}
        }
    }

    /// Files whose content after the range is unknown because the range's last event on
    /// them carried no usable diff and nothing later touched them: the workspace's
    /// snapshot is their state after the range, if it was taken after that event. Each
    /// with the time of that event (Unix ms).
    pub(crate) fn fillable(&self) -> Vec<(String, Option<i64>)> {
        self.files
            .iter()
            .filter(|(_, r)| {
                !r.touched_after
                    && matches!(&r.history.state, FileState::Unknown(gap)
                        if r.last.is_some_and(|(seq, _)| seq == gap.seq))
            })
            .map(|(path, r)| (path.clone(), r.last.and_then(|(_, at)| at)))
            .collect()
    }

    /// Sets a file's state after the range to `content` (see [`Self::fillable`]).
    pub(crate) fn fill(&mut self, path: &str, content: &str) {
        if let Some(record) = self.files.get_mut(path) {
            record.history.set_content(content);
        }
    }

    /// Written lines whose text `path`'s history still holds.
    #[cfg(test)]
    pub(crate) fn held_lines(&self, path: &str) -> usize {
        self.files.get(path).map_or(0, |r| r.history.held_lines())
    }

    /// Each file the range changed, by path.
    pub(crate) fn outcomes(&self) -> Vec<FileOutcome> {
        self.files
            .iter()
            .filter_map(|(path, record)| {
                let start = record.start.as_ref()?;
                let change = match compose::compose(&record.history, start, &record.history.state) {
                    Ok(Some(diff)) => Ok(diff),
                    Ok(None) => return None,
                    Err(why) => Err(why),
                };
                Some(FileOutcome {
                    path: path.clone(),
                    change,
                })
            })
            .collect()
    }
}

/// A change type this client does not know is read as a modification.
fn kind_of(kind: &ChangeKind) -> ChangeKind {
    match kind {
        ChangeKind::Created | ChangeKind::Deleted => kind.clone(),
        _ => ChangeKind::Modified,
    }
}
