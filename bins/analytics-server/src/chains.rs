//! The chains the server reads: the registry with the configuration's overrides laid over it,
//! one RPC client per configured chain, and the one mapping of chain-read (and lending-read)
//! errors to answers.

use std::collections::BTreeMap;

use chain_read::{ChainClient, ChainInfo, ChainOverride, ChainReadError, ClientOptions, Registry};
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

/// A chain read that failed, as an answer: node trouble is 502, a node too slow for its
/// per-call timeout 504, a request the reader cannot serve 400. None is charged.
pub fn chain_error(chain: Chain, error: ChainReadError) -> ApiError {
    let chain = name(chain);
    match error {
        ChainReadError::Unreachable { .. }
        | ChainReadError::Rpc { .. }
        | ChainReadError::Reverted { .. }
        | ChainReadError::Decode(_)
        | ChainReadError::WrongChain { .. } => ApiError::new(
            ErrorCode::CounterpartyUnreachable,
            format!("the {chain} node could not be read ({error}); nothing was charged"),
        ),
        ChainReadError::Timeout { .. } => ApiError::new(
            ErrorCode::TimeBudgetExceeded,
            format!("the {chain} node did not answer in time ({error}); nothing was charged"),
        ),
        ChainReadError::InvalidInput(message) => ApiError::new(ErrorCode::InvalidInput, message),
        ChainReadError::InvalidConfig(message) => ApiError::new(
            ErrorCode::Internal,
            format!("{chain} is misconfigured: {message}"),
        ),
        // A kind of failure chain-read adds later: the node's side until it is placed.
        other => ApiError::new(
            ErrorCode::CounterpartyUnreachable,
            format!("the {chain} node could not be read ({other}); nothing was charged"),
        ),
    }
}

/// A route read that failed, as an answer: chain trouble as [`chain_error`]; a request the
/// router cannot serve (the same token twice, a zero amount) is 400. None is charged.
pub fn route_error(chain: Chain, error: dex_route::RouteError) -> ApiError {
    match error {
        dex_route::RouteError::Chain(error) => chain_error(chain, error),
        dex_route::RouteError::SameToken | dex_route::RouteError::ZeroAmount => {
            ApiError::new(ErrorCode::InvalidInput, error.to_string())
        }
        // The other variants are reasons for a missing figure, which never fail a read.
        other => ApiError::new(
            ErrorCode::Internal,
            format!(
                "the routes on {} could not be computed ({other}); nothing was charged",
                name(chain)
            ),
        ),
    }
}

/// A lending read that failed, as an answer: chain trouble as [`chain_error`]; a market whose
/// contracts do not answer as an Aave V3 market does is the counterparty failing (502). None
/// is charged.
pub fn lending_error(chain: Chain, error: lending_v3::LendingError) -> ApiError {
    match error {
        lending_v3::LendingError::Chain(error) => chain_error(chain, error),
        lending_v3::LendingError::Read { .. } | lending_v3::LendingError::Unexpected(_) => {
            ApiError::new(
                ErrorCode::CounterpartyUnreachable,
                format!(
                    "the lending market on {} could not be read as an Aave V3 market ({error}); nothing was charged",
                    name(chain)
                ),
            )
        }
        // Maths out of range, or a kind of failure lending-v3 adds later.
        other => ApiError::new(
            ErrorCode::Internal,
            format!(
                "the position on {} could not be computed ({other}); nothing was charged",
                name(chain)
            ),
        ),
    }
}
