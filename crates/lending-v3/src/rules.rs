//! What the health factor and the liquidation mechanics of one deployed Pool follow, decided by
//! its `POOL_REVISION()`.
//!
//! Read in `GenericLogic.calculateUserAccountData` and `LiquidationLogic` of `@aave/core-v3`
//! 1.19.3 (revision 1) and aave-dao/aave-v3-origin at v3.1.0 (4), v3.2.0 (5), v3.2.1 (6),
//! v3.3.0 (7), v3.4.0 (8), v3.5.0 (9), v3.6.0 (10) and v3.7.0 (11):
//!
//! | Revision | Version | What changes for this crate |
//! |---|---|---|
//! | 1–4 | 3.0–3.1 | eMode by the reserve's category (configuration bits 168–175) with an optional category price source; stable debt counts; `HF = wadDiv(percentMul(C, ⌊Σ cᵢ·LTᵢ / C⌋), D)`; debt rounded down |
//! | 5–6 | 3.2 | eMode by the category's collateral bitmap, no price source; stable debt gone |
//! | 7 | 3.3 | close factor also 100 % when the liquidated collateral or debt reserve is below $2,000 |
//! | 8 | 3.4 | (GHO becomes an ordinary reserve) |
//! | 9 | 3.5 | `HF = wadDiv(Σ cᵢ·LTᵢ, D) / 10⁴`; debt rounded up (`mulDivCeil`), collateral down |
//! | 10 | 3.6 | collateral with a zero liquidation threshold counts in the collateral total |
//! | 11 | 3.7 | isolation mode by debt ceiling removed |

use alloy::primitives::U256;

/// How a user's eMode category is matched to a reserve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EModeModel {
    /// 3.0–3.1: the reserve names one category in its configuration; the category may carry a
    /// price source that replaces the oracle price of its assets.
    ReserveCategory,
    /// 3.2 and later: the category lists its collateral reserves in a bitmap.
    CollateralBitmap,
}

/// Which way a debt in base currency is rounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// `⌊amount · price / unit⌋`.
    Down,
    /// `⌈amount · price / unit⌉`.
    Up,
}

/// The health-factor formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HealthFormula {
    /// Up to 3.4: `wadDiv(percentMul(C, ⌊Σ cᵢ·LTᵢ / C⌋), D)`. The average threshold is floored
    /// to a whole basis point, and both roundings are half up.
    AverageThreshold,
    /// 3.5 and later: `wadDiv(Σ cᵢ·LTᵢ, D) / 10⁴`.
    WeightedSum,
}

/// The rules of one Pool revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    /// `POOL_REVISION()` as read.
    pub pool_revision: u64,
    /// The release line it belongs to, e.g. `3.0–3.1`.
    pub version: &'static str,
    /// The revision is newer than any this crate was written against; the newest rules are
    /// applied.
    pub assumed: bool,
    /// eMode matching.
    pub emode: EModeModel,
    /// Whether stable-rate debt enters the health factor.
    pub stable_debt_counts: bool,
    /// Rounding of each debt in base currency (collateral is always rounded down).
    pub debt_rounding: Rounding,
    /// The formula.
    pub formula: HealthFormula,
    /// Whether enabled collateral with a zero liquidation threshold counts in the collateral
    /// total (it never adds to the weighted threshold).
    pub zero_threshold_collateral_counts: bool,
    /// Below this value in base currency (8 decimals) a collateral or debt reserve is
    /// liquidated at a 100 % close factor even when HF > 0.95 (3.3 and later).
    pub close_factor_min_base: Option<U256>,
    /// Whether isolation mode by debt ceiling exists (up to 3.6).
    pub isolation_by_debt_ceiling: bool,
}

/// `LiquidationLogic.CLOSE_FACTOR_HF_THRESHOLD`: at or below it the whole debt can be repaid.
pub const CLOSE_FACTOR_HF_THRESHOLD: U256 = U256::from_limbs([950_000_000_000_000_000, 0, 0, 0]);

/// `LiquidationLogic.MIN_BASE_MAX_CLOSE_FACTOR_THRESHOLD` (3.3 and later): $2,000 at 8 decimals.
pub const MIN_BASE_MAX_CLOSE_FACTOR_THRESHOLD: U256 = U256::from_limbs([200_000_000_000, 0, 0, 0]);

/// The newest revision this crate knows.
pub const NEWEST_REVISION: u64 = 11;

