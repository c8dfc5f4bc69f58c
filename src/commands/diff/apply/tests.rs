use super::*;

fn diff(status: Status) -> FileDiff {
    FileDiff {
        status,
        hunks: Vec::new(),
    }
}

#[test]
fn a_file_and_a_file_inside_it_clash_before_git_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (added, modified, deleted) = (
        diff(Status::Added),
        diff(Status::Modified),
        diff(Status::Deleted),
    );
    let in_patch = clashes(
        dir.path(),
        &[("src/a.txt", &modified), ("zz", &added), ("zz/b", &added)],
    );
    assert_eq!(in_patch, ["it writes zz as a file and zz/b inside it"]);
    // A file replaced by a directory of the same name is a change git makes whole.
    assert!(clashes(dir.path(), &[("zz", &deleted), ("zz/b", &added)]).is_empty());
    // The checkout's own file where the patch needs a directory.
    std::fs::write(dir.path().join("yy"), "a file").unwrap();
    let on_disk = clashes(dir.path(), &[("yy/deep/c", &added)]);
    assert_eq!(
        on_disk,
        ["it writes yy/deep/c inside yy, which is not a directory here"]
    );
    std::fs::create_dir(dir.path().join("ok")).unwrap();
    assert!(clashes(dir.path(), &[("ok/c", &added)]).is_empty());
}

#[test]
fn what_git_wrote_is_put_back_and_links_re_pointed_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.txt"), "one\n").unwrap();
    std::fs::set_permissions(root.join("a.txt"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("target.txt", root.join("link")).unwrap();
    let (added, modified) = (diff(Status::Added), diff(Status::Modified));
    let diffs = [
        ("a.txt", &modified),
        ("new/dir/n.txt", &added),
        ("link", &modified),
    ];
    let before = Before::take(root, &diffs);
    // What a git that failed half-way leaves.
    std::fs::write(root.join("a.txt"), "two\n").unwrap();
    std::fs::create_dir_all(root.join("new/dir")).unwrap();
    std::fs::write(root.join("new/dir/n.txt"), "new\n").unwrap();
    std::fs::remove_file(root.join("link")).unwrap();
    std::os::unix::fs::symlink("/etc/shadow", root.join("link")).unwrap();
    assert_eq!(
        before.relinked(root),
        [(
            "link".to_string(),
            "target.txt".to_string(),
            "/etc/shadow".to_string()
        )]
    );

    assert!(before.put_back(root).is_empty());
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "one\n"
    );
    let mode = std::fs::metadata(root.join("a.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
    assert!(
        !root.join("new").exists(),
        "the directories git made are gone"
    );
    assert_eq!(
        std::fs::read_link(root.join("link")).unwrap(),
        Path::new("target.txt")
    );
    assert!(before.relinked(root).is_empty());
}

#[test]
fn what_cannot_be_put_back_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let added = diff(Status::Added);
    let before = Before::take(root, &[("n.txt", &added)]);
    // Git left a directory where the new file was to be, with something in it.
    std::fs::create_dir_all(root.join("n.txt/inner")).unwrap();
    assert_eq!(before.put_back(root), ["n.txt"]);
}
