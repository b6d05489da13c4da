//! Net APY after gas: entry, exit and harvest transactions over a holding period, per stake.

use alloy::primitives::U256;
use serde::{Deserialize, Serialize};

use crate::YieldModelError;
use crate::figure;
use decimal_units::Decimal;

/// How a pool's liquidity is provided, which decides the transactions a position needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PoolType {
    /// Uniswap V2 style: fees accrue in the reserves, so there is nothing to harvest.
    ConstantProduct,
    /// Uniswap V3 style through the NonfungiblePositionManager.
    ConcentratedLiquidity,
    /// Aerodrome / Velodrome basic pools through their router; fees are claimed from the pool.
    Solidly,
}

/// Gas units of the transactions a position needs, with what each one is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GasUnits {
    /// Entering (add liquidity / mint).
    pub entry: u64,
    /// Leaving (remove liquidity / decrease + collect).
    pub exit: u64,
    /// One harvest (collect / claimFees); 0 where fees compound in the pool.
    pub harvest: u64,
    /// What was measured for each, in words.
    pub measured_as: &'static str,
}

/// Gas units per pool type, measured on the devnet's contracts (the test
/// `devnet_yield_gas_units` asserts each within [`GAS_TOLERANCE_PCT`] of `gasUsed`; the
/// measurements are in `docs/decisions.md`). Rounded up to the next thousand. First-time
/// costs are included where a real entry pays them (a new position NFT, fresh ticks).
pub fn gas_units(pool_type: PoolType) -> GasUnits {
    match pool_type {
        PoolType::ConstantProduct => GasUnits {
            entry: 160_000,
            exit: 106_000,
            harvest: 0,
            measured_as: "UniswapV2Router02 addLiquidity into an existing pair and removeLiquidity (WETH/LINK on the devnet); fees accrue in the reserves, no harvest transaction",
        },
        PoolType::ConcentratedLiquidity => GasUnits {
            entry: 467_000,
            exit: 229_000,
            harvest: 119_000,
            measured_as: "NonfungiblePositionManager mint of a new position (WETH/LINK 0.3 %, ±60 tick spacings), decreaseLiquidity + collect for the exit, collect with both tokens owed for a harvest",
        },
        PoolType::Solidly => GasUnits {
            entry: 270_000,
            exit: 199_000,
            harvest: 84_000,
            measured_as: "Aerodrome Router addLiquidity and removeLiquidity (vAMM-WETH/WBTC), the pool's claimFees after a swap for a harvest (unstaked LP; gauge reward claims not measured)",
        },
    }
}

/// How far a constant may be from a fresh measurement, percent.
pub const GAS_TOLERANCE_PCT: u64 = 10;

/// How long a position is held and how often it is harvested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HoldingPeriod {
    /// Days held (the net APY spreads entry and exit over them).
    pub days: u32,
    /// Days between harvests.
    pub harvest_every_days: u32,
}

impl Default for HoldingPeriod {
    fn default() -> Self {
        Self {
            days: 365,
            harvest_every_days: 30,
        }
    }
}

impl HoldingPeriod {
    /// Harvests within the period: `days / harvest_every_days` rounded down (365 / 30 = 12).
    pub fn harvests(&self) -> u32 {
        self.days.checked_div(self.harvest_every_days).unwrap_or(0)
    }
}

/// Gas price, L1 data fee and native token price at call time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GasPrices {
    /// `eth_gasPrice`, wei.
    pub gas_price_wei: u128,
    /// L1 data fee per transaction, wei (zero off OP-stack chains).
    pub l1_fee_wei_per_transaction: U256,
    /// Native token in USD.
    pub native_usd: Decimal,
}

/// What the gas of one holding period costs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeriodGas {
    /// Harvests counted.
    pub harvests: u32,
    /// Transactions counted (entry, exit and harvests with a nonzero gas figure).
    pub transactions: u32,
    /// Gas units in total.
    pub gas_units: u64,
    /// Total cost in wei (units × gas price + transactions × L1 fee).
    pub cost_wei: String,
    /// Total cost in USD, exact.
    pub cost_usd: Decimal,
}

