//! The whole `/dex/quote` read in one call: discovery, the amount in whole units made exact
//! with the decimals read, quotes, pricing, ranking and the reference route's minimum output.

use alloy::primitives::{Address, U256};
use chain_read::{CallFailure, ChainInfo, ErrorKind, PinnedReader, TokenMetadata};
use dex_math::MathError;
use dex_math::gas::GasModel;

use crate::error::RouteError;
use crate::gas::GasPricing;
pub use crate::lens::ReadPath;
use crate::outcome::QuoteOutcome;
use crate::plan::{QuotePlan, QuoteRequest};
use crate::pricing::{PricedRoute, Ranking, rank};
use crate::quote::lens::{self, LensError};

/// What a quote report is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportRequest {
    /// Token sold.
    pub token_in: Address,
    /// Token bought.
    pub token_out: Address,
    /// The amount sold in whole units of `token_in` (`"1.5"`), made exact with its decimals.
    pub amount_in: String,
    /// Whether two-hop routes are priced.
    pub include_multihop: bool,
    /// The caller's tolerance, for the reference route's minimum output.
    pub slippage_bps: u32,
}

/// Which of the two best routes the price impact and the minimum output are of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    /// The best route after gas.
    BestByNet(usize),
    /// The best gross route, when no route could be ranked after gas.
    BestByGross(usize),
}

impl Reference {
    /// The route's index in [`QuoteOutcome::routes`].
    pub fn index(self) -> usize {
        match self {
            Self::BestByNet(index) | Self::BestByGross(index) => index,
        }
    }
}

/// Everything `/dex/quote` answers with, before wording.
#[derive(Debug, Clone, PartialEq)]
pub struct QuoteReport {
    /// The read: block, tokens, routes (largest gross output first), failures, round trips.
    pub outcome: QuoteOutcome,
    /// `token_in`'s metadata; its decimals were read.
    pub token_in: TokenMetadata,
    /// `token_in`'s decimals.
    pub token_in_decimals: u8,
    /// `token_out`'s metadata; its decimals were read.
    pub token_out: TokenMetadata,
    /// `token_out`'s decimals.
    pub token_out_decimals: u8,
    /// The amount sold, in atomic units.
    pub amount_in: U256,
    /// Gas price, L1 data fee and the conversion of gas cost into the output token.
    pub pricing: GasPricing,
    /// Each route's figures beyond its output, in the order of `outcome.routes`.
    pub priced: Vec<PricedRoute>,
    /// The best routes by gross and by net output.
    pub ranking: Ranking,
    /// The route the price impact and minimum output are of; `None` without any route.
    pub reference: Option<Reference>,
    /// `⌊amount_out × (10000 − slippage_bps) / 10000⌋` of the reference route.
    pub amount_out_min: Option<Result<U256, MathError>>,
    /// Which side of the request named native ether (the zero address): that side was quoted
    /// as the chain's wrapped native token, whose pools (and the Uniswap V4 pools against
    /// native ether) carry it.
    pub native_ether: Option<Side>,
    /// How the chain was read: the quote lens in one `eth_call`, or the ordinary batches and
    /// why the lens was not used.
    pub read_path: ReadPath,
}

/// Which token of the request a [`ReportError`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The token sold.
    TokenIn,
    /// The token bought.
    TokenOut,
}

impl Side {
    /// The request field's name.
    pub fn field(self) -> &'static str {
        match self {
            Self::TokenIn => "token_in",
            Self::TokenOut => "token_out",
        }
    }
}

/// Native ether (the zero address) on one side of a request trades as the chain's wrapped
/// native token: its pools are the wrapped token's, and discovery reaches the Uniswap V4 pools
/// against native ether from there. The side that named it (none on a chain without a wrapped
/// native token, or when both or neither side is the zero address) and the pair to read.
pub fn native_as_wrapped(
    chain: &ChainInfo,
    token_in: Address,
    token_out: Address,
) -> (Option<Side>, Address, Address) {
    let wrapped = chain.wrapped_native();
    match (token_in.is_zero(), token_out.is_zero()) {
        _ if wrapped.is_zero() => (None, token_in, token_out),
        (true, false) => (Some(Side::TokenIn), wrapped, token_out),
        (false, true) => (Some(Side::TokenOut), token_in, wrapped),
        _ => (None, token_in, token_out),
    }
}

