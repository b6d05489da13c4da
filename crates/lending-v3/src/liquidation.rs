//! The liquidation price of one collateral: the highest oracle price of that asset at which the
//! health factor, computed with the protocol's own roundings, is at or below one while every
//! other price holds.
//!
//! The health factor is a step function of the price `P` (it depends on `P` only through
//! `c = ⌊b·P/u⌋`, the collateral value, and `e`, the debt value of the same asset when it is
//! also borrowed), and up to 3.4 it is not even monotone: the average threshold is floored to a
//! whole basis point, so where the asset's threshold is below the others' average each step of
//! that floor is a small dip. The search is therefore exact rather than a bisection:
//!
//! 1. a linear bound `α·P > β` that implies `HF > 1` gives a price above which nothing can be
//!    liquidated;
//! 2. below it the price axis is walked downwards piece by piece (a piece is a run of prices
//!    with the same `c` and `e`, so one evaluation covers it), and the first piece with
//!    `HF ≤ 1` holds the answer. Up to 3.4 the walk goes segment by segment (runs with the same
//!    floored average threshold), each with its own tight bound, so only a handful of pieces
//!    are evaluated per segment.

use alloy::primitives::{I256, U256};

use crate::math::{self, MathError, PERCENTAGE_FACTOR, ReserveTerms, Totals, WAD, mul};
use crate::rules::{HealthFormula, Rules};

/// Why an asset has no liquidation price.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoLiquidationPrice {
    /// The wallet does not use it as collateral (or the rules leave it out).
    NotCollateral,
    /// It is collateral with a zero liquidation threshold: its price does not enter the HF.
    ZeroThreshold,
    /// There is no debt to liquidate.
    NoDebt,
    /// The wallet borrows at least as much of the asset as its collateral's liquidation value,
    /// so a fall in its price does not lower the health factor.
    FallDoesNotLowerHealth,
    /// Even at a price of zero the rest of the position keeps the health factor above one.
    CoveredAtZero {
        /// The health factor with this asset priced at zero.
        health_factor_at_zero: U256,
    },
    /// Collateral and debt in this asset offset each other so closely (within one basis point
    /// of threshold) that no price is stated.
    NearlyOffset,
    /// The search did not settle within its step budget (not expected for real positions).
    SearchLimit,
    /// 3.0–3.1: the asset is priced by its eMode category's price source, which prices every
    /// asset of the category at once; its own oracle price does not enter the health factor.
    PricedByEModeSource,
}

/// A liquidation price, or why there is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiquidationPrice {
    /// The highest oracle price at which the health factor is at or below one.
    At {
        /// In the oracle's base-currency units.
        price: U256,
        /// The health factor at that price (≤ 10¹⁸).
        health_factor: U256,
    },
    /// None exists.
    None(NoLiquidationPrice),
}

/// Pieces evaluated at most per search.
const STEP_BUDGET: u32 = 2_000_000;

