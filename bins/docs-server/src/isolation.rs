//! The server's side of the worker processes: two pools of the server's own executable started
//! in worker mode. Planners open and classify files to name a price (before payment, so they
//! get a short wall clock and no OCR engines); extraction workers do the paid work with their
//! Tesseract engines loaded. A worker's death is one call's 422, never the server's.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use isolate::{Frame, IsolateError, PoolConfig, WorkerLimits, WorkerPool};
use server_kit::config::ConfigError;
use server_kit::{ApiError, ErrorCode};

use crate::admission::WorkQueue;
use crate::config::DocsConfig;
use crate::jobs::{Job, Outcome, PlannedPage};
use crate::requests::OcrMime;
use crate::source::{CallerFile, FileDigest};
use crate::worker::{ENGINES_ARG, PP_OCR_ARG, WORKER_ARG};

/// Largest answer a worker may send (the gate buffers at most 64 MiB).
const MAX_ANSWER_BYTES: u64 = 64 * 1024 * 1024;

/// Planner answers kept (each a few hundred bytes at most: page numbers and kinds, or a refusal).
const PLAN_CACHE_ENTRIES: u64 = 16_384;

/// How long a planner's answer is reused. The x402 flow sends every paid request twice (unpaid
/// for its 402, then paid), and a plan is a pure function of the bytes and the job.
const PLAN_CACHE_TTL: Duration = Duration::from_secs(3600);

/// The configured PP-OCR model directory, checked here so a wrong path stops the server at
/// start rather than every worker at its first job.
fn pp_ocr_models(config: &DocsConfig) -> Result<Option<PathBuf>, ConfigError> {
    let Some(dir) = &config.ocr.pp_ocr_models else {
        return Ok(None);
    };
    // Absolute, so a worker started elsewhere finds the same files.
    let dir = std::fs::canonicalize(dir)
        .map_err(|e| ConfigError::Invalid(format!("ocr.pp_ocr_models: {dir}: {e}")))?;
    for name in [pp_ocr::DETECTION_MODEL, pp_ocr::RECOGNITION_MODEL] {
        if !dir.join(name).is_file() {
            return Err(ConfigError::Invalid(format!(
                "ocr.pp_ocr_models: {} has no {name} (`cargo xtask models` installs the models)",
                dir.display()
            )));
        }
    }
    Ok(Some(dir))
}

/// The two pools.
#[derive(Debug)]
pub struct Isolation {
    planner: WorkerPool,
    extraction: WorkerPool,
    plan_wall_clock: Duration,
    installed_languages: Vec<String>,
    pp_ocr: bool,
    queue: std::sync::Arc<WorkQueue>,
    /// What planners answered, by job and file digest: a repeated file is priced without a
    /// process.
    plans: moka::future::Cache<(Job, FileDigest), Outcome>,
}

