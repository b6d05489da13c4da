//! `POST /oracle/crosscheck`: one asset priced by six kinds of source side by side
//! (`price-check` reads and flags them), worded with every threshold printed. Nothing is
//! averaged into a verdict and nothing is recommended.
//!
//! Runs inside the payment gate's work closure: any error here is answered without settling.

use chain_read::PinnedReader;
use oracle_sources::Sources;
use price_check::{Asset, CheckError, CheckRequest, Kind, SourceRow, Thresholds};
use schemars::JsonSchema;
use serde::Serialize;
use server_kit::{ApiError, ErrorCode};

use crate::chains::{Chains, chain_error, code};
pub use crate::config::CrosscheckConfig;
use crate::requests::{self, Chain, OracleCrosscheckRequest, OracleKind};

/// The answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OracleCrosscheckAnswer {
    /// The asset.
    pub asset: Asset,
    /// The chain of the on-chain sources.
    pub chain: Chain,
    /// Every on-chain read was made at this block.
    pub block_number: u64,
    /// Its timestamp, Unix seconds: the clock every `age_seconds` is measured against.
    pub block_timestamp: u64,
    /// Every source asked, in kind order, with its price or the reason it has none.
    pub sources: Vec<SourceRow>,
    /// The median of the rows with a price, USDT-quoted rows excluded (exact decimal).
    pub median: String,
    /// How many prices the median is over.
    pub sources_in_median: usize,
    /// The largest distance of a row in the median from the median, bps.
    pub max_deviation_bps: Option<f64>,
    /// USDT-quoted rows (`source pair`), shown and excluded from the median.
    pub usdt_quoted_sources: Vec<String>,
    /// Kinds asked of which no row has a price.
    pub kinds_without_price: Vec<Kind>,
    /// Every number used by a flag or a sentence of this answer.
    pub thresholds: Thresholds,
    /// Sequential round trips to the node.
    pub rpc_round_trips: u32,
    /// What the figures assume.
    pub assumptions: Vec<String>,
}

fn asset(asset: requests::Asset) -> Asset {
    match asset {
        requests::Asset::Eth => Asset::Eth,
        requests::Asset::Btc => Asset::Btc,
        requests::Asset::Usdc => Asset::Usdc,
        requests::Asset::Usdt => Asset::Usdt,
        requests::Asset::Dai => Asset::Dai,
        requests::Asset::Link => Asset::Link,
        requests::Asset::WstEth => Asset::WstEth,
        requests::Asset::Uni => Asset::Uni,
    }
}

fn kind(kind: OracleKind) -> Kind {
    match kind {
        OracleKind::Aggregator => Kind::Aggregator,
        OracleKind::PullOracleA => Kind::PullOracleA,
        OracleKind::PullOracleB => Kind::PullOracleB,
        OracleKind::Cex => Kind::Cex,
        OracleKind::DexSpot => Kind::DexSpot,
        OracleKind::DexTwap => Kind::DexTwap,
    }
}

/// The route's work.
pub async fn oracle_crosscheck(
    chains: &Chains,
    sources: &Sources,
    config: &CrosscheckConfig,
    request: &OracleCrosscheckRequest,
) -> Result<OracleCrosscheckAnswer, ApiError> {
    let (info, client) = chains.access(request.chain)?;
    let reader = PinnedReader::for_chain(client.clone(), info);
    let kinds: Vec<Kind> = match &request.oracles {
        Some(list) => Kind::ALL
            .into_iter()
            .filter(|k| list.iter().any(|asked| kind(*asked) == *k))
            .collect(),
        None => Kind::ALL.to_vec(),
    };
    let check = CheckRequest {
        asset: asset(request.asset),
        kinds,
        feed_descriptions: config.feed_descriptions.clone(),
    };
    let thresholds = &config.thresholds;
    let read = price_check::crosscheck(info, &reader, sources, &check, thresholds)
        .await
        .map_err(|error| match error {
            CheckError::Chain(error) => chain_error(request.chain, error),
            other => ApiError::new(
                code(other.kind()),
                format!("the cross-check could not be computed ({other}); nothing was charged"),
            ),
        })?;
    let Some(median) = read.summary.median else {
        let reasons: Vec<String> = read
            .rows
            .iter()
            .map(|row| {
                format!(
                    "{} ({}): {}",
                    row.source,
                    row.pair,
                    row.null_reason
                        .as_deref()
                        .unwrap_or("USDT-quoted, not counted")
                )
            })
            .collect();
        // Nothing to price with (every source has nothing for the asset here, or only
        // USDT-quoted prices) is an empty answer; a source that failed to answer may have had
        // one.
        let failed = read
            .rows
            .iter()
            .any(|row| row.price.is_none() && !row.is_absent());
        let code = if failed {
            ErrorCode::CounterpartyUnreachable
        } else {
            ErrorCode::NoPrice
        };
        return Err(ApiError::new(
            code,
            format!(
                "no source gave a USD price for {}: {}; nothing was charged",
                check.asset.symbol(),
                reasons.join("; ")
            ),
        ));
    };
    let mut assumptions = vec![
        format!(
            "Every on-chain read was made at block {} (timestamp {}); {} sequential round trips to the node. The off-chain sources were asked at the same time.",
            read.block.number, read.block.timestamp, read.round_trips
        ),
        "age_seconds is the block's timestamp minus the source's own time (one clock for every row; 0 when the source is newer than the block). Kraken and Binance tickers carry no time, so theirs is null; Coinbase's is its last trade's.".to_owned(),
        "The median is over every row with a price except USDT-quoted ones (USDT is not USD); with an even count it is the exact mean of the two middle prices. It is a reference for the deviations, not a price recommendation.".to_owned(),
        "Exchange prices are the mid of best bid and best ask.".to_owned(),
        format!(
            "DEX prices are USDC per unit of the asset with USDC taken as 1 USD: spot from slot0's sqrtPriceX96 squared, TWAP from TickMath.getSqrtRatioAtTick(meanTick) squared (1.0001^meanTick as the pool computes it, OracleLibrary.getQuoteAtTick), both rounded down to {} decimal places.",
            price_check::onchain::DEX_PRICE_PLACES
        ),
        "Aggregator heartbeats and deviation thresholds are not readable on chain, so staleness is judged against the observed interval between the feed's last two rounds; minAnswer/maxAnswer bounds are not read.".to_owned(),
        "Pyth feed ids (ETH/USD, BTC/USD) and the RedStone data service are built-in values this service has not checked against the providers' published lists; the RedStone median is the gateway's packages as listed, signatures not verified by this service.".to_owned(),
    ];
    assumptions.extend(read.notes);
    Ok(OracleCrosscheckAnswer {
        asset: check.asset,
        chain: request.chain,
        block_number: read.block.number,
        block_timestamp: read.block.timestamp,
        sources: read.rows,
        median: median.to_string(),
        sources_in_median: read.summary.sources_in_median,
        max_deviation_bps: read.summary.max_deviation_bps,
        usdt_quoted_sources: read.usdt_quoted_sources,
        kinds_without_price: read.kinds_without_price,
        thresholds: thresholds.clone(),
        rpc_round_trips: read.round_trips,
        assumptions,
    })
}
