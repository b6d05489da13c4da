//! Nothing is left in the temporary directory: 1,000 calls through the app in process —
//! priced, refused, paid and settled (cache misses and hits), paid and failing, cancelled by the
//! caller going away mid-work, and timed out past a tight budget — and afterwards the
//! configured temporary directory (the workers' `TMPDIR`) is empty. Files reach the workers
//! through their pipes, not the disk, so this guards that design: any library or later code
//! path that leaves a file there (a killed worker's included) fails it.

mod support;

use std::path::Path;
use std::time::Duration;

use axum::http::StatusCode;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::json;
use server_kit::testing::{mount_paying_facilitator, payment_signature};
use support::hostile::{picture, png_of_zeros};
use support::{App, fixture, inline, testdata};

const CALLS: usize = 1_000;

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

async fn assert_emptied(dir: &Path) {
    // Workers killed by a cancellation or a timeout are reaped asynchronously.
    for _ in 0..200 {
        if entries(dir).is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("left behind in {}: {:?}", dir.display(), entries(dir));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_calls_of_every_outcome_leave_the_temporary_directory_empty() {
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = temp.path().to_path_buf();
    let configured = dir.display().to_string();
    let app = App::with(move |config| {
        config.temp_dir = Some(configured);
        config.common.limits.unpaid_per_window = u32::MAX;
        config.common.limits.payer_failures_per_window = u32::MAX;
    })
    .await;
    let invoice = inline("zugferd_basic_einfach.pdf");
    let broken = json!({"pdf_base64": STANDARD.encode(b"%PDF-1.7\nnot really")});
    let blank = inline("blank_page.pdf");
    let blank_picture = picture(&png_of_zeros(200, 200, 8, 0, 1));
    let scan = json!({"image_base64": STANDARD.encode(fixture("scanned_invoice.pdf")), "mime": "application/pdf"});
    let text_picture = picture(&testdata("ocr", "en.png"));

    let paid_ok = CALLS / 10;
    mount_paying_facilitator(&app.facilitator, paid_ok as u64).await;
    let terms = app.post(&invoice, None).await.terms();
    let blank_terms = app.post(&blank, None).await.terms();
    let blank_picture_terms = app.post_to("/ocr", &blank_picture, None).await.terms();
    let scan_terms = app.post_to("/ocr", &scan, None).await.terms();

    let mut outcomes = [0usize; 6];
    for call in 0..CALLS {
        match call % 10 {
            // Priced: the 402 (the file is opened and its pages counted in a worker).
            0..=3 => {
                let reply = app.post_to("/ocr", &text_picture, None).await;
                assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED);
                outcomes[0] += 1;
            }
            // Refused before the price: not a readable PDF.
            4 | 5 => {
                let reply = app.post(&broken, None).await;
                assert!(reply.status.is_client_error(), "{:?}", reply.body);
                outcomes[1] += 1;
            }
            // Paid and settled: a miss the first time, cache hits after.
            6 => {
                let signature = payment_signature(&terms, &format!("ok-{call}"));
                let reply = app.post(&invoice, Some(&signature)).await;
                assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
                outcomes[2] += 1;
            }
            // Paid and failing: nothing to read, not settled. One in five is a blank PDF
            // page (rendered at 300 dpi and read: 0.6 s in a test build), the others a small
            // blank picture, so the test's time goes to the number of calls.
            7 => {
                let label = format!("blank-{call}");
                let reply = if call % 50 == 7 {
                    let signature = payment_signature(&blank_terms, &label);
                    app.post(&blank, Some(&signature)).await
                } else {
                    let signature = payment_signature(&blank_picture_terms, &label);
                    app.post_to("/ocr", &blank_picture, Some(&signature)).await
                };
                assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
                outcomes[3] += 1;
            }
            // The caller goes away mid-work (a paid OCR call dropped after 20 ms).
            8 => {
                let signature = payment_signature(&scan_terms, &format!("gone-{call}"));
                let request = app.post_to("/ocr", &scan, Some(&signature));
                let _ = tokio::time::timeout(Duration::from_millis(20), request).await;
                outcomes[4] += 1;
            }
            // Priced OCR of the scan (a worker renders nothing yet, but opens the PDF).
            _ => {
                let reply = app.post_to("/ocr", &scan, None).await;
                assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED);
                outcomes[5] += 1;
            }
        }
    }
    assert_eq!(outcomes.iter().sum::<usize>(), CALLS);
    assert_emptied(&dir).await;

    // Timed out: a budget of one second cannot read the scan.
    let temp_slow = tempfile::tempdir().expect("temp dir");
    let slow_dir = temp_slow.path().to_path_buf();
    let configured = slow_dir.display().to_string();
    let slow = App::with(move |config| {
        config.temp_dir = Some(configured);
        config.time_budget.ocr_seconds = 1;
    })
    .await;
    mount_paying_facilitator(&slow.facilitator, 0).await;
    for label in ["late-1", "late-2", "late-3"] {
        let terms = slow.post_to("/ocr", &scan, None).await.terms();
        let signature = payment_signature(&terms, label);
        let reply = slow.post_to("/ocr", &scan, Some(&signature)).await;
        assert_eq!(
            reply.status,
            StatusCode::GATEWAY_TIMEOUT,
            "{:?}",
            reply.body
        );
    }
    assert_emptied(&slow_dir).await;
}
