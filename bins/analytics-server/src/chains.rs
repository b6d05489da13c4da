//! The chains the server reads: the registry with the configuration's overrides laid over it,
//! one RPC client per configured chain, and the one mapping of the libraries' error kinds to
//! answers.

use std::collections::BTreeMap;

use chain_read::{
    ChainClient, ChainInfo, ChainOverride, ChainReadError, ClientOptions, ErrorKind, Registry,
};
use server_kit::config::ConfigError;
use server_kit::{ApiError, ErrorCode};

use crate::config::ChainEndpoint;
use crate::requests::Chain;

/// One chain as a request reads it.
#[derive(Debug, Clone)]
pub struct ChainAccess {
    /// Registry entry, overrides applied.
    pub info: ChainInfo,
    /// `None` when no RPC URL is configured.
    pub client: Option<ChainClient>,
}

/// Every chain of the service.
#[derive(Debug, Clone)]
pub struct Chains {
    chains: BTreeMap<Chain, ChainAccess>,
}

impl Chains {
    /// Builds the registry and clients from `chains.<chain>` of the configuration. A bad URL
    /// or override stops the start-up with the key named.
    pub fn from_config(endpoints: &BTreeMap<Chain, ChainEndpoint>) -> Result<Self, ConfigError> {
        let mut registry = Registry::builtin();
        for (chain, endpoint) in endpoints {
            let overrides = ChainOverride {
                tokens: endpoint.tokens.clone(),
                contracts: endpoint.contracts.clone(),
            };
            registry = registry
                .with_overrides(*chain, overrides)
                .map_err(|e| ConfigError::Invalid(format!("chains.{}: {e}", name(*chain))))?;
            if let Some(settings) = &endpoint.v4_index {
                let builtin = registry
                    .chain(*chain)
                    .v4_index()
                    .map(|index| index.config());
                let config = settings
                    .config(builtin)
                    .map_err(|e| ConfigError::Invalid(format!("chains.{}.{e}", name(*chain))))?;
                registry = registry.with_v4_index(*chain, config);
            }
            if let Some(pools) = &endpoint.balancer_pools {
                let entries = pools
                    .iter()
                    .map(crate::config::BalancerPoolSettings::entry)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| ConfigError::Invalid(format!("chains.{}.{e}", name(*chain))))?;
                registry = registry.with_balancer_pools(*chain, entries).map_err(|e| {
                    ConfigError::Invalid(format!("chains.{}.balancer_pools: {e}", name(*chain)))
                })?;
            }
        }
        let mut chains = BTreeMap::new();
        for chain in [
            Chain::Base,
            Chain::Ethereum,
            Chain::Arbitrum,
            Chain::Optimism,
            Chain::Polygon,
        ] {
            let urls = endpoints.get(&chain).map(ChainEndpoint::urls);
            let client = match urls {
                Some(urls) if !urls.is_empty() => Some(
                    ChainClient::new(urls, ClientOptions::default()).map_err(|e| {
                        ConfigError::Invalid(format!("chains.{}.rpc_urls: {e}", name(chain)))
                    })?,
                ),
                _ => None,
            };
            chains.insert(
                chain,
                ChainAccess {
                    info: registry.chain(chain).clone(),
                    client,
                },
            );
        }
        Ok(Self { chains })
    }

    /// The registry entry of `chain`, overrides applied.
    pub fn info(&self, chain: Chain) -> Result<&ChainInfo, ApiError> {
        self.chains
            .get(&chain)
            .map(|access| &access.info)
            .ok_or_else(|| not_served(chain))
    }

    /// The registry entry and client of `chain`; 502 when the chain has no RPC URL.
    pub fn access(&self, chain: Chain) -> Result<(&ChainInfo, &ChainClient), ApiError> {
        let access = self.chains.get(&chain).ok_or_else(|| not_served(chain))?;
        let client = access.client.as_ref().ok_or_else(|| not_served(chain))?;
        Ok((&access.info, client))
    }
}

fn name(chain: Chain) -> &'static str {
    chain.as_str()
}

