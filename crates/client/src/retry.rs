//! The retry policy of every call to the network: what is tried again, how
//! long it waits between tries, and when it gives up; and the notices a caller
//! can show while it happens ("Still trying (attempt 2)").
//!
//! - **What is transient**: a connection refused, reset or closed before the
//!   answer, no answer within the attempt's time, HTTP 502/503/504, 429, and an
//!   `UpstreamServiceError` marked `retryable` ([`ClientError::is_transient`]).
//!   Never a refusal (`UnauthorizedError` → [`ClientError::Refused`]), a
//!   signed-out token, invalid input, an answer we cannot read, or an untrusted
//!   certificate: each of those fails again however often it is sent.
//! - **Which calls are sent again**: only those whose repeat cannot act twice
//!   (`Repeat::Safe`): reads, creates carrying an idempotency key, signatures
//!   (a repeated signature of the same hash is answered as harmless), Send and
//!   Cancel (a repeat answers the order as it is), updates that only set
//!   fields. The table per call is in the `network::calls` docs and the README.
//! - **How long between tries**: exponential backoff with *full jitter* — before
//!   retry `n`, a wait drawn uniformly from `[0, min(cap, base · 2ⁿ⁻¹)]` — unless
//!   the server said how long (`Retry-After`, delta-seconds or an HTTP-date, on
//!   429 and 503): then exactly that.
//! - **When it gives up**: after [`RetryPolicy`]'s attempts for the call's
//!   [`CallKind`] — [`ClientError::GaveUp`], naming the attempts, the time
//!   spent and the last trouble — or at its deadline, which covers every
//!   attempt and every wait; each attempt also has its own time limit. A wait
//!   that would end past the deadline is not started: the call ends with
//!   [`ClientError::TimedOut`] (or [`ClientError::RateLimited`] when the server
//!   asked for longer than is left).
//!
//! Notices: [`observe`] runs a future with an observer that receives a
//! [`RetryNotice`] before every wait, through a tokio task-local — so the
//! observer sees the retries of every call made *in that task* (not in tasks
//! it spawns). Backoff libraries (`backon`) were considered: their jitter adds
//! to the delay rather than drawing the whole of it, and the loop here needs
//! `Retry-After`, one deadline across attempts and these notices, so the
//! schedule is the few lines of [`full_jitter`].

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

pub use crate::call_kind::CallKind;
use crate::error::{ClientError, seconds};

/// Limits of one kind of call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Limits {
    /// Covers every attempt and every wait.
    deadline: Duration,
    /// One attempt: from sending to the last byte of the answer.
    attempt: Duration,
    attempts: u32,
}

/// Deadlines, attempts and backoff, per [`CallKind`]. The defaults:
///
/// | kind | deadline | one attempt | attempts |
/// | --- | --- | --- | --- |
/// | read | 20 s | 10 s | 5 |
/// | write | 30 s | 15 s | 5 |
/// | sign | 30 s | 15 s | 5 |
/// | token | 30 s | 10 s | 12 |
///
/// Backoff: full jitter from 200 ms, doubling, capped at 4 s.
/// Set on a [`Client`](crate::Client) with
/// [`Client::with_retry_policy`](crate::Client::with_retry_policy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    limits: [Limits; 4],
    base: Duration,
    cap: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        let limits = |deadline: u64, attempt: u64, attempts: u32| Limits {
            deadline: Duration::from_secs(deadline),
            attempt: Duration::from_secs(attempt),
            attempts,
        };
        Self {
            limits: [
                limits(20, 10, 5),
                limits(30, 15, 5),
                limits(30, 15, 5),
                limits(30, 10, 12),
            ],
            base: Duration::from_millis(200),
            cap: Duration::from_secs(4),
        }
    }
}

impl RetryPolicy {
    /// The time a call of `kind` may take in all, retries and waits included.
    pub fn deadline(&self, kind: CallKind) -> Duration {
        self.limits[kind.index()].deadline
    }

