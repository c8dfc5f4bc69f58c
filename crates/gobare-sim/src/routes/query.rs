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
}