impl Isolation {
    /// Pools as `config` says; no process is started until a job or `warm` needs one.
    pub fn new(config: &DocsConfig) -> Result<Self, ConfigError> {
        let workers = &config.workers;
        let program = match &workers.program {
            Some(path) => PathBuf::from(path),
            None => std::env::current_exe()
                .map_err(|e| ConfigError::Invalid(format!("workers.program: {e}")))?,
        };
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let engines = config.ocr.engines.unwrap_or(cores).max(1);
        let address_space = workers.memory_megabytes.saturating_mul(1024 * 1024);
        // Tesseract's OpenMP threads fight the page loop, which already runs one page per
        // engine; fewer malloc arenas keep the address-space limit
        // about memory rather than reservations.
        let mut env: Vec<(OsString, OsString)> = vec![
            ("OMP_THREAD_LIMIT".into(), "1".into()),
            ("MALLOC_ARENA_MAX".into(), "2".into()),
        ];
        if let Some(dir) = &config.temp_dir {
            env.push(("TMPDIR".into(), dir.into()));
        }
        let longest_budget = config
            .time_budget
            .document_seconds
            .max(config.time_budget.ocr_seconds);
        let pool = |name, args: Vec<OsString>, workers_count, cpu_seconds| {
            WorkerPool::new(PoolConfig {
                name,
                program: program.clone(),
                args,
                env: env.clone(),
                workers: workers_count,
                limits: WorkerLimits {
                    address_space_bytes: Some(address_space),
                    cpu_seconds_per_job: Some(cpu_seconds),
                },
                jobs_per_worker: workers.jobs_per_worker.max(1),
                max_answer_bytes: MAX_ANSWER_BYTES,
            })
        };
        let planner = pool(
            "planner",
            vec![WORKER_ARG.into()],
            workers.planners.max(1),
            workers.plan_seconds + 1,
        );
        let extraction_workers = workers.extraction.unwrap_or(cores).max(1);
        let mut extraction_args: Vec<OsString> = vec![
            WORKER_ARG.into(),
            ENGINES_ARG.into(),
            engines.to_string().into(),
        ];
        if let Some(dir) = pp_ocr_models(config)? {
            extraction_args.push(PP_OCR_ARG.into());
            extraction_args.push(dir.into_os_string());
        }
        let extraction = pool(
            "extraction",
            extraction_args,
            extraction_workers,
            // Every engine may be busy for the whole budget.
            longest_budget.saturating_mul(engines as u64) + 5,
        );
        Ok(Self {
            planner,
            extraction,
            plan_wall_clock: Duration::from_secs(workers.plan_seconds.max(1)),
            installed_languages: ocr_core::engine::installed_languages(None),
            pp_ocr: config.ocr.pp_ocr_models.is_some(),
            queue: std::sync::Arc::new(WorkQueue::new(
                extraction_workers,
                engines,
                workers.ocr_page_seconds,
                workers.text_layer_page_seconds,
            )),
            plans: moka::future::Cache::builder()
                .max_capacity(PLAN_CACHE_ENTRIES)
                .time_to_live(PLAN_CACHE_TTL)
                .build(),
        })
    }

    /// Whether the extraction workers read with the PP-OCR models.
    pub fn pp_ocr(&self) -> bool {
        self.pp_ocr
    }

    /// The extraction workers' queue, for admission control.
    pub fn queue(&self) -> &std::sync::Arc<WorkQueue> {
        &self.queue
    }

    /// Checks that languages a caller names are installed, without starting Tesseract.
    pub fn check_languages(&self, languages: &[String]) -> Result<String, ocr_core::OcrError> {
        ocr_core::engine::check_languages_against(&self.installed_languages, languages)
    }

    /// Starts one extraction worker (which loads the OCR models) if none is idle: readiness.
    pub async fn warm(&self) -> Result<(), IsolateError> {
        self.extraction.warm(1).await
    }

    /// Ends the idle workers of both pools and waits for them.
    pub async fn shutdown(&self) {
        self.planner.shutdown().await;
        self.extraction.shutdown().await;
    }

    /// Opens a PDF and classifies its selected pages, in a planner.
    pub async fn plan_pdf(
        &self,
        file: &CallerFile,
        max_bytes: usize,
        max_pages: u32,
        pages: Option<String>,
        field: &str,
    ) -> Result<Vec<PlannedPage>, ApiError> {
        let job = Job::PlanPdf {
            max_bytes,
            max_pages,
            pages,
            field: field.to_owned(),
        };
        match self.plan(&job, file).await? {
            Outcome::Planned { pages } => Ok(pages),
            other => Err(unexpected(&other)),
        }
    }

    /// Checks a picture's header, in a planner.
    pub async fn probe_image(
        &self,
        file: &CallerFile,
        mime: OcrMime,
        field: &str,
    ) -> Result<(), ApiError> {
        let job = Job::ProbeImage {
            mime,
            field: field.to_owned(),
        };
        match self.plan(&job, file).await? {
            Outcome::Probed => Ok(()),
            other => Err(unexpected(&other)),
        }
    }

    /// A planner's answer for `job` over `file`: from the plan cache, or from a planner process.
    /// Only what a planner answered is kept (plans and refusals both follow from the bytes);
    /// a planner that died, timed out or was busy is tried again next time.
    async fn plan(&self, job: &Job, file: &CallerFile) -> Result<Outcome, ApiError> {
        let key = (job.clone(), file.digest);
        let outcome = match self.plans.get(&key).await {
            Some(outcome) => {
                metrics::counter!("plans_total", "source" => "cache").increment(1);
                outcome
            }
            None => {
                metrics::counter!("plans_total", "source" => "planner").increment(1);
                let answer: Frame<Outcome> = self
                    .planner
                    .run(job, &file.bytes, self.plan_wall_clock)
                    .await
                    .map_err(|e| planning_failure(&e, self.plan_wall_clock))?;
                self.plans.insert(key, answer.header.clone()).await;
                answer.header
            }
        };
        match outcome {
            Outcome::Refused(refusal) => Err(refusal.into_api_error()),
            other => Ok(other),
        }
    }

