//! Files and links planted in the state directory (a shared machine, an earlier version's
//! looser directory): nothing is followed, truncated or read without bound.

use crate::store::event_log::{self, MAGIC};
use crate::store::{SessionState, StateStore};
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};

const SID: &str = "0f0e0d0c-0b0a-4009-8807-060504030201";

struct Planted {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    victim: PathBuf,
    store: StateStore,
}

fn planted() -> Planted {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("state");
    let victim = tmp.path().join("victim");
    fs::write(&victim, "precious").unwrap();
    let store =
        StateStore::open(&root, &url::Url::parse("http://127.0.0.1:4780").unwrap()).unwrap();
    Planted {
        _tmp: tmp,
        root,
        victim,
        store,
    }
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().mode() & 0o777
}

#[test]
fn a_link_at_either_log_segment_is_not_followed() {
    for segment in ["log", "old.log"] {
        let p = planted();
        let files = p.store.event_log_files(SID).unwrap();
        let link = p.store.dir().join(format!(
            "events/{}.{segment}",
            crate::store::file_names::session_stem(SID)
        ));
        symlink(&p.victim, &link).unwrap();
        assert!(event_log::load(&files).is_err(), "{segment}");
        assert!(event_log::read(&files).is_err(), "{segment}");
        assert!(event_log::find(&files, 1).is_err(), "{segment}");
        assert!(event_log::open_for_append(&link, 0).is_err());
        assert!(event_log::start_segment(&link).is_err());
        assert_eq!(
            fs::read_to_string(&p.victim).unwrap(),
            "precious",
            "{segment}"
        );
    }
}

#[test]
fn a_linked_events_or_sessions_directory_is_refused() {
    let p = planted();
    let elsewhere = p.root.parent().unwrap().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    fs::remove_dir_all(p.store.dir().join("sessions")).unwrap();
    symlink(&elsewhere, p.store.dir().join("sessions")).unwrap();
    symlink(&elsewhere, p.store.dir().join("events")).unwrap();
    let err = p
        .store
        .save_session(SID, &SessionState::default())
        .unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
    let err = p.store.event_log_files(SID).unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn a_link_at_a_state_file_is_replaced_never_written_through() {
    let p = planted();
    let session = p.store.session_path(SID);
    symlink(&p.victim, &session).unwrap();
    symlink(&p.victim, p.store.dir().join("last_session")).unwrap();
    assert_eq!(p.store.load_session(SID), SessionState::default());
    assert_eq!(p.store.last_session(), None);
    p.store.save_session(SID, &SessionState::default()).unwrap();
    p.store.set_last_session(SID).unwrap();
    assert_eq!(fs::read_to_string(&p.victim).unwrap(), "precious");
    assert!(
        !fs::symlink_metadata(&session)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn endless_or_huge_state_files_are_not_read() {
    let p = planted();
    symlink("/dev/zero", p.store.session_path(SID)).unwrap();
    symlink("/dev/zero", p.store.dir().join("last_session")).unwrap();
    symlink("/dev/zero", p.store.dir().join("first_messages.json")).unwrap();
    assert_eq!(p.store.load_session(SID), SessionState::default());
    assert_eq!(p.store.last_session(), None);
    assert!(p.store.first_messages().is_empty());

    // A 2 GiB sparse segment is not a log of the default limit: started afresh, unread.
    let files = p.store.event_log_files(SID).unwrap();
    fs::File::create(&files.current)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let loaded = event_log::load(&files).unwrap();
    assert_eq!(loaded.recovered.records, 0);
    assert_eq!(loaded.recovered.cut_bytes, 2 << 30);
    assert_eq!(fs::read(&files.current).unwrap(), MAGIC);
}

#[test]
fn state_directories_are_private_and_a_looser_one_is_tightened() {
    let p = planted();
    for dir in [
        p.root.clone(),
        p.root.join("hosts"),
        p.store.dir().to_path_buf(),
        p.store.dir().join("sessions"),
    ] {
        assert_eq!(mode(&dir), 0o700, "{dir:?}");
    }
    // As an earlier version left it under a 002 umask.
    for dir in [&p.root, &p.store.dir().join("sessions")] {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o775)).unwrap();
    }
    p.store.save_session(SID, &SessionState::default()).unwrap();
    assert_eq!(mode(&p.root), 0o700);
    assert_eq!(mode(&p.store.dir().join("sessions")), 0o700);
}

#[test]
fn todays_file_names_are_migrated_drafts_pending_sends_and_logs_with_them() {
    let tmp = tempfile::tempdir().unwrap();
    let api = url::Url::parse("http://127.0.0.1:4780").unwrap();
    let host = StateStore::at(tmp.path(), &api).dir().to_path_buf();
    fs::create_dir_all(host.join("sessions")).unwrap();
    fs::create_dir_all(host.join("events")).unwrap();
    let old = SessionState {
        draft: "half a thought".into(),
        pending_send: Some(crate::store::PendingSend {
            kind: "input.message".into(),
            text: "sent before the upgrade".into(),
            idempotency_key: "k1".into(),
        }),
        ..SessionState::default()
    };
    fs::write(
        host.join(format!("sessions/{SID}.json")),
        serde_json::to_vec(&old).unwrap(),
    )
    .unwrap();
    let mut log = MAGIC.to_vec();
    event_log::encode(&mut log, 7, br#"{"seq":7}"#);
    fs::write(host.join(format!("events/{SID}.log")), &log).unwrap();
    // The old name of `x/y` and `x_y` alike: it names no one session, so it stays.
    fs::write(host.join("sessions/x_y.json"), b"{}").unwrap();

    let store = StateStore::open(tmp.path(), &api).unwrap();
    assert_eq!(store.load_session(SID), old);
    let files = store.event_log_files(SID).unwrap();
    assert_eq!(event_log::load(&files).unwrap().recovered.last_seq, Some(7));
    assert!(!host.join(format!("sessions/{SID}.json")).exists());
    assert!(host.join("sessions/x_y.json").exists());
    assert_eq!(store.load_session("x_y"), SessionState::default());
}

#[test]
fn a_pending_send_of_one_id_is_never_another_ids() {
    let p = planted();
    let long = "a".repeat(128);
    let pairs = [
        ("x/y".to_string(), "x_y".to_string()),
        (format!("{long}1"), format!("{long}2")),
    ];
    for (one, other) in pairs {
        let state = SessionState {
            pending_send: Some(crate::store::PendingSend {
                kind: "input.message".into(),
                text: format!("for {one}"),
                idempotency_key: "k".into(),
            }),
            ..SessionState::default()
        };
        p.store.save_session(&one, &state).unwrap();
        assert_eq!(p.store.load_session(&other), SessionState::default());
        assert_eq!(p.store.load_session(&one), state);
    }
}
