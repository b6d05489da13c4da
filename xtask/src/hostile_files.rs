//! The hostile files of issue 13 as `bins/docs-server/tests` builds them, included here by path
//! (one source for the tests and `cargo xtask soak`, so both send the same bytes).

#[path = "../../bins/docs-server/tests/support/pdf.rs"]
#[allow(dead_code, unreachable_pub)]
pub mod pdf;

#[path = "../../bins/docs-server/tests/support/hostile.rs"]
#[allow(dead_code, unreachable_pub)]
pub mod hostile;

pub use hostile::{HostileCase, cases};
