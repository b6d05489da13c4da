//! The pool of engines: one page per engine at a time, pages of a batch in parallel on a scoped
//! rayon pool, results in input order.

use super::*;

/// Engines, handed to one thread at a time.
struct PoolState {
    idle: Vec<OcrEngine>,
    /// Engines handed out and not yet returned.
    busy: usize,
}

/// A pool of Tesseract engines, one per core by default. Engines are created with the pool's
/// languages up front (so readiness means the models load); a request for other installed
/// languages re-starts an idle engine with them.
pub struct EnginePool {
    state: Mutex<PoolState>,
    returned: Condvar,
    size: usize,
    languages: Vec<String>,
    installed: Vec<String>,
    tessdata_dir: Option<PathBuf>,
    pp_ocr: Option<pp_ocr::PpOcr>,
}

impl std::fmt::Debug for EnginePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnginePool")
            .field("size", &self.size)
            .field("languages", &self.languages)
            .field("installed", &self.installed)
            .finish()
    }
}

/// An engine on loan; it goes back to the pool when dropped, whatever happened meanwhile.
struct Loan<'p> {
    pool: &'p EnginePool,
    engine: Option<OcrEngine>,
}

impl Drop for Loan<'_> {
    fn drop(&mut self) {
        let mut state = self.pool.lock();
        state.busy = state.busy.saturating_sub(1);
        if let Some(engine) = self.engine.take() {
            state.idle.push(engine);
        }
        drop(state);
        self.pool.returned.notify_one();
    }
}

impl EnginePool {
    /// Starts `config.engines` engines (at least one) with `config.languages`, after checking
    /// that every language is installed.
    pub fn new(config: EngineConfig) -> Result<Self, OcrError> {
        let tessdata_dir = config.tessdata_dir.clone();
        let installed = installed_languages_in(
            &tessdata_dir
                .clone()
                .or_else(default_tessdata_dir)
                .unwrap_or_default(),
        );
        let mut pool = Self {
            state: Mutex::new(PoolState {
                idle: Vec::new(),
                busy: 0,
            }),
            returned: Condvar::new(),
            size: config.engines.max(1),
            languages: Vec::new(),
            installed,
            tessdata_dir,
            pp_ocr: config
                .pp_ocr_models
                .as_deref()
                .map(pp_ocr::PpOcr::load)
                .transpose()?
                .map(|models| models.with_threads(config.pp_ocr_threads)),
        };
        let languages = if config.languages.is_empty() {
            DEFAULT_LANGUAGES.iter().map(|s| (*s).to_owned()).collect()
        } else {
            config.languages
        };
        let joined = pool.check_languages(&languages)?;
        pool.languages = languages;
        let mut idle = Vec::with_capacity(pool.size);
        for _ in 0..pool.size {
            idle.push(OcrEngine::new(pool.tessdata_dir.as_deref(), &joined)?);
        }
        pool.lock().idle = idle;
        tracing::info!(engines = pool.size, languages = %joined, "Tesseract pool started");
        Ok(pool)
    }

    /// The PP-OCR models, when the pool was configured with them.
    pub fn pp_ocr(&self) -> Option<&pp_ocr::PpOcr> {
        self.pp_ocr.as_ref()
    }

    /// Number of engines.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The languages used when a request names none.
    pub fn languages(&self) -> &[String] {
        &self.languages
    }

    /// The languages installed in the tessdata directory (empty when it could not be found;
    /// Tesseract then decides at start-up).
    pub fn installed_languages(&self) -> &[String] {
        &self.installed
    }

    /// Checks that every language is a language code and installed; returns them `+`-joined.
    pub fn check_languages(&self, languages: &[String]) -> Result<String, OcrError> {
        check_languages_against(&self.installed, languages)
    }

