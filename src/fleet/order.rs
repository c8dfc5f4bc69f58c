//! The fleet's rows in the order shown: crews as trees (members under their parent), each
//! level sorted by band (needs you, failed, working, idle) then by the key the person chose
//! ([`SortBy`]), a crew moving as one block in its most urgent member's band; a filter
//! shows the matching rows alone, in the same order. The band is the one a row is shown
//! in (`super::bands`), which follows its state only once that has held.

use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};

use super::model::{FleetModel, FleetRow};
use crate::session::attention::Attention;

/// The order within a band, cycled by a key like a column sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortBy {
    /// Oldest first: a row never moves but to change band, and a new one comes last.
    #[default]
    Created,
    /// By title (else first message), then id.
    Name,
    /// The latest activity first: rows move as sessions act.
    Activity,
}

impl SortBy {
    /// The next in the cycle.
    pub fn next(self) -> SortBy {
        match self {
            SortBy::Created => SortBy::Name,
            SortBy::Name => SortBy::Activity,
            SortBy::Activity => SortBy::Created,
        }
    }

    /// What the header says of it.
    pub fn label(self) -> &'static str {
        match self {
            SortBy::Created => "created",
            SortBy::Name => "name",
            SortBy::Activity => "last activity",
        }
    }
}

/// What a row sorts by within its band.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Created(i64),
    Name(String),
    Activity(Reverse<i64>),
}

fn key(row: &FleetRow, sort: SortBy) -> Key {
    match sort {
        SortBy::Created => Key::Created(row.created_at),
        SortBy::Name => Key::Name(row.label().unwrap_or_default().to_lowercase()),
        SortBy::Activity => Key::Activity(Reverse(row.last_activity)),
    }
}

/// One shown row and how deep in its crew it sits (0 = a root).
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a> {
    pub row: &'a FleetRow,
    pub depth: u16,
}

/// The sort key of a subtree: its most urgent member's band, its root's key and id.
type Rank<'a> = (Attention, Key, &'a str);

/// The rows in display order, each in its current state's band, oldest first. `filter`
/// (case-insensitive, on the label and the id) shows only the matching rows, flat.
pub fn ordered<'a>(model: &'a FleetModel, filter: &str) -> Vec<Shown<'a>> {
    ordered_by(model, filter, SortBy::default(), &|row| row.attention())
}

/// The rows in display order, each in the band `band` gives, sorted within it by `sort`.
pub fn ordered_by<'a>(
    model: &'a FleetModel,
    filter: &str,
    sort: SortBy,
    band: &dyn Fn(&FleetRow) -> Attention,
) -> Vec<Shown<'a>> {
    let own_rank = |row: &'a FleetRow| -> Rank<'a> { (band(row), key(row, sort), row.id.as_str()) };
    let needle = filter.trim().to_lowercase();
    if !needle.is_empty() {
        let mut hits: Vec<&FleetRow> = model
            .rows()
            .filter(|r| {
                r.id.to_lowercase().contains(&needle)
                    || r.label()
                        .is_some_and(|l| l.to_lowercase().contains(&needle))
                    || crate::sessions::labels::any_contains(&r.labels, &needle)
            })
            .collect();
        // Ranks end with the id: no two are equal, so an unstable sort is as good.
        hits.sort_by_cached_key(|r| own_rank(r));
        return hits
            .into_iter()
            .map(|row| Shown { row, depth: 0 })
            .collect();
    }
    let mut children: HashMap<&str, Vec<&FleetRow>> = HashMap::new();
    let mut roots: Vec<&FleetRow> = Vec::with_capacity(model.len());
    for row in model.rows() {
        match row.parent.as_deref() {
            Some(parent) if parent != row.id && model.get(parent).is_some() => {
                children.entry(parent).or_default().push(row)
            }
            _ => roots.push(row),
        }
    }
    // Only rows with members rank by more than their own fields.
    let mut crew_ranks: HashMap<&str, Rank<'a>> = HashMap::with_capacity(children.len());
    for root in &roots {
        subtree_rank(root, &children, &mut crew_ranks, &own_rank);
    }
    // Each rank looked up once, not once per comparison.
    let sort = |rows: &mut Vec<&'a FleetRow>| {
        let mut keyed: Vec<(Rank<'a>, &'a FleetRow)> = rows
            .iter()
            .map(|row| {
                let row: &'a FleetRow = row;
                let rank = crew_ranks
                    .get(row.id.as_str())
                    .cloned()
                    .unwrap_or_else(|| own_rank(row));
                (rank, row)
            })
            .collect();
        keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        rows.clear();
        rows.extend(keyed.into_iter().map(|(_, row)| row));
    };
    sort(&mut roots);
    for members in children.values_mut() {
        if members.len() > 1 {
            sort(members);
        }
    }
    let mut out = Vec::with_capacity(model.len());
    for root in roots {
        place(root, &children, &mut out);
    }
    // A parent cycle leaves its members unreachable from any root: show them flat.
    if out.len() < model.len() {
        let placed: HashSet<&str> = out.iter().map(|s| s.row.id.as_str()).collect();
        let mut rest: Vec<&FleetRow> = model
            .rows()
            .filter(|r| !placed.contains(r.id.as_str()))
            .collect();
        rest.sort_by_cached_key(|r| own_rank(r));
        out.extend(rest.into_iter().map(|row| Shown { row, depth: 0 }));
    }
    out
}

/// The rank of `root`'s subtree, and of every subtree in it that has members, recorded.
/// Reached from a root, a subtree has no cycle: each row has one parent. A loop, not
/// recursion: a crew may be any number of sessions deep.
fn subtree_rank<'a>(
    root: &'a FleetRow,
    children: &HashMap<&str, Vec<&'a FleetRow>>,
    ranks: &mut HashMap<&'a str, Rank<'a>>,
    own_rank: &dyn Fn(&'a FleetRow) -> Rank<'a>,
) {
    let members = |row: &FleetRow| -> &[&'a FleetRow] {
        children.get(row.id.as_str()).map_or(&[], Vec::as_slice)
    };
    // Each row on the path down, its rank so far and the next member to visit.
    let mut path: Vec<(&'a FleetRow, Rank<'a>, usize)> = vec![(root, own_rank(root), 0)];
    while let Some(top) = path.last_mut() {
        let (row, next) = (top.0, top.2);
        if let Some(&child) = members(row).get(next) {
            top.2 += 1;
            path.push((child, own_rank(child), 0));
            continue;
        }
        let (row, rank, visited) = path.pop().expect("the path is not empty");
        let band = rank.0;
        if visited > 0 {
            ranks.insert(row.id.as_str(), rank);
        }
        // A crew takes its most urgent member's band and keeps its root's place in it.
        if let Some((_, parent, _)) = path.last_mut() {
            parent.0 = parent.0.min(band);
        }
    }
}

/// `root` and its crew below it, each member after its parent, in their sorted order.
fn place<'a>(
    root: &'a FleetRow,
    children: &HashMap<&str, Vec<&'a FleetRow>>,
    out: &mut Vec<Shown<'a>>,
) {
    let mut todo = vec![(root, 0u16)];
    while let Some((row, depth)) = todo.pop() {
        out.push(Shown { row, depth });
        if let Some(members) = children.get(row.id.as_str()) {
            // Pushed last first: the first member comes out next.
            let below = depth.saturating_add(1);
            todo.extend(members.iter().rev().map(|&child| (child, below)));
        }
    }
}