impl Rules {
    /// The rules of `POOL_REVISION() == revision`; `None` for 0 (no Aave V3 Pool answers it).
    pub fn for_revision(revision: u64) -> Option<Self> {
        if revision == 0 {
            return None;
        }
        let version = match revision {
            1..=4 => "3.0–3.1",
            5 | 6 => "3.2",
            7 => "3.3",
            8 => "3.4",
            9 => "3.5",
            10 => "3.6",
            _ => "3.7",
        };
        Some(Self {
            pool_revision: revision,
            version,
            assumed: revision > NEWEST_REVISION,
            emode: if revision <= 4 {
                EModeModel::ReserveCategory
            } else {
                EModeModel::CollateralBitmap
            },
            stable_debt_counts: revision <= 4,
            debt_rounding: if revision >= 9 {
                Rounding::Up
            } else {
                Rounding::Down
            },
            formula: if revision >= 9 {
                HealthFormula::WeightedSum
            } else {
                HealthFormula::AverageThreshold
            },
            zero_threshold_collateral_counts: revision >= 10,
            close_factor_min_base: (revision >= 7).then_some(MIN_BASE_MAX_CLOSE_FACTOR_THRESHOLD),
            isolation_by_debt_ceiling: revision <= 10,
        })
    }

    /// The health-factor computation in words, for the answer's assumptions.
    pub fn describe(&self) -> String {
        let formula = match self.formula {
            HealthFormula::AverageThreshold => {
                "HF = wadDiv(percentMul(C, ⌊Σ cᵢ·LTᵢ / C⌋), D), both roundings half up"
            }
            HealthFormula::WeightedSum => "HF = ⌊wadDiv(Σ cᵢ·LTᵢ, D) / 10⁴⌋, wadDiv half up",
        };
        let debt = match self.debt_rounding {
            Rounding::Down => "rounded down",
            Rounding::Up => "rounded up",
        };
        let emode = match self.emode {
            EModeModel::ReserveCategory => {
                "eMode thresholds apply to reserves whose configured category is the wallet's (and the category's price source, if set, prices them)"
            }
            EModeModel::CollateralBitmap => {
                "eMode thresholds apply to reserves in the category's collateral bitmap"
            }
        };
        let stable = if self.stable_debt_counts {
            "variable plus stable debt"
        } else {
            "variable debt (stable-rate debt no longer exists)"
        };
        let assumed = if self.assumed {
            format!(
                " POOL_REVISION {} is newer than any this service was written against; the rules of revision {NEWEST_REVISION} are applied.",
                self.pool_revision
            )
        } else {
            String::new()
        };
        format!(
            "Aave V3 {} rules (POOL_REVISION {}): each collateral cᵢ = ⌊balance · price / 10^decimals⌋ and each debt ({stable}) · price / 10^decimals {debt}, in base currency; {formula}; {emode}.{assumed}",
            self.version, self.pool_revision
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_map_to_the_release_lines() {
        assert!(Rules::for_revision(0).is_none());
        let devnet = Rules::for_revision(1).expect("3.0");
        assert_eq!(devnet.emode, EModeModel::ReserveCategory);
        assert!(devnet.stable_debt_counts);
        assert_eq!(devnet.debt_rounding, Rounding::Down);
        assert_eq!(devnet.formula, HealthFormula::AverageThreshold);
        assert!(devnet.close_factor_min_base.is_none());

        let v32 = Rules::for_revision(5).expect("3.2");
        assert_eq!(v32.emode, EModeModel::CollateralBitmap);
        assert!(!v32.stable_debt_counts);
        assert_eq!(v32.formula, HealthFormula::AverageThreshold);

        assert!(
            Rules::for_revision(6)
                .expect("3.2.1")
                .close_factor_min_base
                .is_none()
        );
        assert_eq!(
            Rules::for_revision(7).expect("3.3").close_factor_min_base,
            Some(U256::from(2_000u64 * 100_000_000))
        );

        let v35 = Rules::for_revision(9).expect("3.5");
        assert_eq!(v35.formula, HealthFormula::WeightedSum);
        assert_eq!(v35.debt_rounding, Rounding::Up);
        assert!(!v35.zero_threshold_collateral_counts);
        assert!(
            Rules::for_revision(10)
                .expect("3.6")
                .zero_threshold_collateral_counts
        );
        let v37 = Rules::for_revision(11).expect("3.7");
        assert!(!v37.isolation_by_debt_ceiling);
        assert!(!v37.assumed);
        let future = Rules::for_revision(12).expect("future");
        assert!(future.assumed);
        assert!(future.describe().contains("newer"));
        assert_eq!(
            CLOSE_FACTOR_HF_THRESHOLD,
            U256::from(95u64) * U256::from(10u64).pow(U256::from(16u64))
        );
    }
}
