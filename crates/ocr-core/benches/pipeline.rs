//! Time per step of the /ocr page path, so a slow page can be taken apart: skew estimation and
//! deskewing, recognition (Tesseract; and the PP-OCR models' detector, recogniser and whole
//! reading when `cargo xtask models` installed them in target/models/pp-ocr, or
//! `PP_OCR_MODELS` names them), layout analysis, code reading and the whole `read_picture`.
//! Runs on the committed generated pages always and on the linn scan when
//! `../shared/test-data/scans/linn.png` exists.
//!
//! `OMP_THREAD_LIMIT=1 cargo bench -p ocr-core --features zxing-cpp --bench pipeline`

use std::path::Path;

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use ocr_core::codes::{CodeOptions, Engine, read_codes};
use ocr_core::engine::{EngineConfig, EnginePool, PageRequest, PixelBuffer};
use ocr_core::layout::analyze;
use ocr_core::preprocess::{self, GreyImage, ImageLimits, ImageMime};
use ocr_core::read::{ReadOptions, Recogniser, read_picture};

fn load(path: &Path) -> Option<GreyImage> {
    let bytes = std::fs::read(path).ok()?;
    preprocess::load_image(&bytes, ImageMime::Png, &ImageLimits::default())
        .ok()
        .map(|loaded| loaded.image)
}

/// (name, picture) of every page measured.
fn pages() -> Vec<(String, GreyImage)> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        (
            "generated_en_150dpi",
            manifest.join("../../testdata/ocr/en.png"),
        ),
        (
            "generated_en_skew3_150dpi",
            manifest.join("../../testdata/ocr/en_skew3.png"),
        ),
        (
            "linn_scan_300dpi",
            manifest.join("../../../shared/test-data/scans/linn.png"),
        ),
    ];
    candidates
        .into_iter()
        .filter_map(|(name, path)| load(&path).map(|image| (name.to_owned(), image)))
        .collect()
}

fn code_engines() -> Vec<(&'static str, Engine)> {
    let engines = vec![("rxing", Engine::Rxing)];
    // Both engines only when zxing-cpp is built in.
    #[cfg(feature = "zxing-cpp")]
    let engines = [engines, vec![("both", Engine::Both)]].concat();
    engines
}

fn pipeline(c: &mut Criterion) {
    let pool = EnginePool::new(EngineConfig {
        engines: 1,
        ..EngineConfig::default()
    })
    .expect("Tesseract with deu+eng is installed");
    let model_dir = std::env::var_os("PP_OCR_MODELS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/models/pp-ocr"),
        std::path::PathBuf::from,
    );
    let models = pp_ocr::PpOcr::load(&model_dir).ok();
    // The server's default threads per reading (two on a machine of two cores or more), and one.
    let pp_pools: Vec<(String, EnginePool)> = if models.is_some() {
        let default_threads = EngineConfig::default().pp_ocr_threads;
        let mut threads = vec![default_threads];
        if default_threads != 1 {
            threads.push(1);
        }
        threads
            .into_iter()
            .map(|n| {
                let pool = EnginePool::new(EngineConfig {
                    engines: 1,
                    pp_ocr_models: Some(model_dir.clone()),
                    pp_ocr_threads: n,
                    ..EngineConfig::default()
                })
                .expect("Tesseract and the PP-OCR models");
                (format!("read_picture_pp_ocr_{n}_threads"), pool)
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut group = c.benchmark_group("ocr_page");
    group.sample_size(10);
    for (name, image) in pages() {
        group.bench_with_input(BenchmarkId::new("estimate_skew", &name), &image, |b, i| {
            b.iter(|| preprocess::estimate_skew(i));
        });
        group.bench_with_input(BenchmarkId::new("deskew", &name), &image, |b, i| {
            b.iter(|| preprocess::deskew(i).1);
        });
        let (straight, _) = preprocess::deskew(&image);
        let mut request = PageRequest::pixels(1);
        group.bench_with_input(
            BenchmarkId::new("recognize_with_orientation", &name),
            &straight,
            |b, i| {
                b.iter(|| {
                    pool.recognize(PixelBuffer::from(i), &request)
                        .map(|p| p.lines.len())
                });
            },
        );
        request.detect_rotation = false;
        group.bench_with_input(
            BenchmarkId::new("recognize_psm3", &name),
            &straight,
            |b, i| {
                b.iter(|| {
                    pool.recognize(PixelBuffer::from(i), &request)
                        .map(|p| p.lines.len())
                });
            },
        );
        if let Some(models) = &models {
            let grey =
                pp_ocr::GreyPixels::new(straight.width(), straight.height(), straight.pixels())
                    .expect("a picture's buffer");
            // Plans are made per input shape on first use: one reading first, so the samples
            // time reading, as a warm worker does.
            let boxes = models.detect(grey).expect("detected");
            group.bench_with_input(BenchmarkId::new("pp_ocr_detect", &name), &grey, |b, g| {
                b.iter(|| models.detect(*g).map(|boxes| boxes.len()));
            });
            models.recognise(grey, &boxes).expect("read");
            group.bench_with_input(
                BenchmarkId::new("pp_ocr_recognise", &name),
                &grey,
                |b, g| {
                    b.iter(|| models.recognise(*g, &boxes).map(|lines| lines.len()));
                },
            );
        }
        let page = pool
            .recognize(PixelBuffer::from(&straight), &PageRequest::pixels(1))
            .expect("recognised");
        let languages = pool.languages().to_vec();
        group.bench_with_input(BenchmarkId::new("layout", &name), &straight, |b, i| {
            b.iter_batched(
                || page.clone(),
                |mut p| analyze(&mut p, Some(i), &languages).blocks.len(),
                BatchSize::LargeInput,
            );
        });
        for (engine_name, engine) in code_engines() {
            let options = CodeOptions {
                engine,
                ..CodeOptions::default()
            };
            group.bench_with_input(
                BenchmarkId::new(format!("codes_{engine_name}"), &name),
                &straight,
                |b, i| {
                    b.iter(|| read_codes(i.pixels(), i.width(), i.height(), 1, &options));
                },
            );
        }
        let options = ReadOptions {
            languages: Vec::new(),
            codes: true,
            code_options: CodeOptions {
                engine: code_engines().last().map_or(Engine::Rxing, |(_, e)| *e),
                ..CodeOptions::default()
            },
            recogniser: Default::default(),
            photo: Default::default(),
        };
        group.bench_with_input(BenchmarkId::new("read_picture", &name), &image, |b, i| {
            b.iter(|| read_picture(&pool, i, 1, None, &options).map(|r| r.codes.len()));
        });
        let pp_options = ReadOptions {
            recogniser: Recogniser::PpOcr,
            ..options.clone()
        };
        for (bench, pp_pool) in &pp_pools {
            group.bench_with_input(BenchmarkId::new(bench, &name), &image, |b, i| {
                b.iter(|| read_picture(pp_pool, i, 1, None, &pp_options).map(|r| r.codes.len()));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
