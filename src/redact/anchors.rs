//! Redaction's prefilter: bytes that every secret's text holds, one set per format of
//! [`super::FORMATS`], found in one vectorized search (aho-corasick's Teddy). Text holding
//! none of them holds no secret, and is passed without asking any format: most text.
//!
//! Each anchor is a literal that a format's `find` compares before it can say a range is
//! a secret, so it is in the text wherever that format fires:
//! * tokens by prefix (compared as written): `_pat_` (`gbr_pat_`, `github_pat_`), `ghp_`
//!   `ghs_` `gho_` `ghu_` `ghr_`, `sk-` (and `sk-proj-`, `sk-ant-`), `sk_` (`sk_live_`,
//!   `sk_test_`), `rk_` (`rk_live_`, `rk_test_`), `xox` (`xoxb-` … `xoxs-`), `xapp-`;
//! * AWS key ids: `AKIA`, `ASIA`; JSON Web Tokens: `eyJ`; PEM keys: `-BEGIN ` (of
//!   `-----BEGIN `); URL passwords: `://` or `:\/\/` before the user;
//! * the names read in any case, each in every case: `i_k` and `i-k` (`api_key`,
//!   `x_api_key`, `x-api-key`), `s_k` (`aws_secret_access_key`), `rer` (`bearer`), `riz`
//!   (`authorization`).

use aho_corasick::packed::{Config, Searcher};
use std::sync::OnceLock;

/// Anchors compared as written.
const AS_WRITTEN: [&str; 17] = [
    "_pat_", "ghp_", "ghs_", "gho_", "ghu_", "ghr_", "sk-", "sk_", "rk_", "xox", "xapp-", "AKIA",
    "ASIA", "eyJ", "-BEGIN ", "://", ":\\/\\/",
];

/// Anchors of names read in any case: each is searched in every case.
const ANY_CASE: [&str; 5] = ["i_k", "i-k", "s_k", "rer", "riz"];

/// Whether `text` holds an anchor of any format: when it does not, no format finds a
/// secret in it.
pub(super) fn may_hold_a_secret(text: &[u8]) -> bool {
    static SEARCHER: OnceLock<Option<Searcher>> = OnceLock::new();
    static TRIPLES: OnceLock<Triples> = OnceLock::new();
    // Short text (names, paths, ids: most of what is redacted) is below Teddy's reach,
    // where the searcher falls back to Rabin-Karp at ~300 instructions a call; a table of
    // the anchors' first three bytes clears most of it at a few a byte.
    if text.len() <= SHORT && !TRIPLES.get_or_init(Triples::of_anchors).any_in(text) {
        return false;
    }
    match SEARCHER.get_or_init(searcher) {
        Some(searcher) => searcher.find(text).is_some(),
        // Not built (it is, on every target): every text is asked.
        None => true,
    }
}

/// Text this long or shorter is asked [`Triples`] first.
const SHORT: usize = 64;

/// Every anchor's first three bytes: text with none of them holds no anchor (each anchor
/// is at least three bytes long). Two bytes index a table of the pairs that start an
/// anchor; each pair has the set of bytes that follow it.
struct Triples {
    /// `[first][second]` → 1 + the pair's index in `third`; 0: no anchor starts so.
    pair: Box<[u8; 1 << 16]>,
    third: Vec<[u64; 4]>,
}

impl Triples {
    fn of_anchors() -> Triples {
        let mut triples = Triples {
            pair: Box::new([0; 1 << 16]),
            third: Vec::new(),
        };
        for anchor in anchors() {
            let b = anchor.as_bytes();
            let at = usize::from(b[0]) << 8 | usize::from(b[1]);
            if triples.pair[at] == 0 {
                triples.third.push([0; 4]);
                triples.pair[at] = u8::try_from(triples.third.len()).expect("few pairs");
            }
            let third = &mut triples.third[usize::from(triples.pair[at]) - 1];
            third[usize::from(b[2] / 64)] |= 1 << (b[2] % 64);
        }
        triples
    }

    fn any_in(&self, text: &[u8]) -> bool {
        text.windows(3).any(|w| {
            let pair = self.pair[usize::from(w[0]) << 8 | usize::from(w[1])];
            pair != 0
                && self.third[usize::from(pair) - 1][usize::from(w[2] / 64)] & (1 << (w[2] % 64))
                    != 0
        })
    }
}

fn searcher() -> Option<Searcher> {
    let mut builder = Config::new().builder();
    builder.extend(anchors());
    builder.build()
}

/// Every anchor as searched: those compared as written, then each name in every case.
fn anchors() -> impl Iterator<Item = String> {
    let cased = ANY_CASE.into_iter().flat_map(every_case);
    AS_WRITTEN.into_iter().map(str::to_string).chain(cased)
}

/// `word` in every ASCII case: 2ⁿ strings for n letters.
fn every_case(word: &str) -> Vec<String> {
    word.chars().fold(vec![String::new()], |spellings, c| {
        let cases = [c.to_ascii_lowercase(), c.to_ascii_uppercase()];
        let cases = if cases[0] == cases[1] {
            &cases[..1]
        } else {
            &cases[..]
        };
        spellings
            .iter()
            .flat_map(|s| cases.iter().map(move |&c| format!("{s}{c}")))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Short text cleared by the triples holds no anchor: the searcher agrees.
        #[test]
        fn the_triples_clear_only_text_the_searcher_clears(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "_pat_", "ghp_", "sk-", "rk_", "xox", "xapp-", "AKIA", "eyJ", "-BEGIN ",
                    "://", ":\\/\\/", "I_K", "i-k", "S_k", "bEaReR", "RIZ", "a", " ", "_",
                    "g", "s", "k", "-", ":", "/", "e", "y", "r", "i", "z", "é", "\n",
                ]),
                0..12,
            ),
        ) {
            let text = pieces.concat();
            let searcher = searcher().unwrap();
            proptest::prop_assert_eq!(
                may_hold_a_secret(text.as_bytes()),
                searcher.find(text.as_bytes()).is_some(),
                "{:?}", text
            );
        }
    }

    #[test]
    fn every_case_of_a_name() {
        assert_eq!(every_case("i_k"), ["i_k", "i_K", "I_k", "I_K"]);
        assert_eq!(every_case("rer").len(), 8);
    }

    #[test]
    fn the_searcher_is_built_and_finds_each_anchor_in_any_case_where_read_so() {
        assert!(searcher().is_some());
        for anchor in AS_WRITTEN {
            assert!(may_hold_a_secret(format!("plain {anchor} text").as_bytes()));
        }
        for text in [
            "API_KEY=",
            "Authorization:",
            "BeArEr x",
            "AWS_Secret_Access_Key",
        ] {
            assert!(may_hold_a_secret(text.as_bytes()), "{text}");
        }
        for text in ["", "a", "plain text of an event, \\n with \\\"escapes\\\""] {
            assert!(!may_hold_a_secret(text.as_bytes()), "{text}");
        }
    }
}
