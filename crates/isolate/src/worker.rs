//! The worker's side: limits applied to itself before any untrusted input arrives, then one job
//! after another read from standard input and answered on standard output.
//!
//! Standard output is the protocol: the worker keeps a private copy of it and points its own
//! standard output at standard error, so a native library that prints cannot corrupt a frame.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::process::ExitCode;

use rustix::process::{Resource, Rlimit, Signal, getrlimit, setrlimit};
use rustix::time::{ClockId, clock_gettime};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::IsolateError;
use crate::frame::{self, Frame};

/// Limits every worker of a pool runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct WorkerLimits {
    /// `RLIMIT_AS`: the most address space the worker may map, bytes. An allocation past it
    /// fails and the worker aborts.
    pub address_space_bytes: Option<u64>,
    /// CPU seconds one job may use (all its threads together); the kernel stops the worker
    /// with `SIGXCPU` past it.
    pub cpu_seconds_per_job: Option<u64>,
}

/// The first frame a worker receives: how to limit itself.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(crate) struct WorkerSetup {
    pub(crate) limits: WorkerLimits,
}

/// Largest request a worker accepts (the caller's file travels in it).
const MAX_REQUEST_BYTES: u64 = 512 * 1024 * 1024;

/// Serves jobs until the server closes the pipe: `handle` gets each request's header and blob
/// and returns the answer's. Returns the process's exit code; call it from `main` when the
/// program was started as a worker.
pub fn serve<H, A, F>(mut handle: F) -> ExitCode
where
    H: DeserializeOwned,
    A: Serialize,
    F: FnMut(H, Vec<u8>) -> Frame<A>,
{
    match serve_inner(&mut handle) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("worker: {error}");
            ExitCode::FAILURE
        }
    }
}

fn serve_inner<H, A, F>(handle: &mut F) -> Result<(), IsolateError>
where
    H: DeserializeOwned,
    A: Serialize,
    F: FnMut(H, Vec<u8>) -> Frame<A>,
{
    // Die with the server: a worker must never outlive the process that bounds it.
    rustix::process::set_parent_process_death_signal(Some(Signal::KILL))
        .map_err(|e| IsolateError::Io(e.into()))?;
    let protocol_out = File::from(rustix::io::dup(std::io::stdout()).map_err(io)?);
    rustix::stdio::dup2_stdout(std::io::stderr()).map_err(io)?;
    // No core files of customers' documents.
    setrlimit(
        Resource::Core,
        Rlimit {
            current: Some(0),
            maximum: Some(0),
        },
    )
    .map_err(io)?;

    let mut input = BufReader::new(std::io::stdin().lock());
    let mut output = BufWriter::new(protocol_out);
    let Some(Frame { header: setup, .. }) = frame::read_blocking::<_, WorkerSetup>(&mut input, 0)?
    else {
        return Ok(());
    };
    if let Some(bytes) = setup.limits.address_space_bytes {
        setrlimit(
            Resource::As,
            Rlimit {
                current: Some(bytes),
                maximum: Some(bytes),
            },
        )
        .map_err(io)?;
    }
    while let Some(request) = frame::read_blocking::<_, H>(&mut input, MAX_REQUEST_BYTES)? {
        if let Some(seconds) = setup.limits.cpu_seconds_per_job {
            limit_cpu_from_now(seconds)?;
        }
        let answer = handle(request.header, request.blob);
        frame::write_blocking(&mut output, &answer.header, &answer.blob)?;
    }
    Ok(())
}

/// `RLIMIT_CPU` counts the whole life of the process, so each job moves the soft limit to the
/// CPU time used so far plus the job's allowance (a process may move its soft limit freely up
/// to the hard one, which stays as it was).
fn limit_cpu_from_now(seconds: u64) -> Result<(), IsolateError> {
    let used = clock_gettime(ClockId::ProcessCPUTime);
    let used_seconds = u64::try_from(used.tv_sec).unwrap_or(0) + 1;
    let hard = getrlimit(Resource::Cpu).maximum;
    let wanted = used_seconds.saturating_add(seconds);
    let current = hard.map_or(wanted, |hard| wanted.min(hard));
    setrlimit(
        Resource::Cpu,
        Rlimit {
            current: Some(current),
            maximum: hard,
        },
    )
    .map_err(io)
}

fn io(error: rustix::io::Errno) -> IsolateError {
    IsolateError::Io(error.into())
}
