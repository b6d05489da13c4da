#![doc = include_str!("../README.md")]

// Recognition: the Tesseract pool, preprocessing and layout analysis.
pub mod engine;
pub mod layout;
pub mod pages;
pub mod preprocess;
pub mod read;

// The crate's error type.
pub mod error;
pub use error::OcrError;

// Barcodes and QR codes, and their payloads.
pub mod codes;