/// A token of a request whose decimals cannot be had, so no amount can be expressed in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// Discovery did not read the token's metadata (a bug of the plan, not the caller's).
    #[error("{} was not among the tokens read", .0.field())]
    NotRead(Side),
    /// The token does not answer `decimals()`: not an ERC-20 token.
    #[error("{} is not an ERC-20 token: decimals() failed ({failure})", side.field())]
    NotErc20 {
        /// Which token.
        side: Side,
        /// How `decimals()` failed.
        failure: CallFailure,
    },
}

impl TokenError {
    /// This error's [`ErrorKind`]: a token that is not an ERC-20 is the caller's input; one
    /// the plan did not read is internal.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::NotErc20 { .. } => ErrorKind::InvalidInput,
            Self::NotRead(_) => ErrorKind::Internal,
        }
    }
}

/// A token of the request with its decimals, read in discovery.
pub fn request_token(
    metadata: Option<&TokenMetadata>,
    side: Side,
) -> Result<(TokenMetadata, u8), TokenError> {
    let metadata = metadata.ok_or(TokenError::NotRead(side))?;
    let decimals = metadata
        .decimals
        .clone()
        .map_err(|failure| TokenError::NotErc20 { side, failure })?;
    Ok((metadata.clone(), decimals))
}

/// Why a quote report could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The read failed as a whole, or the request cannot be routed.
    #[error(transparent)]
    Route(#[from] RouteError),
    /// A token of the request has no decimals.
    #[error(transparent)]
    Token(#[from] TokenError),
    /// The amount cannot be sold exactly in `token_in`'s decimals.
    #[error("amount_in: {error}")]
    Amount {
        /// Why.
        error: MathError,
        /// `token_in`'s metadata (its symbol names it).
        token: Box<TokenMetadata>,
        /// `token_in`'s decimals.
        decimals: u8,
    },
    /// One whole wrapped native token does not fit a uint256 (its decimals read 78 or more).
    #[error("the wrapped native token is not usable ({0})")]
    NativeUnusable(decimal_units::UnitsError),
}

impl ReportError {
    /// This error's [`ErrorKind`]: a route error's own; a token that is not an ERC-20 or an
    /// amount finer than its token is the caller's input; a token the plan did not read is
    /// internal; an unusable wrapped native token is the chain's (its contract) failing.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Route(error) => error.kind(),
            Self::Token(error) => error.kind(),
            Self::Amount { .. } => ErrorKind::InvalidInput,
            Self::NativeUnusable(_) => ErrorKind::Unreachable,
        }
    }
}

/// Quotes `request` on `chain` at one block, prices and ranks every route with the default gas
/// model: through the quote lens in one round trip, or, when the node does not take the lens's state override, in the ordinary
/// three ([`ReadPath`] says which, and why).
pub async fn report(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &ReportRequest,
) -> Result<QuoteReport, ReportError> {
    report_by(chain, reader, request, true).await
}

/// [`report`] through the ordinary batches only (at most three round trips): the reference
/// the lens is checked against.
pub async fn report_batches(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &ReportRequest,
) -> Result<QuoteReport, ReportError> {
    report_by(chain, reader, request, false).await
}

async fn report_by(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &ReportRequest,
    use_lens: bool,
) -> Result<QuoteReport, ReportError> {
    // Every round trip of this read discovers the V4 pools the chain's Initialize index held
    // when it began: the range that rides along with its first request adds pools for the
    // next read, not midway through this one (the lens's calls and the replayed batches stay
    // the same calls).
    let frozen = chain.with_frozen_v4_index();
    let chain = &frozen;
    let (native_ether, token_in, token_out) =
        native_as_wrapped(chain, request.token_in, request.token_out);
    let request = &ReportRequest {
        token_in,
        token_out,
        ..request.clone()
    };
    let plan_request = QuoteRequest {
        include_multihop: request.include_multihop,
        // Set from the decimals read in discovery: one whole wrapped native token.
        native_reference_amount: Some(U256::ZERO),
        read_gas_price: true,
        read_l1_data_fee: true,
        // Set from token_in's decimals, read in discovery.
        ..QuoteRequest::new(chain, request.token_in, request.token_out, U256::ZERO)
    };
    let start = reader.round_trips();
    let lens_request = plan_request.clone();
    let lens_read = match use_lens {
        true => lens::run(chain, reader, &lens_request, &request.amount_in).await,
        false => Err(LensError::NotAsked),
    };
    let lens_error = match lens_read {
        Ok(replay) => match quote_read(chain, &replay, request, &lens_request).await {
            Ok(mut read) => {
                read.outcome.round_trips = reader.round_trips().saturating_sub(start);
                return Ok(priced_report(
                    chain,
                    read,
                    request,
                    native_ether,
                    ReadPath::Lens,
                ));
            }
            Err(ReportError::Route(error)) => crate::lens::missed(error)?,
            Err(error) => return Err(error),
        },
        Err(error) => crate::lens::fallback(error).map_err(RouteError::Chain)?,
    };
    let mut read = quote_read(chain, reader, request, &plan_request).await?;
    read.outcome.round_trips = reader.round_trips().saturating_sub(start);
    Ok(priced_report(
        chain,
        read,
        request,
        native_ether,
        ReadPath::Batches {
            lens_error: lens_error.reason(),
        },
    ))
}

