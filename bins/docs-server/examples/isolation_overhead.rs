//! The isolation's overhead on a busy machine: a `/document` call in process and through the
//! worker pools, alternated 15 times, minimum and median of each (the minimum is what
//! contention from other processes cannot inflate; criterion's means are in
//! `benches/isolation.rs`).
//!
//! `cargo build --release -p docs-server --example isolation_overhead --bin docs-server &&
//! OMP_THREAD_LIMIT=1 target/release/examples/isolation_overhead FILE.pdf target/release/docs-server`

#![allow(clippy::unwrap_used, missing_docs)]

use docs_server::DocsConfig;
use docs_server::engines::{OcrRecognizer, PdfCodeScanner};
use docs_server::isolation::Isolation;
use docs_server::jobs::Job;
use docs_server::source::CallerFile;
use ocr_core::engine::{EngineConfig, EnginePool};
use pdf_extract_core::document::{ExtractOptions, extract_document};
use pdf_extract_core::{Limits, PdfDocument};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use test_devnet::fixtures::unseen_copy;
fn main() {
    let file = std::fs::read(std::env::args().nth(1).expect("pdf")).expect("read");
    let exe = std::env::args().nth(2).expect("exe");
    let rt = tokio::runtime::Runtime::new().expect("rt");
    let pool = EnginePool::new(EngineConfig {
        engines: 1,
        ..EngineConfig::default()
    })
    .expect("e");
    let mut config = DocsConfig::default();
    config.workers.program = Some(exe);
    config.workers.extraction = Some(1);
    config.ocr.engines = Some(1);
    let workers = Isolation::new(&config).expect("pools");
    rt.block_on(workers.warm()).expect("warm");
    let (mut in_process, mut isolated, mut plan_job, mut extract_job) =
        (vec![], vec![], vec![], vec![]);
    for round in 0..15 {
        // Another file each round (a comment after its end), so the planner runs every time
        // instead of answering from the plan cache.
        let tagged = CallerFile::new(unseen_copy(&file, &format!("round {round}")));
        let t = Instant::now();
        let d = PdfDocument::load(&file, &Limits::DOCUMENT).expect("l");
        let plan = d.plan(None).expect("p");
        let x = extract_document(
            &d,
            &plan,
            &OcrRecognizer::new(&pool),
            Some(&PdfCodeScanner::default()),
            &ExtractOptions {
                workers: 1,
                ..ExtractOptions::default()
            },
            &AtomicBool::new(false),
        )
        .expect("x");
        let _ = serde_json::to_vec(&x);
        in_process.push(t.elapsed());
        let t = Instant::now();
        let planned = rt
            .block_on(workers.plan_pdf(&tagged, Limits::DOCUMENT.max_bytes, 20, None, "f"))
            .expect("plan");
        plan_job.push(t.elapsed());
        let t2 = Instant::now();
        let job = Job::Document {
            max_bytes: Limits::DOCUMENT.max_bytes,
            max_pages: 20,
            plan: planned,
        };
        rt.block_on(workers.extract(&job, &file, Duration::from_secs(60)))
            .expect("x");
        extract_job.push(t2.elapsed());
        isolated.push(t.elapsed());
    }
    for times in [
        &mut in_process,
        &mut isolated,
        &mut plan_job,
        &mut extract_job,
    ] {
        times.sort();
    }
    println!(
        "in process: min {:?} median {:?}; worker processes: min {:?} median {:?} (plan job min {:?}, extract job min {:?})",
        in_process[0], in_process[7], isolated[0], isolated[7], plan_job[0], extract_job[0]
    );
}
