use super::*;

fn headers(limit: u32, remaining: u32, reset: u64, resource: &str) -> http::HeaderMap {
    let mut h = http::HeaderMap::new();
    h.insert("x-ratelimit-limit", limit.into());
    h.insert("x-ratelimit-remaining", remaining.into());
    h.insert("x-ratelimit-reset", reset.into());
    h.insert("x-ratelimit-resource", resource.parse().unwrap());
    h
}

/// Lets the spawned waiters run until each is parked.
async fn settle() {
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
}

#[tokio::test(start_paused = true)]
async fn when_the_budget_is_short_the_most_urgent_waiter_goes_first() {
    let scheduler = Scheduler::new();
    // 30 left of 120: only a person's action may go now; refill is 2 a second.
    scheduler.observe(&headers(120, 30, 45, "general"));
    let order = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for class in [
        RequestClass::Bulk,
        RequestClass::Background,
        RequestClass::OnScreen,
    ] {
        let (s, order) = (scheduler.clone(), order.clone());
        tasks.push(tokio::spawn(async move {
            let _permit = s.admit(class, BucketName::General).await;
            lock(&order).push(class);
            // Stays in flight: each later one needs a new half second of refill.
            std::future::pending::<()>().await;
        }));
        settle().await;
    }
    let action = scheduler
        .admit(RequestClass::Action, BucketName::General)
        .await;
    assert!(
        lock(&order).is_empty(),
        "nothing but the action went at once"
    );
    drop(action);
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert_eq!(
        *lock(&order),
        vec![
            RequestClass::OnScreen,
            RequestClass::Background,
            RequestClass::Bulk
        ]
    );
    for t in tasks {
        t.abort();
    }
}

#[tokio::test(start_paused = true)]
async fn a_wait_of_more_than_a_moment_is_said_and_cleared_when_it_ends() {
    let scheduler = Scheduler::new();
    scheduler.observe(&headers(120, 100, 10, "general"));
    scheduler.refused(BucketName::General, Duration::from_secs(4));
    let waiting = scheduler.waiting();
    let s = scheduler.clone();
    let started = Instant::now();
    let task = tokio::spawn(async move {
        let _p = s.admit(RequestClass::Bulk, BucketName::General).await;
        Instant::now()
    });
    settle().await;
    let said = (*waiting.borrow()).expect("the wait is said");
    assert_eq!(said.class, RequestClass::Bulk);
    assert_eq!(said.reason, WaitReason::RateLimit);
    assert!(said.until >= started + Duration::from_secs(4));
    let went = task.await.unwrap();
    assert!(
        went - started >= Duration::from_secs(4),
        "Retry-After honoured"
    );
    assert_eq!(*waiting.borrow(), None);
    assert_eq!(scheduler.figures().refusals, 1);
}

#[tokio::test(start_paused = true)]
async fn a_closed_stream_holds_its_slot_until_the_service_frees_it() {
    let scheduler = Scheduler::new();
    scheduler.observe(&headers(120, 120, 0, "general"));
    let mut open = Vec::new();
    for _ in 0..STREAMS_PER_TOKEN {
        let (slot, _permit) = scheduler
            .open_stream(RequestClass::OnScreen, SLOT_RELEASE)
            .await;
        open.push(slot);
    }
    let s = scheduler.clone();
    let sixth = tokio::spawn(async move {
        let opened = s.open_stream(RequestClass::OnScreen, SLOT_RELEASE).await;
        (Instant::now(), opened)
    });
    settle().await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(!sixth.is_finished(), "a sixth stream waits for a slot");
    let closed_at = Instant::now();
    open.pop();
    let (opened_at, _) = sixth.await.unwrap();
    assert_eq!(opened_at - closed_at, SLOT_RELEASE);
}

#[tokio::test(start_paused = true)]
async fn one_token_on_one_api_shares_one_scheduler_in_a_process() {
    let api = url::Url::parse("http://127.0.0.1:9/").unwrap();
    let token = Token::new("gbr_pat_a");
    let other = Token::new("gbr_pat_b");
    let a = Scheduler::for_origin(&api, token.as_ref());
    let b = Scheduler::for_origin(&api, token.as_ref());
    let c = Scheduler::for_origin(&api, other.as_ref());
    assert!(Arc::ptr_eq(&a, &b));
    assert!(!Arc::ptr_eq(&a, &c));
}

#[tokio::test(start_paused = true)]
async fn a_dropped_waiter_never_holds_back_the_classes_below_it() {
    let scheduler = Scheduler::new();
    scheduler.observe(&headers(120, 30, 45, "general"));
    let s = scheduler.clone();
    let on_screen = tokio::spawn(async move {
        s.admit(RequestClass::OnScreen, BucketName::General).await;
    });
    settle().await;
    on_screen.abort();
    let _ = on_screen.await;
    let started = Instant::now();
    let _background = scheduler
        .admit(RequestClass::Background, BucketName::General)
        .await;
    // The refill's 2 s, not a wait on a waiter that has gone.
    assert!(Instant::now() - started <= Duration::from_millis(2_100));
}
