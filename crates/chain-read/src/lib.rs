#![doc = include_str!("../README.md")]

pub mod bindings;
pub mod client;
pub mod dex;
pub mod erc20;
pub mod error;
pub mod l1_fee;
pub mod logs;
pub mod multicall;
pub mod oracle;
pub mod registry;

pub use client::{ChainClient, ClientOptions};
pub use erc20::TokenMetadata;
pub use error::{ChainReadError, ErrorKind, GasPriceError};
pub use l1_fee::L1DataFee;
pub use multicall::{
    Batch, BatchResults, BlockPin, CallFailure, PinnedReader, ReaderOptions, RecordedCalls,
    RiddenLogs, Slot,
};
pub use registry::{
    Chain, ChainInfo, ChainOverride, Dex, DexContracts, DexId, DexKind, Registry,
    SlipstreamDeployment,
};
