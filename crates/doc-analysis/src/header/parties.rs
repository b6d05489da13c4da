//! Seller and buyer: party headings (`Verkäufer`, `Rechnungsempfänger`, `Bill to`) with the
//! name under them, the sender line above the address window (`Muster GmbH · Straße 1 · 12345
//! Ort`), the address window itself, and company names with a legal form in the letterhead or
//! footer. VAT ids found inside the buyer's block are the buyer's.

use std::sync::LazyLock;

use doc_model::{HeaderFieldName, Method, Page, PageBox, Word};
use regex::Regex;

use super::normalize::collapse_whitespace;
use super::{
    Candidates, Rule, ValueKind, label_weight, offer_parsed, parse_value, words_confidence,
};
use crate::segments::{Segment, join_words, words_box};
use crate::vocabulary::{self, find_labels};

/// A postal-code line (`80333 München`, `SW1A 1AA`, `NY 10001`).
pub(super) static POSTAL_LINE: LazyLock<Regex> = LazyLock::new(|| {
    super::normalize::compile(
        r"^(?:[A-Z]{1,2}[- ]?)?\d{4,5}\s+\p{Lu}\p{L}+|^[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b|\b\d{5}(?:-\d{4})?$",
    )
});

/// A street line: a street word and a house number (`Lieferantenstraße 20`, `BAHNHOFSTRASSE
/// 99`, `12 Main Street`).
static STREET_LINE: LazyLock<Regex> = LazyLock::new(|| {
    super::normalize::compile(
        r"(?i)(?:stra(?:ss|ß)e|str\.|weg|platz|allee|gasse|ring|damm|ufer|street|road|avenue|lane|rue)\s*\d+\s*[a-z]?$|^\d+\s+\p{L}+.*\b(?:street|st\.|road|rd\.|avenue|ave\.|lane|rue)\b",
    )
});

/// A legal form in a name (`GmbH`, `Ltd`, `SARL`…).
pub(super) static LEGAL_FORM: LazyLock<Regex> = LazyLock::new(|| {
    super::normalize::compile(
        r"(?i)\b(?:GmbH(?:\s*&\s*Co\.?\s*KG(?:aA)?)?|AG|KG|KGaA|OHG|UG(?:\s*\(haftungsbeschränkt\))?|e\.\s?K\.|e\.\s?V\.|a\.\s?G\.|SE|Ltd\.?|Limited|LLP|PLC|Inc\.?|LLC|Corp\.?|Sdn\.?\s*Bhd\.?|Bhd\.?|Berhad|S\.?A\.?R\.?L\.?|Sàrl|EURL|SASU|SAS|SNC|SA|S\.A\.|S\.p\.A\.|SpA|S\.r\.l\.|Srl|S\.a\.s\.|B\.V\.|BV|N\.V\.|NV|VOF|GbR|PartG|mbH)(?:\s|$|,)",
    )
});

/// Street words of the other languages, for [`looks_like_street`].
static STREET_WORD: LazyLock<Regex> = LazyLock::new(|| {
    super::normalize::compile(
        r"(?i)\b(?:via|viale|piazza|corso|straat|laan|plein|gracht|kade|chemin|boulevard|bd|allée|impasse|place|quai|route|avenue|rue|postfach|boîte|bp|po box)\b",
    )
});

/// Whether a text reads as a street line rather than a name: a street word with a house
/// number (`Lindenallee 93`, `12 rue des Lilas`, `Via Roma 4`) or a post-office box.
pub(super) fn looks_like_street(text: &str) -> bool {
    let text = text.trim();
    let has_digit = text.chars().any(|c| c.is_ascii_digit());
    STREET_LINE.is_match(text) || (has_digit && STREET_WORD.is_match(text))
}

/// Headings of address blocks that are not the buyer's name (folded).
const ADDRESS_HEADINGS: &[&str] = &[
    "lieferadresse",
    "lieferanschrift",
    "deliveryaddress",
    "shippingaddress",
    "shipto",
    "adressedelivraison",
    "adressedefacturation",
    "rechnungsadresse",
    "billingaddress",
];

