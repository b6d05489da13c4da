//! Text comparison for the OCR tests and quality reports: edit distance, character and word
//! error rates, similarity. Included with `#[path]` by the tests and examples that need it, so
//! each uses only part of it.
#![allow(dead_code)]

/// Levenshtein distance between two sequences.
pub(crate) fn edit_distance<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(x != y));
            diagonal = above;
        }
    }
    row[b.len()]
}

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
    edit_distance(&r, &h) as f64 / r.len().max(1) as f64
}

/// Word error rate over whitespace-separated words.
pub(crate) fn wer(reference: &str, hypothesis: &str) -> f64 {
    let r: Vec<&str> = reference.split_whitespace().collect();
    let h: Vec<&str> = hypothesis.split_whitespace().collect();
    edit_distance(&r, &h) as f64 / r.len().max(1) as f64
}

/// 1 − the character edit distance normalised by the longer text.
pub(crate) fn similarity(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    1.0 - edit_distance(&a, &b) as f64 / a.len().max(b.len()).max(1) as f64
}
