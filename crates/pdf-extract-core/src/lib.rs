#![doc = include_str!("../README.md")]

// Loading, pages, text and rendering.
pub mod budget;
pub mod document;
pub mod embedded;
mod encoding;
pub mod error;
mod images;
pub mod load;
pub mod pages;
mod paint;
pub mod render;
pub mod text;
mod tree;

pub use budget::{Budgets, PageWork};
pub use embedded::{EmbeddedFile, EmbeddedFileError};
pub use error::{Budget, PdfError};
pub use load::{Limits, PdfDocument};
pub use pages::{format_pages, select_pages};
pub use render::{PageImage, RenderOptions};
pub use text::is_plausible_text;
