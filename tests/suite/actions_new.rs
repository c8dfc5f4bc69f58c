//! The session picker's pages against the simulator. `gobare-tui new` itself is driven
//! end to end in `actions_e2e`.

use crate::support::actions::*;

#[tokio::test]
async fn the_picker_pages_sessions_newest_first() {
    use gobare_tui::app::sessions::SessionPager;
    let rig = Rig::test().await;
    let mut ids: Vec<String> = (0..3)
        .map(|n| rig.sim.create_session(Some(&format!("session {n}"))))
        .collect();
    let mut pager = SessionPager::new(2);
    let (first, more) = pager.next_page(&rig.client).await.unwrap();
    assert!(more);
    let (second, more) = pager.next_page(&rig.client).await.unwrap();
    assert!(!more);
    let listed: Vec<_> = first.iter().chain(&second).collect();
    let created: Vec<i64> = listed.iter().map(|s| s.created_at).collect();
    assert!(
        created.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {created:?}"
    );
    let mut listed: Vec<String> = listed.iter().map(|s| s.id.clone()).collect();
    listed.sort();
    ids.sort();
    assert_eq!(listed, ids, "every session once across the pages");
}
