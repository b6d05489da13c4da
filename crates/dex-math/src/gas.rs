//! Gas of a swap route and its cost in the output token, for a net-of-gas ranking
//! (`net = gross − (gas_units·gas_price + l1_fee)·P(native→out)`).
//!
//! Gas units are an estimate built as `router base + Σ hop gas`:
//!
//! - the **router base** is paid once per transaction: intrinsic gas (21,000), calldata, the
//!   router's entry and the input token's transfer;
//! - a **concentrated-liquidity hop** costs what QuoterV2's `gasEstimate` measured for that
//!   very swap at the pinned block (the pool swap with its tick crossings and output transfer);
//! - a **Uniswap V4 hop** costs what V4Quoter's `gasEstimate` measured around that swap in
//!   the PoolManager (hooks included);
//! - **constant-product** and **Solidly** hops cost fixed figures.
//!
//! The constants were measured with `eth_estimateGas` against the routers of the committed
//! devnet (Uniswap SwapRouter and Router02, Aerodrome Router; real bytecode, 1 % of a token
//! per pair, every listed pool in both directions); `tests/devnet_gas.rs` measures again and
//! checks each constant lies inside its range, which `docs/decisions.md` records.

use std::fmt;

use alloy::primitives::{I256, U256};

use crate::MathError;
use crate::full_math::mul_div_rounding_up;

/// Once per route: intrinsic gas, calldata, router entry, input transfer. SwapRouter
/// `eth_estimateGas` minus QuoterV2 `gasEstimate` was 28,766–40,750 over 26 single-hop
/// swaps and 36,670–45,731 over 4 two-hop swaps on the devnet.
pub const ROUTER_BASE_GAS: u64 = 35_000;
/// A concentrated-liquidity hop without a QuoterV2 measurement: smart-order-router's
/// `COST_PER_HOP` (Uniswap's smart-order-router gas model).
pub const CL_UNMEASURED_HOP_GAS: u64 = 80_000;
/// A constant-product hop: Router02 single hops took 103,037–155,299 gas on the devnet
/// (5 pairs, both ways), two hops 177,716–212,561, so about 85,000 per hop over the router
/// base.
pub const CONSTANT_PRODUCT_HOP_GAS: u64 = 85_000;
/// A Solidly volatile hop: Aerodrome Router single hops took 194,550–330,265 gas on the
/// devnet (the spread is the pool's observation and fee bookkeeping writes).
pub const SOLIDLY_VOLATILE_HOP_GAS: u64 = 230_000;
/// A Solidly stable hop (Newton loop on `x³y + y³x`): 216,791–361,411 gas on the devnet.
pub const SOLIDLY_STABLE_HOP_GAS: u64 = 255_000;

/// A Balancer V2 weighted-pool hop: `Vault.swap` through a WeightedPool v3 took 94,510–115,007
/// gas a transaction on the devnet (`tests/devnet_balancer.rs`, intrinsic gas, calldata and both
/// transfers included), so about 60,000–80,000 over the router base.
pub const BALANCER_WEIGHTED_HOP_GAS: u64 = 75_000;
/// A Balancer V2 ComposableStablePool hop (StableMath's Newton iterations, the pool's rate
/// cache): `Vault.swap` took 141,202–164,829 gas on the devnet, about 106,000–130,000 over the
/// router base.
pub const BALANCER_STABLE_HOP_GAS: u64 = 120_000;

/// How a hop prices its swap, which decides its gas figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HopKind {
    /// A Uniswap-V3-style pool.
    ConcentratedLiquidity,
    /// A Uniswap-V2-style pair.
    ConstantProduct,
    /// A Solidly basic pool.
    Solidly {
        /// Stable curve rather than volatile.
        stable: bool,
    },
    /// A Uniswap V4 pool (in the PoolManager).
    ConcentratedLiquidityV4,
    /// A Balancer V2 pool (in the Vault).
    Balancer {
        /// A composable stable pool rather than a weighted one.
        stable: bool,
    },
}

/// The gas figures a route estimate uses; [`GasModel::DEVNET_CALIBRATED`] is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GasModel {
    /// Once per route.
    pub router_base: u64,
    /// A concentrated-liquidity hop that has no QuoterV2 measurement.
    pub cl_unmeasured_hop: u64,
    /// A constant-product hop.
    pub constant_product_hop: u64,
    /// A Solidly volatile hop.
    pub solidly_volatile_hop: u64,
    /// A Solidly stable hop.
    pub solidly_stable_hop: u64,
}

impl GasModel {
    /// The constants of this module.
    pub const DEVNET_CALIBRATED: Self = Self {
        router_base: ROUTER_BASE_GAS,
        cl_unmeasured_hop: CL_UNMEASURED_HOP_GAS,
        constant_product_hop: CONSTANT_PRODUCT_HOP_GAS,
        solidly_volatile_hop: SOLIDLY_VOLATILE_HOP_GAS,
        solidly_stable_hop: SOLIDLY_STABLE_HOP_GAS,
    };
}

