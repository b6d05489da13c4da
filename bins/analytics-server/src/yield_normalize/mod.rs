//! `POST /yield/normalize`: a yield directory pool's advertised APY taken apart and rebuilt.
//! `yield_read::report` resolves the pool, reads the directory's history, the coins API and
//! the chain at the same time and computes with `yield-model` (the conservative seven-day base
//! APY, the fee APR recomputed from volume, fee and TVL, impermanent loss on the real price
//! path with a scenario table, the net APY after entry, exit and harvest gas per stake); this
//! module words it. No forecast and no recommendation; every assumption printed.
//!
//! Runs inside the payment gate's work closure: any error here is answered without settling.

mod answer;
mod parts;
mod word;

use oracle_sources::Sources;
use oracle_sources::defillama::PoolLookupError;
use server_kit::{ApiError, FieldProblem};
use yield_read::{ReportError, YieldRequest};

pub use self::answer::{
    ConservativeApy, DirectoryPool, FeeApr, Gas, ImpermanentLoss, NetApy, PathPointOut, Quote,
    RangeOut, RewardToken, ScenarioOut, YieldNormalizeAnswer,
};
use crate::chains::{Chains, code};
use crate::requests::YieldNormalizeRequest;
pub use yield_read::YieldConfig;

/// The route's work.
pub async fn yield_normalize(
    chains: &Chains,
    sources: &Sources,
    config: &YieldConfig,
    request: &YieldNormalizeRequest,
) -> Result<YieldNormalizeAnswer, ApiError> {
    let access = chains.access(request.chain).ok();
    let info = access
        .map(|(info, _)| info)
        .or_else(|| chains.info(request.chain).ok());
    let report_request = YieldRequest {
        chain: request.chain,
        protocol: request.protocol.clone(),
        pool: request.pool.clone(),
        stake_sizes_usd: request.stake_sizes_usd.clone(),
    };
    let report = yield_read::report(
        sources,
        info,
        access.map(|(_, client)| client),
        &report_request,
        config,
    )
    .await
    .map_err(report_error)?;
    Ok(word::word(request.chain, &report))
}

/// A report that could not be made: the directory down (502), no row (422 `pool_not_found`),
/// several rows (422 `ambiguous_pool`, the candidates in the details).
fn report_error(error: ReportError) -> ApiError {
    let kind = error.kind();
    match error {
        ReportError::Lookup(PoolLookupError::NotFound {
            chain_name,
            protocol,
            pool,
            by_id,
            symbols,
        }) => {
            let listed = if symbols.is_empty() {
                format!("the directory lists no {protocol} pool on {chain_name}")
            } else {
                format!(
                    "{protocol} pools on {chain_name} are listed under: {}",
                    symbols.into_iter().take(30).collect::<Vec<_>>().join(", ")
                )
            };
            ApiError::new(
                code(kind),
                format!(
                    "no {protocol} pool on {chain_name} has the {} {pool:?} in the yield directory ({listed}); nothing was charged",
                    if by_id { "id" } else { "symbol" },
                ),
            )
        }
        ReportError::Lookup(PoolLookupError::Ambiguous {
            chain_name,
            protocol,
            pool,
            candidates,
        }) => {
            let mut error = ApiError::new(
                code(kind),
                format!(
                    "{} {protocol} pools on {chain_name} have the symbol {pool:?}; ask again with one of the ids in details; nothing was charged",
                    candidates.len(),
                ),
            );
            error.details = candidates
                .iter()
                .map(|r| FieldProblem {
                    field: "pool".to_owned(),
                    problem: format!(
                        "candidate id {}: TVL {} USD, pool meta {}",
                        r.pool,
                        r.tvl_usd
                            .as_ref()
                            .map_or("unknown".into(), ToString::to_string),
                        r.pool_meta.as_deref().unwrap_or("none")
                    ),
                })
                .collect();
            error
        }
        other => ApiError::new(code(kind), format!("{other}; nothing was charged")),
    }
}