const SALUTATIONS: &[&str] = &[
    "herrn", "herr", "frau", "firma", "an", "to", "mr", "mrs", "ms", "attn", "zhd", "zhd",
];

/// Forms of address of a person (folded): printed on their own line right over a person's
/// name they are part of the recipient designation (`Herrn` / `Max Mustermann`), as the
/// e-invoice's name writes it; `Firma`, `An`, `Attn` only say who the letter goes to.
const PERSONAL_SALUTATIONS: &[&str] = &["herrn", "herr", "frau", "mr", "mrs", "ms"];

/// The name's words with the personal form of address printed alone on the line right above
/// it (aligned, no wider gap than a line) put in front: `Herrn Max Mustermann`.
fn with_salutation<'a>(
    above: Option<&Segment<'a>>,
    name: &Segment<'a>,
    words: Vec<&'a Word>,
) -> Vec<&'a Word> {
    let Some(above) = above else {
        return words;
    };
    let height = name.height();
    let adjoining = name.bbox.y - above.bbox.bottom() < height
        && name.bbox.y > above.bbox.y
        && (above.bbox.x - name.bbox.x).abs() < height;
    if adjoining && PERSONAL_SALUTATIONS.contains(&vocabulary::fold(&above.text()).as_str()) {
        let mut all = above.words.clone();
        all.extend(words);
        return all;
    }
    words
}

/// The label fills the segment (a trailing lone `:` allowed): a heading, not a name that
/// starts with a label word (`Lieferant GmbH`).
fn heading_only(segment: &Segment<'_>, label_end: usize) -> bool {
    segment.words[label_end..].iter().all(|w| w.text == ":")
}

fn is_party_label(field: HeaderFieldName) -> bool {
    matches!(
        field,
        HeaderFieldName::SellerName | HeaderFieldName::BuyerName
    )
}