    /// Runs a paid job in an extraction worker and returns the answer's JSON. The worker is
    /// killed when `wall_clock` runs out or when the returned future is dropped.
    pub async fn extract(
        &self,
        job: &Job,
        file: &[u8],
        wall_clock: Duration,
    ) -> Result<Vec<u8>, ApiError> {
        let answer: Frame<Outcome> = self
            .extraction
            .run(job, file, wall_clock)
            .await
            .map_err(|e| work_failure(&e))?;
        match answer.header {
            Outcome::Done => Ok(answer.blob),
            Outcome::Refused(refusal) => Err(refusal.into_api_error()),
            other => Err(unexpected(&other)),
        }
    }
}

/// Counts a worker the pool ended during a job in `worker_restarts_total{pool, reason}`: it
/// died, outlasted its wall clock, or broke the protocol, and a fresh process takes its place
/// on the next job. (Workers retired after `jobs_per_worker` clean jobs are not counted.)
fn count_restart(pool: &'static str, error: &IsolateError) {
    let reason = match error {
        IsolateError::Died { .. } => "died",
        IsolateError::TimedOut(_) => "timed_out",
        IsolateError::Io(_) | IsolateError::Protocol(_) => "lost",
        // Nothing was started or ended: no worker to replace.
        _ => return,
    };
    metrics::counter!("worker_restarts_total", "pool" => pool, "reason" => reason).increment(1);
}

/// Before the price: a file that kills or outlasts a planner cannot be priced.
fn planning_failure(error: &IsolateError, wall_clock: Duration) -> ApiError {
    count_restart("planner", error);
    match error {
        IsolateError::Died { .. } => {
            tracing::warn!(%error, "a file ended the planner opening it");
            ApiError::new(
                ErrorCode::ExtractionFailed,
                "the file could not be opened: reading it exhausted the limits of the process that opened it",
            )
        }
        IsolateError::TimedOut(_) => ApiError::new(
            ErrorCode::ExtractionFailed,
            format!(
                "the file could not be opened: classifying its pages took longer than {} s",
                wall_clock.as_secs()
            ),
        ),
        IsolateError::Busy(_) => busy(),
        _ => internal(error),
    }
}

/// During the paid work (never settled: every error here is answered before the settlement).
fn work_failure(error: &IsolateError) -> ApiError {
    count_restart("extraction", error);
    match error {
        IsolateError::Died { .. } => {
            tracing::warn!(%error, "a file ended the worker extracting it");
            ApiError::new(
                ErrorCode::ExtractionFailed,
                "the document could not be read: reading it exhausted the limits of the process that read it; nothing was charged",
            )
        }
        IsolateError::TimedOut(_) => cancelled(),
        IsolateError::Busy(_) => busy(),
        _ => internal(error),
    }
}

fn busy() -> ApiError {
    ApiError::new(
        ErrorCode::TimeBudgetExceeded,
        "every worker stayed busy for the whole time budget; try again; nothing was charged",
    )
}

fn internal(error: &IsolateError) -> ApiError {
    tracing::error!(%error, "worker pool failure");
    ApiError::new(
        ErrorCode::Internal,
        "the document workers could not be reached; nothing was charged",
    )
}

fn unexpected(outcome: &Outcome) -> ApiError {
    tracing::error!(?outcome, "a worker answered out of turn");
    ApiError::new(
        ErrorCode::Internal,
        "a document worker answered out of turn",
    )
}

/// The error for work stopped by the time budget (the gate answers 504 itself when the budget
/// runs out; this is what the work says if it notices first).
pub(crate) fn cancelled() -> ApiError {
    ApiError::new(
        ErrorCode::TimeBudgetExceeded,
        "the work ran out of time; nothing was charged",
    )
}
