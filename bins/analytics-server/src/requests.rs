//! The request bodies of the six routes, exactly as docs/analytics.md lists them. The
//! schemars schema of each type is the validator, the OpenAPI request body and the 402
//! `inputSchema`; cross-field rules that a schema would only express obscurely are in `check`.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use server_kit::ApiError;

/// `^0x[a-fA-F0-9]{40}$`, the spec's address pattern.
pub const ADDRESS_PATTERN: &str = "^0x[a-fA-F0-9]{40}$";

/// A pool: its address, or a Uniswap V4 PoolId.
pub const POOL_PATTERN: &str = "^0x([a-fA-F0-9]{40}|[a-fA-F0-9]{64})$";
/// `^[0-9]+(\.[0-9]+)?$`, the spec's whole-token-units amount pattern.
pub const AMOUNT_PATTERN: &str = r"^[0-9]+(\.[0-9]+)?$";

/// A caller-written string constrained by a pattern; the schema is inlined where it is used.
macro_rules! pattern_string {
    ($(#[$doc:meta])* $name:ident, $pattern:expr, $description:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({"type": "string", "pattern": $pattern, "description": $description})
            }
        }
    };
}

pattern_string!(
    /// An EVM address as the caller wrote it.
    HexAddress, ADDRESS_PATTERN, "EVM address, 0x and 40 hex digits"
);
pattern_string!(
    /// A pool as the caller wrote it: an address, or a Uniswap V4 PoolId.
    PoolText, POOL_PATTERN, "pool address (0x and 40 hex digits) or Uniswap V4 PoolId (0x and 64 hex digits)"
);
pattern_string!(
    /// An amount in whole token units (`"1.5"`).
    TokenAmount, AMOUNT_PATTERN, "decimal amount in whole token units"
);

impl PoolText {
    /// Whether it is a Uniswap V4 PoolId (0x and 64 hex digits) rather than an address.
    pub fn is_pool_id(&self) -> bool {
        self.0.len() == 66
    }
}

impl HexAddress {
    /// Whether two addresses are the same account, whatever their case.
    pub fn same_as(&self, other: &Self) -> bool {
        self.0.eq_ignore_ascii_case(&other.0)
    }
}

impl TokenAmount {
    /// Whether the amount is zero (`"0"`, `"0.000"`).
    pub fn is_zero(&self) -> bool {
        self.0.bytes().all(|b| b == b'0' || b == b'.')
    }
}

/// The chains every route accepts and the DEX ids are the registry's own, so a
/// request names exactly what the registry knows.
pub use chain_read::{Chain, DexId};

fn default_slippage_bps() -> u32 {
    50
}

fn default_true() -> bool {
    true
}

/// A swap needs two different tokens and something to sell.
fn check_swap(
    token_in: &HexAddress,
    token_out: &HexAddress,
    amount_in: &TokenAmount,
) -> Result<(), ApiError> {
    if token_in.same_as(token_out) {
        return Err(same_token_error("token_out"));
    }
    if amount_in.is_zero() {
        return Err(ApiError::invalid_field(
            "amount_in",
            "must be greater than zero",
        ));
    }
    Ok(())
}

fn same_token_error(field: &str) -> ApiError {
    ApiError::invalid_field(field, "must differ from the other token")
}

/// POST /dex/quote.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DexQuoteRequest {
    /// Chain to quote on.
    pub chain: Chain,
    /// Token sold.
    pub token_in: HexAddress,
    /// Token bought.
    pub token_out: HexAddress,
    /// Amount sold, in whole units of `token_in`.
    pub amount_in: TokenAmount,
    /// Caller tolerance in basis points; only used to derive `amount_out_min`.
    #[serde(default = "default_slippage_bps")]
    #[schemars(range(min = 0, max = 5000))]
    pub slippage_bps: u32,
    /// Also price routes through one intermediate token (wrapped native, chain USDC).
    #[serde(default = "default_true")]
    pub include_multihop: bool,
}

impl DexQuoteRequest {
    /// Rules across fields.
    pub fn check(&self) -> Result<(), ApiError> {
        check_swap(&self.token_in, &self.token_out, &self.amount_in)
    }
}

