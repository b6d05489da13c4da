//! Whether a text layer looks like text in the scripts this service reads.

use super::PLAUSIBLE_SHARE;

/// Whether characters look like text in the scripts this service reads.
///
/// Plausible: letters and digits of the Latin, Greek and Cyrillic blocks, the usual punctuation
/// and symbols of invoices (ASCII punctuation, general punctuation, currency signs, `§ ° ² ³ µ
/// ½ × ÷`, arrows and bullets). Not plausible: everything else, notably CJK ideographs,
/// private-use code points, U+FFFD and controls, which is what a text layer decoded with the
/// wrong encoding usually yields. Above 100 ASCII letters, a vowel share outside 15–65 % also
/// marks a layer as junk (German and English run at about 35–40 %).
pub fn is_plausible_text(text: &str) -> bool {
    let (mut total, mut good, mut letters, mut vowels) = (0usize, 0usize, 0usize, 0usize);
    for c in text.chars().filter(|c| !c.is_whitespace()) {
        total += 1;
        if is_plausible_char(c) {
            good += 1;
        }
        if c.is_ascii_alphabetic() {
            letters += 1;
            if matches!(c.to_ascii_lowercase(), 'a' | 'e' | 'i' | 'o' | 'u' | 'y') {
                vowels += 1;
            }
        }
    }
    if total == 0 || (good as f64) < PLAUSIBLE_SHARE * total as f64 {
        return false;
    }
    if letters > 100 {
        let share = vowels as f64 / letters as f64;
        return (0.15..=0.65).contains(&share);
    }
    true
}

fn is_plausible_char(c: char) -> bool {
    let code = u32::from(c);
    c.is_ascii_graphic()
        || (c.is_alphanumeric()
            && matches!(code, 0x00C0..=0x024F | 0x0370..=0x04FF | 0x1E00..=0x1EFF))
        || matches!(
            code,
            0x00A0..=0x00BF | 0x00D7 | 0x00F7 | 0x2010..=0x205E | 0x20A0..=0x20C0 | 0x2100..=0x21FF
                | 0x2212 | 0x25A0..=0x25CF | 0xFB00..=0xFB06
        )
}
