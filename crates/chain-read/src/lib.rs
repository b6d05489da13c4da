#![doc = include_str!("../README.md")]

pub mod bindings;
pub mod client;
pub mod dex;
pub mod erc20;
pub mod error;
pub mod multicall;
pub mod plan;
pub mod registry;

pub use client::{ChainClient, ClientOptions};
pub use erc20::TokenMetadata;
pub use error::ChainReadError;
pub use multicall::{
    Batch, BatchResults, BlockPin, CallFailure, PinnedReader, ReaderOptions, Slot,
};
pub use plan::{
    Discovery, Failure, FailureReason, Leg, LegRole, PoolVariant, QuoteOutcome, QuotePlan,
    QuoteRequest, QuoteSource, Route, quote,
};
pub use registry::{Chain, ChainInfo, ChainOverride, Dex, DexContracts, DexId, DexKind, Registry};
