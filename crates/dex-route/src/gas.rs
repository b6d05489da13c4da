//! Gas per pool type, and how a route's gas cost in wei becomes an amount of its output token.

use alloy::primitives::{Address, U256};
use chain_read::ChainInfo;
use chain_read::dex::PoolKey;
use dex_math::gas::{self, GasModel, Hop, HopKind, RouteGas};

use crate::error::RouteError;
use crate::outcome::{Leg, QuoteOutcome, Route};
use crate::select::best_reference;

/// The gas-estimate kind of a pool type.
pub fn hop_kind(key: PoolKey) -> HopKind {
    crate::kinds::of(key.kind()).hop(key)
}

/// A leg as the gas estimate needs it: its pool type and QuoterV2's measurement, if any.
pub fn hop(leg: &Leg) -> Hop {
    Hop {
        kind: hop_kind(leg.pool.key),
        measured_gas: leg.gas_estimate,
    }
}

/// Gas units of a whole swap transaction along `route`: the router base plus each hop.
pub fn route_gas(model: &GasModel, route: &Route) -> Result<RouteGas, RouteError> {
    let hops: Vec<Hop> = route.legs.iter().map(hop).collect();
    model.route_gas(&hops).map_err(RouteError::GasUnits)
}

/// How gas cost in wei is priced in the output token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GasConversion {
    /// The output token is the wrapped native token: one wei is one unit.
    Identity {
        /// The wrapped native token.
        native: Address,
    },
    /// Through the best direct quote of the wrapped native token into the output token,
    /// linearly and rounded up.
    Reference {
        /// That quote.
        leg: Box<Leg>,
    },
    /// No direct pool quoted the wrapped native token into the output token.
    Unavailable {
        /// The wrapped native token.
        native: Address,
        /// The output token.
        token_out: Address,
    },
}

impl GasConversion {
    /// The conversion into `token_out` on `chain`, from the native reference quotes of a read.
    pub fn new(chain: &ChainInfo, token_out: Address, references: &[Leg]) -> Self {
        let native = chain.wrapped_native();
        if token_out == native {
            return Self::Identity { native };
        }
        match best_reference(references) {
            Some(leg) => Self::Reference {
                leg: Box::new(leg.clone()),
            },
            None => Self::Unavailable { native, token_out },
        }
    }

    /// `cost_wei` in the output token.
    pub fn convert(&self, cost_wei: U256) -> Result<U256, RouteError> {
        match self {
            Self::Identity { .. } => Ok(cost_wei),
            Self::Reference { leg } => {
                gas::native_to_output(cost_wei, leg.amount_in, leg.amount_out)
                    .map_err(RouteError::Math)
            }
            Self::Unavailable { native, token_out } => Err(RouteError::NoGasConversion {
                native: *native,
                token_out: *token_out,
            }),
        }
    }

    /// Why gas cannot be priced in the output token, if it cannot.
    pub fn unavailable(&self) -> Option<RouteError> {
        match self {
            Self::Unavailable { native, token_out } => Some(RouteError::NoGasConversion {
                native: *native,
                token_out: *token_out,
            }),
            _ => None,
        }
    }
}

/// Everything that prices a route's gas: the gas figures, the gas price, the L1 data fee and
/// the conversion into the output token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GasPricing {
    /// Gas units per route and per hop type.
    pub model: GasModel,
    /// `eth_gasPrice` in wei, or why there is none.
    pub gas_price_wei: Result<u128, RouteError>,
    /// The L1 data fee every route's transaction pays (zero when not read).
    pub l1_fee_wei: U256,
    /// Wei into the output token.
    pub conversion: GasConversion,
}

impl GasPricing {
    /// The pricing of the routes of `outcome`, a read into `token_out` on `chain`.
    pub fn new(
        chain: &ChainInfo,
        token_out: Address,
        outcome: &QuoteOutcome,
        model: GasModel,
    ) -> Self {
        Self {
            model,
            gas_price_wei: outcome.gas_price_wei(),
            l1_fee_wei: outcome.l1_fee_wei(),
            conversion: GasConversion::new(chain, token_out, &outcome.native_reference),
        }
    }

    /// `gas units × gas price + L1 data fee`, in wei.
    pub fn cost_wei(&self, route_gas: &RouteGas) -> Result<U256, RouteError> {
        let price = self.gas_price_wei.clone()?;
        gas::gas_cost_wei(route_gas.units, price, self.l1_fee_wei).map_err(RouteError::Math)
    }
}

#[cfg(test)]
mod tests {
    use chain_read::dex::Pool;
    use chain_read::{Chain, DexId, Registry};

    use super::*;
    use crate::outcome::QuoteSource;

    fn reference(amount_in: u64, amount_out: u64) -> Leg {
        let registry = Registry::builtin();
        let base = registry.chain(Chain::Base);
        let (native, out) = (base.wrapped_native(), Address::with_last_byte(1));
        let (token0, token1) = chain_read::dex::sort_tokens(native, out);
        Leg {
            pool: Pool {
                dex: DexId::UniswapV2,
                address: Address::with_last_byte(2),
                token0,
                token1,
                key: PoolKey::ConstantProduct { fee_bps: 30 },
            },
            token_in: native,
            token_out: out,
            amount_in: U256::from(amount_in),
            amount_out: U256::from(amount_out),
            source: QuoteSource::Reserves,
            quoter: None,
            gas_estimate: None,
            state: None,
        }
    }

    #[test]
    fn gas_is_converted_through_the_best_reference_or_not_at_all() {
        let registry = Registry::builtin();
        let base = registry.chain(Chain::Base);
        let native = base.wrapped_native();
        let out = Address::with_last_byte(1);

        let identity = GasConversion::new(base, native, &[]);
        assert_eq!(identity.convert(U256::from(7u8)), Ok(U256::from(7u8)));
        assert_eq!(identity.unavailable(), None);

        let through = GasConversion::new(base, out, &[reference(1000, 2), reference(1000, 3)]);
        // 10 wei at 3 per 1000, rounded up.
        assert_eq!(through.convert(U256::from(10u8)), Ok(U256::from(1u8)));

        let none = GasConversion::new(base, out, &[]);
        let reason = RouteError::NoGasConversion {
            native,
            token_out: out,
        };
        assert_eq!(none.convert(U256::from(10u8)), Err(reason.clone()));
        assert_eq!(none.unavailable(), Some(reason));
    }
}
