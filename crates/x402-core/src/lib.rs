#![doc = include_str!("../README.md")]

pub mod amount;
#[cfg(feature = "facilitator")]
pub mod chain;
pub mod codec;
pub mod eip3009;
#[cfg(feature = "facilitator")]
pub mod facilitator;
pub mod offer_receipt;
pub mod payment_identifier;
pub mod redact;
pub mod replay;
pub mod terms;
pub mod types;
pub mod v1;
pub mod verify;

pub use amount::{AmountError, format_units_fixed, parse_units_exact, pow10};
pub use codec::{CodecError, decode_header, encode_header};
#[cfg(feature = "facilitator")]
pub use facilitator::{Facilitator, FacilitatorError, HttpFacilitator, LocalFacilitator};
pub use redact::{scrub_text, scrub_url};
pub use replay::{InMemoryReplayGuard, ReplayError, ReplayGuard, ReplayKey};
pub use terms::{Offer, PaymentTerms, accepted_matches};
pub use types::*;
#[cfg(feature = "facilitator")]
pub use verify::LocalVerifier;
pub use verify::reasons;
