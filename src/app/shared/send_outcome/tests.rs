use super::*;

fn message() -> Input {
    Input::Message {
        content: "hi".into(),
    }
}

fn tool_result() -> Input {
    Input::ToolResult {
        turn_id: "turn_1".into(),
        call_id: "call_1".into(),
        success: true,
        output: Some("42".into()),
        error: None,
    }
}

fn approval(approved: bool) -> Input {
    Input::Approval {
        call_id: "call_1".into(),
        approved,
    }
}

fn reply(
    queued: Option<bool>,
    position: Option<u32>,
    outcome: Option<InputOutcome>,
) -> InputAccepted {
    InputAccepted {
        queued,
        queue_position: position,
        outcome,
        ..Default::default()
    }
}

fn failure(code: Option<ErrorCode>, status: Option<u16>) -> SendFailure {
    SendFailure {
        code,
        status,
        message: "refused for a reason".into(),
        request_id: Some("859ae087".into()),
        retry_after_secs: None,
    }
}

#[test]
fn message_started_now_is_quiet_and_not_queued() {
    let o = accepted(&message(), &reply(Some(false), None, None));
    assert_eq!(o.severity, Severity::Quiet);
    assert_eq!(o.queued_at, None);
    assert!(!o.keep_draft);
}

#[test]
fn queued_message_carries_its_position_label() {
    let o = accepted(&message(), &reply(Some(true), Some(3), None));
    assert_eq!(o.queued_at, Some(3));
    assert!(o.text.starts_with("queued #3"), "{}", o.text);
    assert_eq!(queue_label(3), "queued #3");
}

#[test]
fn queue_full_explains_the_limit_and_keeps_the_draft() {
    let o = failed(&message(), &failure(Some(ErrorCode::QueueFull), Some(429)));
    assert_eq!(o.severity, Severity::Warn);
    assert!(o.keep_draft);
    assert!(
        o.text.contains("5 messages are already queued"),
        "{}",
        o.text
    );
    assert!(o.text.contains("draft stays"), "{}", o.text);
}

#[test]
fn steer_conflict_offers_a_message_and_never_converts() {
    let steer = Input::Steer {
        content: "left".into(),
    };
    let o = failed(&steer, &failure(Some(ErrorCode::Conflict), Some(409)));
    assert_eq!(
        o.text,
        "nothing is running to steer — press Enter to send it as a message instead"
    );
    assert!(o.offer_send_as_message);
    assert!(o.keep_draft);
    // A bare 409 without an envelope reads the same.
    assert!(failed(&steer, &failure(None, Some(409))).offer_send_as_message);
}

#[test]
fn cancel_accepted_says_work_stays() {
    let o = accepted(&Input::Cancel {}, &reply(None, None, None));
    assert_eq!(o.text, "cancelling… finished work and files stay");
    assert_eq!(o.severity, Severity::Info);
}

#[test]
fn tool_result_accepted_and_already_resolved_are_quiet() {
    for outcome in [InputOutcome::Accepted, InputOutcome::AlreadyResolved] {
        let o = accepted(&tool_result(), &reply(None, None, Some(outcome)));
        assert_eq!(o.severity, Severity::Quiet, "{}", o.text);
    }
}

#[test]
fn no_longer_pending_reads_like_already_resolved() {
    for input in [tool_result(), approval(true)] {
        let o = accepted(
            &input,
            &reply(None, None, Some(InputOutcome::NoLongerPending)),
        );
        let same = accepted(
            &input,
            &reply(None, None, Some(InputOutcome::AlreadyResolved)),
        );
        assert_eq!(o, same);
        assert_eq!(o.severity, Severity::Quiet);
    }
}

#[test]
fn a_forbidden_answer_names_the_scope_it_needs() {
    let answer = Input::QuestionAnswer {
        call_id: "c".into(),
        answer: "yes".into(),
    };
    for input in [approval(true), answer] {
        for f in [
            failure(Some(ErrorCode::PermissionDenied), Some(403)),
            failure(None, Some(403)),
        ] {
            let o = failed(&input, &f);
            assert_eq!(o.severity, Severity::Error);
            assert!(o.text.contains("sessions:write scope"), "{}", o.text);
            assert!(o.text.contains("tools:respond"), "{}", o.text);
        }
    }
}

