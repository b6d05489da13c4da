//! Uniswap V3 `TickMath`: `sqrt(1.0001^tick)·2^96` and back, bit for bit as the library
//! computes it (the same magic constants, the same rounding), so ticks derived here match
//! the ones a pool stores.

use alloy::primitives::{I256, U256, uint};

use crate::MathError;

/// The lowest tick a pool can use: `log_1.0001(2^-128)`.
pub const MIN_TICK: i32 = -887_272;
/// The highest tick a pool can use.
pub const MAX_TICK: i32 = -MIN_TICK;
/// `get_sqrt_ratio_at_tick(MIN_TICK)`.
pub const MIN_SQRT_RATIO: U256 = uint!(4295128739_U256);
/// `get_sqrt_ratio_at_tick(MAX_TICK)`.
pub const MAX_SQRT_RATIO: U256 = uint!(1461446703485210103287273052203988822378723970342_U256);

/// `2^128 / sqrt(1.0001)^(2^i)` in Q128.128 for bit `i` of `|tick|`, as in TickMath.
const RATIO_FACTORS: [U256; 20] = [
    uint!(0xfffcb933bd6fad37aa2d162d1a594001_U256),
    uint!(0xfff97272373d413259a46990580e213a_U256),
    uint!(0xfff2e50f5f656932ef12357cf3c7fdcc_U256),
    uint!(0xffe5caca7e10e4e61c3624eaa0941cd0_U256),
    uint!(0xffcb9843d60f6159c9db58835c926644_U256),
    uint!(0xff973b41fa98c081472e6896dfb254c0_U256),
    uint!(0xff2ea16466c96a3843ec78b326b52861_U256),
    uint!(0xfe5dee046a99a2a811c461f1969c3053_U256),
    uint!(0xfcbe86c7900a88aedcffc83b479aa3a4_U256),
    uint!(0xf987a7253ac413176f2b074cf7815e54_U256),
    uint!(0xf3392b0822b70005940c7a398e4b70f3_U256),
    uint!(0xe7159475a2c29b7443b29c7fa6e889d9_U256),
    uint!(0xd097f3bdfd2022b8845ad8f792aa5825_U256),
    uint!(0xa9f746462d870fdf8a65dc1f90e061e5_U256),
    uint!(0x70d869a156d2a1b890bb3df62baf32f7_U256),
    uint!(0x31be135f97d08fd981231505542fcfa6_U256),
    uint!(0x9aa508b5b7a84e1c677de54f3e99bc9_U256),
    uint!(0x5d6af8dedb81196699c329225ee604_U256),
    uint!(0x2216e584f5fa1ea926041bedfe98_U256),
    uint!(0x48a170391f7dc42444e8fa2_U256),
];

/// `2^64 / log2(sqrt(1.0001))`: turns a Q64.64 log2 into a Q128.128
/// log base sqrt(1.0001), and the two error bounds of that approximation (TickMath).
const LOG_SQRT10001_FACTOR: U256 = uint!(255738958999603826347141_U256);
const TICK_LOW_ERROR: U256 = uint!(3402992956809132418596140100660247210_U256);
const TICK_HIGH_ERROR: U256 = uint!(291339464771989622907027621153398088495_U256);

/// `sqrt(1.0001^tick)·2^96` as a Q64.96, rounded up (TickMath.getSqrtRatioAtTick).
pub fn get_sqrt_ratio_at_tick(tick: i32) -> Result<U256, MathError> {
    let abs_tick = tick.unsigned_abs();
    if abs_tick > MAX_TICK.unsigned_abs() {
        return Err(MathError::TickOutOfRange(tick));
    }
    let mut ratio = if abs_tick & 1 != 0 {
        RATIO_FACTORS[0]
    } else {
        U256::from(1u8) << 128
    };
    for (bit, factor) in RATIO_FACTORS.iter().enumerate().skip(1) {
        if abs_tick & (1 << bit) != 0 {
            // Both factors are below 2^129, so the product never wraps.
            ratio = (ratio * factor) >> 128;
        }
    }
    if tick > 0 {
        ratio = U256::MAX / ratio;
    }
    // Q128.128 -> Q128.96, rounding up so that the tick of the result is `tick` again.
    let round_up = !(ratio & U256::from(u32::MAX)).is_zero();
    Ok((ratio >> 32) + U256::from(u8::from(round_up)))
}

