//! What to quote, and the pairs it takes: the direct pair, both hops through every
//! intermediate token, and the wrapped native token into the output token when a net-of-gas
//! ranking needs its price.

use alloy::primitives::{Address, U256};
use chain_read::dex::sort_tokens;
use chain_read::{ChainInfo, PinnedReader};

use crate::error::RouteError;
pub use crate::outcome::LegRole;
use crate::outcome::QuoteOutcome;

/// What to quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteRequest {
    /// Token sold.
    pub token_in: Address,
    /// Token bought.
    pub token_out: Address,
    /// Amount sold, in the token's smallest unit. May be zero until
    /// [`Discovery::set_amount_in`](crate::Discovery::set_amount_in) when the caller converts
    /// whole units with the decimals discovery reads; quoting a zero amount is an error.
    pub amount_in: U256,
    /// Also price routes through one intermediate token.
    pub include_multihop: bool,
    /// Intermediate tokens (those equal to `token_in` or `token_out` are skipped).
    pub intermediates: Vec<Address>,
    /// If set, also quote this amount of the wrapped native token into `token_out` (the price
    /// a net-of-gas ranking converts gas cost with); the native token's metadata is then read
    /// in discovery too.
    pub native_reference_amount: Option<U256>,
    /// Also read `eth_gasPrice`, in the same HTTP request as discovery.
    pub read_gas_price: bool,
    /// Also read the L1 data fee of a representative swap transaction in the quotes round
    /// trip, on chains whose registry entry has an L1 fee oracle.
    pub read_l1_data_fee: bool,
}

impl QuoteRequest {
    /// A request with multi-hop on through the chain's [hop tokens](ChainInfo::hop_tokens) and
    /// no native reference.
    pub fn new(chain: &ChainInfo, token_in: Address, token_out: Address, amount_in: U256) -> Self {
        Self {
            token_in,
            token_out,
            amount_in,
            include_multihop: true,
            intermediates: chain.hop_tokens(),
            native_reference_amount: None,
            read_gas_price: false,
            read_l1_data_fee: false,
        }
    }
}

/// One pair of tokens to find pools for, and the part its legs play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// Token sold on the leg.
    pub token_in: Address,
    /// Token bought on the leg.
    pub token_out: Address,
    /// The leg's part in a route.
    pub role: LegRole,
}

/// Discovery, quotes and second legs in one call.
pub async fn quote(
    reader: &PinnedReader,
    chain: &ChainInfo,
    request: &QuoteRequest,
) -> Result<QuoteOutcome, RouteError> {
    QuotePlan::new(chain, request)?
        .discover(reader)
        .await?
        .quote(reader)
        .await
}

/// A validated request, ready for discovery.
#[derive(Debug, Clone)]
pub struct QuotePlan<'c> {
    pub(crate) chain: &'c ChainInfo,
    pub(crate) request: QuoteRequest,
    pub(crate) intermediates: Vec<Address>,
    pub(crate) pairs: Vec<Pair>,
}

impl<'c> QuotePlan<'c> {
    /// Checks the request and lists the pairs to discover.
    pub fn new(chain: &'c ChainInfo, request: &QuoteRequest) -> Result<Self, RouteError> {
        let (token_in, token_out) = (request.token_in, request.token_out);
        if token_in == token_out {
            return Err(RouteError::SameToken);
        }
        let mut intermediates: Vec<Address> = Vec::new();
        if request.include_multihop {
            for via in &request.intermediates {
                if *via != token_in
                    && *via != token_out
                    && !via.is_zero()
                    && !intermediates.contains(via)
                {
                    intermediates.push(*via);
                }
            }
        }
        let mut pairs = vec![Pair {
            token_in,
            token_out,
            role: LegRole::Direct,
        }];
        for via in &intermediates {
            pairs.push(Pair {
                token_in,
                token_out: *via,
                role: LegRole::FirstLeg { via: *via },
            });
            pairs.push(Pair {
                token_in: *via,
                token_out,
                role: LegRole::SecondLeg { via: *via },
            });
        }
        let native = chain.wrapped_native();
        if request.native_reference_amount.is_some() && native != token_out && !native.is_zero() {
            pairs.push(Pair {
                token_in: native,
                token_out,
                role: LegRole::NativeReference,
            });
        }
        Ok(Self {
            chain,
            request: request.clone(),
            intermediates,
            pairs,
        })
    }

    /// Every pair, in order: direct, then first and second leg per intermediate, then the
    /// native reference.
    pub fn pairs(&self) -> &[Pair] {
        &self.pairs
    }

    /// Pairs by their sorted key, each once (the first role wins for discovery failures).
    pub(crate) fn unique_pairs(&self) -> Vec<Pair> {
        let mut seen = Vec::new();
        let mut unique = Vec::new();
        for pair in &self.pairs {
            let key = sort_tokens(pair.token_in, pair.token_out);
            if !seen.contains(&key) {
                seen.push(key);
                unique.push(*pair);
            }
        }
        unique
    }
}
