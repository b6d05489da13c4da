//! The two bitmaps the Pool keeps: a reserve's configuration (`ReserveConfiguration.sol`, the
//! same bit positions from 3.0 to 3.7; fields later marked deprecated keep their place) and a
//! user's configuration (`UserConfiguration.sol`: bit 2i borrowing, bit 2i+1 collateral, for
//! the reserve with id i).

use alloy::primitives::U256;

/// A reserve's configuration word, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReserveConfig {
    /// Loan to value, basis points (bits 0–15).
    pub ltv: u16,
    /// Liquidation threshold, basis points (16–31).
    pub liquidation_threshold: u16,
    /// Liquidation bonus, basis points above 10⁴ included (32–47).
    pub liquidation_bonus: u16,
    /// Decimals of the asset (48–55).
    pub decimals: u8,
    /// Active (56).
    pub active: bool,
    /// Frozen (57).
    pub frozen: bool,
    /// Borrowing enabled (58).
    pub borrowing_enabled: bool,
    /// Stable-rate borrowing enabled (59; 3.0–3.1).
    pub stable_borrowing_enabled: bool,
    /// Paused (60).
    pub paused: bool,
    /// Borrowable in isolation mode (61; up to 3.6).
    pub borrowable_in_isolation: bool,
    /// Reserve factor, basis points (64–79).
    pub reserve_factor: u16,
    /// eMode category (168–175; 3.0–3.1, zero or stale later).
    pub emode_category: u8,
    /// Isolation-mode debt ceiling with 2 decimals (212–251; up to 3.6).
    pub debt_ceiling: U256,
}

fn bits(word: U256, start: usize, width: usize) -> U256 {
    (word >> start) & ((U256::from(1u8) << width) - U256::from(1u8))
}

fn small<T: TryFrom<u64> + Default>(word: U256, start: usize, width: usize) -> T {
    // Widths of 16 bits or less always fit.
    T::try_from(bits(word, start, width).to::<u64>()).unwrap_or_default()
}

fn flag(word: U256, bit: usize) -> bool {
    word.bit(bit)
}

impl ReserveConfig {
    /// Decodes a configuration word.
    pub fn decode(word: U256) -> Self {
        Self {
            ltv: small(word, 0, 16),
            liquidation_threshold: small(word, 16, 16),
            liquidation_bonus: small(word, 32, 16),
            decimals: small(word, 48, 8),
            active: flag(word, 56),
            frozen: flag(word, 57),
            borrowing_enabled: flag(word, 58),
            stable_borrowing_enabled: flag(word, 59),
            paused: flag(word, 60),
            borrowable_in_isolation: flag(word, 61),
            reserve_factor: small(word, 64, 16),
            emode_category: small(word, 168, 8),
            debt_ceiling: bits(word, 212, 40),
        }
    }

    /// `10^decimals`.
    pub fn unit(&self) -> U256 {
        U256::from(10u8).pow(U256::from(self.decimals))
    }
}

/// A user's configuration word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UserConfig(pub U256);

impl UserConfig {
    /// Whether the wallet borrows the reserve with id `index`.
    pub fn is_borrowing(&self, index: usize) -> bool {
        index < 128 && self.0.bit(2 * index)
    }

    /// Whether the wallet uses the reserve with id `index` as collateral.
    pub fn is_using_as_collateral(&self, index: usize) -> bool {
        index < 128 && self.0.bit(2 * index + 1)
    }

    /// Whether the reserve enters the account at all.
    pub fn touches(&self, index: usize) -> bool {
        self.is_borrowing(index) || self.is_using_as_collateral(index)
    }

    /// No collateral and no debt anywhere.
    pub fn is_empty(&self) -> bool {
        self.0.is_zero()
    }

    /// The reserve ids used as collateral.
    pub fn collateral_indices(&self) -> Vec<usize> {
        (0..128)
            .filter(|index| self.is_using_as_collateral(*index))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_word_decodes_field_by_field() {
        let mut word = U256::from(8_000u64)
            | (U256::from(8_250u64) << 16)
            | (U256::from(10_500u64) << 32)
            | (U256::from(18u64) << 48)
            | (U256::from(1u64) << 56)
            | (U256::from(1u64) << 58)
            | (U256::from(1_500u64) << 64)
            | (U256::from(1u64) << 168);
        word |= U256::from(123_456u64) << 212;
        let config = ReserveConfig::decode(word);
        assert_eq!(config.ltv, 8_000);
        assert_eq!(config.liquidation_threshold, 8_250);
        assert_eq!(config.liquidation_bonus, 10_500);
        assert_eq!(config.decimals, 18);
        assert!(config.active && config.borrowing_enabled);
        assert!(!config.frozen && !config.paused && !config.stable_borrowing_enabled);
        assert_eq!(config.reserve_factor, 1_500);
        assert_eq!(config.emode_category, 1);
        assert_eq!(config.debt_ceiling, U256::from(123_456u64));
        assert_eq!(config.unit(), U256::from(10u64).pow(U256::from(18u64)));
    }

    #[test]
    fn user_bits_pair_borrowing_and_collateral() {
        // Reserve 0 collateral, reserve 1 borrowed, reserve 3 both.
        let config = UserConfig(U256::from(0b1100_0110u64));
        assert!(config.is_using_as_collateral(0) && !config.is_borrowing(0));
        assert!(config.is_borrowing(1) && !config.is_using_as_collateral(1));
        assert!(!config.touches(2));
        assert!(config.is_borrowing(3) && config.is_using_as_collateral(3));
        assert_eq!(config.collateral_indices(), [0, 3]);
        assert!(!config.touches(200));
    }
}