impl Default for GasModel {
    fn default() -> Self {
        Self::DEVNET_CALIBRATED
    }
}

/// One hop of a route, as the gas estimate needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    /// The pool type.
    pub kind: HopKind,
    /// The quoter's `gasEstimate` of this swap (QuoterV2 or V4Quoter; ignored for other kinds).
    pub measured_gas: Option<U256>,
}

/// Where one hop's gas figure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HopGasSource {
    /// QuoterV2 `gasEstimate`, measured at the pinned block.
    QuoterV2,
    /// V4Quoter `gasEstimate`, measured at the pinned block.
    V4Quoter,
    /// A constant of the [`GasModel`].
    Constant,
}

/// One hop's share of a route's gas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HopGas {
    /// The pool type.
    pub kind: HopKind,
    /// Gas units.
    pub units: u64,
    /// Measured or constant.
    pub source: HopGasSource,
}

impl fmt::Display for HopGas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            HopKind::ConcentratedLiquidity => "concentrated-liquidity hop",
            HopKind::ConstantProduct => "constant-product hop",
            HopKind::Solidly { stable: false } => "Solidly volatile hop",
            HopKind::Solidly { stable: true } => "Solidly stable hop",
            HopKind::ConcentratedLiquidityV4 => "Uniswap V4 hop",
            HopKind::Balancer { stable: false } => "Balancer weighted hop",
            HopKind::Balancer { stable: true } => "Balancer stable hop",
        };
        match self.source {
            HopGasSource::QuoterV2 => write!(
                f,
                "{kind}: {} (QuoterV2 gasEstimate at the pinned block)",
                self.units
            ),
            HopGasSource::V4Quoter => write!(
                f,
                "{kind}: {} (V4Quoter gasEstimate at the pinned block)",
                self.units
            ),
            HopGasSource::Constant => write!(f, "{kind}: {} (constant)", self.units),
        }
    }
}

/// A route's gas estimate and its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteGas {
    /// Total gas units: router base plus every hop.
    pub units: u64,
    /// The router base included in `units`.
    pub router_base: u64,
    /// Each hop's share, in swap order.
    pub hops: Vec<HopGas>,
}

impl GasModel {
    /// The gas estimate of a route through `hops` (in swap order). An empty route, or a
    /// measurement that does not fit 64 bits, is an error.
    pub fn route_gas(&self, hops: &[Hop]) -> Result<RouteGas, MathError> {
        if hops.is_empty() {
            return Err(MathError::ZeroAmount);
        }
        let mut units = self.router_base;
        let mut parts = Vec::with_capacity(hops.len());
        for hop in hops {
            let (hop_units, source) = match (hop.kind, hop.measured_gas) {
                (HopKind::ConcentratedLiquidity, Some(measured)) => (
                    u64::try_from(measured).map_err(|_| MathError::Overflow)?,
                    HopGasSource::QuoterV2,
                ),
                (HopKind::ConcentratedLiquidity, None) => {
                    (self.cl_unmeasured_hop, HopGasSource::Constant)
                }
                (HopKind::ConstantProduct, _) => {
                    (self.constant_product_hop, HopGasSource::Constant)
                }
                (HopKind::Solidly { stable: false }, _) => {
                    (self.solidly_volatile_hop, HopGasSource::Constant)
                }
                (HopKind::Solidly { stable: true }, _) => {
                    (self.solidly_stable_hop, HopGasSource::Constant)
                }
                (HopKind::Balancer { stable: false }, _) => {
                    (BALANCER_WEIGHTED_HOP_GAS, HopGasSource::Constant)
                }
                (HopKind::Balancer { stable: true }, _) => {
                    (BALANCER_STABLE_HOP_GAS, HopGasSource::Constant)
                }
                (HopKind::ConcentratedLiquidityV4, Some(measured)) => (
                    u64::try_from(measured).map_err(|_| MathError::Overflow)?,
                    HopGasSource::V4Quoter,
                ),
                // The same per-hop figure as an unmeasured V3 hop (smart-order-router's).
                (HopKind::ConcentratedLiquidityV4, None) => {
                    (self.cl_unmeasured_hop, HopGasSource::Constant)
                }
            };
            units = units.checked_add(hop_units).ok_or(MathError::Overflow)?;
            parts.push(HopGas {
                kind: hop.kind,
                units: hop_units,
                source,
            });
        }
        Ok(RouteGas {
            units,
            router_base: self.router_base,
            hops: parts,
        })
    }
}

