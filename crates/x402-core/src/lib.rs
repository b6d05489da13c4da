#![doc = include_str!("../README.md")]

pub mod amount;
pub mod chain;
pub mod codec;
pub mod eip3009;
pub mod facilitator;
pub mod redact;
pub mod replay;
pub mod terms;
pub mod types;
pub mod v1;
pub mod verify;

pub use amount::{AmountError, format_units_fixed, parse_units_exact, pow10};
pub use codec::{CodecError, decode_header, encode_header};
pub use facilitator::{Facilitator, FacilitatorError, HttpFacilitator, LocalFacilitator};
pub use redact::{scrub_text, scrub_url};
pub use replay::{InMemoryReplayGuard, ReplayError, ReplayGuard, ReplayKey};
pub use terms::{Offer, PaymentTerms, accepted_matches};
pub use types::*;
pub use verify::{LocalVerifier, reasons};
