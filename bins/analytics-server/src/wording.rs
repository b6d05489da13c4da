//! Sentences more than one route says, written once: the L1 data fee's absence, a USD price's
//! route, a token without decimals, an amount finer than its token.

use chain_read::dex::{Pool, PoolKey};
use chain_read::{CallFailure, L1DataFee};
use dex_math::MathError;
use dex_route::RouteError;
use dex_route::liquidity::{UsdPrice, UsdRoute};
use dex_route::quote::TokenError;
use server_kit::ApiError;

use crate::answer::show;
use crate::chains::code;
use crate::requests::Chain;

/// Why no L1 data fee is included, or `None` when one was read.
pub fn l1_fee_reason(fee: &L1DataFee, chain: Chain) -> Option<String> {
    Some(match fee {
        L1DataFee::Read { .. } => return None,
        L1DataFee::Failed {
            oracle,
            failure: CallFailure::NoContract,
        } => format!(
            "the GasPriceOracle predeploy {} has no code on this node at the block (not an OP-stack node, e.g. a local devnet); no L1 data fee is included",
            show(*oracle)
        ),
        L1DataFee::Failed { oracle, failure } => format!(
            "GasPriceOracle {} getL1Fee failed ({failure}); no L1 data fee is included",
            show(*oracle)
        ),
        L1DataFee::NothingToPrice => {
            "no pool was found, so there is no transaction to price".to_owned()
        }
        _ => match chain {
            Chain::Ethereum => "ethereum is the L1: there is no separate L1 data fee".to_owned(),
            Chain::Polygon => "polygon PoS posts no transaction data to another chain: no L1 data fee".to_owned(),
            Chain::Arbitrum => "arbitrum charges an L1 component, but its oracle (ArbGasInfo / NodeInterface) is not verified for this service; not included".to_owned(),
            Chain::Base | Chain::Optimism => "no GasPriceOracle is configured for this chain; no L1 data fee is included".to_owned(),
        },
    })
}

/// How a token's USD price was obtained. `subject` names the pool read ("this pool's");
/// `block` is printed in every sentence that rests on a pool when `every_sentence_at_block`,
/// else only in the one about the subject's own price.
pub fn usd_route_text(
    route: &UsdRoute,
    subject: &str,
    block: u64,
    every_sentence_at_block: bool,
) -> String {
    let pool = |pool: &Pool| {
        let tier = match pool.key {
            PoolKey::Concentrated { fee, .. } => format!(" {fee} ppm"),
            _ => String::new(),
        };
        format!("{}{tier} pool {}", pool.dex, show(pool.address))
    };
    let (at, then_at) = if every_sentence_at_block {
        (format!(" at block {block}"), format!(", at block {block}"))
    } else {
        (String::new(), String::new())
    };
    match route {
        UsdRoute::Usdc => "it is the chain's USDC, taken as 1 USD".to_owned(),
        UsdRoute::ThisPool => format!("{subject} mid price against USDC at block {block}"),
        UsdRoute::Reference { reference } => format!(
            "mid price{at} of the deepest wrapped-native/USDC pool by in-range liquidity ({})",
            pool(reference)
        ),
        UsdRoute::ThisPoolThenReference { reference } => format!(
            "{subject} mid price into the wrapped native token, then the deepest wrapped-native/USDC pool by in-range liquidity ({}){then_at}",
            pool(reference)
        ),
    }
}

/// A token's USD price as answers show it: the price of one whole token in USD (18 places),
/// how it was obtained, or why there is none. `subject`, `block` and `every_sentence_at_block`
/// as [`usd_route_text`].
pub fn usd_price(
    price: &Result<UsdPrice, RouteError>,
    usdc_decimals: Option<u8>,
    decimals: u8,
    (subject, block, every_sentence_at_block): (&str, u64, bool),
) -> (Option<String>, Option<String>, Option<String>) {
    match (price, usdc_decimals) {
        (Ok(price), Some(usdc)) => (
            Some(crate::answer::ratio_decimal(
                &price.usdc_per_unit,
                decimals,
                usdc,
                18,
            )),
            Some(usd_route_text(
                &price.route,
                subject,
                block,
                every_sentence_at_block,
            )),
            None,
        ),
        (Err(error), _) => (None, None, Some(error.to_string())),
        (Ok(_), None) => (
            None,
            None,
            Some("USDC's decimals() did not answer".to_owned()),
        ),
    }
}

/// A token of the request without decimals: not read by discovery (the plan's fault, 500), or
/// not answering `decimals()` (not an ERC-20, so the amount cannot be expressed in it: 400).
pub fn token_error(error: &TokenError, chain: Chain) -> ApiError {
    match error {
        TokenError::NotErc20 { side, failure } => ApiError::invalid_field(
            side.field(),
            format!("is not an ERC-20 token on {chain}: decimals() failed ({failure})"),
        ),
        other => {
            let field = match other {
                TokenError::NotRead(side) => side.field(),
                _ => "a token",
            };
            ApiError::new(
                code(other.kind()),
                format!("{field} was not among the tokens read on {chain}"),
            )
        }
    }
}

/// An `amount_in` that cannot be sold exactly in `name`'s `decimals` (400).
pub fn amount_error(error: &MathError, name: &str, decimals: u8) -> ApiError {
    let problem = match error {
        MathError::TooManyFractionDigits { digits, decimals } => format!(
            "has {digits} decimal places, but {name} has {decimals} decimals; the amount cannot be sold exactly"
        ),
        MathError::Overflow => format!("is too large for {name} ({decimals} decimals)"),
        other => other.to_string(),
    };
    ApiError::invalid_field("amount_in", problem)
}
