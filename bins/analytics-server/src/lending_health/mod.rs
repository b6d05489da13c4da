//! `POST /lending/health`: the answer's types, and `lending-v3`'s report (every read at one
//! block, resolved from the chain's PoolAddressesProvider, the health factor recomputed and
//! checked against `getUserAccountData`) put into words and decimal figures.
//!
//! Runs inside the payment gate's work closure: any error here is answered without settling.

mod answer;
mod position;
mod word;
mod word_position;

use chain_read::PinnedReader;
use server_kit::{ApiError, ErrorCode};

pub use self::answer::{
    AccountTotals, AssetInfo, BaseCurrencyInfo, BaseValue, CloseFactorRegime, EModeInfo,
    HealthFactor, IsolationMode, LendingHealthAnswer, MarketContracts, ProtocolAccountData,
    ProtocolVersion, Rate,
};
pub use self::position::{
    LendingPosition, LiquidationPriceField, LiquidationPriceValue, ReserveParameters,
    ScenarioResult,
};
use self::word::Answer;
use crate::answer::address;
use crate::chains::{Chains, lending_error};
use crate::requests::LendingHealthRequest;

/// Reads `request.wallet`'s position. Errors are answered without settling: 400
/// `unsupported_protocol` on a chain without a configured PoolAddressesProvider, 502 when the
/// node or the market cannot be read, 504 for a node slower than its per-call timeout.
pub async fn lending_health(
    chains: &Chains,
    request: &LendingHealthRequest,
) -> Result<LendingHealthAnswer, ApiError> {
    let (info, client) = chains.access(request.chain)?;
    let chain = request.chain;
    let provider = info.aave_v3_pool_addresses_provider().ok_or_else(|| {
        ApiError::new(
            ErrorCode::UnsupportedProtocol,
            format!(
                "lending-v3 has no PoolAddressesProvider configured on {chain}; nothing was charged"
            ),
        )
    })?;
    let wallet = address(&request.wallet.0, "wallet")?;
    let reader = PinnedReader::for_chain(client.clone(), info);
    let report = lending_v3::health(&reader, provider, wallet, &request.scenarios_pct)
        .await
        .map_err(|error| lending_error(request.chain, error))?;
    Ok(Answer::new(&report).build(request))
}
