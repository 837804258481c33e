//! The writing thread: the one thread that runs closures on the writing
//! connection for [`Db::call`](super::Db::call) and, on disk, for
//! [`Db::write`](super::Db::write). Callers queue a job and await its answer;
//! the async runtime's threads never wait for the connection or the disk.
//!
//! One thread, not a blocking task per call: the writes are serial anyway
//! (one connection), and a burst of concurrent writes (a prescriber signing a
//! hundred drafts) otherwise started a blocking thread per write, some 70 of
//! them, each queuing on the connection's lock and each allocating from a
//! heap of its own. perf of such bursts (`bench/examples/sign_calls.rs`, on
//! disk): futex waits and wake-ups went from 7.9 % of the samples to 1.7 %,
//! the page faults of fresh heap pages from 6.8 % to 0.3 %.
//!
//! **Group commit.** The Network API writes waiting in the queue when the
//! thread gets to them ([`GROUP`] at most) run in one transaction, each in a
//! savepoint of its own: a write that fails is rolled back to its savepoint
//! alone, and the others' changes stand. The group commits once, so its
//! pages reach the write-ahead log once (the same bursts: the commits were
//! 15.6 % of the samples, one per write; writing the log's frames went from
//! 10.1 % to 4.0 %). Every write's answer waits for that commit:
//! no answer leaves before what it says is stored, and if the commit fails,
//! every write of the group answers that failure (nothing of theirs was kept).
//! A lone write is a group of one. What else uses the connection
//! ([`Db::call`](super::Db::call): the authorization server, the fixture,
//! webhooks, the simulation) runs alone, between groups, and manages its
//! own transactions.
//!
//! Not here: when a write runs on the calling thread instead (in memory,
//! `Db::write`), and the cache's generation, which a job's [`Bump`] moves on
//! before any answer of it leaves.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::Connection;

use super::StoreError;
use super::cache::{Bump, Cache};

/// The most writes one group's transaction holds: bounds how long a write
/// waits for the others of its group (a Network API write runs in tens of
/// microseconds) while still covering the app's batches (128 in flight).
pub(super) const GROUP: usize = 128;

/// A closure run alone on the connection; it returns the sending of its
/// answer, done once the cache's generation has moved on.
type Alone = Box<dyn FnOnce(&mut Connection) -> Reply + Send>;

/// Sends a job's answer to its caller.
type Reply = Box<dyn FnOnce() + Send>;

/// An answer waiting for its group's commit.
type Answer = Box<dyn FnOnce(Result<(), &rusqlite::Error>) + Send>;

/// A Network API write of a group: given its savepoint's connection (or why
/// the group could not give it one), it runs and says what to answer.
type Atomic = Box<dyn FnOnce(Result<&Connection, &rusqlite::Error>) -> Ran + Send>;

/// What an [`Atomic`] job left for after the commit: whether its changes
/// stand (else it is rolled back to its savepoint) and its answer, sent with
/// the commit's outcome.
pub(super) struct Ran {
    kept: bool,
    answer: Answer,
}

enum Job {
    Alone(Alone),
    Atomic(Atomic),
}

/// The queue to the writing thread. The thread ends when the last `Writer`
/// (the last clone of its `Db`) is dropped.
pub(super) struct Writer {
    jobs: Sender<Job>,
}

impl Writer {
    /// Starts the thread that writes with `conn` and bumps `cache`.
    pub(super) fn start(
        conn: Arc<Mutex<Connection>>,
        cache: Arc<Cache>,
    ) -> Result<Self, StoreError> {
        let (jobs, queue) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("sandbox-writer".to_owned())
            .spawn(move || serve(&conn, &cache, &queue))
            .map_err(StoreError::Thread)?;
        Ok(Self { jobs })
    }

    /// Runs `f` alone on the connection and answers what it returned (a
    /// panic in `f` is [`StoreError::Worker`]).
    pub(super) async fn alone<F, R>(&self, f: F) -> Result<R, StoreError>
    where
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
        R: Send + 'static,
    {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let job: Alone = Box::new(move |conn| {
            let result =
                catch_unwind(AssertUnwindSafe(|| f(conn))).unwrap_or(Err(StoreError::Worker));
            Box::new(move || {
                let _ = answer.send(result);
            })
        });
        self.jobs
            .send(Job::Alone(job))
            .map_err(|_| StoreError::Worker)?;
        answered.await.map_err(|_| StoreError::Worker)?
    }

