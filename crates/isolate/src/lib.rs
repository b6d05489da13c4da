//! Untrusted work in child processes.
//!
//! A caller's file can make a parser recurse until the stack overflows, allocate until the
//! machine swaps, or loop forever; none of that can be caught inside the process that does it
//! (`catch_unwind` sees panics only). This crate runs such work in a pool of child processes
//! (usually the server's own executable started in a worker mode) that limit themselves before
//! reading any input: an address-space limit (`RLIMIT_AS`), a CPU-time limit per job
//! (`RLIMIT_CPU`), no core files, and death with the parent. The server adds a wall-clock limit
//! per job and kills the worker when it runs out or when the caller goes away. A worker that
//! dies costs one job an error and the pool one restart; the server lives on.
//!
//! - [`WorkerPool`] (server side): `run(header, blob, wall_clock)`.
//! - [`worker::serve`] (worker side): the loop a worker's `main` calls.
//!
//! Requests and answers are [`Frame`]s: a serde header and an opaque blob.

mod error;
pub mod frame;
mod pool;
pub mod worker;

pub use error::IsolateError;
pub use frame::Frame;
pub use pool::{PoolConfig, WorkerPool};
pub use worker::WorkerLimits;