/// The gas of entering, harvesting over `period` and leaving, priced.
pub fn period_gas(
    units: GasUnits,
    period: HoldingPeriod,
    prices: GasPrices,
) -> Result<PeriodGas, YieldModelError> {
    let harvests = if units.harvest == 0 {
        0
    } else {
        period.harvests()
    };
    let gas_units = units
        .entry
        .checked_add(units.exit)
        .and_then(|sum| sum.checked_add(units.harvest.checked_mul(u64::from(harvests))?))
        .ok_or(YieldModelError::Overflow)?;
    let transactions = 2 + harvests;
    let cost_wei = U256::from(gas_units)
        .checked_mul(U256::from(prices.gas_price_wei))
        .and_then(|gas| {
            gas.checked_add(
                prices
                    .l1_fee_wei_per_transaction
                    .checked_mul(U256::from(transactions))?,
            )
        })
        .ok_or(YieldModelError::Overflow)?;
    let cost_usd = figure::mul(figure::from_units(cost_wei, 18)?, prices.native_usd)?;
    Ok(PeriodGas {
        harvests,
        transactions,
        gas_units,
        cost_wei: cost_wei.to_string(),
        cost_usd,
    })
}

/// `apy − cost / stake × 100 × 365 / days`: an APY in percent net of a period's gas, the gas
/// annualised over the holding period. Exact; one rounding per division.
pub fn net_apy_pct(
    apy_pct: Decimal,
    gas_cost_usd: Decimal,
    stake_usd: Decimal,
    days: u32,
) -> Result<Decimal, YieldModelError> {
    if days == 0 {
        return Err(YieldModelError::DivisionByZero);
    }
    let per_stake = figure::div(
        figure::mul(gas_cost_usd, Decimal::from_int(36_500))?,
        figure::mul(stake_usd, Decimal::from_int(i64::from(days)))?,
    )?;
    figure::sub(apy_pct, per_stake)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn x(text: &str) -> Decimal {
        figure::parse(text).expect(text)
    }

    #[test]
    fn period_gas_is_exact() {
        let units = GasUnits {
            entry: 100_000,
            exit: 50_000,
            harvest: 10_000,
            measured_as: "",
        };
        let prices = GasPrices {
            gas_price_wei: 1_000_000_000,
            l1_fee_wei_per_transaction: U256::from(1_000_000_000_000u64),
            native_usd: x("3000"),
        };
        let gas = period_gas(units, HoldingPeriod::default(), prices).expect("gas");
        assert_eq!(gas.harvests, 12);
        assert_eq!(gas.transactions, 14);
        assert_eq!(gas.gas_units, 270_000);
        // 270,000 gwei + 14 × 1,000 gwei = 284,000 gwei = 0.000284 ETH = 0.852 USD.
        assert_eq!(gas.cost_wei, "284000000000000");
        assert_eq!(gas.cost_usd, x("0.852"));
        // 10 % APY on 200 USD held a year: 10 − 0.852 / 200 × 100 = 9.574.
        assert_eq!(
            net_apy_pct(x("10"), gas.cost_usd, x("200"), 365).expect("net"),
            x("9.574")
        );
        // Held 182 days the same gas weighs 365/182 times as much per year: 10 − 0.852 × 365 / 182 / 2.
        assert_eq!(
            net_apy_pct(x("10"), gas.cost_usd, x("200"), 365 / 2)
                .expect("net")
                .truncated(6),
            x("9.145659")
        );
        let no_harvest = GasUnits {
            harvest: 0,
            ..units
        };
        assert_eq!(
            period_gas(no_harvest, HoldingPeriod::default(), prices)
                .expect("gas")
                .transactions,
            2
        );
    }

    proptest! {
        #[test]
        fn net_plus_gas_share_is_the_apy(
            apy in 0i64..100_000,
            cost in 1i64..1_000_000,
            stake in 1i64..100_000_000,
        ) {
            // With a holding period of 365 days: net + cost × 100 / stake = apy, where the
            // division is exact whenever stake divides cost × 100 × 10^18.
            let hundredths = |n: i64| figure::div(Decimal::from_int(n), Decimal::from_int(100)).expect("hundredths");
            let (apy, cost) = (hundredths(apy), hundredths(cost));
            let stake = Decimal::from_int(stake);
            let net = net_apy_pct(apy, cost, stake, 365).expect("net");
            let share = figure::div(figure::mul(cost, Decimal::from_int(100)).expect("mul"), stake).expect("div");
            prop_assert_eq!(figure::add(net, share).expect("add"), apy);
        }
    }
}
