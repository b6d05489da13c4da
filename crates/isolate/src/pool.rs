//! The server's side: a pool of worker processes, one job at a time each.
//!
//! A worker that finishes a job cleanly is kept for the next one (so its start-up, e.g. loading
//! OCR models, is paid once); a worker that dies, breaks the protocol, overruns its wall-clock
//! limit or whose caller goes away is killed and never reused. Every child is started with
//! `kill_on_drop`, so a job future dropped half-way (client disconnect, time budget) kills its
//! worker instead of leaving it running without a budget.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::io::BufReader;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Semaphore;

use crate::error::IsolateError;
use crate::frame::{self, Frame};
use crate::worker::{WorkerLimits, WorkerSetup};

/// How a pool starts its workers.
#[derive(Debug, Clone)]
pub struct PoolConfig {
    /// Name in logs and metrics (`planner`, `extraction`).
    pub name: &'static str,
    /// The worker program (usually the server's own executable).
    pub program: PathBuf,
    /// Its arguments (the flag that selects worker mode).
    pub args: Vec<OsString>,
    /// Environment variables set for it, on top of the server's.
    pub env: Vec<(OsString, OsString)>,
    /// Workers at most (jobs beyond wait for one to be free).
    pub workers: usize,
    /// Limits of each worker.
    pub limits: WorkerLimits,
    /// Jobs after which a worker is replaced, so slow leaks in native libraries stay bounded.
    pub jobs_per_worker: u32,
    /// Largest answer a worker may send, bytes.
    pub max_answer_bytes: u64,
}

/// One running worker.
#[derive(Debug)]
struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    jobs: u32,
}

/// A pool of worker processes.
#[derive(Debug)]
pub struct WorkerPool {
    config: PoolConfig,
    permits: Semaphore,
    idle: Mutex<Vec<Worker>>,
}

impl WorkerPool {
    /// A pool that starts workers as jobs need them.
    pub fn new(config: PoolConfig) -> Self {
        let permits = Semaphore::new(config.workers.max(1));
        Self {
            config,
            permits,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// The pool's configuration.
    pub fn config(&self) -> &PoolConfig {
        &self.config
    }

    /// Starts workers until `count` are idle (at most the pool's size), so the first jobs do
    /// not pay the start-up. A worker is only ever started under a permit, so warming never
    /// makes the pool larger than its size: when every permit is taken, the pool is busy
    /// (and so evidently up) and nothing is started.
    pub async fn warm(&self, count: usize) -> Result<(), IsolateError> {
        let wanted = count.min(self.config.workers.max(1));
        while self.idle_len() < wanted {
            let Ok(_permit) = self.permits.try_acquire() else {
                return Ok(());
            };
            let worker = self.spawn().await?;
            self.lock_idle().push(worker);
        }
        Ok(())
    }

    /// Ends every idle worker and waits for it (busy ones end with their jobs): a clean stop,
    /// and the point after which their resource use is accounted to this process's children.
    pub async fn shutdown(&self) {
        let idle: Vec<Worker> = std::mem::take(&mut *self.lock_idle());
        for worker in idle {
            let Worker {
                mut child, stdin, ..
            } = worker;
            // The end of its input is a worker's signal to stop.
            drop(stdin);
            if tokio::time::timeout(Duration::from_secs(5), child.wait())
                .await
                .is_err()
            {
                let _ = child.start_kill();
                let _ = child.wait().await;
            }
        }
    }

    fn idle_len(&self) -> usize {
        self.lock_idle().len()
    }

    fn lock_idle(&self) -> std::sync::MutexGuard<'_, Vec<Worker>> {
        // A poisoned list still holds whole workers: every change is one push or pop.
        self.idle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    async fn spawn(&self) -> Result<Worker, IsolateError> {
        let mut command = Command::new(&self.config.program);
        command
            .args(&self.config.args)
            .envs(self.config.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(IsolateError::Spawn)?;
        let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(IsolateError::Protocol(
                "the worker's pipes are missing".into(),
            ));
        };
        let setup = WorkerSetup {
            limits: self.config.limits,
        };
        frame::write_async(&mut stdin, &setup, &[]).await?;
        tracing::debug!(pool = self.config.name, pid = child.id(), "worker started");
        Ok(Worker {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            jobs: 0,
        })
    }

    /// Runs one job: sends `header` and `blob` to a free worker and returns its answer. The
    /// whole job, waiting for a free worker included, must finish within `wall_clock`. On any
    /// failure the worker is killed; dropping the returned future kills it too.
    pub async fn run<H, A>(
        &self,
        header: &H,
        blob: &[u8],
        wall_clock: Duration,
    ) -> Result<Frame<A>, IsolateError>
    where
        H: Serialize,
        A: DeserializeOwned,
    {
        let started = Instant::now();
        let _permit = tokio::time::timeout(wall_clock, self.permits.acquire())
            .await
            .map_err(|_| IsolateError::Busy(wall_clock))?
            .map_err(|_| IsolateError::Busy(wall_clock))?;
        let idle = self.lock_idle().pop();
        let mut worker = match idle {
            Some(worker) => worker,
            None => self.spawn().await?,
        };
        let remaining = wall_clock.saturating_sub(started.elapsed());
        let exchange = async {
            frame::write_async(&mut worker.stdin, header, blob).await?;
            frame::read_async::<_, A>(&mut worker.stdout, self.config.max_answer_bytes).await
        };
        let outcome = tokio::time::timeout(remaining, exchange).await;
        match outcome {
            Ok(Ok(answer)) => {
                worker.jobs += 1;
                if worker.jobs < self.config.jobs_per_worker {
                    self.lock_idle().push(worker);
                }
                // A retired worker is dropped, and kill_on_drop ends it.
                Ok(answer)
            }
            Ok(Err(error)) => Err(self.bury(worker, error).await),
            Err(_) => {
                let _ = worker.child.start_kill();
                reap(worker.child);
                tracing::warn!(
                    pool = self.config.name,
                    ?wall_clock,
                    "worker killed: job over its wall clock"
                );
                Err(IsolateError::TimedOut(wall_clock))
            }
        }
    }

    /// Ends a worker whose job failed and says how it ended: a dead worker's exit status is
    /// more useful than the broken pipe that revealed it.
    async fn bury(&self, mut worker: Worker, error: IsolateError) -> IsolateError {
        let status = tokio::time::timeout(Duration::from_secs(2), worker.child.wait()).await;
        let described = match status {
            Ok(Ok(status)) => IsolateError::Died {
                how: describe_exit(status),
            },
            _ => {
                let _ = worker.child.start_kill();
                reap(worker.child);
                error
            }
        };
        tracing::warn!(pool = self.config.name, error = %described, "worker lost");
        described
    }
}

/// Waits for a killed child in the background so it does not linger as a zombie.
fn reap(mut child: Child) {
    if let Ok(handle) = tokio::runtime::Handle::try_current() {
        handle.spawn(async move {
            let _ = child.wait().await;
        });
    }
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    match status.signal() {
        Some(signal) => format!("signal {signal} ({})", signal_name(signal)),
        None => status.to_string(),
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        6 => "SIGABRT: abort, e.g. stack overflow or an allocation over the memory limit",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        24 => "SIGXCPU: CPU limit of the job",
        _ => "other",
    }
}
