use super::*;
use proptest::prelude::*;

#[track_caller]
fn check(input: &str, expected: &str) {
    assert_eq!(redact(input), expected, "{input}");
    assert_eq!(
        redact(expected),
        expected,
        "redacting twice changes nothing"
    );
}

/// One example of each format: the text, and the secret part that must not survive.
const EXAMPLES: [(&str, &str); 22] = [
    ("gbr_pat_TOPSECRET0123456789", "TOPSECRET0123456789"),
    ("github_pat_11AAB_xyz0123", "11AAB_xyz0123"),
    (
        "ghs_16C7e42F292c6912E7710c838347Ae178B4a",
        "16C7e42F292c6912E7710c838347Ae178B4a",
    ),
    ("sk-proj-Ab12Cd34Ef56Gh78Ij90", "Ab12Cd34Ef56Gh78Ij90"),
    ("sk-ant-api03-Zx9Yw8Vu7Ts6Rq5", "api03-Zx9Yw8Vu7Ts6Rq5"),
    (
        "sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    ),
    ("sk_live_51HqLyjWDarjtT1zdp7dc", "51HqLyjWDarjtT1zdp7dc"),
    (
        "rk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "4eC39HqLyjWDarjtT1zdp7dc",
    ),
    (
        "xoxb-123456789012-abcdefABCDEF",
        "123456789012-abcdefABCDEF",
    ),
    (
        "xapp-1-A0123456789-0123456789-abcdef",
        "1-A0123456789-0123456789-abcdef",
    ),
    ("AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"),
    ("ASIAY34FZKBOKMUTVV7A", "Y34FZKBOKMUTVV7A"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG",
        "wJalrXUtnFEMI/K7MDENG",
    ),
    ("x-api-key: 3f9c1b604e2a4d18", "3f9c1b604e2a4d18"),
    ("Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
    ("Authorization: Bearer\tabc123def456", "abc123def456"),
    ("Authorization: Token abcdefgh", "abcdefgh"),
    ("Bearer eyJhbGciOi.J9-_~+/x==", "eyJhbGciOi.J9-_~+/x=="),
    (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        "dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    ),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq98\nZx9Yw8Vu7Ts6Rq5\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEA7bq98",
    ),
    (
        "https://x-access-token:s3cr3tPassw0rd@github.com/a",
        "s3cr3tPassw0rd",
    ),
];

#[test]
fn every_format_of_the_table_is_redacted() {
    for (text, secret) in EXAMPLES {
        let out = redact(text);
        assert!(!out.contains(secret), "{text:?} -> {out:?}");
        assert!(out.contains(REDACTED), "{text:?} -> {out:?}");
        assert_eq!(
            redact(&out),
            out,
            "redacting twice changes nothing: {out:?}"
        );
    }
}

#[test]
fn the_readme_lists_every_format() {
    let readme = include_str!("../../README.md");
    for format in &FORMATS {
        assert!(
            readme.contains(format.name),
            "README lacks: {}",
            format.name
        );
    }
}

#[test]
fn what_says_which_kind_it_was_is_kept() {
    check("sk-proj-Ab12Cd34Ef56Gh78Ij90 x", "sk-proj-[redacted] x");
    check("AKIAIOSFODNN7EXAMPLE,", "AKIA[redacted],");
    check("x-api-key: 3f9c1b604e2a4d18", "x-api-key: [redacted]");
    check(
        r#"{"X-Api-Key":"3f9c1b604e2a4d18"}"#,
        r#"{"X-Api-Key":"[redacted]"}"#,
    );
    check(
        "Authorization: Basic dXNlcjpwYXNz",
        "Authorization: Basic [redacted]",
    );
    check(
        "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY-----[redacted]-----END PRIVATE KEY-----",
    );
    check(
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk (cut)",
        "-----BEGIN OPENSSH PRIVATE KEY-----[redacted]",
    );
}

#[test]
fn a_secret_after_a_json_escape_or_an_underscore_is_found() {
    check(
        r#"{"out":"ok\ngbr_pat_TOPSECRET0123456789"}"#,
        r#"{"out":"ok\ngbr_pat_[redacted]"}"#,
    );
    check(r#""a\tghp_abcdefghijklmn""#, r#""a\tghp_[redacted]""#);
    check(
        r#""\u001bgbr_pat_abcdefgh12""#,
        r#""\u001bgbr_pat_[redacted]""#,
    );
    check("MY_gbr_pat_TOPSECRET0123456789", "MY_gbr_pat_[redacted]");
    check(
        r#""Authorization: Bearer\tabc123def456""#,
        r#""Authorization: Bearer\t[redacted]""#,
    );
    check(
        "Authorization: Bearer\tabc123def456",
        "Authorization: Bearer\t[redacted]",
    );
}

#[test]
fn a_github_token_in_a_remote_url_keeps_the_user_and_the_host() {
    check(
        "origin\thttps://x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a@github.com/acme/app.git (fetch)",
        "origin\thttps://x-access-token:[redacted]@github.com/acme/app.git (fetch)",
    );
    check(
        "https://user:p%40ss@example.com/x and http://a:b@h",
        "https://user:[redacted]@example.com/x and http://a:[redacted]@h",
    );
}

#[test]
fn a_url_password_is_found_inside_json_text_too() {
    check(
        r#"{"summary":"https:\/\/x-access-token:s3cr3t@github.com\/a"}"#,
        r#"{"summary":"https:\/\/x-access-token:[redacted]@github.com\/a"}"#,
    );
}

#[test]
fn tokens_keep_their_prefix() {
    check(
        "GOBARE_TOKEN=gbr_pat_TOPSECRET0123456789 next",
        "GOBARE_TOKEN=gbr_pat_[redacted] next",
    );
    check(
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789, ghs_0123456789, github_pat_11AAB_xyz",
        "ghp_[redacted], ghs_[redacted], github_pat_[redacted]",
    );
    check(
        "https://ghp_abcdef123456@github.com/x",
        "https://ghp_[redacted]@github.com/x",
    );
}

#[test]
fn bearer_credentials_in_any_case() {
    check(
        "Authorization: Bearer eyJhbGciOi.J9-_~+/x== rest",
        "Authorization: Bearer [redacted] rest",
    );
    check(
        "authorization: bearer  abc12345",
        "authorization: bearer  [redacted]",
    );
    check(
        "\"BEARER abcdefghijklmnopqrstuvwxyz\"",
        "\"BEARER [redacted]\"",
    );
}

#[test]
fn ordinary_text_is_left_alone_and_borrowed() {
    for text in [
        "",
        "the bearer of bad news, bearer instruments, Bearer abc1",
        "a ghp_ prefix alone, ghp_short, highs_abcdefgh, xgbr_pat_x",
        "see https://github.com/acme/app and mailto:a@b, ratio 1:2@3",
        "time 12:30@noon, C:\\path@x",
        "héllo wörld: ✓",
        "pip install scikit-learn; risk-averse; task-list sk-learn",
        "basic authorization rules, AKIA is a prefix, ASIAN food, eyJ alone",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
        "api_key is required, set x-api-key",
    ] {
        assert!(matches!(redact(text), Cow::Borrowed(_)), "{text}");
    }
}

#[test]
fn the_bearer_word_needs_a_credential_after_it() {
    assert_eq!(redact("Bearer"), "Bearer");
    assert_eq!(redact("Bearer "), "Bearer ");
    assert_eq!(redact("bearers abc12345"), "bearers abc12345");
}

/// What may stand right before or after a secret without joining its word.
fn surround() -> impl Strategy<Value = String> {
    const PIECES: [&str; 16] = [
        "", " ", "\n", "\t", "\r", "_", ":", "=", "\"", "'", "(", "\u{1b}", "\u{7}", "é", ",", "/",
    ];
    proptest::collection::vec(proptest::sample::select(&PIECES[..]), 0..4).prop_map(|p| p.concat())
}

proptest! {
    /// Each format's secret survives no placement, whether the text is read as it stands,
    /// as a JSON string (every escape serde_json writes) or as a pretty-printed object.
    #[test]
    fn no_secret_survives_any_placement_or_json_escaping(
        example in proptest::sample::select(&EXAMPLES[..]),
        before in surround(),
        after in surround(),
        words in "[a-z ]{0,12}",
    ) {
        let (secret_text, secret) = example;
        // A letter right before would make it part of another word.
        let text = format!("{words} {before}{secret_text}{after} {words}");
        prop_assert!(!redact(&text).contains(secret), "plain {text:?}");
        let json = serde_json::to_string(&text).unwrap();
        let redacted = redact(&json);
        let decoded: String = serde_json::from_str(&redacted).expect("still a JSON string");
        prop_assert!(!decoded.contains(secret), "json {json:?} -> {redacted:?}");
        let pretty = serde_json::to_string_pretty(&serde_json::json!({"out": text})).unwrap();
        prop_assert!(!redact(&pretty).contains(secret), "pretty {pretty:?}");
    }
}

proptest! {
    /// Letters inside words are passed over without asking the formats: the same
    /// redaction as asking at every byte a format may start at, whatever is glued to a
    /// secret (letters, digits, JSON escapes, underscores).
    #[test]
    fn passing_over_letters_inside_words_redacts_the_same(
        text in crate::redact::text_with_secrets(&[
            "a", "Q7", "e", "\\n", "\\t", "\\u00e9", "\\u001b", "\\\"", "_", "-", "eyJhbGciOi.eyJzdWIi.sig",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END", "authorization: Bearer abcdef123456",
            "x-api-key=abcdefgh12", "ASIAIOSFODNN7EXAMPLE",
        ]),
    ) {
        prop_assert_eq!(redact(&text), redact_at_every_start(&text));
    }
}

/// `text` with the ASCII case of each byte `flips` marks swapped (the rest as it was).
fn case_flipped(text: &str, flips: &[bool]) -> String {
    text.chars()
        .zip(flips.iter().cycle())
        .map(|(c, &flip)| {
            if !flip {
                c
            } else if c.is_ascii_lowercase() {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

/// Secrets as JSON text reads them, beside [`EXAMPLES`].
const JSON_EXAMPLES: [&str; 3] = [
    "https:\\/\\/x-access-token:s3cr3t@github.com",
    "\\nBearer abcdef123456",
    "\\tx_api_key\\\": \\\"abcdefgh12",
];

proptest! {
    /// The anchors' prefilter passes only text in which no format finds a secret: the same
    /// redaction as without it, for every format's example in any case, anywhere, read as
    /// it stands or as a JSON string, among words and near misses (a text holds one example,
    /// so an anchor missing for one format fails it).
    #[test]
    fn the_prefilter_redacts_as_the_formats_do(
        example in proptest::sample::select(
            EXAMPLES.iter().map(|(text, _)| *text).chain(JSON_EXAMPLES).collect::<Vec<_>>()
        ),
        flips in proptest::collection::vec(any::<bool>(), 1..16),
        flip in any::<bool>(),
        before in surround(),
        after in surround(),
        words in proptest::collection::vec(proptest::sample::select(&[
            " ", "x", "\n", "é", ":", "-", "_", "riz", "rer", "api", "//", "eyJ", "AKI",
        ][..]), 0..6).prop_map(|p| p.concat()),
    ) {
        let example = if flip { case_flipped(example, &flips) } else { example.to_string() };
        for text in [
            format!("{before}{example}{after}"),
            format!("{words}{before}{example}{after}{words}"),
            serde_json::to_string(&format!("{words} {before}{example}{after}")).unwrap(),
        ] {
            prop_assert_eq!(redact(&text), redact_at_word_starts(&text), "{:?}", text);
        }
    }
}

#[test]
fn text_without_an_anchor_is_passed_and_a_secret_is_still_found_beside_one() {
    let plain = "{\"summary\":\"Read 43 lines\",\"diff\":\"-a\\n+b\"}";
    assert!(!anchors::may_hold_a_secret(plain.as_bytes()));
    assert!(matches!(redact(plain), Cow::Borrowed(_)));
    check(
        "see https://example.com and AUTHORIZATION: Basic dXNlcjpwYXNz",
        "see https://example.com and AUTHORIZATION: Basic [redacted]",
    );
}