/// POST /pool/liquidity. Either `pool` alone (an address or a Uniswap V4 PoolId), or
/// `token_a` + `token_b` + `dex`, or a Uniswap V4 PoolId as `pool` with `token_a` + `token_b`
/// (the pool must then be of that pair), or a Balancer V2 pool id (or address) as `pool` with
/// `dex` `balancer_v2` (and `token_a` + `token_b` for a pool of more tokens).
// The schema's `anyOf` names the two groups, so a client can build a request from the schema
// alone; `check` also refuses both at once.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("anyOf" = [{"required": ["pool"]}, {"required": ["token_a", "token_b", "dex"]}]))]
pub struct PoolLiquidityRequest {
    /// Chain the pool lives on.
    pub chain: Chain,
    /// Pool address or Uniswap V4 PoolId (0x and 64 hex digits); use this alone, or token_a +
    /// token_b + dex. A PoolId's currencies, fee, tick spacing and hooks are read from its
    /// Initialize event; token_a + token_b may be given with it (dex omitted or uniswap_v4),
    /// and the pool must then be of that pair. A Balancer V2 pool id goes with dex
    /// balancer_v2 (and token_a + token_b when the pool holds more than two tokens).
    #[serde(default)]
    pub pool: Option<PoolText>,
    /// One token of the pair (with token_b and dex).
    #[serde(default)]
    pub token_a: Option<HexAddress>,
    /// The other token of the pair (with token_a and dex).
    #[serde(default)]
    pub token_b: Option<HexAddress>,
    /// DEX id, required together with token_a and token_b.
    #[serde(default)]
    pub dex: Option<DexId>,
    /// Fee tier in parts per million (concentrated liquidity); omitted means the deepest tier.
    #[serde(default)]
    #[schemars(extend("enum" = [100, 500, 3000, 10000, null]))]
    pub fee_tier_ppm: Option<u32>,
}

impl PoolLiquidityRequest {
    /// Rules across fields: exactly one way of naming the pool.
    pub fn check(&self) -> Result<(), ApiError> {
        let pair_fields = [
            self.token_a.is_some(),
            self.token_b.is_some(),
            self.dex.is_some(),
        ];
        let pool_id = self.pool.as_ref().is_some_and(PoolText::is_pool_id);
        let same = match (&self.token_a, &self.token_b) {
            (Some(a), Some(b)) if a.same_as(b) => Err(same_token_error("token_b")),
            _ => Ok(()),
        };
        match (&self.pool, pair_fields) {
            (Some(_), [a, b, true]) if self.dex == Some(DexId::BalancerV2) && a == b => same,
            (Some(_), [_, _, true]) if self.dex == Some(DexId::BalancerV2) => {
                Err(ApiError::invalid_field(
                    "token_b",
                    "a Balancer V2 pool goes with both token_a and token_b, or neither",
                ))
            }
            (Some(_), [false, false, false]) => Ok(()),
            (Some(_), [true, true, _])
                if pool_id && self.dex.is_none_or(|dex| dex == DexId::UniswapV4) =>
            {
                same
            }
            (Some(_), _) => Err(ApiError::invalid_field(
                "pool",
                "use pool alone, or token_a + token_b + dex, not both (only a Uniswap V4 PoolId goes with token_a + token_b, and a Balancer V2 pool with dex balancer_v2)",
            )),
            (None, [true, true, true]) => match (&self.token_a, &self.token_b) {
                (Some(a), Some(b)) if a.same_as(b) => Err(same_token_error("token_b")),
                _ => Ok(()),
            },
            (None, [a, b, _]) => {
                let missing = if !a {
                    "token_a"
                } else if !b {
                    "token_b"
                } else {
                    "dex"
                };
                Err(ApiError::invalid_field(
                    missing,
                    "is required when pool is not given (pool, or token_a + token_b + dex)",
                ))
            }
        }
    }
}

fn default_stake_sizes() -> Vec<f64> {
    vec![200.0, 1000.0, 10000.0, 100000.0]
}

/// POST /yield/normalize.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct YieldNormalizeRequest {
    /// Chain of the pool.
    pub chain: Chain,
    /// Protocol id as the public yield directory names it.
    #[schemars(length(min = 1, max = 100))]
    pub protocol: String,
    /// Directory pool id (uuid) or the pool symbol.
    #[schemars(length(min = 1, max = 200))]
    pub pool: String,
    /// Stake sizes in USD for the net-of-gas figures.
    #[serde(default = "default_stake_sizes")]
    #[schemars(length(max = 8), inner(range(min = 1, max = 100000000)))]
    pub stake_sizes_usd: Vec<f64>,
}

