#![doc = include_str!("../README.md")]

// Loading, pages, text and rendering.
pub mod budget;
pub mod document;
pub mod error;
pub mod load;
pub mod pages;
pub mod parallel;
pub mod render;
pub mod text;

// Analysis of extracted pages (input-agnostic: text-layer and OCR pages alike).
pub mod header;
pub mod key_values;
pub mod tables;

pub use budget::{Budgets, PageWork};
pub use error::{Budget, PdfError};
pub use header::extract_header;
pub use key_values::find_key_values;
pub use load::{Limits, PdfDocument};
pub use pages::{format_pages, select_pages};
pub use render::{PageImage, RenderOptions};
pub use tables::find_tables;
pub use text::is_plausible_text;
