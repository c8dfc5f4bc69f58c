use super::*;
use crate::keys::decision::Decision;

const KEYS_DOC_START: &str = "<!-- keys:start -->";
const KEYS_DOC_END: &str = "<!-- keys:end -->";

#[test]
fn every_row_says_its_keys_and_what_they_do() {
    for b in TABLE {
        assert!(!b.keys_label().is_empty(), "{b:?}");
        assert!(!b.label.is_empty(), "{b:?}");
    }
}

#[test]
fn no_key_means_two_things_in_one_mode() {
    for (i, a) in TABLE.iter().enumerate() {
        for b in &TABLE[i + 1..] {
            if a.scope != b.scope {
                continue;
            }
            for ca in a.chords {
                assert!(
                    !b.chords.iter().any(|cb| cb == ca),
                    "{} is bound twice in {:?}: {} / {}",
                    ca.label(),
                    a.scope,
                    a.label,
                    b.label
                );
            }
        }
    }
}

#[test]
fn the_titles_are_drawn_from_the_rows() {
    let idle = Situation::default();
    let t = title(Scope::Typing, "Typing", idle);
    assert!(t.starts_with(" Typing · Enter send"), "{t}");
    assert!(!t.contains("Tab decide") && !t.contains("Ctrl+X"), "{t}");
    assert!(t.contains("Shift+Tab panes"), "{t}");
    let busy = Situation {
        waiting: true,
        running: true,
        enter_answers: true,
        decision: Some(Decision::FunctionCall),
        enter_decides: false,
    };
    let t = title(Scope::Typing, "Typing", busy);
    assert!(
        t.contains("Enter answer") && !t.contains("Enter send"),
        "{t}"
    );
    assert!(
        t.contains("Tab decide") && t.contains("Ctrl+X cancel"),
        "{t}"
    );
    let panes = title(Scope::Panes, "Panes", idle);
    assert!(
        panes.contains("q quit") && panes.contains("Esc type"),
        "{panes}"
    );
}

#[test]
fn the_key_list_holds_every_row() {
    let rows = help_rows();
    assert_eq!(rows.len(), TABLE.len() + Scope::ALL.len());
}

/// `docs/keys.md`'s key table is this table's; `UPDATE_KEYS_DOC=1 cargo test key_table`
/// rewrites it.
#[test]
fn the_key_table_in_the_docs_is_generated_from_this_one() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/keys.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let start = doc
        .find(KEYS_DOC_START)
        .expect("docs/keys.md has the key table markers")
        + KEYS_DOC_START.len();
    let end = doc
        .find(KEYS_DOC_END)
        .expect("docs/keys.md's key table ends");
    let want = format!("\n{}", docs_table());
    if doc[start..end] != want {
        if std::env::var_os("UPDATE_KEYS_DOC").is_some() {
            let updated = format!("{}{want}{}", &doc[..start], &doc[end..]);
            std::fs::write(&path, updated).unwrap();
        } else {
            panic!(
                "docs/keys.md's key table is stale: run `UPDATE_KEYS_DOC=1 cargo test key_table`"
            );
        }
    }
}

/// The `[keys]` section of the configuration reference's complete example names every action.
#[test]
fn the_configuration_example_lists_every_action() {
    let doc = include_str!("../../../docs/configuration.md");
    let keys_section = doc
        .split("\n[keys]\n")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("docs/configuration.md shows a [keys] section");
    let listed: String = keys_section
        .lines()
        .filter(|l| l.starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ");
    for name in action_names() {
        let word = |w: &str| w.trim_matches(|c: char| c == ',' || c == '.' || c == '#') == name;
        assert!(
            listed.split_whitespace().any(word),
            "docs/configuration.md's [keys] example does not list the action {name}"
        );
    }
}