    fn lock(&self) -> MutexGuard<'_, PoolState> {
        // A panic while holding the lock cannot leave the state inconsistent (push/pop and a
        // counter), so a poisoned lock is still usable.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes an engine started with `languages`, waiting for one to come back if all are busy.
    fn checkout(&self, languages: &str) -> Result<Loan<'_>, OcrError> {
        let mut state = self.lock();
        loop {
            if let Some(i) = state.idle.iter().position(|e| e.languages == languages) {
                let engine = state.idle.swap_remove(i);
                state.busy += 1;
                return Ok(Loan {
                    pool: self,
                    engine: Some(engine),
                });
            }
            if let Some(stale) = state.idle.pop() {
                // Re-start an idle engine with the other languages, outside the lock.
                state.busy += 1;
                drop(state);
                drop(stale);
                let mut loan = Loan {
                    pool: self,
                    engine: None,
                };
                loan.engine = Some(OcrEngine::new(self.tessdata_dir.as_deref(), languages)?);
                return Ok(loan);
            }
            if state.idle.len() + state.busy < self.size {
                // An engine was lost to a failed re-start: make a new one.
                state.busy += 1;
                drop(state);
                let mut loan = Loan {
                    pool: self,
                    engine: None,
                };
                loan.engine = Some(OcrEngine::new(self.tessdata_dir.as_deref(), languages)?);
                return Ok(loan);
            }
            state = self
                .returned
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    /// Recognises one page on a free engine (waiting for one if all are busy).
    pub fn recognize(
        &self,
        image: PixelBuffer<'_>,
        request: &PageRequest,
    ) -> Result<Page, OcrError> {
        let languages = if request.languages.is_empty() {
            self.languages.join("+")
        } else {
            self.check_languages(&request.languages)?
        };
        let mut loan = self.checkout(&languages)?;
        let engine = loan
            .engine
            .as_mut()
            .ok_or_else(|| OcrError::Recognition("no engine".into()))?;
        let started = std::time::Instant::now();
        let page = engine.recognize(image, request);
        tracing::debug!(
            page = request.page,
            ms = started.elapsed().as_millis() as u64,
            ok = page.is_ok(),
            "page recognised"
        );
        page
    }

    /// Runs `work` with a free engine started with `languages` (the pool's when empty),
    /// waiting for one if all are busy. For work that first produces the pixels (rendering a
    /// PDF page, decoding a picture): producing them only once an engine is held means a
    /// page never waits in memory for an engine, so memory grows with the engines and not
    /// with the calls waiting for them.
    pub fn with_free_engine<R>(
        &self,
        languages: &[String],
        work: impl FnOnce(&mut OcrEngine) -> R,
    ) -> Result<R, OcrError> {
        let languages = if languages.is_empty() {
            self.languages.join("+")
        } else {
            self.check_languages(languages)?
        };
        let mut loan = self.checkout(&languages)?;
        let engine = loan
            .engine
            .as_mut()
            .ok_or_else(|| OcrError::Recognition("no engine".into()))?;
        Ok(work(engine))
    }

    /// Recognises several pages in parallel, one page per engine at a time, and returns the
    /// results in input order. `cancel` is checked before each page: once it is set, pages not
    /// yet started come back as [`OcrError::Cancelled`] (pages under way finish first).
    pub fn recognize_batch(
        &self,
        pages: &[(PixelBuffer<'_>, PageRequest)],
        cancel: &AtomicBool,
    ) -> Vec<Result<Page, OcrError>> {
        in_order(pages, self.size, cancel, |(image, request)| {
            self.recognize(*image, request)
        })
        .into_iter()
        .map(|result| result.unwrap_or(Err(OcrError::Cancelled)))
        .collect()
    }
}

/// Runs `work` on every item on a scoped rayon pool of at most `workers` threads, results in
/// input order. An item not started before `cancel` was set gives `None` (recognition cannot
/// be interrupted in the middle of a page, so the time budget stops it between pages). Should
/// the system refuse the threads, the items run one after the other on this one.
pub(crate) fn in_order<T, R, F>(
    items: &[T],
    workers: usize,
    cancel: &AtomicBool,
    work: F,
) -> Vec<Option<R>>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync + Send,
{
    use rayon::prelude::*;
    let one = |item: &T| (!cancel.load(Ordering::Relaxed)).then(|| work(item));
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers.clamp(1, items.len().max(1)))
        .build_scoped(
            |thread| thread.run(),
            // One item per task, so that a slow page does not hold back the ones behind it.
            |pool| pool.install(|| items.par_iter().with_max_len(1).map(one).collect()),
        )
        .unwrap_or_else(|_| items.iter().map(one).collect())
}