/// Oracle source kinds: on-chain aggregator feed, two pulled oracle networks, exchange tickers,
/// spot and 30-minute TWAP of the deepest concentrated-liquidity pool against USDC.
// Variant docs would turn the schema into a oneOf of consts; a plain enum validates with a clearer message.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OracleKind {
    Aggregator,
    PullOracleA,
    PullOracleB,
    Cex,
    DexSpot,
    DexTwap,
}

/// Assets the cross-check covers. The spec leaves two symbols open; they are wstETH (the wrapped
/// staked ETH) and UNI (the governance token of the DEX deployed on all five chains).
// Variant docs would turn the schema into a oneOf of consts; a plain enum validates with a clearer message.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Asset {
    #[serde(rename = "ETH")]
    Eth,
    #[serde(rename = "BTC")]
    Btc,
    #[serde(rename = "USDC")]
    Usdc,
    #[serde(rename = "USDT")]
    Usdt,
    #[serde(rename = "DAI")]
    Dai,
    #[serde(rename = "LINK")]
    Link,
    #[serde(rename = "wstETH")]
    WstEth,
    #[serde(rename = "UNI")]
    Uni,
}

/// POST /oracle/crosscheck.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OracleCrosscheckRequest {
    /// Chain the on-chain sources are read from.
    pub chain: Chain,
    /// Asset to price.
    pub asset: Asset,
    /// Source kinds; omitted means all available.
    #[serde(default)]
    #[schemars(length(min = 1, max = 6), extend("uniqueItems" = true))]
    pub oracles: Option<Vec<OracleKind>>,
}

/// Lending protocols.
// Variant docs would turn the schema into a oneOf of consts; a plain enum validates with a clearer message.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum LendingProtocol {
    #[serde(rename = "lending-v3")]
    LendingV3,
}

fn default_scenarios() -> Vec<f64> {
    vec![-10.0, -20.0, -30.0, -50.0]
}

/// POST /lending/health.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LendingHealthRequest {
    /// Chain of the market.
    pub chain: Chain,
    /// Protocol.
    pub protocol: LendingProtocol,
    /// Wallet to read (public on-chain data only).
    pub wallet: HexAddress,
    /// Collateral price moves in percent.
    #[serde(default = "default_scenarios")]
    #[schemars(length(max = 8), inner(range(min = -99, max = 100)))]
    pub scenarios_pct: Vec<f64>,
}

/// POST /mev/risk.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MevRiskRequest {
    /// Chain of the swap.
    pub chain: Chain,
    /// Token sold (the zero address for native ether, read as the wrapped native token).
    pub token_in: HexAddress,
    /// Token bought (the zero address for native ether, read as the wrapped native token).
    pub token_out: HexAddress,
    /// Amount sold, in whole units of `token_in`.
    pub amount_in: TokenAmount,
    /// Caller tolerance in basis points.
    #[serde(default = "default_slippage_bps")]
    #[schemars(range(min = 1, max = 5000))]
    pub slippage_bps: u32,
    /// Pool to assess instead of the automatically chosen one (a Uniswap V4 pool by its
    /// PoolId).
    #[serde(default)]
    pub route: Option<PoolText>,
    /// Scan past Swap events for actual sandwiches (slower).
    #[serde(default = "default_true")]
    pub scan_history: bool,
}

impl MevRiskRequest {
    /// Rules across fields.
    pub fn check(&self) -> Result<(), ApiError> {
        check_swap(&self.token_in, &self.token_out, &self.amount_in)
    }
}

const WETH_BASE: &str = "0x4200000000000000000000000000000000000006";
const USDC_BASE: &str = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

/// Example bodies for the discovery documents.
pub fn example(operation_id: &str) -> Value {
    match operation_id {
        "dex_quote" => {
            json!({"chain": "base", "token_in": WETH_BASE, "token_out": USDC_BASE, "amount_in": "1.5", "slippage_bps": 50})
        }
        "pool_liquidity" => {
            json!({"chain": "base", "token_a": WETH_BASE, "token_b": USDC_BASE, "dex": "uniswap_v3", "fee_tier_ppm": 500})
        }
        "yield_normalize" => {
            json!({"chain": "base", "protocol": "aerodrome-v1", "pool": "WETH-USDC"})
        }
        "oracle_crosscheck" => json!({"chain": "base", "asset": "ETH"}),
        "lending_health" => {
            json!({"chain": "base", "protocol": "lending-v3", "wallet": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"})
        }
        "mev_risk" => {
            json!({"chain": "base", "token_in": WETH_BASE, "token_out": USDC_BASE, "amount_in": "10", "slippage_bps": 100})
        }
        _ => json!({}),
    }
}