/// `units × gas_price + l1_fee`, in wei of the native token.
pub fn gas_cost_wei(units: u64, gas_price_wei: u128, l1_fee_wei: U256) -> Result<U256, MathError> {
    U256::from(units)
        .checked_mul(U256::from(gas_price_wei))
        .and_then(|execution| execution.checked_add(l1_fee_wei))
        .ok_or(MathError::Overflow)
}

/// `cost_wei` of the native token in the output token at the rate of a reference quote that
/// sold `reference_in` wrapped native for `reference_out`: `⌈cost·out/in⌉`. Rounded up so a
/// net output is never overstated.
pub fn native_to_output(
    cost_wei: U256,
    reference_in: U256,
    reference_out: U256,
) -> Result<U256, MathError> {
    if reference_in.is_zero() {
        return Err(MathError::DivisionByZero);
    }
    mul_div_rounding_up(cost_wei, reference_out, reference_in)
}

/// `gross − cost`, which is negative when gas costs more than the trade returns.
pub fn net_amount_out(gross: U256, cost: U256) -> Result<I256, MathError> {
    let gross = I256::try_from(gross).map_err(|_| MathError::Overflow)?;
    let cost = I256::try_from(cost).map_err(|_| MathError::Overflow)?;
    gross.checked_sub(cost).ok_or(MathError::Overflow)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok<T>(result: Result<T, MathError>) -> T {
        result.unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_route_adds_the_router_base_once_and_each_hop() {
        let model = GasModel::default();
        let direct = ok(model.route_gas(&[Hop {
            kind: HopKind::ConcentratedLiquidity,
            measured_gas: Some(U256::from(84_917u64)),
        }]));
        assert_eq!(direct.units, 35_000 + 84_917);
        assert_eq!(direct.hops[0].source, HopGasSource::QuoterV2);

        let two_hop = ok(model.route_gas(&[
            Hop {
                kind: HopKind::ConstantProduct,
                measured_gas: None,
            },
            Hop {
                kind: HopKind::Solidly { stable: true },
                measured_gas: None,
            },
        ]));
        assert_eq!(two_hop.units, 35_000 + 85_000 + 255_000);
        assert_eq!(two_hop.hops.len(), 2);
        assert!(
            two_hop.hops[1]
                .to_string()
                .contains("Solidly stable hop: 255000")
        );

        let unmeasured = ok(model.route_gas(&[Hop {
            kind: HopKind::ConcentratedLiquidity,
            measured_gas: None,
        }]));
        assert_eq!(unmeasured.units, 35_000 + 80_000);
        assert_eq!(model.route_gas(&[]), Err(MathError::ZeroAmount));
        assert_eq!(
            model.route_gas(&[Hop {
                kind: HopKind::ConcentratedLiquidity,
                measured_gas: Some(U256::MAX),
            }]),
            Err(MathError::Overflow)
        );
    }

    #[test]
    fn balancer_hops_take_their_constants_whatever_is_measured() {
        let model = GasModel::default();
        let route = ok(model.route_gas(&[
            Hop {
                kind: HopKind::Balancer { stable: false },
                measured_gas: Some(U256::from(1u8)),
            },
            Hop {
                kind: HopKind::Balancer { stable: true },
                measured_gas: None,
            },
        ]));
        assert_eq!(route.units, 35_000 + 75_000 + 120_000);
        assert_eq!(route.hops[0].source, HopGasSource::Constant);
        assert!(
            route.hops[1]
                .to_string()
                .contains("Balancer stable hop: 120000 (constant)")
        );
    }

    #[test]
    fn gas_cost_converts_to_the_output_token_rounded_up() {
        // 120,000 gas at 1 gwei plus a 0.00001 ETH L1 fee.
        let cost = ok(gas_cost_wei(
            120_000,
            1_000_000_000,
            U256::from(10_000_000_000_000u64),
        ));
        assert_eq!(cost, U256::from(130_000_000_000_000u64));
        // 1 WETH bought 3,088.99 USDC: 0.00013 ETH is 0.401569 USDC, rounded up from ...6987.
        let usdc = ok(native_to_output(
            cost,
            U256::from(10u64).pow(U256::from(18)),
            U256::from(3_088_990_000u64),
        ));
        assert_eq!(usdc, U256::from(401_569u64));
        assert_eq!(
            native_to_output(cost, U256::ZERO, U256::from(1u8)),
            Err(MathError::DivisionByZero)
        );
    }

    #[test]
    fn net_output_can_be_negative() {
        assert_eq!(
            ok(net_amount_out(U256::from(100u8), U256::from(30u8))),
            I256::try_from(70).unwrap_or_default()
        );
        assert_eq!(
            ok(net_amount_out(U256::from(10u8), U256::from(30u8))),
            I256::try_from(-20).unwrap_or_default()
        );
        assert_eq!(
            net_amount_out(U256::MAX, U256::ZERO),
            Err(MathError::Overflow)
        );
    }
}
