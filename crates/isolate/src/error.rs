//! The one error of this crate.

use std::time::Duration;

/// Why a job gave no answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IsolateError {
    /// The worker program could not be started.
    #[error("the worker could not be started: {0}")]
    Spawn(#[source] std::io::Error),
    /// Reading from or writing to the worker failed (it usually died meanwhile).
    #[error("talking to the worker failed: {0}")]
    Io(#[from] std::io::Error),
    /// A frame broke the protocol (bad header, length over the limit).
    #[error("the worker protocol was broken: {0}")]
    Protocol(String),
    /// The worker ended in the middle of a job: a crash, a stack overflow, an allocation over
    /// its address-space limit, or its CPU limit.
    #[error("the worker ended during the job ({how})")]
    Died {
        /// How it ended (`signal 6 (SIGABRT)`, `exit status 101`).
        how: String,
    },
    /// The job did not finish within its wall-clock limit; the worker was killed.
    #[error("the job did not finish within {0:?}; the worker was killed")]
    TimedOut(Duration),
    /// No worker became free within the job's wall-clock limit.
    #[error("no worker became free within {0:?}")]
    Busy(Duration),
}