/// What a quote read settled, before pricing.
struct QuoteRead {
    outcome: QuoteOutcome,
    token_in: TokenMetadata,
    token_in_decimals: u8,
    token_out: TokenMetadata,
    token_out_decimals: u8,
    amount_in: U256,
}

/// Discovery with the amount made exact in `token_in`'s decimals, and the quotes.
async fn quote_read(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &ReportRequest,
    plan_request: &QuoteRequest,
) -> Result<QuoteRead, ReportError> {
    let mut discovery = QuotePlan::new(chain, plan_request)?
        .discover(reader)
        .await?;
    let (token_in, token_in_decimals) =
        request_token(discovery.token(request.token_in), Side::TokenIn)?;
    let (token_out, token_out_decimals) =
        request_token(discovery.token(request.token_out), Side::TokenOut)?;
    let amount_in =
        dex_math::parse_units(&request.amount_in, token_in_decimals).map_err(|error| {
            ReportError::Amount {
                error,
                token: Box::new(token_in.clone()),
                decimals: token_in_decimals,
            }
        })?;
    discovery.set_amount_in(amount_in);
    // WETH and WPOL have 18; the default only matters if the read failed, and then the
    // reference quote fails too.
    let native_decimals = discovery
        .token(chain.wrapped_native())
        .and_then(|m| m.decimals.clone().ok())
        .unwrap_or(18);
    // A token claiming 78 or more decimals would wrap 10^decimals: refused, not wrapped.
    let one_native = decimal_units::pow10(native_decimals).map_err(ReportError::NativeUnusable)?;
    discovery.set_native_reference_amount(one_native);
    let outcome = discovery.quote(reader).await?;
    Ok(QuoteRead {
        outcome,
        token_in,
        token_in_decimals,
        token_out,
        token_out_decimals,
        amount_in,
    })
}

/// Prices and ranks a read's routes with the default gas model.
fn priced_report(
    chain: &ChainInfo,
    read: QuoteRead,
    request: &ReportRequest,
    native_ether: Option<Side>,
    read_path: ReadPath,
) -> QuoteReport {
    let QuoteRead {
        outcome,
        token_in,
        token_in_decimals,
        token_out,
        token_out_decimals,
        amount_in,
    } = read;
    let pricing = GasPricing::new(chain, request.token_out, &outcome, GasModel::default());
    let priced: Vec<PricedRoute> = outcome
        .routes
        .iter()
        .map(|route| pricing.price(route, amount_in, &outcome.tokens))
        .collect();
    let ranking = rank(&outcome.routes, &priced);
    let reference = match (ranking.best_by_net, ranking.best_by_gross) {
        (Some(index), _) => Some(Reference::BestByNet(index)),
        (None, Some(index)) => Some(Reference::BestByGross(index)),
        (None, None) => None,
    };
    let amount_out_min = reference
        .and_then(|r| outcome.routes.get(r.index()))
        .map(|route| dex_math::amount_out_min(route.amount_out(), request.slippage_bps));
    QuoteReport {
        outcome,
        token_in,
        token_in_decimals,
        token_out,
        token_out_decimals,
        amount_in,
        pricing,
        priced,
        ranking,
        reference,
        amount_out_min,
        native_ether,
        read_path,
    }
}
