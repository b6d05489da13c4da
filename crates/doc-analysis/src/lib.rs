#![doc = include_str!("../README.md")]

pub mod einvoice;
pub mod header;
pub mod key_values;
pub mod layout;
pub mod line_items;
mod segments;
pub mod tables;
pub mod vocabulary;

pub use header::extract_header;
pub use key_values::find_key_values;
pub use layout::order_lines;
pub use line_items::{find_document_line_items, find_line_items};
pub use tables::find_tables;