/// The liquidation price of reserve `index` of `reserves`, every other price held. The asset's
/// price moves on its collateral and on its debt alike.
pub fn liquidation_price(
    reserves: &[ReserveTerms],
    index: usize,
    rules: &Rules,
) -> Result<LiquidationPrice, MathError> {
    let none = |reason| Ok(LiquidationPrice::None(reason));
    let Some(target) = reserves.get(index) else {
        return none(NoLiquidationPrice::NotCollateral);
    };
    let Some(collateral) = target.collateral else {
        return none(NoLiquidationPrice::NotCollateral);
    };
    if collateral.liquidation_threshold == 0 {
        return none(NoLiquidationPrice::ZeroThreshold);
    }
    let others: Vec<ReserveTerms> = reserves
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != index)
        .map(|(_, r)| *r)
        .collect();
    let fixed = math::totals(&others, rules)?;
    let borrowed = target.debt.map(|d| d.balance).unwrap_or_default();
    if fixed.debt.is_zero() && borrowed.is_zero() {
        return none(NoLiquidationPrice::NoDebt);
    }
    let threshold = U256::from(collateral.liquidation_threshold);
    if mul(collateral.balance, threshold)? <= mul(borrowed, PERCENTAGE_FACTOR)? {
        return none(NoLiquidationPrice::FallDoesNotLowerHealth);
    }
    let problem = Problem {
        rules,
        fixed,
        unit: target.unit,
        collateral: collateral.balance,
        threshold,
        debt: borrowed,
    };
    let mut budget = STEP_BUDGET;
    let found = match rules.formula {
        HealthFormula::WeightedSum => problem.search_weighted_sum(&mut budget),
        HealthFormula::AverageThreshold => problem.search_average_threshold(&mut budget),
    };
    match found {
        Ok(Some(price)) => Ok(LiquidationPrice::At {
            price,
            health_factor: problem.health_factor(price)?,
        }),
        Ok(None) => none(NoLiquidationPrice::CoveredAtZero {
            health_factor_at_zero: problem.health_factor(U256::ZERO)?,
        }),
        Err(Stop::NearlyOffset) => none(NoLiquidationPrice::NearlyOffset),
        Err(Stop::Budget) => none(NoLiquidationPrice::SearchLimit),
        Err(Stop::Math(error)) => Err(error),
    }
}

/// Why a search ended without an answer or a proof that there is none.
enum Stop {
    NearlyOffset,
    Budget,
    Math(MathError),
}

impl From<MathError> for Stop {
    fn from(error: MathError) -> Self {
        Self::Math(error)
    }
}

/// `α·P > β` implies `HF(P) > 1`.
#[derive(Debug, Clone, Copy)]
struct Bound {
    alpha: I256,
    beta: I256,
}

impl Bound {
    fn excludes(&self, price: U256) -> Result<bool, MathError> {
        Ok(imul(self.alpha, signed(price)?)? > self.beta)
    }

    /// The lowest price the bound excludes, with everything above it excluded too; `None`
    /// when the bound does not grow with the price.
    fn first_excluded(&self) -> Result<Option<U256>, MathError> {
        if self.alpha <= I256::ZERO {
            return Ok(None);
        }
        if self.beta < I256::ZERO {
            return Ok(Some(U256::ZERO));
        }
        let first = (self.beta / self.alpha)
            .checked_add(I256::ONE)
            .ok_or(MathError::Overflow)?;
        Ok(Some(first.into_raw()))
    }
}

fn signed(value: U256) -> Result<I256, MathError> {
    I256::try_from(value).map_err(|_| MathError::Overflow)
}

fn imul(a: I256, b: I256) -> Result<I256, MathError> {
    a.checked_mul(b).ok_or(MathError::Overflow)
}

fn iadd(a: I256, b: I256) -> Result<I256, MathError> {
    a.checked_add(b).ok_or(MathError::Overflow)
}

fn isub(a: I256, b: I256) -> Result<I256, MathError> {
    a.checked_sub(b).ok_or(MathError::Overflow)
}

/// The problem's numbers as signed integers, for the bounds (some of their terms are
/// negative).
struct SignedTerms {
    u: I256,
    b: I256,
    d: I256,
    lt: I256,
    t0: I256,
    s0: I256,
    d0: I256,
    w: I256,
    pf: I256,
}

/// The health factor of one position as a function of one asset's price.
struct Problem<'a> {
    rules: &'a Rules,
    /// Everything but the asset, at its fixed prices.
    fixed: Totals,
    unit: U256,
    /// `b`: the asset's collateral balance.
    collateral: U256,
    threshold: U256,
    /// `d`: the asset's counted debt.
    debt: U256,
}

