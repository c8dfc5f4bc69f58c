//! Strict query strings and list paging (§1.1, §3).

use serde::Serialize;
use serde_json::{Value, json};

use crate::refusal::Refusal;

/// The query parameters of one request, refusing any the route does not accept.
pub(crate) struct Query(Vec<(String, String)>);

impl Query {
    pub(crate) fn parse(raw: Option<&str>, accepted: &[&str]) -> Result<Query, Refusal> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (k, v) in url::form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
            if !accepted.contains(&k.as_ref()) {
                return Err(Refusal::invalid(format!(
                    "Unknown query parameter \"{k}\". Accepted here: {}.",
                    if accepted.is_empty() {
                        "none".to_string()
                    } else {
                        accepted.join(", ")
                    }
                )));
            }
            if pairs.iter().any(|(seen, _)| seen == k.as_ref()) {
                return Err(Refusal::invalid(format!(
                    "Query parameter \"{k}\" is given more than once."
                )));
            }
            pairs.push((k.into_owned(), v.into_owned()));
        }
        Ok(Query(pairs))
    }

    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

pub(crate) const PAGING: [&str; 3] = ["limit", "order", "after"];

/// `limit`, `order` (default desc) and `after` of a list request.
#[derive(Debug)]
pub(crate) struct Paging {
    limit: usize,
    ascending: bool,
    after: Option<String>,
}

impl Paging {
    pub(crate) fn from(q: &Query) -> Result<Paging, Refusal> {
        let limit = match q.get("limit") {
            None => 20,
            Some(s) => match s.parse::<usize>() {
                Ok(n) if (1..=100).contains(&n) => n,
                _ => {
                    return Err(Refusal::invalid(
                        "limit must be an integer between 1 and 100.",
                    ));
                }
            },
        };
        let ascending = match q.get("order") {
            None | Some("desc") => false,
            Some("asc") => true,
            Some(other) => {
                return Err(Refusal::invalid(format!(
                    "order must be \"asc\" or \"desc\", not \"{other}\"."
                )));
            }
        };
        // An empty cursor names no item: a client bug to report, not page one.
        if q.get("after") == Some("") {
            return Err(Refusal::invalid(
                "after must be an id from a previous page.",
            ));
        }
        Ok(Paging {
            limit,
            ascending,
            after: q.get("after").map(str::to_string),
        })
    }

    /// One page of `items` (given oldest first). An `after` the list cannot place gives an
    /// empty page, not an error and not page one.
    pub(crate) fn page<T: Serialize>(&self, items: Vec<T>, id_of: impl Fn(&T) -> &str) -> Value {
        let (data, has_more, last_id) = self.select(items, id_of, |i| i);
        json!({"object": "list", "data": data, "has_more": has_more, "last_id": last_id})
    }

    /// [`Paging::page`] with only the page's items made into what is served (`make`), and
    /// not yet JSON: a caller holding a lock converts a page, not the whole list. Returns
    /// the page, whether more follow, and the page's last id.
    /// Whether this is a list's first page (no `after`).
    pub(crate) fn is_first(&self) -> bool {
        self.after.is_none()
    }

    pub(crate) fn select<T, U>(
        &self,
        mut items: Vec<T>,
        id_of: impl Fn(&T) -> &str,
        make: impl FnMut(T) -> U,
    ) -> (Vec<U>, bool, Option<String>) {
        if !self.ascending {
            items.reverse();
        }
        let start = match &self.after {
            None => 0,
            Some(after) => match items.iter().position(|i| id_of(i) == after) {
                Some(pos) => pos + 1,
                None => items.len(),
            },
        };
        let rest = items.len().saturating_sub(start);
        let has_more = rest > self.limit;
        let data: Vec<T> = items.into_iter().skip(start).take(self.limit).collect();
        let last_id = data.last().map(|i| id_of(i).to_string());
        (data.into_iter().map(make).collect(), has_more, last_id)
    }

    /// Whether the page runs oldest first.
    pub(crate) fn ascending(&self) -> bool {
        self.ascending
    }

    /// Whether this is a page after the first (it has a cursor).
    pub(crate) fn continues(&self) -> bool {
        self.after.is_some()
    }

    /// What [`Paging::select`] takes of a list of `len` items (oldest first) without the
    /// list at hand: the positions of the page's items, oldest first (the page is them in
    /// reverse when descending), and whether more follow. `position` places the `after` id;
    /// one it cannot place gives an empty page. For a list read from the store a page at a
    /// time (reading all of it for each page would make paging through it quadratic).
    pub(crate) fn window(
        &self,
        len: usize,
        position: impl FnOnce(&str) -> Option<usize>,
    ) -> (std::ops::Range<usize>, bool) {
        let after = match &self.after {
            None => None,
            Some(after) => match position(after) {
                Some(at) if at < len => Some(at),
                _ => return (len..len, false),
            },
        };
        if self.ascending {
            let start = after.map_or(0, |at| at + 1);
            let end = (start + self.limit).min(len);
            (start..end, len - start > self.limit)
        } else {
            let end = after.unwrap_or(len);
            (end.saturating_sub(self.limit)..end, end > self.limit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window of any list, cursor and order holds what the whole list's page holds.
    #[test]
    fn a_window_is_the_page_of_the_whole_list() {
        for len in 0..12 {
            let ids: Vec<String> = (0..len).map(|i| format!("t{i}")).collect();
            let afters = (0..len)
                .map(|i| Some(format!("t{i}")))
                .chain([None, Some("x".into())]);
            for after in afters {
                for ascending in [true, false] {
                    for limit in 1..6 {
                        let paging = Paging {
                            limit,
                            ascending,
                            after: after.clone(),
                        };
                        let (page, more, _) = paging.select(ids.clone(), |i| i.as_str(), |i| i);
                        let (range, window_more) =
                            paging.window(len, |id| ids.iter().position(|i| i == id));
                        let mut window: Vec<String> = ids[range].to_vec();
                        if !ascending {
                            window.reverse();
                        }
                        assert_eq!((window, window_more), (page, more), "{paging:?}");
                    }
                }
            }
        }
    }
}
