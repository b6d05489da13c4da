//! The document server's configuration: the shared sections plus per-page prices, time budgets
//! and the scratch directory.

use serde::{Deserialize, Serialize};
use server_kit::config::CommonConfig;

/// Everything `docs.toml` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DocsConfig {
    /// Listen address, payment, facilitator, limits, logs.
    #[serde(flatten)]
    pub common: CommonConfig,
    /// Per-page prices, USDC as decimal strings.
    pub prices: PagePrices,
    /// Time budgets, seconds.
    pub time_budget: TimeBudgets,
    /// Where per-call temporary directories are made (default: the system temp dir).
    #[serde(default)]
    pub temp_dir: Option<String>,
    /// Fetching documents from caller-given URLs.
    #[serde(default)]
    pub fetch: FetchConfig,
    /// The answer cache.
    #[serde(default)]
    pub cache: CacheConfig,
    /// The OCR engines.
    #[serde(default)]
    pub ocr: OcrConfig,
    /// The worker processes that open and read callers' files.
    #[serde(default)]
    pub workers: WorkersConfig,
}

/// The worker processes (docs/decisions.md: why files are read in child processes).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorkersConfig {
    /// The executable started in worker mode (default: this server's own).
    pub program: Option<String>,
    /// Processes doing paid extraction at once, each with `ocr.engines` engines (default: one
    /// per core).
    pub extraction: Option<usize>,
    /// Processes opening files to price them at once.
    pub planners: usize,
    /// Address space of each worker, MiB (`RLIMIT_AS`).
    pub memory_megabytes: u64,
    /// Wall clock for opening a file and classifying its pages before the price, seconds.
    pub plan_seconds: u64,
    /// Jobs after which a worker is replaced.
    pub jobs_per_worker: u32,
    /// Admission control's estimate of one engine's time for an OCR page or picture, seconds
    /// (corrected by measurement at run time; docs/decisions.md, "Admission control").
    pub ocr_page_seconds: f64,
    /// The same for a page read from its text layer, seconds.
    pub text_layer_page_seconds: f64,
}

impl Default for WorkersConfig {
    fn default() -> Self {
        Self {
            program: None,
            extraction: None,
            planners: 2,
            memory_megabytes: 2048,
            plan_seconds: 10,
            jobs_per_worker: 500,
            ocr_page_seconds: 4.0,
            text_layer_page_seconds: 0.3,
        }
    }
}

/// Fetching documents from caller-given URLs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FetchConfig {
    /// Whole fetch, seconds (part of the route's time budget before the price is named).
    pub timeout_seconds: u64,
    /// Allow loopback targets. Only for local demos and tests: never in production.
    pub allow_loopback: bool,
}

impl Default for FetchConfig {
    fn default() -> Self {
        Self {
            timeout_seconds: 20,
            allow_loopback: false,
        }
    }
}

/// The answer cache.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    /// How long an answer is kept, seconds (spec: 86400).
    pub ttl_seconds: u64,
    /// Memory for answers, MiB.
    pub max_megabytes: u64,
}

impl Default for CacheConfig {
    fn default() -> Self {
        Self {
            ttl_seconds: 86_400,
            max_megabytes: 256,
        }
    }
}

/// The OCR engines.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OcrConfig {
    /// Tesseract engines in each extraction worker (default: one per core).
    pub engines: Option<usize>,
    /// Directory of the PP-OCR models (`ch_PP-OCRv4_det_infer.onnx`,
    /// `ch_PP-OCRv4_rec_infer.onnx`; `cargo xtask models` writes them to
    /// `target/models/pp-ocr`, the docs image to `/usr/share/pp-ocr`). With them, pages read
    /// from pixels in English or in no named language are read by the models first
    /// (docs/decisions.md, "A second recogniser"); without them (the default) Tesseract reads
    /// everything.
    pub pp_ocr_models: Option<String>,
}

/// Per-page prices.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PagePrices {
    /// `/document`, a page with a text layer.
    pub document_text_layer_page: String,
    /// `/document`, a page that needs OCR.
    pub document_ocr_page: String,
    /// `/ocr`, the first page.
    pub ocr_first_page: String,
    /// `/ocr`, each further page.
    pub ocr_further_page: String,
}

/// Time budgets per route.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeBudgets {
    /// `/document`.
    pub document_seconds: u64,
    /// `/ocr`.
    pub ocr_seconds: u64,
}

impl Default for DocsConfig {
    fn default() -> Self {
        let mut common = CommonConfig::with_listen("127.0.0.1:8402").with_state_prefix("docs");
        // Documents are sent inline as base64; the largest accepted file is checked per route.
        common.limits.max_body_bytes = 30 * 1024 * 1024;
        Self {
            common,
            prices: PagePrices {
                document_text_layer_page: "0.02".into(),
                document_ocr_page: "0.05".into(),
                ocr_first_page: "0.006".into(),
                ocr_further_page: "0.002".into(),
            },
            time_budget: TimeBudgets {
                document_seconds: 60,
                ocr_seconds: 85,
            },
            temp_dir: None,
            fetch: FetchConfig::default(),
            cache: CacheConfig::default(),
            ocr: OcrConfig::default(),
            workers: WorkersConfig::default(),
        }
    }
}

impl DocsConfig {
    /// The longest time budget of the routes (`/document` or `/ocr`), from which the drain
    /// after SIGTERM is derived (server-kit `CommonConfig::drain`).
    pub fn longest_budget(&self) -> std::time::Duration {
        let budgets = &self.time_budget;
        std::time::Duration::from_secs(budgets.document_seconds.max(budgets.ocr_seconds))
    }
}
