//! The assets and how each source names them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Assets the cross-check covers (wstETH and UNI are the two the service description leaves
/// open, see docs/decisions.md).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub enum Asset {
    /// Ether (WETH on chain).
    #[serde(rename = "ETH")]
    Eth,
    /// Bitcoin (WBTC on chain).
    #[serde(rename = "BTC")]
    Btc,
    /// USD Coin.
    #[serde(rename = "USDC")]
    Usdc,
    /// Tether USD.
    #[serde(rename = "USDT")]
    Usdt,
    /// Dai.
    #[serde(rename = "DAI")]
    Dai,
    /// Chainlink's token.
    #[serde(rename = "LINK")]
    Link,
    /// Lido wrapped staked ether.
    #[serde(rename = "wstETH")]
    WstEth,
    /// Uniswap's token.
    #[serde(rename = "UNI")]
    Uni,
}

/// Pyth's ETH/USD price feed id (Pyth's price feed id list, <https://pyth.network/developers/price-feed-ids>).
pub const PYTH_ETH_USD: &str = "ff61491a931112ddf1bd8147cd1b641375f79f5825126d665480874634fd0ace";
/// Pyth's BTC/USD price feed id (Pyth's price feed id list, <https://pyth.network/developers/price-feed-ids>).
pub const PYTH_BTC_USD: &str = "e62df6c8b4a85fe1a67db44dc12de5db330f7ac66b72dc658afedf0f4a415b43";

impl Asset {
    /// Every asset.
    pub const ALL: [Self; 8] = [
        Self::Eth,
        Self::Btc,
        Self::Usdc,
        Self::Usdt,
        Self::Dai,
        Self::Link,
        Self::WstEth,
        Self::Uni,
    ];

    /// The symbol in requests and answers.
    pub fn symbol(self) -> &'static str {
        match self {
            Self::Eth => "ETH",
            Self::Btc => "BTC",
            Self::Usdc => "USDC",
            Self::Usdt => "USDT",
            Self::Dai => "DAI",
            Self::Link => "LINK",
            Self::WstEth => "wstETH",
            Self::Uni => "UNI",
        }
    }

    /// The chain registry's token symbol of the asset.
    pub fn token_symbol(self) -> &'static str {
        match self {
            Self::Eth => "WETH",
            Self::Btc => "WBTC",
            other => other.symbol(),
        }
    }

    /// The aggregator pair (`ETH/USD`).
    pub fn feed_pair(self) -> String {
        format!("{}/USD", self.symbol())
    }

    /// Coinbase Exchange product, or why none is asked.
    pub fn coinbase_product(self) -> Result<&'static str, &'static str> {
        match self {
            Self::Eth => Ok("ETH-USD"),
            Self::Btc => Ok("BTC-USD"),
            Self::Usdt => Ok("USDT-USD"),
            Self::Dai => Ok("DAI-USD"),
            Self::Link => Ok("LINK-USD"),
            Self::Uni => Ok("UNI-USD"),
            Self::Usdc => Err(
                "Coinbase Exchange holds USDC and USD as one balance and lists no USDC-USD book",
            ),
            Self::WstEth => Err("no Coinbase Exchange wstETH-USD product is known to the service"),
        }
    }

    /// Kraken pair, or why none is asked.
    pub fn kraken_pair(self) -> Result<&'static str, &'static str> {
        match self {
            Self::Eth => Ok("ETHUSD"),
            Self::Btc => Ok("XBTUSD"),
            Self::Usdc => Ok("USDCUSD"),
            Self::Usdt => Ok("USDTUSD"),
            Self::Dai => Ok("DAIUSD"),
            Self::Link => Ok("LINKUSD"),
            Self::Uni => Ok("UNIUSD"),
            Self::WstEth => Err("no Kraken wstETH/USD pair is known to the service"),
        }
    }

    /// Binance symbol (USDT-quoted: Binance lists no USD books), or why none is asked.
    pub fn binance_symbol(self) -> Result<&'static str, &'static str> {
        match self {
            Self::Eth => Ok("ETHUSDT"),
            Self::Btc => Ok("BTCUSDT"),
            Self::Usdc => Ok("USDCUSDT"),
            Self::Dai => Ok("DAIUSDT"),
            Self::Link => Ok("LINKUSDT"),
            Self::Uni => Ok("UNIUSDT"),
            Self::Usdt => Err("USDT is Binance's quote currency; it has no USDT book against USD"),
            Self::WstEth => Err("no Binance wstETH book is known to the service"),
        }
    }

    /// Pyth price feed id, or why none is asked.
    pub fn pyth_feed_id(self) -> Result<&'static str, &'static str> {
        match self {
            Self::Eth => Ok(PYTH_ETH_USD),
            Self::Btc => Ok(PYTH_BTC_USD),
            _ => Err(
                "only the Pyth feed ids of ETH/USD and BTC/USD are built in; no other id is configured",
            ),
        }
    }

    /// RedStone data feed id.
    pub fn redstone_feed_id(self) -> &'static str {
        self.symbol()
    }
}
