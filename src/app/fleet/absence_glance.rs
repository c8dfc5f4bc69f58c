//! The fleet's digest of an absence when no event record tells it (no cursor was kept, or
//! the replay was cut or refused): [`crate::fleet::absence_glance`] from the rows the
//! fleet listed anyway, and the newest turns of at most
//! [`crate::fleet::absence_glance::FAILED_READ`] failed sessions for their reasons. A
//! handful of requests whatever the fleet's size.

use gobare_api::client::{ApiClient, Order, Page};

use crate::fleet::reads::TurnsRead;

/// Turns read of each failed session: the failed one is among the newest.
const TURNS_READ: u32 = 5;

/// Why each of `failed` failed, as its newest failed turn says (sessions whose turns do
/// not say are left out).
pub(crate) async fn reasons(client: &ApiClient, failed: &[String]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for id in failed {
        let page = Page::ordered(Order::Desc).with_limit(TURNS_READ);
        match client.list_turns(id, &page).await {
            Ok(turns) => {
                let read = TurnsRead::of(&turns.data);
                if let Some((_, why)) = read.reasons.into_iter().next() {
                    found.push((id.clone(), why));
                }
            }
            Err(e) => tracing::warn!(error = %e, "the digest could not read a failed turn"),
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::test_sim::{requests, until};
    use super::*;
    use crate::fleet::absence_glance::{FAILED_READ, failed_since, lines};
    use crate::fleet::model::FleetModel;
    use gobare_api::auth::Token;
    use gobare_api::client::{ClientOptions, SessionFilter};
    use gobare_api::model::SessionStatus;
    use gobare_sim::{SimConfig, Simulator};

    /// Issue 48.5: no cursor was kept, so no stream can tell the absence; the digest of a
    /// 60-session fleet is told from the list the fleet reads anyway, in a handful of
    /// requests, waits and failures named, and it says it is coarser.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_sixty_session_absence_without_a_cursor_is_told_from_the_list_in_a_handful() {
        let sim = Simulator::start(SimConfig {
            fleet_activity: 50,
            ..SimConfig::for_tests().with_fleet(60)
        })
        .await
        .unwrap();
        let client =
            ApiClient::new(ClientOptions::new(sim.url(), Token::new(sim.token()))).unwrap();
        // The simulator's fleet settles (its sessions reach their waits and failures);
        // then the fleet was last seen, and kept no cursor.
        let page = Page::default().with_limit(100);
        until(
            "the fleet's thirty waits",
            async || client.list_sessions(&page).await.ok(),
            |l| {
                l.as_ref().is_some_and(|l| {
                    l.data
                        .iter()
                        .filter(|s| !s.required_actions.is_empty())
                        .count()
                        >= 30
                })
            },
        )
        .await;
        let since_ms = gobare_api::clock::unix_ms();
        let seq = sim.last_seq();
        let failing = sim.create_session(Some("weekly report"));
        sim.send_message(&failing, "weekly run #error");
        let asking = sim.create_session(Some("restart the worker"));
        sim.send_message(&asking, "restart the worker #approval");
        until(
            "the session failed",
            async || client.get_session(&failing).await.ok(),
            |s| {
                s.as_ref()
                    .is_some_and(|s| s.status == SessionStatus::Failed)
            },
        )
        .await;
        until(
            "the approval asked",
            async || client.get_session(&asking).await.ok(),
            |s| {
                s.as_ref()
                    .is_some_and(|s| s.status == SessionStatus::RequiresAction)
            },
        )
        .await;
        until(
            "300 events of activity",
            async || sim.last_seq(),
            |s| *s >= seq + 300,
        )
        .await;
        // The fleet opens: its own listing, read whether a digest is due or not.
        let listed = crate::sessions::list_all(&client, &SessionFilter::default())
            .await
            .unwrap();
        let mut model = FleetModel::new();
        model.apply_full_list(&listed.items);

        let before = requests(&sim);
        let failed: Vec<String> = failed_since(&model, since_ms)
            .into_iter()
            .take(FAILED_READ)
            .collect();
        let reasons = reasons(&client, &failed).await;
        let spent = requests(&sim) - before;
        assert!(
            spent <= 5,
            "the digest of 60 sessions took {spent} requests"
        );

        let now_ms = gobare_api::clock::unix_ms();
        let lines: Vec<String> = lines(&model, since_ms, now_ms, &reasons)
            .into_iter()
            .map(|(_, l)| l)
            .collect();
        // The summary says the one count the header says, and what it is built from.
        let need_you = model.needing_you();
        assert!(
            lines[0].ends_with(&format!(", {need_you} need you"))
                || lines[0].ends_with(", 1 needs you"),
            "{lines:#?}"
        );
        assert!(
            lines[1].contains("from the session list only"),
            "{lines:#?}"
        );
        let asked_at = lines
            .iter()
            .position(|l| l.starts_with("Asked while you were away: "))
            .unwrap_or_else(|| panic!("{lines:#?}"));
        let failed_at = lines
            .iter()
            .position(|l| l.starts_with("Failed: "))
            .unwrap_or_else(|| panic!("{lines:#?}"));
        assert!(asked_at < failed_at, "waits first: {lines:#?}");
        assert!(
            lines[asked_at..failed_at]
                .iter()
                .any(|l| l == "  restart the worker: approval"),
            "{lines:#?}"
        );
        assert!(
            lines[failed_at..]
                .iter()
                .any(|l| l.starts_with("  weekly report: ")),
            "{lines:#?}"
        );
        assert_eq!(
            reasons.len(),
            failed.len(),
            "each failed session read says why: {reasons:?}"
        );
        for (_, why) in &reasons {
            let said = format!(": {}", gobare_api::text::one_line(why, 120));
            assert!(
                lines.iter().any(|l| l.ends_with(&said)),
                "{said:?} in {lines:#?}"
            );
        }
        // One screen at most, whatever the fleet's size: each waiting session a line,
        // at most 8 failures and a count.
        assert!(lines.len() <= 2 + 1 + need_you + 1 + 8 + 1, "{lines:#?}");
        sim.shutdown().await;
    }
}
