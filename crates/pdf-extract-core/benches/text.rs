//! Text extraction speed: open a PDF and read every page's text with positions (glyphs, words,
//! lines, reading order), per page. Runs on the committed ZUGFeRD fixture always, and on a few
//! ZUGFeRD corpus invoices when `../shared/test-data/zugferd` exists (skipped otherwise).
//!
//! `cargo bench -p pdf-extract-core --bench text`

use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pdf_extract_core::{Limits, PdfDocument};

/// Corpus invoices of different producers and page counts.
const CORPUS_FILES: [&str; 4] = [
    "ZUGFeRD_1p0_COMFORT_Einfach.pdf",
    "MustangGnuaccountingBeispielRE-20201121_508.pdf",
    "EN16931_Einfach.pdf",
    "XRECHNUNG_Einfach.pdf",
];

fn inputs() -> Vec<(String, Vec<u8>)> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    if let Ok(bytes) = std::fs::read(manifest.join("../../testdata/pdf/zugferd_basic_einfach.pdf"))
    {
        out.push(("fixture_zugferd_basic_einfach".to_string(), bytes));
    }
    // The corpus beside the workspace, or where `ZUGFERD_CORPUS` says (a worktree elsewhere).
    let corpus = std::env::var_os("ZUGFERD_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../../shared/test-data/zugferd"));
    for name in CORPUS_FILES {
        if let Ok(bytes) = std::fs::read(corpus.join(name)) {
            out.push((name.trim_end_matches(".pdf").to_string(), bytes));
        }
    }
    out
}

fn extract_all(bytes: &[u8]) -> usize {
    let doc = PdfDocument::load(bytes, &Limits::DOCUMENT).expect("benchmark input loads");
    (1..=doc.page_count())
        .map(|p| doc.extract_page(p).map_or(0, |page| page.lines.len()))
        .sum()
}

fn text(c: &mut Criterion) {
    let mut group = c.benchmark_group("text_extraction");
    for (name, bytes) in inputs() {
        let pages = PdfDocument::load(&bytes, &Limits::DOCUMENT)
            .map(|d| d.page_count())
            .unwrap_or(0);
        if pages == 0 {
            continue;
        }
        // Throughput in pages: criterion prints pages per second next to the time per file.
        group.throughput(Throughput::Elements(u64::from(pages)));
        group.bench_with_input(
            BenchmarkId::new("load_and_extract", &name),
            &bytes,
            |b, bytes| {
                b.iter(|| extract_all(bytes));
            },
        );
        group.bench_with_input(BenchmarkId::new("load_only", &name), &bytes, |b, bytes| {
            b.iter(|| PdfDocument::load(bytes, &Limits::DOCUMENT).map(|d| d.page_count()));
        });
    }
    group.finish();
}

criterion_group!(benches, text);
criterion_main!(benches);