#[test]
fn tool_result_not_delivered_is_loud() {
    let o = accepted(
        &tool_result(),
        &reply(None, None, Some(InputOutcome::NotDelivered)),
    );
    assert_eq!(o.severity, Severity::Error);
    assert!(o.text.contains("workspace restarted"), "{}", o.text);
    assert!(o.text.contains("send a new message"), "{}", o.text);
}

#[test]
fn approval_accepted_says_which_way() {
    assert_eq!(
        accepted(&approval(true), &reply(None, None, None)).text,
        "approved"
    );
    assert_eq!(
        accepted(&approval(false), &reply(None, None, None)).text,
        "denied"
    );
}

#[test]
fn refused_approval_or_answer_points_to_the_console_with_the_request_id() {
    let answer = Input::QuestionAnswer {
        call_id: "c".into(),
        answer: "yes".into(),
    };
    for input in [approval(true), answer] {
        for (code, status) in [
            (Some(ErrorCode::InvalidRequest), Some(400)),
            (Some(ErrorCode::PermissionDenied), Some(403)),
            (None, Some(400)),
        ] {
            let o = failed(&input, &failure(code, status));
            assert_eq!(o.severity, Severity::Error);
            assert!(
                o.text.contains("answer it in the Gobare Console"),
                "{}",
                o.text
            );
            assert!(o.text.contains("859ae087"), "{}", o.text);
        }
    }
}

#[test]
fn rate_limit_says_when_it_retries() {
    let mut f = failure(Some(ErrorCode::RateLimitExceeded), Some(429));
    f.retry_after_secs = Some(7);
    let o = failed(&message(), &f);
    assert_eq!(o.text, "rate limited — retrying in 7 s");
    assert_eq!(o.severity, Severity::Warn);
    assert!(o.keep_draft);
}

#[test]
fn project_limit_says_it_never_clears() {
    let o = failed(
        &message(),
        &failure(Some(ErrorCode::ProjectLimitExceeded), Some(429)),
    );
    assert_eq!(o.severity, Severity::Error);
    assert!(o.text.contains("delete a session"), "{}", o.text);
    assert!(o.text.contains("waiting won't clear it"), "{}", o.text);
}

#[test]
fn auth_error_by_code_or_bare_status() {
    for f in [
        failure(Some(ErrorCode::AuthenticationError), Some(401)),
        failure(None, Some(401)),
    ] {
        let o = failed(&message(), &f);
        assert_eq!(o.severity, Severity::Error);
        assert!(o.text.contains("token was refused"), "{}", o.text);
    }
}

#[test]
fn network_failure_keeps_the_draft() {
    let f = SendFailure {
        message: "connection reset".into(),
        ..Default::default()
    };
    let o = failed(&message(), &f);
    assert!(o.keep_draft);
    assert_eq!(
        o.text,
        "message not sent — couldn't reach the server: connection reset"
    );
}

#[test]
fn server_text_is_sanitized_and_truncated() {
    let mut f = failure(Some(ErrorCode::InvalidRequest), Some(400));
    f.message = format!("bad\x1b[31mred\u{202e}{}", "x".repeat(500));
    f.request_id = Some("id\x1b]0;t\x07".into());
    let o = failed(&message(), &f);
    assert!(!o.text.contains('\x1b'), "{}", o.text);
    assert!(!o.text.contains('\u{202e}'), "{}", o.text);
    assert!(!o.text.contains('\x07'), "{}", o.text);
    assert!(o.text.contains('…'), "long server text is cut: {}", o.text);
    assert!(text::width(&o.text) < 200);
}

#[test]
fn tool_result_not_found_means_no_longer_pending() {
    let o = failed(
        &tool_result(),
        &failure(Some(ErrorCode::NotFound), Some(404)),
    );
    assert_eq!(o.severity, Severity::Warn);
    assert!(o.text.contains("no longer pending"), "{}", o.text);
}

/// Ctrl+F reports the function call failed; the notice says that, not "delivered".
#[test]
fn a_reported_failure_says_so() {
    let failure = Input::ToolResult {
        turn_id: "turn_1".into(),
        call_id: "call_1".into(),
        success: false,
        output: None,
        error: Some(Input::TOOL_FAILED.into()),
    };
    let o = accepted(&failure, &reply(None, None, Some(InputOutcome::Accepted)));
    assert!(o.text.starts_with("failure reported"), "{}", o.text);
    let ok = accepted(
        &tool_result(),
        &reply(None, None, Some(InputOutcome::Accepted)),
    );
    assert!(ok.text.starts_with("tool result delivered"), "{}", ok.text);
}
