//! What reading a caller's file in a worker process costs over reading it in the server's own
//! process: the same PDF opened, its pages classified and extracted (`/document`'s whole path
//! after the payment), in process as before and through the planner and extraction pools.
//! The difference is the isolation's overhead per call (docs/benchmarks.md). Each isolated call
//! gets a file the plan cache has not seen, so the planner runs as for a new caller's file.
//!
//! `OMP_THREAD_LIMIT=1 cargo bench -p docs-server --bench isolation`

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use docs_server::DocsConfig;
use docs_server::engines::{OcrRecognizer, PdfCodeScanner};
use docs_server::isolation::Isolation;
use docs_server::jobs::Job;
use docs_server::source::CallerFile;
use ocr_core::engine::{EngineConfig, EnginePool};
use pdf_extract_core::document::{ExtractOptions, extract_document};
use pdf_extract_core::{Limits, PdfDocument};
use test_devnet::fixtures::unseen_copy;

/// The committed invoices: one with a text layer, one scanned (OCR).
const FILES: [&str; 2] = ["zugferd_basic_einfach.pdf", "scanned_invoice.pdf"];

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/pdf")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn in_process(pool: &EnginePool, file: &[u8]) -> usize {
    let document = PdfDocument::load(file, &Limits::DOCUMENT).expect("loads");
    let plan = document.plan(None).expect("plan");
    let options = ExtractOptions {
        workers: pool.size(),
        ..ExtractOptions::default()
    };
    let extraction = extract_document(
        &document,
        &plan,
        &OcrRecognizer::new(pool),
        Some(&PdfCodeScanner::default()),
        &options,
        &AtomicBool::new(false),
    )
    .expect("extracts");
    serde_json::to_vec(&extraction).expect("json").len()
}

/// `file` as a file the plan cache has not seen, so the planner opens it.
fn fresh(file: &[u8], round: u64) -> CallerFile {
    CallerFile::new(unseen_copy(file, &format!("round {round}")))
}

async fn isolated(workers: &Isolation, file: &CallerFile) -> usize {
    let limits = Limits::DOCUMENT;
    let plan = workers
        .plan_pdf(file, limits.max_bytes, limits.max_pages, None, "pdf_base64")
        .await
        .expect("plan");
    let job = Job::Document {
        max_bytes: limits.max_bytes,
        max_pages: limits.max_pages,
        plan,
    };
    workers
        .extract(&job, &file.bytes, Duration::from_secs(60))
        .await
        .expect("extracts")
        .len()
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let pool = EnginePool::new(EngineConfig {
        engines: 1,
        ..EngineConfig::default()
    })
    .expect("engines");
    let mut config = DocsConfig::default();
    config.workers.program = Some(env!("CARGO_BIN_EXE_docs-server").into());
    config.workers.extraction = Some(1);
    config.ocr.engines = Some(1);
    let workers = Isolation::new(&config).expect("pools");
    runtime.block_on(workers.warm()).expect("a worker starts");

    let mut group = c.benchmark_group("document_call");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    for name in FILES {
        let file = fixture(name);
        assert_eq!(
            in_process(&pool, &file),
            runtime.block_on(isolated(&workers, &fresh(&file, 0))),
            "{name}: both paths give the same answer"
        );
        group.bench_function(format!("{name}/in_process"), |b| {
            b.iter(|| in_process(&pool, &file));
        });
        let mut round = 0;
        group.bench_function(format!("{name}/worker_processes"), |b| {
            b.iter_batched(
                || {
                    round += 1;
                    fresh(&file, round)
                },
                |file| runtime.block_on(isolated(&workers, &file)),
                criterion::BatchSize::PerIteration,
            );
        });
    }
    group.finish();
    runtime.block_on(workers.shutdown());
}

criterion_group!(benches, bench);
criterion_main!(benches);