    /// The time one attempt of `kind` may take.
    pub fn attempt_timeout(&self, kind: CallKind) -> Duration {
        self.limits[kind.index()].attempt
    }

    /// How many times a call of `kind` is sent at most (1 = never retried).
    pub fn attempts(&self, kind: CallKind) -> u32 {
        self.limits[kind.index()].attempts
    }

    pub fn with_deadline(mut self, kind: CallKind, deadline: Duration) -> Self {
        self.limits[kind.index()].deadline = deadline;
        self
    }

    pub fn with_attempt_timeout(mut self, kind: CallKind, timeout: Duration) -> Self {
        self.limits[kind.index()].attempt = timeout;
        self
    }

    /// At least 1.
    pub fn with_attempts(mut self, kind: CallKind, attempts: u32) -> Self {
        self.limits[kind.index()].attempts = attempts.max(1);
        self
    }

    /// The first retry waits up to `base`, each next one up to twice as long,
    /// never more than `cap`.
    pub fn with_backoff(mut self, base: Duration, cap: Duration) -> Self {
        self.base = base;
        self.cap = cap.max(base);
        self
    }
}

/// Why a call is being tried again. Says what kind of trouble, never what was
/// sent or answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RetryCause {
    /// The connection failed or broke, or no answer came in time.
    Network,
    /// The server answered 502, 503 or 504.
    Server { status: u16 },
    /// The server answered 429: too many requests.
    RateLimited,
    /// A service behind the network failed and said that asking again may help.
    Upstream,
}

impl RetryCause {
    fn of(error: &ClientError) -> Self {
        match error {
            ClientError::Server {
                status: Some(status),
                ..
            } => Self::Server { status: *status },
            ClientError::RateLimited { .. } => Self::RateLimited,
            ClientError::Upstream { .. } => Self::Upstream,
            _ => Self::Network,
        }
    }
}

/// Sent to the [`observe`]r before each wait: attempt `attempt` of `op` starts
/// after `wait`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryNotice {
    /// The operation (`draft_prescription`, `sign_prescription`, `machine_token`, …).
    pub op: &'static str,
    /// The attempt about to start (2 for the first retry).
    pub attempt: u32,
    /// How long until it starts.
    pub wait: Duration,
    pub cause: RetryCause,
}

type Observer = Arc<dyn Fn(&RetryNotice) + Send + Sync>;

tokio::task_local! {
    static OBSERVER: Observer;
}

/// Runs `future` with `observer` receiving a [`RetryNotice`] before every retry
/// of every call it makes in this task, including waits for a machine token
/// shared with other callers. Scopes nest: the innermost observer is told.
///
/// ```no_run
/// # async fn demo(network: rxdesk_client::network::Network) {
/// use rxdesk_client::retry;
/// let pong = retry::observe(
///     |notice: &retry::RetryNotice| eprintln!("Still trying (attempt {})", notice.attempt),
///     network.ping(),
/// )
/// .await;
/// # let _ = pong; }
/// ```
pub async fn observe<F: Future>(
    observer: impl Fn(&RetryNotice) + Send + Sync + 'static,
    future: F,
) -> F::Output {
    OBSERVER.scope(Arc::new(observer), future).await
}

/// Tells this task's observer, if any, and the log.
pub(crate) fn notify(notice: &RetryNotice) {
    tracing::info!(
        op = notice.op,
        attempt = notice.attempt,
        wait_ms = u64::try_from(notice.wait.as_millis()).unwrap_or(u64::MAX),
        cause = ?notice.cause,
        "retrying"
    );
    let _ = OBSERVER.try_with(|observer| observer(notice));
}

/// Whether a call may be sent again after transient trouble.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repeat {
    /// A repeat cannot act twice.
    Safe,
    /// A repeat could act twice, or answer misleadingly: one attempt.
    Never,
}