    /// Runs `f` in a savepoint of the next group's transaction and answers
    /// what it returned once the group has committed: its error if it
    /// failed (its changes rolled back), the commit's if that failed.
    pub(super) async fn atomic<F, R>(&self, f: F) -> Result<R, StoreError>
    where
        F: FnOnce(&Connection) -> Result<R, StoreError> + Send + 'static,
        R: Send + 'static,
    {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let job: Atomic = Box::new(move |conn| {
            let result = match conn {
                Ok(conn) => {
                    catch_unwind(AssertUnwindSafe(|| f(conn))).unwrap_or(Err(StoreError::Worker))
                }
                Err(e) => Err(again(e)),
            };
            Ran {
                kept: result.is_ok(),
                answer: Box::new(move |commit| {
                    let _ = answer.send(match (result, commit) {
                        (Ok(_), Err(e)) => Err(again(e)),
                        (result, _) => result,
                    });
                }),
            }
        });
        self.jobs
            .send(Job::Atomic(job))
            .map_err(|_| StoreError::Worker)?;
        answered.await.map_err(|_| StoreError::Worker)?
    }
}

/// The thread: each job in turn, the Network API writes waiting together
/// as one group.
fn serve(conn: &Mutex<Connection>, cache: &Cache, queue: &Receiver<Job>) {
    let mut next = None;
    loop {
        let Some(job) = next.take().or_else(|| queue.recv().ok()) else {
            return;
        };
        // As in `run_here`: SQLite rolled back what a panicking closure left
        // open (a job's own panic is caught in it and never poisons this lock).
        let mut guard = conn.lock().unwrap_or_else(PoisonError::into_inner);
        match job {
            Job::Alone(f) => {
                let reply = {
                    let _bump = Bump(cache);
                    f(&mut guard)
                };
                // The generation has moved on: now the answer may leave.
                reply();
            }
            Job::Atomic(first) => {
                let mut group = vec![first];
                while group.len() < GROUP {
                    match queue.try_recv() {
                        Ok(Job::Atomic(f)) => group.push(f),
                        Ok(alone) => {
                            next = Some(alone);
                            break;
                        }
                        Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
                    }
                }
                let (answers, committed) = {
                    let _bump = Bump(cache);
                    commit_group(&guard, group)
                };
                // The generation has moved on: now the answers may leave.
                for answer in answers {
                    answer(committed.as_ref().map(|_| ()));
                }
            }
        }
    }
}

/// Runs `group` in one transaction, each job in a savepoint, and commits:
/// the answers to send and the commit's outcome.
fn commit_group(
    conn: &Connection,
    group: Vec<Atomic>,
) -> (Vec<Answer>, Result<(), rusqlite::Error>) {
    if let Err(e) = execute(conn, "BEGIN") {
        let answers = group.into_iter().map(|job| job(Err(&e)).answer).collect();
        return (answers, Err(e));
    }
    let answers = group
        .into_iter()
        .map(|job| {
            // A write's failure may have made SQLite roll back the whole
            // transaction (a full disk, an I/O error): the writes after it
            // must not run, or their savepoint would open a transaction of
            // its own and its release commit it, apart from the group.
            if conn.is_autocommit() {
                let gone = transaction_gone();
                let ran = job(Err(&gone));
                failed(ran, gone)
            } else {
                in_savepoint(conn, job)
            }
        })
        .collect();
    let committed = execute(conn, "COMMIT");
    if committed.is_err() {
        // Nothing to tell anyone if it fails too: every answer says the
        // commit failed, and the connection is outside any transaction.
        let _ = conn.execute_batch("ROLLBACK");
    }
    (answers, committed)
}

/// Runs `job` in a savepoint of the open transaction: released if its
/// changes stand, rolled back to otherwise.
fn in_savepoint(conn: &Connection, job: Atomic) -> Answer {
    if let Err(e) = execute(conn, "SAVEPOINT write") {
        let ran = job(Err(&e));
        return failed(ran, e);
    }
    let ran = job(Ok(conn));
    if ran.kept {
        match execute(conn, "RELEASE write") {
            Ok(()) => return ran.answer,
            Err(e) => {
                roll_back(conn);
                return failed(ran, e);
            }
        }
    }
    roll_back(conn);
    ran.answer
}