fn not_served(chain: Chain) -> ApiError {
    ApiError::new(
        ErrorCode::CounterpartyUnreachable,
        format!(
            "no RPC endpoint is configured for {}; nothing was charged",
            name(chain)
        ),
    )
}

/// The one mapping of a library error's kind to the answer's code (and so its status): every
/// route answers its errors through it.
pub fn code(kind: ErrorKind) -> ErrorCode {
    match kind {
        ErrorKind::InvalidInput => ErrorCode::InvalidInput,
        ErrorKind::UnknownPool => ErrorCode::UnknownPool,
        ErrorKind::Unsupported => ErrorCode::UnsupportedProtocol,
        ErrorKind::NoRoute => ErrorCode::NoRoute,
        ErrorKind::NotFound => ErrorCode::PoolNotFound,
        ErrorKind::Ambiguous => ErrorCode::AmbiguousPool,
        ErrorKind::Unreachable => ErrorCode::CounterpartyUnreachable,
        ErrorKind::Timeout => ErrorCode::TimeBudgetExceeded,
        // Internal, or a kind chain-read adds later: ours until it is placed.
        _ => ErrorCode::Internal,
    }
}

/// A chain read that failed, as an answer (node trouble 502, a node too slow for its per-call
/// timeout 504, a request the reader cannot serve 400). None is charged.
pub fn chain_error(chain: Chain, error: ChainReadError) -> ApiError {
    let name = name(chain);
    let message = match (error.kind(), &error) {
        (_, ChainReadError::InvalidInput(message)) => message.clone(),
        (_, ChainReadError::InvalidConfig(message)) => {
            format!("{name} is misconfigured: {message}")
        }
        (ErrorKind::Timeout, _) => {
            format!("the {name} node did not answer in time ({error}); nothing was charged")
        }
        (_, error) if error.is_out_of_gas() => format!(
            "the {name} node ran the call and it ran out of gas ({error}): the trade asks more \
             than one call can compute at this block (lower the amount); nothing was charged"
        ),
        _ => format!("the {name} node could not be read ({error}); nothing was charged"),
    };
    ApiError::new(code(error.kind()), message)
}

/// A route read that failed, as an answer: chain trouble as [`chain_error`]; the rest with
/// the code of its kind (the same token twice or a zero amount 400, an address that is no
/// pool of the pair 422 `unknown_pool`, a DEX the chain lacks 400 `unsupported_protocol`, no
/// quote 422 `no_route`). None is charged.
pub fn route_error(chain: Chain, error: dex_route::RouteError) -> ApiError {
    use dex_route::RouteError;
    let kind = error.kind();
    let message = match (kind, error) {
        (_, RouteError::Chain(error)) => return chain_error(chain, error),
        (_, RouteError::Quote(reason)) => format!("{reason}; nothing was charged"),
        (ErrorKind::UnknownPool, error) | (_, error @ RouteError::PoolKeyNotRead { .. }) => {
            format!("{error}; nothing was charged")
        }
        (ErrorKind::InvalidInput | ErrorKind::Unsupported, error) => error.to_string(),
        (_, other) => format!(
            "the routes on {} could not be computed ({other}); nothing was charged",
            name(chain)
        ),
    };
    ApiError::new(code(kind), message)
}

/// A lending read that failed, as an answer: chain trouble as [`chain_error`]; a market whose
/// contracts do not answer as an Aave V3 market does is the counterparty failing (502). None
/// is charged.
pub fn lending_error(chain: Chain, error: lending_v3::LendingError) -> ApiError {
    use lending_v3::LendingError;
    let kind = error.kind();
    let message = match (kind, error) {
        (_, LendingError::Chain(error)) => return chain_error(chain, error),
        (ErrorKind::Unreachable, error) => format!(
            "the lending market on {} could not be read as an Aave V3 market ({error}); nothing was charged",
            name(chain)
        ),
        (_, other) => format!(
            "the position on {} could not be computed ({other}); nothing was charged",
            name(chain)
        ),
    };
    ApiError::new(code(kind), message)
}
