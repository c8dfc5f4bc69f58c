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
    match SEARCHER.get_or_init(searcher) {
        Some(searcher) => searcher.find(text).is_some(),
        // Not built (it is, on every target): every text is asked.
        None => true,
    }
}

fn searcher() -> Option<Searcher> {
    let mut builder = Config::new().builder();
    builder.extend(AS_WRITTEN);
    for anchor in ANY_CASE {
        builder.extend(every_case(anchor));
    }
    builder.build()
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