/// `ran`'s answer, saying `e` whatever the group's commit does: nothing of
/// this write was kept.
fn failed(ran: Ran, e: rusqlite::Error) -> Answer {
    Box::new(move |_| (ran.answer)(Err(&e)))
}

/// Undoes the savepoint's changes and ends it.
fn roll_back(conn: &Connection) {
    // If this fails the transaction itself is gone (SQLite rolled it back),
    // and the commit that follows says so to every write of the group.
    let _ = execute(conn, "ROLLBACK TO write");
    let _ = execute(conn, "RELEASE write");
}

/// What the writes of a group answer when its transaction ended before
/// them: nothing of the group was kept.
fn transaction_gone() -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ABORT),
        Some("the group's transaction was rolled back by an earlier write's failure".to_owned()),
    )
}

/// One statement without parameters, prepared once per connection.
fn execute(conn: &Connection, sql: &str) -> Result<(), rusqlite::Error> {
    conn.prepare_cached(sql)?.execute([])?;
    Ok(())
}

/// `e` once more, for another write of the same group: SQLite's code (what
/// decides whether trying again may help) and message kept.
fn again(e: &rusqlite::Error) -> StoreError {
    StoreError::Sqlite(match e {
        rusqlite::Error::SqliteFailure(code, message) => {
            rusqlite::Error::SqliteFailure(*code, message.clone())
        }
        other => rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ERROR),
            Some(other.to_string()),
        ),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::atomic::{AtomicUsize, Ordering};

    use futures::FutureExt as _;
    use futures::future::BoxFuture;

    use super::super::tests::{hold_writer, on_disk_after};
    use super::super::{Db, Documents as _};
    use super::*;

    /// An on-disk database holding the empty table `t (n)`.
    async fn on_disk_with_a_table() -> (tempfile::TempDir, Db) {
        on_disk_after(|conn| Ok(conn.execute_batch("CREATE TABLE t (n INTEGER)")?)).await
    }

    fn insert(n: i64) -> impl FnOnce(&Connection) -> Result<i64, StoreError> + Send + 'static {
        move |conn| {
            conn.execute("INSERT INTO t VALUES (?1)", [n])?;
            Ok(n)
        }
    }

    async fn rows(db: &Db) -> Vec<i64> {
        db.read(|read| {
            let conn = read.conn()?;
            let mut stmt = conn.prepare("SELECT n FROM t ORDER BY n")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            Ok(rows.collect::<Result<Vec<i64>, _>>()?)
        })
        .await
        .unwrap()
    }

    /// Counts the commits of `db`'s writing connection from now on.
    async fn count_commits(db: &Db) -> Arc<AtomicUsize> {
        let commits = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&commits);
        db.call(move |conn| {
            conn.commit_hook(Some(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                false
            }));
            Ok(())
        })
        .await
        .unwrap();
        commits
    }

    /// Queues `jobs` in order behind the held writing thread, so that the
    /// writes among them wait together, then lets the thread go on: their
    /// answers, in order.
    async fn queued_together<T>(db: &Db, jobs: Vec<BoxFuture<'_, T>>) -> Vec<T> {
        let (release, holder) = hold_writer(db).await;
        let mut queued = Vec::new();
        for mut job in jobs {
            // Polled once: its job is in the queue, behind the held thread.
            assert!(futures::poll!(job.as_mut()).is_pending());
            queued.push(job);
        }
        release.send(()).unwrap();
        let answers = futures::future::join_all(queued).await;
        holder.await.unwrap().unwrap();
        answers
    }

    #[tokio::test]
    async fn writes_waiting_together_are_committed_once() {
        let (_dir, db) = on_disk_with_a_table().await;
        let commits = count_commits(&db).await;

        let answers =
            queued_together(&db, (1..=5).map(|n| db.write(insert(n)).boxed()).collect()).await;

        assert_eq!(
            answers.into_iter().map(Result::unwrap).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
        assert_eq!(commits.load(Ordering::SeqCst), 1);
        assert_eq!(rows(&db).await, [1, 2, 3, 4, 5]);
    }

    #[tokio::test]
    async fn a_write_that_fails_in_a_group_is_rolled_back_alone() {
        let (_dir, db) = on_disk_with_a_table().await;
        let failing = db.write(|conn: &Connection| {
            conn.execute("INSERT INTO t VALUES (2)", [])?;
            Err::<i64, _>(StoreError::Document("refused after writing".to_owned()))
        });

        let answers = queued_together(
            &db,
            vec![
                db.write(insert(1)).boxed(),
                failing.boxed(),
                db.write(insert(3)).boxed(),
            ],
        )
        .await;

        let [first, failing, last] = <[_; 3]>::try_from(answers).unwrap();
        assert_eq!((first.unwrap(), last.unwrap()), (1, 3));
        assert!(
            matches!(failing, Err(StoreError::Document(_))),
            "{failing:?}"
        );
        assert_eq!(rows(&db).await, [1, 3]);
    }

    #[tokio::test]
    async fn a_write_that_panics_in_a_group_is_rolled_back_alone_and_the_thread_goes_on() {
        let (_dir, db) = on_disk_with_a_table().await;
        let panicking = db.write(|conn: &Connection| -> Result<i64, StoreError> {
            conn.execute("INSERT INTO t VALUES (1)", [])?;
            panic!("a resolver's bug")
        });

        let answers =
            queued_together(&db, vec![panicking.boxed(), db.write(insert(2)).boxed()]).await;
        let after = db.write(insert(3)).await;

        let [panicked, next] = <[_; 2]>::try_from(answers).unwrap();
        assert!(matches!(panicked, Err(StoreError::Worker)), "{panicked:?}");
        assert_eq!((next.unwrap(), after.unwrap()), (2, 3));
        assert_eq!(rows(&db).await, [2, 3]);
    }

    #[tokio::test]
    async fn when_a_groups_commit_fails_every_write_of_it_answers_the_failure_and_none_is_kept() {
        // A deferred foreign key is checked at COMMIT only: the second write's
        // orphan passes its own statement and fails the group's commit.
        let (_dir, db) = on_disk_after(|conn| {
            Ok(conn.execute_batch(
                "CREATE TABLE t (n INTEGER);
                 CREATE TABLE parent (id INTEGER PRIMARY KEY);
                 CREATE TABLE child (parent INTEGER
                     REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);",
            )?)
        })
        .await;
        let orphan = db.write(|conn: &Connection| {
            conn.execute("INSERT INTO child VALUES (42)", [])?;
            Ok(42)
        });

        let answers = queued_together(&db, vec![db.write(insert(1)).boxed(), orphan.boxed()]).await;
        let after = db.write(insert(2)).await;

        for failed in &answers {
            let Err(StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _))) = failed else {
                panic!("expected the commit's failure, got {failed:?}");
            };
            assert_eq!(e.code, rusqlite::ErrorCode::ConstraintViolation);
        }
        assert_eq!(after.unwrap(), 2);
        assert_eq!(rows(&db).await, [2]);
    }

    #[tokio::test]
    async fn when_a_groups_transaction_ends_early_no_later_write_of_it_is_kept_apart() {
        let (_dir, db) = on_disk_with_a_table().await;
        // What SQLite does on a full disk or an I/O error: the whole
        // transaction rolled back under the write.
        let ending = db.write(|conn: &Connection| {
            conn.execute_batch("ROLLBACK")?;
            Ok(2)
        });

        let answers = queued_together(
            &db,
            vec![
                db.write(insert(1)).boxed(),
                ending.boxed(),
                db.write(insert(3)).boxed(),
            ],
        )
        .await;

        assert!(answers.iter().all(Result::is_err), "{answers:?}");
        assert_eq!(rows(&db).await, Vec::<i64>::new());
        assert_eq!(db.write(insert(4)).await.unwrap(), 4);
    }

    #[tokio::test]
    async fn a_write_on_disk_moves_the_cache_generation_on() {
        let (_dir, db) = on_disk_with_a_table().await;
        let before = db.cache.generation();

        db.write(insert(1)).await.unwrap();

        assert!(db.cache.generation() > before);
    }

    #[tokio::test]
    async fn a_call_queued_between_writes_runs_alone_outside_their_transaction() {
        let (_dir, db) = on_disk_with_a_table().await;
        let call = db.call(|conn| Ok(i64::from(conn.is_autocommit())));

        let answers = queued_together(
            &db,
            vec![
                db.write(insert(1)).boxed(),
                call.boxed(),
                db.write(insert(2)).boxed(),
            ],
        )
        .await;

        let [write, call, later] = <[_; 3]>::try_from(answers).unwrap();
        assert_eq!((write.unwrap(), later.unwrap()), (1, 2));
        assert_eq!(
            call.unwrap(),
            1,
            "the call ran inside a group's transaction"
        );
    }
}