/// The greatest tick whose sqrt ratio is `<= sqrt_price_x96` (TickMath.getTickAtSqrtRatio).
/// Defined on `[MIN_SQRT_RATIO, MAX_SQRT_RATIO)`.
pub fn get_tick_at_sqrt_ratio(sqrt_price_x96: U256) -> Result<i32, MathError> {
    if sqrt_price_x96 < MIN_SQRT_RATIO || sqrt_price_x96 >= MAX_SQRT_RATIO {
        return Err(MathError::SqrtPriceOutOfRange(sqrt_price_x96));
    }
    let ratio: U256 = sqrt_price_x96 << 32;
    // The library finds the most significant bit by binary search; the value is the same.
    let msb = 255 - ratio.leading_zeros();
    let mut r = if msb >= 128 {
        ratio >> (msb - 127)
    } else {
        ratio << (127 - msb)
    };

    // log2 as a Q64.64: the integer part from msb, then 14 fractional bits by squaring.
    // r stays in [2^127, 2^128) between rounds, so r² >> 127 is below 2^129 and the
    // library's `f = r >> 128` is bit 128; the bits gather in a u64 (the hot path of every
    // swap step that stops inside a range).
    let mut fraction: u64 = 0;
    for bit in (50..=63).rev() {
        r = r.wrapping_mul(r) >> 127;
        if r.bit(128) {
            fraction |= 1 << bit;
            r >>= 1;
        }
    }
    // The integer part's low 64 bits are zero, so OR-ing the fraction in is exact.
    let log_2: I256 =
        (I256::unchecked_from(msb as i64 - 128) << 64usize) | I256::from_raw(U256::from(fraction));

    // log_sqrt(1.0001)(ratio) as a Q128.128; the two error bounds bracket the true tick.
    let log_sqrt10001 = log_2.wrapping_mul(I256::from_raw(LOG_SQRT10001_FACTOR));
    let tick_low = low_i32(
        log_sqrt10001
            .wrapping_sub(I256::from_raw(TICK_LOW_ERROR))
            .asr(128),
    );
    let tick_high = low_i32(
        log_sqrt10001
            .wrapping_add(I256::from_raw(TICK_HIGH_ERROR))
            .asr(128),
    );

    Ok(if tick_low == tick_high {
        tick_low
    } else if get_sqrt_ratio_at_tick(tick_high)? <= sqrt_price_x96 {
        tick_high
    } else {
        tick_low
    })
}

/// The low 32 bits of a two's-complement value, i.e. the value itself when it fits an
/// `i32`, as the library's `int24(...)` cast takes it; ticks here are within ±887,272.
fn low_i32(value: I256) -> i32 {
    value.into_raw().as_limbs()[0] as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(text: &str) -> U256 {
        U256::from_str_radix(text, 10).unwrap_or_default()
    }

    #[test]
    fn sqrt_ratio_at_known_ticks() {
        // Values from the Uniswap v3-core TickMath test suite.
        assert_eq!(get_sqrt_ratio_at_tick(MIN_TICK), Ok(MIN_SQRT_RATIO));
        assert_eq!(get_sqrt_ratio_at_tick(MIN_TICK + 1), Ok(dec("4295343490")));
        assert_eq!(
            get_sqrt_ratio_at_tick(MAX_TICK - 1),
            Ok(dec("1461373636630004318706518188784493106690254656249"))
        );
        assert_eq!(get_sqrt_ratio_at_tick(MAX_TICK), Ok(MAX_SQRT_RATIO));
        assert_eq!(get_sqrt_ratio_at_tick(0), Ok(U256::from(1u8) << 96));
        assert_eq!(
            get_sqrt_ratio_at_tick(1),
            Ok(dec("79232123823359799118286999568"))
        );
        assert_eq!(
            get_sqrt_ratio_at_tick(-1),
            Ok(dec("79224201403219477170569942574"))
        );
    }

    #[test]
    fn sqrt_ratio_rejects_ticks_out_of_range() {
        assert_eq!(
            get_sqrt_ratio_at_tick(MIN_TICK - 1),
            Err(MathError::TickOutOfRange(MIN_TICK - 1))
        );
        assert_eq!(
            get_sqrt_ratio_at_tick(MAX_TICK + 1),
            Err(MathError::TickOutOfRange(MAX_TICK + 1))
        );
        assert!(get_sqrt_ratio_at_tick(i32::MIN).is_err());
    }

    #[test]
    fn tick_at_known_ratios() {
        assert_eq!(get_tick_at_sqrt_ratio(MIN_SQRT_RATIO), Ok(MIN_TICK));
        assert_eq!(get_tick_at_sqrt_ratio(dec("4295343490")), Ok(MIN_TICK + 1));
        assert_eq!(
            get_tick_at_sqrt_ratio(MAX_SQRT_RATIO - U256::from(1u8)),
            Ok(MAX_TICK - 1)
        );
        assert_eq!(
            get_tick_at_sqrt_ratio(dec("1461373636630004318706518188784493106690254656249")),
            Ok(MAX_TICK - 1)
        );
        assert_eq!(get_tick_at_sqrt_ratio(U256::from(1u8) << 96), Ok(0));
        assert_eq!(
            get_tick_at_sqrt_ratio((U256::from(1u8) << 96) - U256::from(1u8)),
            Ok(-1)
        );
        assert_eq!(
            get_tick_at_sqrt_ratio(MIN_SQRT_RATIO - U256::from(1u8)),
            Err(MathError::SqrtPriceOutOfRange(
                MIN_SQRT_RATIO - U256::from(1u8)
            ))
        );
        assert_eq!(
            get_tick_at_sqrt_ratio(MAX_SQRT_RATIO),
            Err(MathError::SqrtPriceOutOfRange(MAX_SQRT_RATIO))
        );
    }
}
