//! The pool against a worker that misbehaves on request: every way a hostile input can end a
//! worker costs that job an error, and the next job is served by a fresh worker.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use isolate::{Frame, IsolateError, PoolConfig, WorkerLimits, WorkerPool};

fn pool(workers: usize, limits: WorkerLimits) -> WorkerPool {
    WorkerPool::new(PoolConfig {
        name: "test",
        program: PathBuf::from(env!("CARGO_BIN_EXE_isolate-test-worker")),
        args: Vec::new(),
        env: Vec::new(),
        workers,
        limits,
        jobs_per_worker: 1000,
        max_answer_bytes: 64 * 1024 * 1024,
    })
}

fn limited() -> WorkerLimits {
    WorkerLimits {
        address_space_bytes: Some(512 * 1024 * 1024),
        cpu_seconds_per_job: Some(2),
    }
}

const MINUTE: Duration = Duration::from_secs(60);

async fn ask(
    pool: &WorkerPool,
    command: &str,
    blob: &[u8],
    wall: Duration,
) -> Result<Frame<String>, IsolateError> {
    pool.run(&command.to_owned(), blob, wall).await
}

async fn pid(pool: &WorkerPool) -> String {
    ask(pool, "pid", &[], MINUTE).await.expect("pid").header
}

#[tokio::test]
async fn answers_and_keeps_the_worker_for_the_next_job() {
    let pool = pool(1, limited());
    let blob = vec![42u8; 3 * 1024 * 1024];
    let answer = ask(&pool, "echo", &blob, MINUTE).await.expect("echo");
    assert_eq!(answer.header, "echo");
    assert_eq!(answer.blob, blob);
    assert_eq!(
        pid(&pool).await,
        pid(&pool).await,
        "one worker served both jobs"
    );
}

#[tokio::test]
async fn printing_on_standard_output_does_not_break_the_protocol() {
    let pool = pool(1, limited());
    let answer = ask(&pool, "stdout", b"kept", MINUTE).await.expect("answer");
    assert_eq!(
        (answer.header.as_str(), answer.blob.as_slice()),
        ("printed", &b"kept"[..])
    );
}

#[tokio::test]
async fn a_stack_overflow_ends_the_worker_not_the_pool() {
    let pool = pool(1, limited());
    let before = pid(&pool).await;
    let error = ask(&pool, "recurse", &[], MINUTE)
        .await
        .expect_err("overflow");
    assert!(matches!(error, IsolateError::Died { .. }), "{error}");
    let after = pid(&pool).await;
    assert_ne!(before, after, "a fresh worker serves the next job");
}

#[tokio::test]
async fn an_allocation_past_the_address_space_limit_ends_the_worker() {
    let pool = pool(1, limited());
    let error = ask(&pool, "allocate", &[], MINUTE)
        .await
        .expect_err("out of memory");
    assert!(matches!(error, IsolateError::Died { .. }), "{error}");
    assert_eq!(
        ask(&pool, "echo", b"x", MINUTE).await.expect("next").blob,
        b"x"
    );
}

#[tokio::test]
async fn a_spinning_job_is_stopped_by_its_cpu_limit() {
    let pool = pool(1, limited());
    let started = Instant::now();
    let error = ask(&pool, "spin", &[], MINUTE).await.expect_err("spins");
    assert!(
        matches!(&error, IsolateError::Died { how } if how.contains("SIGXCPU")),
        "{error}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "stopped near its 2 s of CPU"
    );
}

#[tokio::test]
async fn a_job_over_its_wall_clock_is_killed() {
    let pool = pool(1, limited());
    let worker = pid(&pool).await;
    let error = ask(&pool, "sleep", &[], Duration::from_millis(300))
        .await
        .expect_err("sleeps");
    assert!(matches!(error, IsolateError::TimedOut(_)), "{error}");
    assert_ne!(pid(&pool).await, worker);
    // SIGKILL is sent on the timeout; on a loaded machine the process takes a moment to go.
    let deadline = Instant::now() + Duration::from_secs(10);
    while process_alive(&worker) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!process_alive(&worker), "the sleeping worker was killed");
}

#[tokio::test]
async fn a_dropped_job_kills_its_worker() {
    let pool = pool(1, limited());
    let worker = pid(&pool).await;
    // The caller goes away (client disconnect): the job future is dropped mid-job.
    let gone =
        tokio::time::timeout(Duration::from_millis(200), ask(&pool, "sleep", &[], MINUTE)).await;
    assert!(gone.is_err());
    let deadline = Instant::now() + Duration::from_secs(5);
    while process_alive(&worker) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!process_alive(&worker), "the abandoned worker was killed");
    assert_ne!(pid(&pool).await, worker);
}

#[tokio::test]
async fn jobs_wait_for_a_free_worker_within_their_wall_clock() {
    let pool = std::sync::Arc::new(pool(1, limited()));
    let busy = {
        let pool = pool.clone();
        tokio::spawn(async move { ask(&pool, "sleep", &[], Duration::from_secs(2)).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let error = ask(&pool, "echo", b"x", Duration::from_millis(200))
        .await
        .expect_err("no worker free");
    assert!(matches!(error, IsolateError::Busy(_)), "{error}");
    assert!(matches!(
        busy.await.expect("join"),
        Err(IsolateError::TimedOut(_))
    ));
    assert_eq!(
        ask(&pool, "echo", b"y", MINUTE)
            .await
            .expect("free again")
            .blob,
        b"y"
    );
}

/// Alive and not a zombie.
fn process_alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .split(") ")
            .nth(1)
            .is_some_and(|rest| rest.starts_with('Z'))
    })
}

#[tokio::test]
async fn warming_never_grows_the_pool_past_its_size() {
    let pool = std::sync::Arc::new(pool(1, limited()));
    let busy = {
        let pool = pool.clone();
        tokio::spawn(async move { ask(&pool, "sleep", &[], Duration::from_millis(500)).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    // The one worker is busy: warming starts nothing and still succeeds.
    pool.warm(1).await.expect("warm");
    let _ = busy.await;
    pool.warm(1).await.expect("warm");
    let first = pid(&pool).await;
    assert_eq!(pid(&pool).await, first, "one worker, reused");
}