/// One failed attempt, as the loop sees it.
#[derive(Debug)]
pub(crate) enum Failed {
    /// May go away on another attempt; `retry_after` is the server's word on when.
    Transient {
        error: ClientError,
        retry_after: Option<Duration>,
    },
    /// Will fail again, or must not be repeated here (e.g. a token request
    /// that already had its own retries).
    Final(ClientError),
}

impl From<ClientError> for Failed {
    fn from(error: ClientError) -> Self {
        if error.is_transient() {
            let retry_after = match &error {
                ClientError::RateLimited { retry_after } => *retry_after,
                _ => None,
            };
            Self::Transient { error, retry_after }
        } else {
            Self::Final(error)
        }
    }
}

/// One call under the policy.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan<'a> {
    pub op: &'static str,
    pub kind: CallKind,
    pub repeat: Repeat,
    pub policy: &'a RetryPolicy,
}

/// Runs `attempt` (given the time it may take) until it succeeds, fails for
/// good, runs out of attempts or reaches the deadline. `tell` receives the
/// notices. Answers the result and the number of attempts made.
pub(crate) async fn run<T, F, Fut>(
    plan: Plan<'_>,
    tell: impl Fn(&RetryNotice),
    mut attempt: F,
) -> (Result<T, ClientError>, u32)
where
    F: FnMut(Duration) -> Fut,
    Fut: Future<Output = Result<T, Failed>>,
{
    let started = Instant::now();
    let deadline = started + plan.policy.deadline(plan.kind);
    let attempts = match plan.repeat {
        Repeat::Safe => plan.policy.attempts(plan.kind),
        Repeat::Never => 1,
    };
    let mut made = 0;
    let mut last: Option<ClientError> = None;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let budget = left.min(plan.policy.attempt_timeout(plan.kind));
        if budget.is_zero() {
            return (
                Err(ClientError::TimedOut {
                    call: plan.kind,
                    after: started.elapsed(),
                    attempts: made,
                    last: last.map(Box::new),
                }),
                made,
            );
        }
        made += 1;
        let failed = match tokio::time::timeout(budget, attempt(budget)).await {
            Ok(Ok(value)) => return (Ok(value), made),
            Ok(Err(failed)) => failed,
            Err(_) => Failed::Transient {
                error: ClientError::Network {
                    message: format!("no answer within {}", seconds(budget)),
                },
                retry_after: None,
            },
        };
        let (error, retry_after) = match failed {
            Failed::Final(error) => return (Err(error), made),
            Failed::Transient { error, retry_after } => (error, retry_after),
        };
        if made >= attempts {
            // One attempt allowed (a call that must not repeat): its error as
            // it is. Otherwise say that the policy's attempts were spent.
            let error = if made > 1 {
                ClientError::GaveUp {
                    call: plan.kind,
                    after: started.elapsed(),
                    attempts: made,
                    last: Box::new(error),
                }
            } else {
                error
            };
            return (Err(error), made);
        }
        let wait = retry_after.unwrap_or_else(|| full_jitter(plan.policy, made));
        let left = deadline.saturating_duration_since(Instant::now());
        if wait >= left {
            let error = match error {
                // The server said when: that is what the caller needs to know.
                e @ ClientError::RateLimited { .. } => e,
                last => ClientError::TimedOut {
                    call: plan.kind,
                    after: started.elapsed(),
                    attempts: made,
                    last: Some(Box::new(last)),
                },
            };
            return (Err(error), made);
        }
        tell(&RetryNotice {
            op: plan.op,
            attempt: made + 1,
            wait,
            cause: RetryCause::of(&error),
        });
        last = Some(error);
        tokio::time::sleep(wait).await;
    }
}

/// The wait before retry `retry` (1 for the first): uniform in
/// `[0, min(cap, base · 2^(retry-1))]`.
pub(crate) fn full_jitter(policy: &RetryPolicy, retry: u32) -> Duration {
    use rand::Rng as _;
    let ceiling = policy
        .base
        .saturating_mul(1u32 << retry.saturating_sub(1).min(20))
        .min(policy.cap);
    let millis = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
    Duration::from_millis(rand::thread_rng().gen_range(0..=millis))
}