/// Candidates for seller and buyer names and addresses on one page; the buyer's block is
/// remembered for assigning VAT ids.
pub(super) fn offer_parties(page: &Page, segments: &[Segment<'_>], out: &mut Candidates) {
    headings(page, segments, out);
    representative_blocks(page, segments, out);
    if page.page == 1 {
        let sender_row = sender_line(page, segments, out);
        address_window(page, segments, sender_row, out);
    }
    // A till slip spaces its letters and words wide: its name lines are read as the runs the
    // segmenter cut them into, too.
    let with_runs: Vec<Segment<'_>> = segments
        .iter()
        .cloned()
        .chain(super::sources::spaced_runs(segments))
        .collect();
    legal_form_names(page, &with_runs, out);
}

fn segment_texts<'a>(segment: &'a Segment<'_>) -> Vec<&'a str> {
    segment.words.iter().map(|w| w.text.as_str()).collect()
}

/// `Verkäufer` / `Bill to:` heading a block: the name is the `Name:` entry of the block or its
/// first line; `Käufer: Muster AG` on one line counts too.
fn headings(page: &Page, segments: &[Segment<'_>], out: &mut Candidates) {
    for (index, segment) in segments.iter().enumerate() {
        let texts = segment_texts(segment);
        let labels = find_labels(&texts);
        let Some(label) = labels.first().filter(|l| {
            l.first_word == 0
                && is_party_label(l.field)
                && (heading_only(segment, l.end_word)
                    || segment.words[l.end_word - 1].text.ends_with(':'))
        }) else {
            continue;
        };
        let weight = 0.8 * label_weight(label);
        let after: Vec<&Word> = segment.words[label.end_word..]
            .iter()
            .copied()
            .skip_while(|w| w.text == ":")
            .collect();
        let label_has_colon = segment.words[label.end_word - 1].text.ends_with(':')
            || segment
                .words
                .get(label.end_word)
                .is_some_and(|w| w.text == ":");
        if !after.is_empty() {
            if label_has_colon && let Some(parsed) = parse_value(ValueKind::Party, &after, true) {
                offer_parsed(out, label.field, parsed, weight, Rule::PartyHeadingInline);
            }
            continue;
        }
        let height = segment.height();
        let mut block: Vec<&Segment<'_>> = Vec::new();
        let mut last_bottom = segment.bbox.bottom();
        // Eight lines at most, counted as rows: on an OCR page `Nummer   :   GE2020211` is
        // three segments, and counting segments cut the block before its last lines.
        let mut rows = 0;
        for s in segments.iter().skip(index + 1) {
            if s.row == segment.row {
                continue;
            }
            let new_row = block.last().is_none_or(|b| b.row != s.row);
            if s.bbox.y - last_bottom > 3.0 * height || (new_row && rows >= 8) {
                break;
            }
            let in_column = s.bbox.x >= segment.bbox.x - 2.0 * height
                && s.bbox.x < segment.bbox.x + page.width * 0.45;
            if !in_column {
                continue;
            }
            let s_texts = segment_texts(s);
            if find_labels(&s_texts).first().is_some_and(|l| {
                l.first_word == 0 && is_party_label(l.field) && heading_only(s, l.end_word)
            }) {
                break;
            }
            last_bottom = s.bbox.bottom();
            rows += usize::from(new_row);
            block.push(s);
        }
        // The name: a `Name:` entry, else the first line of the block that is no form entry
        // (`Nummer : GE2020211`), no id (`GLN 4304171000002`) and no salutation, above the
        // postal-code line when the block has one.
        let postal = block
            .iter()
            .position(|s| POSTAL_LINE.is_match(s.text().trim()))
            .unwrap_or(block.len());
        let name = named_entry(segments, &block).or_else(|| {
            let at = block
                .iter()
                .take(postal)
                .position(|s| could_be_name(segments, s))?;
            let words = with_continuation(block[at], block.get(at + 1).copied());
            let above = at.checked_sub(1).map(|i| block[i]);
            Some(with_salutation(above, block[at], words))
        });
        if let Some(words) = name
            && let Some(parsed) = parse_value(ValueKind::Party, &words, true)
        {
            offer_parsed(out, label.field, parsed, weight, Rule::PartyHeadingBlock);
            let address_field = address_field_of(label.field);
            offer_address(
                out,
                address_field,
                &block,
                &words,
                weight * 0.9,
                Rule::PartyAddress,
            );
            if let Some(region) = PageBox::union_all(block.iter().map(|s| &s.bbox)) {
                if label.field == HeaderFieldName::BuyerName {
                    out.1.0.push(region);
                } else {
                    out.2.seller.push(region);
                }
            }
        }
    }
}

/// Headings of a tax representative's block (folded, how the heading starts).
const REPRESENTATIVE_HEADINGS: &[&str] = &[
    "steuerbevollmächtigter",
    "steuervertreter",
    "fiskalvertreter",
    "taxrepresentative",
    "représentantfiscal",
];

/// The block under a tax representative's heading (`Steuerbevollmächtigter des Verkäufers:`):
/// the lines of its column up to a blank of three lines, eight at most, or the next party
/// heading. The e-invoice viewers print it after the buyer with its own `USt.-Id.-Nr.`, which
/// was taken for the seller's.
fn representative_blocks(page: &Page, segments: &[Segment<'_>], out: &mut Candidates) {
    for (index, heading) in segments.iter().enumerate() {
        let folded = vocabulary::fold(&heading.text());
        if !REPRESENTATIVE_HEADINGS
            .iter()
            .any(|h| folded.starts_with(h))
        {
            continue;
        }
        let height = heading.height();
        let mut region = heading.bbox;
        let mut last_bottom = heading.bbox.bottom();
        let mut rows = 0;
        let mut last_row = heading.row;
        for s in segments.iter().skip(index + 1) {
            let in_column = s.bbox.x >= heading.bbox.x - 2.0 * height
                && s.bbox.x < heading.bbox.x + page.width * 0.45;
            if s.row == heading.row || !in_column {
                continue;
            }
            let is_heading = find_labels(&segment_texts(s)).first().is_some_and(|l| {
                l.first_word == 0 && is_party_label(l.field) && heading_only(s, l.end_word)
            });
            if s.bbox.y - last_bottom > 3.0 * height || is_heading {
                break;
            }
            if s.row != last_row {
                rows += 1;
                last_row = s.row;
            }
            if rows > 8 {
                break;
            }
            last_bottom = s.bbox.bottom();
            region = region.union(&s.bbox);
        }
        // The value of a form entry may stand right of the column (`USt.-Id.-Nr. : DE…`).
        let right = region.right().max(heading.bbox.x + page.width * 0.45);
        out.2.representative.push(PageBox::from_edges(
            region.page,
            region.x,
            region.y,
            right,
            region.bottom(),
        ));
    }
}

/// A name's words, with the next line's when that line continues it: right under it, aligned
/// (left or centred),
/// ending in a legal form the name line lacks (`MVM Musterhafter` over `Versicherungsverein
/// Musterstadt a.G.`), and no street or postal line.
fn with_continuation<'a>(name: &Segment<'a>, next: Option<&Segment<'a>>) -> Vec<&'a Word> {
    let mut words = name.words.clone();
    if let Some(next) = next {
        let height = name.height();
        let text = next.text();
        // Aligned left, or centred as letterheads and till slips set their names.
        let aligned = (next.bbox.x - name.bbox.x).abs() < height
            || (next.bbox.center_x() - name.bbox.center_x()).abs() < height;
        let continues = right_under(name, next)
            && aligned
            && !LEGAL_FORM.is_match(&name.text())
            && LEGAL_FORM
                .find(&text)
                .is_some_and(|m| m.end() >= text.trim_end().len())
            && !STREET_LINE.is_match(text.trim())
            && !POSTAL_LINE.is_match(text.trim())
            && !text.contains(':');
        if continues {
            words.extend(next.words.iter().copied());
        }
    }
    words
}

/// Whether `next` is the line right under `line`, no blank line between. A text layer's boxes
/// are the font's: the gap is under 0.6 glyph heights. Recognised words have ink boxes, which
/// end at the baseline and reach the cap height (about 0.7 of the font size) when a line has no
/// descenders: `MVM Musterhafter` over `Versicherungsverein …` at 11.5 pt line pitch leaves a
/// 5 pt gap under a 6.5 pt box. There the distance top to top is measured, at most 2.3 ink
/// heights (about 1.6 font sizes; a blank line between makes it 2 or more).
fn right_under(line: &Segment<'_>, next: &Segment<'_>) -> bool {
    let height = line.height();
    if line.recognised() {
        next.bbox.y > line.bbox.y && next.bbox.y - line.bbox.y < 2.3 * height
    } else {
        next.bbox.y - line.bbox.bottom() < 0.6 * height
    }
}

/// A line that may be a party's name: not a form entry (a colon in it or right of it on its
/// row), not a label, not an id (mostly digits, or `GLN`/`GTIN`/`ILN` numbers), not a
/// salutation alone, not a document title.
pub(super) fn could_be_name(segments: &[Segment<'_>], s: &Segment<'_>) -> bool {
    let text = s.text();
    if text.contains(':')
        || segments.iter().any(|o| {
            // `Nummer   : GE2020211`, `Globale   Nummer: 4000001987658`: the rest of a form
            // entry close to the right on the same row.
            o.row == s.row
                && o.bbox.x > s.bbox.x
                && o.bbox.x - s.bbox.right() < 12.0 * s.height()
                && o.words.iter().take(2).any(|w| w.text.contains(':'))
        })
    {
        return false;
    }
    if STREET_LINE.is_match(text.trim()) {
        return false;
    }
    let folded = vocabulary::fold(&text);
    if SALUTATIONS.contains(&folded.as_str())
        || ADDRESS_HEADINGS.contains(&folded.as_str())
        || vocabulary::document_type_of_title(&text).is_some()
    {
        return false;
    }
    // A label alone (`Nummer`), not a name that starts with a label word (`Lieferant GmbH`).
    if find_labels(&segment_texts(s))
        .first()
        .is_some_and(|l| l.first_word == 0 && heading_only(s, l.end_word))
    {
        return false;
    }
    let alnum = folded.chars().count();
    let digits = folded.chars().filter(char::is_ascii_digit).count();
    let first = s
        .words
        .first()
        .map(|w| vocabulary::fold(&w.text))
        .unwrap_or_default();
    // A name is not one word in lower case (`der`: a sentence's word under the heading).
    let lone_lower_word = s.words.len() == 1 && text.chars().next().is_some_and(char::is_lowercase);
    alnum >= 2
        && digits * 2 < alnum
        && !lone_lower_word
        && !matches!(first.as_str(), "gln" | "gtin" | "iln" | "ean")
}

fn address_field_of(name_field: HeaderFieldName) -> HeaderFieldName {
    if name_field == HeaderFieldName::SellerName {
        HeaderFieldName::SellerAddress
    } else {
        HeaderFieldName::BuyerAddress
    }
}

/// The value of a `Name:` entry among the block's segments (the value may be the next segment
/// of the same row).
fn named_entry<'a>(segments: &[Segment<'a>], block: &[&Segment<'a>]) -> Option<Vec<&'a Word>> {
    for s in block {
        let first = vocabulary::fold(&s.words.first()?.text);
        if first != "name" && first != "firma" && first != "company" {
            continue;
        }
        if s.words.len() > 1 {
            return Some(
                s.words[1..]
                    .iter()
                    .copied()
                    .skip_while(|w| w.text == ":")
                    .collect(),
            );
        }
        let value = segments
            .iter()
            .filter(|o| o.row == s.row && o.bbox.x > s.bbox.right())
            .min_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x))?;
        // A name printed over two lines with the `Name:` label beside its second line.
        let above = segments.iter().find(|a| {
            a.row + 1 == value.row
                && with_continuation(a, Some(value)).len() > a.words.len()
                && could_be_name(segments, a)
        });
        return Some(match above {
            Some(above) => with_continuation(above, Some(value)),
            None => value.words.clone(),
        });
    }
    None
}

/// The address: the lines of the block after the name, up to the postal-code line.
fn offer_address(
    out: &mut Candidates,
    field: HeaderFieldName,
    block: &[&Segment<'_>],
    name_words: &[&Word],
    confidence: f64,
    rule: Rule,
) {
    let Some(name_box) = words_box(name_words) else {
        return;
    };
    let mut parts: Vec<&Segment<'_>> = Vec::new();
    for s in block.iter().filter(|s| s.bbox.y > name_box.y + 0.5) {
        let text = s.text();
        if text.contains(':') && !POSTAL_LINE.is_match(&text) {
            // A `Nummer:` entry: the address continues with the entry's value only.
            continue;
        }
        parts.push(s);
        if POSTAL_LINE.is_match(text.trim()) || parts.len() >= 3 {
            break;
        }
    }
    if !parts.iter().any(|s| POSTAL_LINE.is_match(s.text().trim())) {
        return;
    }
    let text = parts
        .iter()
        .map(|s| s.text())
        .collect::<Vec<_>>()
        .join(", ");
    let words: Vec<&Word> = parts.iter().flat_map(|s| s.words.iter().copied()).collect();
    if let Some(bbox) = words_box(&words) {
        out.offer(
            field,
            collapse_whitespace(&text),
            &text,
            confidence * words_confidence(&words),
            bbox,
            rule,
        );
    }
}

/// The small sender line above the address window: parts separated by `·`, `•`, `|`, `-` with a
/// postal code among them. Returns its row.
fn sender_line(page: &Page, segments: &[Segment<'_>], out: &mut Candidates) -> Option<usize> {
    const SEPARATORS: &[char] = &['·', '•', '●', '|', '∙', '–', '—', '/', ','];
    let rows = segments.iter().map(|s| s.row).max()?;
    for row in 0..=rows {
        let words: Vec<&Word> = segments
            .iter()
            .filter(|s| s.row == row && s.bbox.x < page.width * 0.6 && s.bbox.y < page.height * 0.4)
            .flat_map(|s| s.words.iter().copied())
            .collect();
        if words.is_empty() {
            continue;
        }
        // Split into parts at separator words (or separators glued to words).
        let mut parts: Vec<Vec<&Word>> = vec![Vec::new()];
        let mut separators = 0;
        for w in &words {
            let t = w.text.trim();
            if t.chars().all(|c| SEPARATORS.contains(&c) || c == '-') && !t.is_empty() {
                separators += 1;
                parts.push(Vec::new());
            } else if let Some(stripped) = t.strip_suffix(SEPARATORS) {
                if let Some(last) = parts.last_mut() {
                    last.push(w);
                }
                if !stripped.is_empty() {
                    separators += 1;
                    parts.push(Vec::new());
                }
            } else if let Some(last) = parts.last_mut() {
                last.push(w);
            }
        }
        parts.retain(|p| !p.is_empty());
        let has_postal = parts
            .iter()
            .any(|p| POSTAL_LINE.is_match(join_words(p).trim_end_matches(SEPARATORS).trim()));
        if separators < 2 || parts.len() < 3 || !has_postal {
            continue;
        }
        // A wide gap inside the part before the first separator ends what came before it:
        // a logo's glyphs read as letters (`NN O   Au bon moulin SARL`), not the sender's name.
        let last_segment = parts[0].last().and_then(|last| {
            segments
                .iter()
                .find(|s| s.row == row && s.words.iter().any(|w| std::ptr::eq(*w, *last)))
        });
        let name_words: Vec<&Word> = parts[0]
            .iter()
            .copied()
            .filter(|w| last_segment.is_none_or(|s| s.words.iter().any(|o| std::ptr::eq(*o, *w))))
            .collect();
        let name_words = &name_words;
        let name = join_words(name_words);
        let name = name.trim_end_matches(SEPARATORS).trim();
        if let Some(bbox) = words_box(name_words)
            && name.chars().filter(|c| c.is_alphabetic()).count() >= 2
            && !name.chars().next().is_some_and(|c| c.is_ascii_digit())
            // `Referenz des Käufers : 05 158 004` is a form entry, not a sender.
            && !name.contains(':')
        {
            let conf = 0.7 * words_confidence(name_words);
            out.offer(
                HeaderFieldName::SellerName,
                name.to_string(),
                name,
                conf,
                bbox,
                Rule::SenderLine,
            );
            let rest: Vec<String> = parts[1..]
                .iter()
                .map(|p| {
                    join_words(p)
                        .trim_end_matches(SEPARATORS)
                        .trim()
                        .to_string()
                })
                .collect();
            let rest_words: Vec<&Word> = parts[1..].iter().flatten().copied().collect();
            if let Some(bbox) = words_box(&rest_words) {
                let text = rest.join(", ");
                out.offer(
                    HeaderFieldName::SellerAddress,
                    text.clone(),
                    &text,
                    conf * 0.9,
                    bbox,
                    Rule::SenderLine,
                );
            }
        }
        return Some(row);
    }
    None
}

/// The address window: a left-aligned block of two to eight lines in the upper left part of
/// page 1 that ends in a postal-code line. Its first line (after a salutation) is the buyer.
fn address_window(
    page: &Page,
    segments: &[Segment<'_>],
    sender_row: Option<usize>,
    out: &mut Candidates,
) {
    // A till slip (far taller than wide) goes in no envelope: its top block is the shop's.
    if page.width < 0.55 * page.height {
        return;
    }
    // `Label:` segments and the values right of them are form entries, not an address.
    let labels_at: Vec<(usize, f64)> = segments
        .iter()
        .filter(|s| s.words.iter().any(|w| w.text.ends_with(':')))
        .map(|s| (s.row, s.bbox.x))
        .collect();
    let is_form_entry = |s: &Segment<'_>| {
        labels_at
            .iter()
            .any(|(row, x)| *row == s.row && *x <= s.bbox.x)
    };
    // The seller's block under its heading (`Verkäufer:` / name / street / postal code) looks
    // like an address window but is the seller's.
    let seller_blocks = out.2.seller.clone();
    let eligible: Vec<&Segment<'_>> = segments
        .iter()
        .filter(|s| {
            !seller_blocks.iter().any(|r| r.contains_center_of(&s.bbox))
                && s.bbox.x < page.width * 0.55
                && s.bbox.y > page.height * 0.06
                && s.bbox.y < page.height * 0.45
                && sender_row.is_none_or(|r| s.row > r)
                && !is_form_entry(s)
                && find_labels(&segment_texts(s)).is_empty()
        })
        .collect();
    for (start, first) in eligible.iter().enumerate() {
        let height = first.height();
        let mut block = vec![*first];
        for s in eligible.iter().skip(start + 1) {
            let last = block[block.len() - 1];
            if s.row == last.row {
                continue;
            }
            let gap = s.bbox.y - last.bbox.bottom();
            if gap > 2.6 * height || block.len() >= 8 {
                break;
            }
            if (s.bbox.x - first.bbox.x).abs() <= 1.5 * height {
                block.push(s);
                if POSTAL_LINE.is_match(s.text().trim()) {
                    break;
                }
            }
        }
        let Some(postal) = block
            .iter()
            .position(|s| POSTAL_LINE.is_match(s.text().trim()))
        else {
            continue;
        };
        if postal < 1 {
            continue;
        }
        // A salutation (`Herrn`, `Firma`) opens the recipient: the lines above it are someone
        // else's (the sender's name printed over the window).
        let after_salutation = block[..postal]
            .iter()
            .rposition(|s| SALUTATIONS.contains(&vocabulary::fold(&s.text()).as_str()))
            .map_or(0, |i| i + 1);
        let Some(name_at) = block
            .iter()
            .take(postal)
            .skip(after_salutation)
            .position(|s| could_be_name(segments, s))
            .map(|i| i + after_salutation)
        else {
            continue;
        };
        if name_at >= postal {
            continue;
        }
        let name = &block[name_at];
        let above = name_at.checked_sub(1).map(|i| block[i]);
        let name_words = with_salutation(above, name, name.words.clone());
        if let Some(parsed) = parse_value(ValueKind::Party, &name_words, true) {
            offer_parsed(
                out,
                HeaderFieldName::BuyerName,
                parsed,
                0.6,
                Rule::AddressWindow,
            );
            let rest: Vec<&Segment<'_>> = block[name_at..=postal].to_vec();
            offer_address(
                out,
                HeaderFieldName::BuyerAddress,
                &rest,
                &name.words,
                0.55,
                Rule::AddressWindow,
            );
            if let Some(region) = PageBox::union_all(block.iter().map(|s| &s.bbox)) {
                // The buyer's VAT id is often printed a few lines under the address.
                let grown = PageBox::from_edges(
                    region.page,
                    region.x - height,
                    region.y,
                    region.right() + page.width * 0.1,
                    region.bottom() + 4.0 * height,
                );
                out.1.0.push(grown);
            }
        }
        return;
    }
}

/// Names with a legal form (`GmbH`, `AG`, `Ltd`…) in the letterhead or the footer, cut after the
/// legal form: the seller, unless it is the buyer.
fn legal_form_names(page: &Page, segments: &[Segment<'_>], out: &mut Candidates) {
    for segment in segments {
        let in_letterhead = page.page == 1 && segment.bbox.y < page.height * 0.2;
        let in_footer = segment.bbox.y > page.height * 0.78;
        if !(in_letterhead || in_footer) || segment.words.len() > 8 {
            continue;
        }
        if out.1.0.iter().any(|r| r.contains_center_of(&segment.bbox)) {
            continue;
        }
        let text = segment.text();
        // A copyright line (`(c) AWV e.V.`) names whoever made the form, not the seller.
        let lower = text.trim_start().to_lowercase();
        if lower.starts_with("(c)") || lower.starts_with('©') || lower.starts_with("copyright") {
            continue;
        }
        let Some(m) = LEGAL_FORM.find(&text) else {
            continue;
        };
        // The first line of a name printed over two (`MVM Musterhafter` over
        // `Versicherungsverein Musterstadt a.G.`): the whole name, from the upper line. The
        // lower line alone stays a candidate too: the line above may be a logo's word or a
        // brand over the company (`UniCare` over `Sunrise Drug PLC`), which the ranker tells
        // apart by size and place.
        if let Some(above) = segments.iter().find(|a| {
            a.row + 1 == segment.row
                && with_continuation(a, Some(segment)).len() > a.words.len()
                && could_be_name(segments, a)
        }) && m.end() >= text.trim_end().len()
        {
            let words = with_continuation(above, Some(segment));
            if let Some(bbox) = words_box(&words) {
                let name = join_words(&words);
                let conf = if in_letterhead { 0.5 } else { 0.45 } * words_confidence(&words);
                out.offer(
                    HeaderFieldName::SellerName,
                    name.clone(),
                    &name,
                    conf,
                    bbox,
                    Rule::LegalForm,
                );
            }
        }
        let cut = text[..m.end()].trim_end_matches([',', ' ']);
        let words: Vec<&Word> = segment
            .words
            .iter()
            .copied()
            .scan(0usize, |pos, w| {
                let start = *pos;
                *pos += w.text.len() + 1;
                Some((start, w))
            })
            .take_while(|(start, _)| *start < cut.len())
            .map(|(_, w)| w)
            .collect();
        if cut.split_whitespace().count() < 2
            || find_labels(&segment_texts(segment))
                .first()
                .is_some_and(|l| l.first_word == 0)
        {
            continue;
        }
        if let Some(bbox) = words_box(&words) {
            let conf = if in_letterhead { 0.5 } else { 0.45 } * words_confidence(&words);
            out.offer(
                HeaderFieldName::SellerName,
                cut.to_string(),
                cut,
                conf,
                bbox,
                Rule::LegalForm,
            );
        }
    }
}

/// VAT ids that stand inside the buyer's block become the buyer's.
pub(super) fn assign_vat_ids(out: &mut Candidates) {
    // A VAT id labelled the buyer's (`Customer VAT Number`) is not also the seller's.
    let buyer_ids: Vec<String> = out
        .0
        .iter()
        .filter(|c| {
            c.field == HeaderFieldName::BuyerVatId && c.value.source.method != Method::Pattern
        })
        .map(|c| c.value.value.clone())
        .collect();
    // A VAT id in a tax representative's block is the representative's.
    let representatives = out.2.representative.clone();
    out.0.retain(|c| {
        !(c.field == HeaderFieldName::SellerVatId
            && representatives.iter().any(|r| {
                r.page == c.value.source.bbox.page && r.contains_center_of(&c.value.source.bbox)
            }))
    });
    let regions = out.1.0.clone();
    for candidate in &mut out.0 {
        if candidate.field == HeaderFieldName::SellerVatId
            && regions.iter().any(|r| {
                r.page == candidate.value.source.bbox.page
                    && r.contains_center_of(&candidate.value.source.bbox)
            })
        {
            candidate.field = HeaderFieldName::BuyerVatId;
        }
    }
    out.0.retain(|c| {
        !(c.field == HeaderFieldName::SellerVatId && buyer_ids.contains(&c.value.value))
    });
    // A seller name equal to the buyer's, as a buyer rule found it (a heading, the address
    // window), is the buyer's. (A broad name line is everybody's candidate: the ranker
    // chooses the parties together.)
    let buyer = out
        .best(HeaderFieldName::BuyerName)
        .filter(|c| !c.rule.is_broad())
        .map(|c| c.value.value.clone());
    if let Some(buyer) = buyer {
        out.0
            .retain(|c| !(c.field == HeaderFieldName::SellerName && c.value.value == buyer));
    }
}
