//! Text comparison for the OCR tests and quality reports: character and word error rates and
//! similarity, on strsim's Levenshtein distance. Included with `#[path]` by the tests and
//! examples that need it, so each uses only part of it.
#![allow(dead_code)]

use strsim::generic_levenshtein;

/// Character error rate with runs of whitespace collapsed to one space.
pub(crate) fn cer(reference: &str, hypothesis: &str) -> f64 {
    let collapse = |t: &str| {
        t.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .collect::<Vec<_>>()
    };
    let (r, h) = (collapse(reference), collapse(hypothesis));
    generic_levenshtein(&r, &h) as f64 / r.len().max(1) as f64
}

/// Word error rate over whitespace-separated words.
pub(crate) fn wer(reference: &str, hypothesis: &str) -> f64 {
    let r: Vec<&str> = reference.split_whitespace().collect();
    let h: Vec<&str> = hypothesis.split_whitespace().collect();
    generic_levenshtein(&r, &h) as f64 / r.len().max(1) as f64
}

/// 1 − the character edit distance normalised by the longer text.
pub(crate) fn similarity(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    1.0 - generic_levenshtein(&a, &b) as f64 / a.len().max(b.len()).max(1) as f64
}