impl Problem<'_> {
    fn collateral_value(&self, price: U256) -> Result<U256, MathError> {
        math::collateral_value(self.collateral, price, self.unit)
    }

    fn totals(&self, price: U256) -> Result<Totals, MathError> {
        let c = self.collateral_value(price)?;
        let e = math::debt_value(self.debt, price, self.unit, self.rules)?;
        Ok(Totals {
            collateral: math::add(self.fixed.collateral, c)?,
            weighted_threshold: math::add(self.fixed.weighted_threshold, mul(c, self.threshold)?)?,
            debt: math::add(self.fixed.debt, e)?,
        })
    }

    fn health_factor(&self, price: U256) -> Result<U256, MathError> {
        self.totals(price)?.health_factor(self.rules)
    }

    fn at_or_below_one(&self, price: U256) -> Result<bool, MathError> {
        Ok(self.health_factor(price)? <= WAD)
    }

    /// The lowest price with the same collateral and debt values as `price`.
    fn piece_start(&self, price: U256) -> Result<U256, MathError> {
        let mut start = U256::ZERO;
        if !self.collateral.is_zero() {
            let c = self.collateral_value(price)?;
            start = start.max(math::mul_div_up(c, self.unit, self.collateral)?);
        }
        if !self.debt.is_zero() {
            let e = math::debt_value(self.debt, price, self.unit, self.rules)?;
            let first = match self.rules.debt_rounding {
                crate::rules::Rounding::Down => math::mul_div_up(e, self.unit, self.debt)?,
                crate::rules::Rounding::Up if e.is_zero() => U256::ZERO,
                crate::rules::Rounding::Up => {
                    math::mul_div_down(e - U256::from(1u8), self.unit, self.debt)? + U256::from(1u8)
                }
            };
            start = start.max(first);
        }
        Ok(start.min(price))
    }

    /// The highest price in `[low, start]` with `HF ≤ 1`, walking down piece by piece; `stop`
    /// says when no lower price of the range can qualify.
    fn walk_down(
        &self,
        start: U256,
        low: U256,
        stop: Option<&Bound>,
        budget: &mut u32,
    ) -> Result<Option<U256>, Stop> {
        let mut price = start;
        loop {
            if self.at_or_below_one(price)? {
                return Ok(Some(price));
            }
            if let Some(bound) = stop
                && bound.excludes(price)?
            {
                return Ok(None);
            }
            let piece = self.piece_start(price)?;
            if piece <= low {
                return Ok(None);
            }
            price = piece - U256::from(1u8);
            *budget = budget.checked_sub(1).ok_or(Stop::Budget)?;
        }
    }

    fn signed(&self) -> Result<SignedTerms, MathError> {
        Ok(SignedTerms {
            u: signed(self.unit)?,
            b: signed(self.collateral)?,
            d: signed(self.debt)?,
            lt: signed(self.threshold)?,
            t0: signed(self.fixed.collateral)?,
            s0: signed(self.fixed.weighted_threshold)?,
            d0: signed(self.fixed.debt)?,
            w: signed(WAD)?,
            pf: signed(PERCENTAGE_FACTOR)?,
        })
    }

    /// 3.5 and later: `HF = ⌊wadDiv(S, D) / 10⁴⌋` with `S = S₀ + c·LT`. From
    /// `wadDiv(S, D) ≥ S·W/D − 1` and `c > (b·P − u)/u`, `D < D₀ + (d·P + u)/u`:
    /// `(S₀·u + (b·P − u)·LT)·W > K·(D₀·u + d·P + u)` with `K = (W + 1)·10⁴ + 1` implies HF > 1.
    fn search_weighted_sum(&self, budget: &mut u32) -> Result<Option<U256>, Stop> {
        let SignedTerms {
            u,
            b,
            d,
            lt,
            s0,
            d0,
            w,
            pf,
            ..
        } = self.signed()?;
        let k = iadd(imul(iadd(w, I256::ONE)?, pf)?, I256::ONE)?;
        let bound = Bound {
            alpha: isub(imul(imul(b, lt)?, w)?, imul(k, d)?)?,
            beta: isub(
                imul(imul(k, iadd(d0, I256::ONE)?)?, u)?,
                imul(imul(isub(s0, lt)?, u)?, w)?,
            )?,
        };
        let Some(top) = bound.first_excluded()? else {
            return Err(Stop::NearlyOffset);
        };
        if top.is_zero() {
            return Ok(None);
        }
        self.walk_down(top - U256::from(1u8), U256::ZERO, None, budget)
    }

    /// Up to 3.4. Across segments, `⌊S/T⌋·T ≥ S − T + 1` gives the loose bound
    /// `((S₀ − T₀)·u + (b·P − u)·(LT − 1) − 4998·u)·W > (W + 1)·10⁴·(D₀·u + d·P + u)`; inside a
    /// segment with average threshold `a`, `x ≥ (T·a − 4999)/10⁴` gives the tight one
    /// `((T₀·u + b·P − u)·a − 4999·u)·W > (W + 1)·10⁴·(D₀·u + d·P + u)`.
    fn search_average_threshold(&self, budget: &mut u32) -> Result<Option<U256>, Stop> {
        let SignedTerms {
            u,
            b,
            d,
            lt,
            t0,
            s0,
            d0,
            w,
            pf,
        } = self.signed()?;
        let right = imul(iadd(w, I256::ONE)?, pf)?;
        let debt_side = imul(imul(right, iadd(d0, I256::ONE)?)?, u)?;
        let lt_less = isub(lt, I256::ONE)?;
        let loose = Bound {
            alpha: isub(imul(imul(b, lt_less)?, w)?, imul(right, d)?)?,
            beta: isub(
                debt_side,
                imul(
                    imul(
                        isub(
                            isub(isub(s0, t0)?, lt_less)?,
                            I256::from_raw(U256::from(4_998u64)),
                        )?,
                        u,
                    )?,
                    w,
                )?,
            )?,
        };
        let Some(top) = loose.first_excluded()? else {
            return Err(Stop::NearlyOffset);
        };
        if top.is_zero() {
            return Ok(None);
        }
        let mut price = top - U256::from(1u8);
        loop {
            let c = self.collateral_value(price)?;
            let average = self.average_threshold(c)?;
            let segment_low = self.segment_start(average, c)?;
            let low = math::mul_div_up(segment_low, self.unit, self.collateral)?;
            let a = signed(average)?;
            let tight = Bound {
                alpha: isub(imul(imul(b, a)?, w)?, imul(right, d)?)?,
                beta: isub(
                    iadd(
                        debt_side,
                        imul(imul(iadd(a, I256::from_raw(U256::from(4_999u64)))?, u)?, w)?,
                    )?,
                    imul(imul(imul(t0, a)?, u)?, w)?,
                )?,
            };
            let found = match tight.first_excluded()? {
                // The health factor grows with the price inside the segment: start below the
                // first excluded price.
                Some(first) => {
                    if first.is_zero() || first - U256::from(1u8) < low {
                        None
                    } else {
                        let start = price.min(first - U256::from(1u8));
                        self.walk_down(start, low, None, budget)?
                    }
                }
                // It does not grow: walk down from the top until the bound rules out the rest.
                None => self.walk_down(price, low, Some(&tight), budget)?,
            };
            if found.is_some() {
                return Ok(found);
            }
            if low.is_zero() {
                return Ok(None);
            }
            price = low - U256::from(1u8);
            *budget = budget.checked_sub(1).ok_or(Stop::Budget)?;
        }
    }

    /// `⌊(S₀ + c·LT) / (T₀ + c)⌋`, zero without collateral.
    fn average_threshold(&self, c: U256) -> Result<U256, MathError> {
        let total = math::add(self.fixed.collateral, c)?;
        if total.is_zero() {
            return Ok(U256::ZERO);
        }
        Ok(math::add(self.fixed.weighted_threshold, mul(c, self.threshold)?)? / total)
    }

    /// The lowest collateral value with the same floored average threshold `a` as `c`. The
    /// average moves monotonically towards the asset's threshold as `c` grows, so the segment
    /// is an interval.
    fn segment_start(&self, a: U256, c: U256) -> Result<U256, MathError> {
        let (t0, s0, lt) = (
            self.fixed.collateral,
            self.fixed.weighted_threshold,
            self.threshold,
        );
        let start = if lt > a {
            // Rising towards LT: the first c with S₀ + c·LT ≥ a·(T₀ + c).
            let need = mul(a, t0)?;
            if need <= s0 {
                U256::ZERO
            } else {
                math::mul_div_up(need - s0, U256::from(1u8), lt - a)?
            }
        } else {
            // Falling towards LT: the first c with S₀ + c·LT < (a + 1)·(T₀ + c).
            let above = mul(a + U256::from(1u8), t0)?;
            if s0 < above {
                U256::ZERO
            } else {
                (s0 - above) / (a + U256::from(1u8) - lt) + U256::from(1u8)
            }
        };
        Ok(start.min(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{CollateralTerm, DebtTerm};
    use proptest::prelude::*;

    fn u(value: u128) -> U256 {
        U256::from(value)
    }

    fn collateral(unit: u128, balance: u128, price: u128, lt: u16) -> ReserveTerms {
        ReserveTerms {
            unit: u(unit),
            collateral: Some(CollateralTerm {
                balance: u(balance),
                price: u(price),
                liquidation_threshold: lt,
            }),
            debt: None,
        }
    }

    fn debt(unit: u128, balance: u128, price: u128) -> ReserveTerms {
        ReserveTerms {
            unit: u(unit),
            collateral: None,
            debt: Some(DebtTerm {
                balance: u(balance),
                price: u(price),
            }),
        }
    }

    /// The health factor with the asset of `index` at `price` on both of its sides.
    fn hf_at(reserves: &[ReserveTerms], index: usize, rules: &Rules, price: u128) -> U256 {
        let mut moved = reserves.to_vec();
        if let Some(c) = moved[index].collateral.as_mut() {
            c.price = u(price);
        }
        if let Some(d) = moved[index].debt.as_mut() {
            d.price = u(price);
        }
        math::totals(&moved, rules)
            .and_then(|t| t.health_factor(rules))
            .expect("hf")
    }

    #[test]
    fn one_collateral_one_debt_matches_the_closed_form() {
        // 1 WETH (LT 82.5 %) against 2,000 USDC: P* = 2000 / 0.825 = $2,424.2424…
        let rules = Rules::for_revision(1).expect("3.0");
        let reserves = [
            collateral(10u128.pow(18), 10u128.pow(18), 300_000_000_000, 8_250),
            debt(1_000_000, 2_000_000_000, 100_000_000),
        ];
        let LiquidationPrice::At {
            price,
            health_factor,
        } = liquidation_price(&reserves, 0, &rules).expect("solves")
        else {
            panic!("a price exists");
        };
        assert_eq!(price, u(242_424_242_424));
        assert!(health_factor <= WAD);
        let mut above = reserves;
        if let Some(c) = above[0].collateral.as_mut() {
            c.price = price + u(1);
        }
        let hf = math::totals(&above, &rules)
            .and_then(|t| t.health_factor(&rules))
            .expect("hf");
        assert!(hf > WAD);
    }

    /// A low-threshold collateral next to a high-threshold one: up to 3.4 the floored average
    /// threshold makes the health factor dip at every step of the floor. The answer is still
    /// the highest price with HF ≤ 1, as trying every price shows.
    #[test]
    fn the_floored_average_threshold_does_not_mislead_the_search() {
        for revision in [1u64, 9] {
            let rules = Rules::for_revision(revision).expect("rules");
            for debt_value in [1_440_000u128, 1_450_000, 1_450_321, 1_460_007] {
                let mut borrowed_too = collateral(1, 500, 2_500, 5_000);
                borrowed_too.debt = Some(DebtTerm {
                    balance: u(7),
                    price: u(2_500),
                });
                for target in [collateral(1, 500, 2_500, 5_000), borrowed_too] {
                    let reserves = [
                        target,
                        collateral(1, 1_000, 1_000, 9_500),
                        debt(1, debt_value, 1),
                    ];
                    let expected = (0..=20_000u128)
                        .filter(|p| hf_at(&reserves, 0, &rules, *p) <= WAD)
                        .max();
                    let found = match liquidation_price(&reserves, 0, &rules).expect("solves") {
                        LiquidationPrice::At { price, .. } => Some(price.to::<u128>()),
                        other => panic!("{other:?}"),
                    };
                    assert_eq!(found, expected, "revision {revision}, debt {debt_value}");
                }
            }
        }
    }

    #[test]
    fn reasons_without_a_price() {
        let rules = Rules::for_revision(1).expect("3.0");
        let no_debt = [collateral(100, 100, 100, 8_000)];
        assert_eq!(
            liquidation_price(&no_debt, 0, &rules),
            Ok(LiquidationPrice::None(NoLiquidationPrice::NoDebt))
        );
        let covered = [
            collateral(100, 1_000, 100, 8_000),
            collateral(100, 1_000, 100, 8_000),
            debt(100, 500, 100),
        ];
        assert!(matches!(
            liquidation_price(&covered, 0, &rules),
            Ok(LiquidationPrice::None(
                NoLiquidationPrice::CoveredAtZero { .. }
            ))
        ));
        let mut same_asset = collateral(100, 1_000, 100, 8_000);
        same_asset.debt = Some(DebtTerm {
            balance: u(800),
            price: u(100),
        });
        assert_eq!(
            liquidation_price(&[same_asset, collateral(100, 10, 100, 8_000)], 0, &rules),
            Ok(LiquidationPrice::None(
                NoLiquidationPrice::FallDoesNotLowerHealth
            ))
        );
        assert_eq!(
            liquidation_price(&[debt(100, 1, 1)], 0, &rules),
            Ok(LiquidationPrice::None(NoLiquidationPrice::NotCollateral))
        );
    }

    fn position() -> impl Strategy<Value = (Vec<ReserveTerms>, usize)> {
        let reserve = (
            prop::sample::select(vec![1u128, 100, 1_000_000]),
            0u128..5_000,
            1u128..2_000,
            prop::sample::select(vec![0u16, 5_000, 6_500, 7_800, 8_250, 9_500]),
            0u128..3_000,
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(
                |(unit, balance, price, lt, borrowed, is_collateral, is_debt)| ReserveTerms {
                    unit: u(unit),
                    collateral: is_collateral.then(|| CollateralTerm {
                        balance: u(balance),
                        price: u(price),
                        liquidation_threshold: lt,
                    }),
                    debt: is_debt.then(|| DebtTerm {
                        balance: u(borrowed),
                        price: u(price),
                    }),
                },
            );
        (prop::collection::vec(reserve, 1..4), 0usize..3).prop_map(|(reserves, index)| {
            let index = index % reserves.len();
            (reserves, index)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// On small positions prices can be tried one by one: at the price found HF ≤ 1 and
        /// at every one of the next 20,000 prices HF > 1; where the search says that even a
        /// zero price leaves HF above one, so does every price up to 20,000. For every rule set.
        #[test]
        fn the_search_agrees_with_trying_every_price(
            (reserves, index) in position(),
            revision in prop::sample::select(vec![1u64, 5, 9, 10]),
        ) {
            let rules = Rules::for_revision(revision).expect("rules");
            let window = 20_000u128;
            match liquidation_price(&reserves, index, &rules).expect("no overflow") {
                LiquidationPrice::At { price, health_factor } => {
                    let price = price.to::<u128>();
                    prop_assert!(health_factor <= WAD);
                    prop_assert_eq!(hf_at(&reserves, index, &rules, price), health_factor);
                    for above in price + 1..=price + window {
                        prop_assert!(hf_at(&reserves, index, &rules, above) > WAD, "HF ≤ 1 at {above} above {price}");
                    }
                }
                LiquidationPrice::None(NoLiquidationPrice::CoveredAtZero { health_factor_at_zero }) => {
                    prop_assert!(health_factor_at_zero > WAD);
                    for price in 0..=window {
                        prop_assert!(hf_at(&reserves, index, &rules, price) > WAD, "HF ≤ 1 at {price}");
                    }
                }
                // No debt, not collateral, zero threshold, a fall that helps: nothing to scan.
                LiquidationPrice::None(_) => {}
            }
        }
    }
}