/// The wait a `Retry-After` value asks for, as seen at `now`: delta-seconds
/// (`120`) or an HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`, also the obsolete
/// RFC 850 and asctime forms). A date in the past asks for no wait; anything
/// else unreadable is ignored.
pub(crate) fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    fn quick() -> RetryPolicy {
        RetryPolicy::default().with_backoff(Duration::from_millis(1), Duration::from_millis(5))
    }

    fn plan(policy: &RetryPolicy, repeat: Repeat) -> Plan<'_> {
        Plan {
            op: "test_op",
            kind: CallKind::Read,
            repeat,
            policy,
        }
    }

    fn unavailable() -> ClientError {
        ClientError::Server {
            status: Some(503),
            message: "down".into(),
        }
    }

    #[test]
    fn full_jitter_stays_under_the_doubling_ceiling_and_the_cap() {
        let policy = RetryPolicy::default()
            .with_backoff(Duration::from_millis(100), Duration::from_millis(1000));

        for _ in 0..200 {
            assert!(full_jitter(&policy, 1) <= Duration::from_millis(100));
            assert!(full_jitter(&policy, 3) <= Duration::from_millis(400));
            assert!(full_jitter(&policy, 30) <= Duration::from_millis(1000));
        }
    }

    #[test]
    fn full_jitter_draws_the_whole_wait() {
        let policy = RetryPolicy::default()
            .with_backoff(Duration::from_millis(1000), Duration::from_millis(1000));

        let shortest = (0..200).map(|_| full_jitter(&policy, 1)).min().unwrap();

        assert!(shortest < Duration::from_millis(500), "{shortest:?}");
    }

    #[test]
    fn retry_after_reads_delta_seconds() {
        assert_eq!(
            retry_after(" 7 ", SystemTime::now()),
            Some(Duration::from_secs(7))
        );
    }

    #[test]
    fn retry_after_reads_an_http_date() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();

        let wait = retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now);

        assert_eq!(wait, Some(Duration::from_secs(30)));
    }

    #[test]
    fn retry_after_in_the_past_asks_for_no_wait() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();

        assert_eq!(
            retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn retry_after_ignores_what_it_cannot_read() {
        assert_eq!(retry_after("soon", SystemTime::now()), None);
    }

    #[tokio::test]
    async fn a_transient_failure_is_tried_again_and_the_observer_told() {
        let policy = quick();
        let tries = AtomicU32::new(0);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();

        let (result, made) = observe(
            move |n: &RetryNotice| record.lock().unwrap().push(n.clone()),
            run(plan(&policy, Repeat::Safe), notify, |_| {
                let n = tries.fetch_add(1, Ordering::SeqCst);
                async move {
                    if n < 2 {
                        Err(Failed::from(unavailable()))
                    } else {
                        Ok("pong")
                    }
                }
            }),
        )
        .await;

        assert_eq!(result.unwrap(), "pong");
        assert_eq!(made, 3);
        let seen = seen.lock().unwrap();
        assert_eq!(
            seen.iter().map(|n| n.attempt).collect::<Vec<_>>(),
            vec![2, 3]
        );
        assert!(
            seen.iter()
                .all(|n| n.op == "test_op" && n.cause == RetryCause::Server { status: 503 })
        );
    }

    #[tokio::test]
    async fn a_refusal_is_answered_after_one_attempt() {
        let policy = quick();
        let tries = AtomicU32::new(0);

        let (result, made) = run(plan(&policy, Repeat::Safe), notify, |_| {
            tries.fetch_add(1, Ordering::SeqCst);
            async {
                Err::<(), _>(Failed::from(ClientError::Refused {
                    code: "PRESCRIPTION_SIGNING_UNAUTHORIZED".into(),
                    message: "no".into(),
                    required_permission: Some("write:prescription".into()),
                }))
            }
        })
        .await;

        assert!(matches!(result, Err(ClientError::Refused { .. })));
        assert_eq!((made, tries.load(Ordering::SeqCst)), (1, 1));
    }

    #[tokio::test]
    async fn a_call_that_must_not_repeat_is_sent_once() {
        let policy = quick();

        let (result, made) = run(plan(&policy, Repeat::Never), notify, |_| async {
            Err::<(), _>(Failed::from(unavailable()))
        })
        .await;

        assert!(matches!(
            result,
            Err(ClientError::Server {
                status: Some(503),
                ..
            })
        ));
        assert_eq!(made, 1);
    }

    #[tokio::test]
    async fn running_out_of_attempts_answers_how_many_and_the_last_trouble() {
        let policy = quick().with_attempts(CallKind::Read, 3);

        let (result, made) = run(plan(&policy, Repeat::Safe), notify, |_| async {
            Err::<(), _>(Failed::from(unavailable()))
        })
        .await;

        let Err(ClientError::GaveUp {
            call,
            attempts,
            last,
            ..
        }) = &result
        else {
            panic!("{result:?}")
        };
        assert_eq!((*call, *attempts, made), (CallKind::Read, 3, 3));
        assert_eq!(**last, unavailable());
        let text = result.unwrap_err().to_string();
        assert!(text.starts_with("gave up after 3 attempts in "), "{text}");
    }

    #[tokio::test]
    async fn the_servers_retry_after_is_the_wait() {
        let policy = quick();
        let tries = AtomicU32::new(0);
        let waits = Arc::new(Mutex::new(Vec::new()));
        let record = waits.clone();

        let (result, _) = run(
            plan(&policy, Repeat::Safe),
            move |n: &RetryNotice| record.lock().unwrap().push((n.wait, n.cause)),
            |_| {
                let n = tries.fetch_add(1, Ordering::SeqCst);
                async move {
                    if n == 0 {
                        Err(Failed::from(ClientError::RateLimited {
                            retry_after: Some(Duration::from_millis(30)),
                        }))
                    } else {
                        Ok(())
                    }
                }
            },
        )
        .await;

        assert!(result.is_ok());
        assert_eq!(
            *waits.lock().unwrap(),
            vec![(Duration::from_millis(30), RetryCause::RateLimited)]
        );
    }

    #[tokio::test]
    async fn a_retry_after_beyond_the_deadline_ends_the_call_saying_when() {
        let policy = quick().with_deadline(CallKind::Read, Duration::from_secs(1));
        let tries = AtomicU32::new(0);

        let (result, made) = run(plan(&policy, Repeat::Safe), notify, |_| {
            tries.fetch_add(1, Ordering::SeqCst);
            async {
                Err::<(), _>(Failed::from(ClientError::RateLimited {
                    retry_after: Some(Duration::from_secs(60)),
                }))
            }
        })
        .await;

        assert_eq!(
            result.unwrap_err(),
            ClientError::RateLimited {
                retry_after: Some(Duration::from_secs(60))
            }
        );
        assert_eq!(made, 1);
    }

    #[tokio::test]
    async fn a_silent_server_ends_at_the_deadline_with_the_last_trouble() {
        let policy = quick()
            .with_attempts(CallKind::Read, 100)
            .with_deadline(CallKind::Read, Duration::from_millis(300))
            .with_attempt_timeout(CallKind::Read, Duration::from_millis(100));

        let (result, made) = run(plan(&policy, Repeat::Safe), notify, |_| {
            std::future::pending::<Result<(), Failed>>()
        })
        .await;

        let Err(ClientError::TimedOut {
            call,
            attempts,
            last,
            ..
        }) = result
        else {
            panic!("{result:?}")
        };
        assert_eq!(call, CallKind::Read);
        assert_eq!(attempts, made);
        assert!(made >= 2, "{made}");
        assert!(
            matches!(last.as_deref(), Some(ClientError::Network { message }) if message.starts_with("no answer within")),
            "{last:?}"
        );
    }

    #[test]
    fn seconds_read_plainly() {
        assert_eq!(seconds(Duration::from_secs(20)), "20 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }
}
