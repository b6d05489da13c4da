//! Receipt layout: a till slip read as rows top to bottom, split into the header (shop name and
//! the lines above the items), the item lines (one table: description, quantity, unit price,
//! price, tax code; the columns a receipt does not print are left out), the totals (label and
//! amount, from the first total line on) and the footer.
//!
//! A page is laid out this way only when it looks like a slip: no ruled table, text no wider than
//! a wide till roll (64 characters; 80 mm paper prints 48), a line with a total word and an amount
//! at the right edge, and item lines above it whose amounts end in the same column. Anything else
//! keeps the general layout, so invoices and letters read as before.

use doc_model::{Cell, Confidence, Line, Method, PageBox, Table, TableMethod, Word};

/// Characters across the widest row beyond which a page is not a slip.
const MAX_ROW_CHARS: f64 = 64.0;

/// Words that open the totals part of a slip, lower case (substring match on the row's label).
const TOTAL_WORDS: &[&str] = &[
    "total",
    "summe",
    "totaal",
    "gesamt",
    "zu zahlen",
    "te betalen",
    "balance due",
    "amount due",
    "à payer",
    "a payer",
    "net amount",
    "to pay",
    "montant ttc",
];

/// Words of the summary rows above a slip's total (lower case, whole words).
const SUMMARY_WORDS: &[&str] = &[
    "subtotal",
    "sub",
    "tax",
    "gst",
    "vat",
    "sst",
    "mwst",
    "ust",
    "tva",
    "btw",
    "iva",
    "rounding",
    "round",
    "rundung",
    "afronding",
    "arrondi",
    "service",
    "svc",
    "excl",
    "incl",
    "exc",
    "inc",
    "gross",
];

/// Words of an item-count row (`NO. QTY: 2  NO. ITEMS: 2`).
const COUNT_WORDS: &[&str] = &["qty", "items", "item", "artikel", "articles", "pcs"];

/// A row's words in lower case, split at anything but letters.
fn words_of(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Column-heading words of an item table (lower case, whole words).
const COLUMN_WORDS: &[&str] = &[
    "qty",
    "quantity",
    "desc",
    "disc",
    "u/p",
    "amt",
    "uom",
    "unit",
    "description",
    "particulars",
    "item",
    "items",
    "price",
    "u.price",
    "amount",
    "rate",
    "menge",
    "artikel",
    "betrag",
    "preis",
    "qté",
    "désignation",
    "prix",
    "montant",
    "aantal",
    "omschrijving",
    "prijs",
    "bedrag",
    "descrizione",
    "prezzo",
    "importo",
    "iva",
    "total",
];

/// One printed row: the lines that share a band, left to right.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub(crate) lines: Vec<Line>,
    pub(crate) bbox: PageBox,
}

impl Row {
    fn words(&self) -> Vec<&Word> {
        let mut words: Vec<&Word> = self.lines.iter().flat_map(|l| l.words.iter()).collect();
        words.sort_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x));
        words
    }

    fn text(&self) -> String {
        self.words()
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The amount printed at the row's right end (after it only tax codes or a currency), as
    /// the index of its word in [`Row::words`].
    fn price_word(&self) -> Option<usize> {
        let words = self.words();
        let mut i = words.len();
        while i > 0 {
            i -= 1;
            let t = words[i].text.as_str();
            if is_amount(t) {
                // An amount first on its row with only codes after it is no price (a tax
                // summary's `7,81 B` under its heading); an amount alone on its row is.
                return (i > 0 || words.len() == 1).then_some(i);
            }
            if !is_trailer(t) || words.len() - i > 2 {
                return None;
            }
        }
        None
    }

    fn is_rule(&self) -> bool {
        !self.text().chars().any(char::is_alphanumeric)
    }
}

/// The slip's parts, as row indices into the rows top to bottom.
#[derive(Debug, Clone)]
pub(crate) struct Slip {
    pub(crate) rows: Vec<Row>,
    /// Rows above the item table (shop name first).
    pub(crate) header: std::ops::Range<usize>,
    /// The column-heading rows of the item table, when printed (a second row holds what the
    /// first's headings continue with: `QTY`, `RM` under `PRICE` and `AMOUNT`).
    pub(crate) column_heads: Option<std::ops::Range<usize>>,
    /// Rows of the item table (with their sub-lines).
    pub(crate) items: std::ops::Range<usize>,
    /// Rows of the totals.
    pub(crate) totals: std::ops::Range<usize>,
    /// Per row: its amount ends in the slip's price column.
    pub(crate) priced: Vec<bool>,
}

/// Rows of a page's lines: lines sharing at least half the smaller height, top to bottom.
pub(crate) fn rows(lines: &[Line]) -> Vec<Row> {
    let mut sorted: Vec<&Line> = lines.iter().collect();
    sorted.sort_by(|a, b| (a.bbox.y + a.bbox.h / 2.0).total_cmp(&(b.bbox.y + b.bbox.h / 2.0)));
    let mut rows: Vec<Row> = Vec::new();
    for line in sorted {
        match rows.last_mut() {
            Some(row) if row.bbox.vertical_overlap(&line.bbox) >= 0.5 => {
                row.bbox = row.bbox.union(&line.bbox);
                row.lines.push(line.clone());
            }
            _ => rows.push(Row {
                lines: vec![line.clone()],
                bbox: line.bbox,
            }),
        }
    }
    for row in &mut rows {
        row.lines.sort_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x));
    }
    rows
}

/// The page as a slip, or `None` when it does not look like one.
pub(crate) fn find_slip(lines: &[Line], body: f64) -> Option<Slip> {
    let rows = rows(lines);
    let char_width = median_char_width(lines)?;
    let left = rows.iter().map(|r| r.bbox.x).fold(f64::INFINITY, f64::min);
    let right = rows.iter().map(|r| r.bbox.right()).fold(0.0, f64::max);
    if (right - left) / char_width > MAX_ROW_CHARS {
        return None;
    }
    // A priced row: where its amount ends and where the row ends (amounts printed double
    // width end left of the others, tax codes and rates after an amount move the row's end).
    let prices: Vec<Option<(f64, f64)>> = rows
        .iter()
        .map(|r| {
            r.price_word()
                .map(|i| (r.words()[i].bbox.right(), r.bbox.right()))
        })
        .collect();
    let tolerance = 1.5 * body.max(char_width);
    let aligned = |a: (f64, f64), b: (f64, f64)| {
        (a.0 - b.0).abs() <= tolerance || (a.1 - b.1).abs() <= tolerance
    };
    // The first total row whose amount lines up with an amount above it.
    let total = (0..rows.len()).find(|&t| {
        let Some(end) = prices[t] else { return false };
        is_total_label(&rows[t].text()) && prices[..t].iter().flatten().any(|&p| aligned(p, end))
    })?;
    let column = prices[total]?;
    let priced = |i: usize| prices[i].is_some_and(|p| aligned(p, column));

    // Priced rows just below a rule and above the total (a rounding, a subtotal) open the
    // totals with it.
    let mut top = total;
    while top > 0 && total - top < 3 && priced(top - 1) && !rows[top - 1].is_rule() {
        top -= 1;
    }
    if !(top > 0 && rows[top - 1].is_rule()) {
        top = total;
    }
    // Summary rows just above (taxes, a rounding, a subtotal with its own word, an item count)
    // open the totals too, with or without a rule above them.
    while top > 0 && total - top < 8 {
        let r = &rows[top - 1];
        let words = words_of(&r.text());
        let summary = words.iter().any(|w| SUMMARY_WORDS.contains(&w.as_str()));
        let unpriced = r.price_word().is_none();
        let count = unpriced
            && words.iter().any(|w| COUNT_WORDS.contains(&w.as_str()))
            && r.text().chars().any(|c| c.is_ascii_digit());
        // A total label whose amount is printed elsewhere (`TOTAL (EXCLUDING GST):`).
        let label = unpriced && is_total_label(&r.text());
        if summary && priced(top - 1) || count || label {
            top -= 1;
        } else {
            break;
        }
    }
    // Items: walking up from there (past rules), priced rows, runs of unpriced rows between
    // them, a quantity or description row above the first; until a rule, a total word, a
    // column-heading row or anything else.
    let mut end = top;
    while end > 0 && rows[end - 1].is_rule() {
        end -= 1;
    }
    let mut start = end;
    let mut column_heads = None;
    while start > 0 {
        let r = start - 1;
        // A column-heading row ends them, also printed above a rule that opens the items.
        let mut above = r;
        while above > 0 && rows[above].is_rule() && start - above <= 2 {
            above -= 1;
        }
        if let Some(heads) = column_heads_at(&rows, above) {
            column_heads = Some(heads);
            break;
        }
        // A rule, or a second total word (an invoice's summary box is all totals), ends them.
        if rows[r].is_rule() || is_total_label(&rows[r].text()) {
            break;
        }
        if priced(r) {
            start = r;
            continue;
        }
        // A run of up to three unpriced rows (an item code, a description, a quantity line
        // printed on rows of their own) between two priced rows belongs to the items.
        let plain = |q: usize| {
            !priced(q)
                && !rows[q].is_rule()
                && !is_total_label(&rows[q].text())
                && column_heads_at(&rows, q).is_none()
        };
        let mut run = 0;
        while run < 3 && run <= r && plain(r - run) {
            run += 1;
        }
        let first = r + 1 - run;
        let below_priced = start < end && priced(start);
        if first > 0 && priced(first - 1) && (start == end || below_priced) {
            start = first;
        } else if below_priced && is_bare_quantity_line(&rows[start]) || is_quantity_line(&rows[r])
        {
            // The description row above a first item printed as `1 x 3.75  3.75`, or a
            // quantity row above it.
            start = r;
        } else {
            break;
        }
    }
    if !(start..end).any(priced) {
        return None;
    }
    // Totals: the total row and the rows after it while amounts go on in the column (one
    // unpriced row allowed between them).
    let mut totals_end = total + 1;
    let mut j = total + 1;
    while j < rows.len() && !rows[j].is_rule() {
        if priced(j) {
            totals_end = j + 1;
        } else if !(j + 1 < rows.len() && priced(j + 1)) {
            break;
        }
        j += 1;
    }
    // Rules between the column headings and the first item belong to neither.
    let header_end = column_heads.as_ref().map_or(start, |h| h.start);
    // A slip starts with its shop: no header, no slip.
    if header_end == 0 {
        return None;
    }
    let priced = (0..rows.len()).map(priced).collect();
    Some(Slip {
        priced,
        rows,
        header: 0..header_end,
        column_heads,
        items: start..end,
        totals: top..totals_end,
    })
}

/// Legal forms that end a company's name (lower case, dots and spaces dropped before the
/// comparison): the name's last row ends with one.
const LEGAL_FORMS: &[&str] = &[
    "sdnbhd",
    "bhd",
    "ltd",
    "limited",
    "plc",
    "ptyltd",
    "pteltd",
    "inc",
    "llc",
    "corp",
    "gmbh",
    "ag",
    "kg",
    "ohg",
    "ek",
    "ug",
    "sarl",
    "sas",
    "sa",
    "snc",
    "eurl",
    "srl",
    "spa",
    "bv",
    "nv",
    "enterprise",
    "enterprises",
    "trading",
];

/// Words of a slip's title or of the lines under a name that are not part of it.
const NOT_NAME_WORDS: &[&str] = &[
    "invoice",
    "receipt",
    "bill",
    "rechnung",
    "kassenbon",
    "kassabon",
    "bon",
    "ticket",
    "facture",
    "scontrino",
    "documento",
    "franchisee",
    "licensee",
    "franchise",
    "welcome",
    "branch",
    "outlet",
    "filiale",
];

/// Whether `next` goes on with the shop's name printed on `name` (rows from the slip's first):
/// at most three rows in all (a logo word, then a name on two rows), none with a digit, a
/// colon or a bracket at its start (registration numbers, labels, a franchise line), no title
/// word, and the name so far not already closed by a legal form.
pub(crate) fn continues_name(name: &[Row], next: &Row) -> bool {
    let text = next.text();
    let lower = text.to_lowercase();
    let closed = name.last().is_some_and(|r| {
        let last = r.text().to_lowercase();
        let squashed: String = last
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ')
            .collect();
        let joined: String = squashed.split_whitespace().collect();
        let tail = squashed
            .split_whitespace()
            .last()
            .unwrap_or_default()
            .to_owned();
        LEGAL_FORMS
            .iter()
            .any(|f| joined.ends_with(f) && (tail == *f || f.len() > tail.len()))
    });
    name.len() < 3
        && !closed
        && !next.is_rule()
        && !text.chars().any(|c| c.is_ascii_digit() || c == ':')
        && !text.trim_start().starts_with(['(', '*', '['])
        && !lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| NOT_NAME_WORDS.contains(&w))
}

fn median_char_width(lines: &[Line]) -> Option<f64> {
    let mut widths: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.words.iter())
        .filter(|w| w.text.chars().count() >= 3)
        .map(|w| w.bbox.w / w.text.chars().count() as f64)
        .filter(|w| w.is_finite() && *w > 0.0)
        .collect();
    if widths.is_empty() {
        return None;
    }
    widths.sort_by(f64::total_cmp);
    Some(widths[widths.len() / 2])
}

fn is_total_label(text: &str) -> bool {
    let lower = text.to_lowercase();
    TOTAL_WORDS.iter().any(|w| lower.contains(w))
}

/// Column-heading words of one printed word (`CODE/DESC` holds two).
fn heading_words(word: &str) -> usize {
    let lower = word.to_lowercase();
    let t = lower.trim_matches(['(', ')', '%']);
    if COLUMN_WORDS.contains(&t.trim_end_matches([':', '.'])) || COLUMN_WORDS.contains(&t) {
        return 1;
    }
    t.split('/')
        .filter(|p| COLUMN_WORDS.contains(&p.trim_end_matches([':', '.'])))
        .count()
}

fn is_column_heads(row: &Row) -> bool {
    let words = row.words();
    words.len() >= 2
        && row.price_word().is_none()
        && words.iter().map(|w| heading_words(&w.text)).sum::<usize>() >= 2
}

/// A row under the column headings that only continues them: heading words, currencies and
/// units in brackets or not (`QTY  RM  RM`, `(RM)`).
fn continues_heads(row: &Row) -> bool {
    let words = row.words();
    !words.is_empty()
        && words.iter().all(|w| {
            let t = w.text.trim_matches(['(', ')']);
            heading_words(t) > 0 || is_trailer(t) && !t.chars().all(|c| c == '*' || c == '#')
        })
}

/// The column-heading rows that end at row `r` (their last row): up to three rows of
/// headings and rows continuing them (`ITEM QTY U/P AMOUNT`, then `DISC%`, then `(RM)`), the
/// first of them a heading row.
fn column_heads_at(rows: &[Row], r: usize) -> Option<std::ops::Range<usize>> {
    let mut first = None;
    let mut k = r + 1;
    while k > 0 && r + 1 - k < 3 {
        k -= 1;
        if is_column_heads(&rows[k]) {
            first = Some(k);
        } else if !continues_heads(&rows[k]) {
            break;
        }
    }
    first.map(|f| f..r + 1)
}

/// A line such as `2 x 7,60`, `0,970 KG @ 14,00/KG` or `3 @ 1.79`.
fn is_quantity_line(row: &Row) -> bool {
    quantity_and_unit(&row.words()).is_some()
}

/// A quantity line with no description on it (`1 x 3.75   3.75`, `1 PCS x 8.00   8.00 S`,
/// `0,970 KG @ 14,00/KG`): no word of three letters or more but units.
fn is_bare_quantity_line(row: &Row) -> bool {
    is_quantity_line(row)
        && row.words().iter().all(|w| {
            w.text.chars().filter(|c| c.is_alphabetic()).count() < 3 || is_unit_word(&w.text)
        })
}

/// A unit-price line printed under its item (`@ 7.00`, `@ 2,99`): the index of its amount.
fn unit_line(words: &[&Word]) -> Option<usize> {
    (words.len() == 2 && words[0].text == "@" && is_amount(&words[1].text)).then_some(1)
}

/// Tokens after a row's price: a tax code (`A`, `S`, `T`, `*`), a currency.
fn is_trailer(t: &str) -> bool {
    // A recogniser reads a code's letter in either case, sometimes with a dot after it.
    let upper = t.trim_end_matches('.').to_uppercase();
    let t = if upper.is_empty() { t } else { upper.as_str() };
    let currency = matches!(
        t,
        "€" | "EUR" | "CHF" | "RM" | "$" | "£" | "RS" | "SGD" | "MYR" | "FR"
    );
    // Two characters (`S`, `SR`, `T*`), or three with a digit (`SR0`, `ZR0`: GST codes).
    let n = t.chars().count();
    let code = (n <= 2 || n == 3 && t.chars().any(|c| c.is_ascii_digit()))
        && t.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '*' || c == '#');
    // A tax rate column (`10,0%`, `7%`).
    let rate = t.ends_with('%') && t.chars().any(|c| c.is_ascii_digit());
    currency || rate || (code && !t.chars().all(|c| c.is_ascii_digit()))
}

/// A printed money amount: digits with optional grouping (`1,234.56`, `1.234,56`, `1'234.50`,
/// `1,23,456.78`), two decimals after `.` or `,`, an optional currency sign in front and a minus
/// in front or behind.
pub(crate) fn is_amount(token: &str) -> bool {
    let t = token
        .trim_start_matches(['$', '£', '€', '-', '('])
        .trim_end_matches(['-', ')', '€', '*']);
    let t = t
        .strip_prefix("RM")
        .or_else(|| t.strip_prefix("S$"))
        .or_else(|| t.strip_prefix("Rs."))
        .unwrap_or(t);
    let chars: Vec<char> = t.chars().collect();
    let n = chars.len();
    if n < 4 || !matches!(chars[n - 3], '.' | ',') {
        return false;
    }
    if !chars[n - 2..].iter().all(char::is_ascii_digit) {
        return false;
    }
    let integer: String = chars[..n - 3].iter().collect();
    let groups: Vec<&str> = integer.split(['.', ',', '\'', ' ']).collect();
    let Some((first, rest)) = groups.split_first() else {
        return false;
    };
    let digits = |g: &str| !g.is_empty() && g.chars().all(|c| c.is_ascii_digit());
    if !digits(first) || (!rest.is_empty() && first.len() > 3) {
        return false;
    }
    rest.iter()
        .enumerate()
        .all(|(k, g)| digits(g) && (g.len() == 3 || (g.len() == 2 && k + 1 < rest.len())))
}

/// `(quantity start, quantity end, unit price)` word indices of tokens holding `N x P`,
/// `N Stk x P`, `N KG @ P/KG`, `N @ P` or `2X P` (the sign glued to the count); the quantity
/// with its unit is `start..end`.
fn quantity_and_unit(words: &[&Word]) -> Option<(usize, usize, usize)> {
    let glued = glued_count;
    let marker = words
        .iter()
        .position(|w| is_times(&w.text) || w.text == "@" || glued(&w.text))?;
    let (start, end) = if glued(&words[marker].text) {
        (marker, marker + 1)
    } else {
        let quantity = (0..marker)
            .rev()
            .take(2)
            .find(|&k| is_number(&words[k].text))?;
        (quantity, marker)
    };
    let unit = (marker + 1..words.len()).find(|&k| {
        let t = words[k].text.split('/').next().unwrap_or_default();
        is_amount(t) || is_unit_price(t)
    })?;
    Some((start, end, unit))
}

/// A count with the multiplication sign glued to it (`2X`, `10x`).
fn glued_count(t: &str) -> bool {
    t.strip_suffix(['x', 'X', '×'])
        .is_some_and(|n| !n.is_empty() && n.len() <= 3 && n.chars().all(|c| c.is_ascii_digit()))
}

/// A multiplication sign as printed or read: `x`, `X`, `×`, `*`.
fn is_times(t: &str) -> bool {
    matches!(t, "x" | "X" | "×" | "*")
}

/// A unit price to three decimals (`9.000`, `1,459`), printed before an amount.
fn is_unit_price(t: &str) -> bool {
    let chars: Vec<char> = t.chars().collect();
    let n = chars.len();
    n >= 5
        && matches!(chars[n - 4], '.' | ',')
        && chars[n - 3..].iter().all(char::is_ascii_digit)
        && chars[..n - 4].iter().all(char::is_ascii_digit)
}

/// A count of items: one to three digits, or a count with decimals (`1.00`, `2,000`).
fn is_count(t: &str) -> bool {
    let digits = t.chars().filter(char::is_ascii_digit).count();
    t.chars()
        .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
        && (1..=3).contains(&t.chars().take_while(char::is_ascii_digit).count())
        && digits >= 1
        && !t.ends_with(['.', ','])
}

/// A unit after a count (`1 PC *`, `2 PCS x`).
fn is_unit_word(t: &str) -> bool {
    matches!(
        t.to_lowercase().trim_end_matches('.'),
        "pc" | "pcs"
            | "ea"
            | "unit"
            | "units"
            | "stk"
            | "st"
            | "kg"
            | "g"
            | "l"
            | "lt"
            | "ltr"
            | "litre"
            | "litres"
            | "liter"
            | "gal"
            | "btl"
            | "pkt"
            | "box"
    )
}

fn is_number(t: &str) -> bool {
    !t.is_empty()
        && t.chars().any(|c| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
}

/// The item table of a slip: one row per priced row, the unpriced sub-lines above a priced
/// row (a `2 x 7,60` line, a description's first part) joined to it.
pub(crate) fn item_table(slip: &Slip, page: u32) -> Option<Table> {
    let range = slip.items.clone();
    let priced: Vec<usize> = range.clone().filter(|&i| slip.priced[i]).collect();
    // Unpriced rows go to a priced row: a quantity line to the item whose price it multiplies
    // out to (US slips print `2 x 2.99` under the item, German ones above it), else to the
    // next item (the first part of its description), else to the one before.
    let mut owner: Vec<Option<usize>> = vec![None; slip.rows.len()];
    // Descriptions printed under their priced row (`4132  1  20.00  20.00`, then the name):
    // the items open with a priced row and close with an unpriced row that is no quantity
    // line.
    let under = slip.priced.get(range.start).copied().unwrap_or(false)
        && range.end > range.start
        && !slip.priced[range.end - 1]
        && !is_quantity_line(&slip.rows[range.end - 1]);
    for i in range.clone().filter(|&i| !slip.priced[i]) {
        let before = priced.iter().rev().find(|&&p| p < i).copied();
        let after = priced.iter().find(|&&p| p > i).copied();
        if unit_line(&slip.rows[i].words()).is_some() && before.is_some() {
            // `@ 7.00` under the item it prices.
            owner[i] = before;
            continue;
        }
        let product = quantity_and_unit(&slip.rows[i].words()).and_then(|(q, _, u)| {
            let words = slip.rows[i].words();
            let count = words[q].text.trim_end_matches(['x', 'X', '×']);
            Some(number(count)? * number(&words[u].text)?)
        });
        let matches = |p: Option<usize>| {
            p.zip(product).is_some_and(|(p, product)| {
                let row = &slip.rows[p];
                row.price_word()
                    .and_then(|w| number(&row.words()[w].text))
                    .is_some_and(|price| (price.abs() - product).abs() <= 0.011)
            })
        };
        owner[i] = if matches(before) && !matches(after) || under && product.is_none() {
            before.or(after)
        } else {
            after.or(before)
        };
    }

    // Cells per row: description, quantity, unit price, price, code, and a second amount
    // printed between the unit price and the price (a discount); the table's columns go
    // description, quantity, unit price, that amount, price, code.
    let mut grid: Vec<([Vec<&Word>; 6], PageBox)> = Vec::new();
    for &p in &priced {
        let row = &slip.rows[p];
        let Some(price) = row.price_word() else {
            continue;
        };
        let mut cells: [Vec<&Word>; 6] = Default::default();
        let words = row.words();
        cells[3].push(words[price]);
        cells[4].extend(words[price + 1..].iter().copied());
        let mut before: Vec<&Word> = words[..price].to_vec();
        // A second amount just before the price is the unit price; with a third before it
        // (`3.50  0.00  3.50`, or a unit price to three decimals, `9.000  0.00  9.00`), the
        // first is the unit price and the second the discount.
        if before.last().is_some_and(|w| is_amount(&w.text)) && before.len() > 1 {
            let second = before.pop();
            if before.len() > 1
                && before
                    .last()
                    .is_some_and(|w| is_amount(&w.text) || is_unit_price(&w.text))
            {
                cells[2].extend(before.pop());
                cells[5].extend(second);
            } else {
                cells[2].extend(second);
            }
            // `2 x 1.89  3.78`, `1 PC * 9.000`: the count before the sign is the quantity.
            let n = before.len();
            let marker = n >= 2 && (is_times(&before[n - 1].text) || before[n - 1].text == "@");
            if marker && is_number(&before[n - 2].text) {
                cells[1].push(before[n - 2]);
                before.truncate(n - 2);
            } else if marker
                && n >= 3
                && is_unit_word(&before[n - 2].text)
                && is_number(&before[n - 3].text)
            {
                cells[1].extend([before[n - 3], before[n - 2]]);
                before.truncate(n - 3);
            } else if n >= 1 && glued_count(&before[n - 1].text) {
                cells[1].push(before[n - 1]);
                before.truncate(n - 1);
            }
        }
        // A count set apart from the description by a column gap is the quantity
        // (`SPRAY PAINT BLACK      2   7.90`).
        let n = before.len();
        if cells[1].is_empty() && n >= 2 {
            let (last, prev) = (before[n - 1], before[n - 2]);
            let glyph = prev.bbox.w / prev.text.chars().count().max(1) as f64;
            if is_count(&last.text) && last.bbox.x - prev.bbox.right() >= 1.5 * glyph {
                cells[1].push(last);
                before.truncate(n - 1);
            }
        }
        let mut band = row.bbox;
        let subs: Vec<usize> = range.clone().filter(|&i| owner[i] == Some(p)).collect();
        let mut parts: Vec<(usize, Vec<&Word>)> =
            subs.iter().map(|&i| (i, slip.rows[i].words())).collect();
        parts.push((p, before));
        parts.sort_by_key(|(i, _)| *i);
        for (i, sub_words) in parts {
            band = band.union(&slip.rows[i].bbox);
            if let Some(u) = unit_line(&sub_words).filter(|_| i != p) {
                if cells[2].is_empty() {
                    cells[2].push(sub_words[u]);
                }
                continue;
            }
            if let Some((q, q_end, u)) = quantity_and_unit(&sub_words) {
                cells[1].extend(sub_words[q..q_end].iter().copied());
                if cells[2].is_empty() {
                    cells[2].push(sub_words[u]);
                }
                // What precedes the quantity is description (an item code, a name).
                cells[0].extend(sub_words[..q].iter().copied());
                continue;
            }
            let mut rest = &sub_words[..];
            // On the priced row a leading count; on a row of its own only a count with its
            // sign (a bare number there is an item code).
            let signed = sub_words.len() > 2 && is_times(&sub_words[1].text)
                || sub_words.first().is_some_and(|w| glued_count(&w.text));
            if (i == p || signed) && cells[1].is_empty() {
                // A leading count of one to three digits before the name is the quantity,
                // with its sign when one follows (`1 x TEE`, `2x BIG BREAKFAST`).
                if let Some((first, tail)) = rest.split_first() {
                    let t = first.text.as_str();
                    if !tail.is_empty()
                        && ((1..=3).contains(&t.len()) && t.chars().all(|c| c.is_ascii_digit())
                            || glued_count(t))
                    {
                        cells[1].push(first);
                        rest = tail;
                        if rest.len() > 1 && !glued_count(t) && is_times(&rest[0].text) {
                            rest = &rest[1..];
                        }
                    }
                }
            }
            cells[0].extend(rest.iter().copied());
        }
        grid.push((cells, band));
    }
    if grid.is_empty() {
        return None;
    }
    let used: Vec<usize> = [0, 1, 2, 5, 3, 4]
        .into_iter()
        .filter(|&c| c == 0 || c == 3 || grid.iter().any(|(r, _)| !r[c].is_empty()))
        .collect();
    // The printed column headings are the table's first row, each word in the column it
    // stands over.
    if let Some(heads) = slip.column_heads.clone() {
        let priced_boxes: Vec<PageBox> = priced.iter().map(|&p| slip.rows[p].bbox).collect();
        let spans: Vec<Option<PageBox>> = used
            .iter()
            .map(|&k| {
                // Where the column's words stand on the priced rows (a description on a row of
                // its own runs under the other columns), else anywhere.
                let on_priced = grid.iter().flat_map(|(r, _)| {
                    r[k].iter()
                        .filter(|w| priced_boxes.iter().any(|b| b.contains_center_of(&w.bbox)))
                        .map(|w| &w.bbox)
                });
                PageBox::union_all(on_priced).or_else(|| {
                    PageBox::union_all(grid.iter().flat_map(|(r, _)| r[k].iter().map(|w| &w.bbox)))
                })
            })
            .collect();
        let mut head_cells: [Vec<&Word>; 6] = Default::default();
        let mut band: Option<PageBox> = None;
        for row in &slip.rows[heads] {
            band = Some(band.map_or(row.bbox, |b| b.union(&row.bbox)));
            for word in row.words() {
                let best = (0..used.len())
                    .filter_map(|c| spans[c].map(|s| (c, s)))
                    .max_by(|(_, a), (_, b)| {
                        // The width the word shares with the column, or how far it is off.
                        let score = |s: &PageBox| {
                            let overlap = s.right().min(word.bbox.right()) - s.x.max(word.bbox.x);
                            if overlap > 0.0 {
                                overlap
                            } else {
                                -(s.center_x() - word.bbox.center_x()).abs()
                            }
                        };
                        score(a).total_cmp(&score(b))
                    });
                if let Some((c, _)) = best {
                    head_cells[used[c]].push(word);
                }
            }
        }
        if let Some(band) = band {
            grid.insert(0, (head_cells, band));
        }
    }
    let mut cells = Vec::new();
    for (r, (row, band)) in grid.iter().enumerate() {
        for (c, &k) in used.iter().enumerate() {
            cells.push(cell(r as u32, c as u32, &row[k], *band, page));
        }
    }
    Table::new(
        page,
        TableMethod::Alignment,
        Method::Ocr,
        grid.len() as u32,
        used.len() as u32,
        cells,
    )
}

/// The value of a printed number: the last `.` or `,` followed by at most three digits is the
/// decimal mark, other marks group thousands; a minus in front or behind.
fn number(token: &str) -> Option<f64> {
    let t = token.split('/').next()?;
    let negative = t.starts_with('-') || t.ends_with('-');
    let t: String = t
        .chars()
        .filter(|c| c.is_ascii_digit() || matches!(c, '.' | ','))
        .collect();
    let mark = t
        .rfind(['.', ','])
        .filter(|&k| (1..=3).contains(&(t.len() - k - 1)));
    let plain: String = t
        .char_indices()
        .filter_map(|(k, c)| match c {
            '.' | ',' if Some(k) == mark => Some('.'),
            '.' | ',' => None,
            c => Some(c),
        })
        .collect();
    let value: f64 = plain.parse().ok()?;
    Some(if negative { -value } else { value })
}

/// The totals of a slip as a two-column table: label, amount (codes and currency after it).
pub(crate) fn totals_table(slip: &Slip, page: u32) -> Option<Table> {
    let mut cells = Vec::new();
    let mut r = 0u32;
    for row in &slip.rows[slip.totals.clone()] {
        let words = row.words();
        let (label, amount): (Vec<&Word>, Vec<&Word>) = match row.price_word() {
            // An earlier amount on the row (a tax summary's base) stays with the label.
            Some(p) => (words[..p].to_vec(), words[p..].to_vec()),
            None => (words.clone(), Vec::new()),
        };
        cells.push(cell(r, 0, &label, row.bbox, page));
        cells.push(cell(r, 1, &amount, row.bbox, page));
        r += 1;
    }
    Table::new(page, TableMethod::Alignment, Method::Ocr, r, 2, cells)
}

/// A cell of `words`; an empty one is a zero-width box at the left of its row's band, so that
/// the table's box stays the rows' box.
fn cell(row: u32, col: u32, words: &[&Word], band: PageBox, page: u32) -> Cell {
    let bbox = PageBox::union_all(words.iter().map(|w| &w.bbox)).unwrap_or(PageBox::from_edges(
        page,
        band.x,
        band.y,
        band.x,
        band.bottom(),
    ));
    Cell {
        row,
        col,
        row_span: 1,
        col_span: 1,
        merged: false,
        text: words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        bbox: PageBox { page, ..bbox },
        line_boxes: if words.is_empty() {
            Vec::new()
        } else {
            vec![bbox]
        },
        confidence: Confidence::mean(words.iter().map(|w| w.confidence))
            .unwrap_or(Confidence::NONE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of a monospaced slip, 10 px a character and 20 px a row: `(row, column, text)`,
    /// one line per entry, its words at their character positions.
    fn slip_lines(entries: &[(usize, usize, &str)]) -> Vec<Line> {
        entries
            .iter()
            .filter_map(|&(row, col, text)| {
                let mut words = Vec::new();
                let mut at = col;
                for token in text.split(' ') {
                    if !token.is_empty() {
                        let n = token.chars().count();
                        words.push(Word {
                            text: token.to_owned(),
                            bbox: PageBox {
                                page: 1,
                                x: 10.0 * at as f64,
                                y: 20.0 * row as f64,
                                w: 10.0 * n as f64,
                                h: 14.0,
                            },
                            confidence: Confidence::CERTAIN,
                        });
                        at += n;
                    }
                    at += 1;
                }
                Line::from_words(words, Some(14.0))
            })
            .collect()
    }

    /// A SROIE-like slip: headings on three rows, the item's name under its priced row, tax
    /// rows and an item count between the items and the total.
    fn heads_and_descriptions_below() -> Vec<Line> {
        slip_lines(&[
            (0, 8, "SAM HARDWARE SDN BHD"),
            (1, 12, "TAX INVOICE"),
            (2, 2, "ITEM"),
            (2, 16, "QTY"),
            (2, 22, "U/P"),
            (2, 34, "AMOUNT"),
            (3, 28, "DISC%"),
            (4, 36, "(RM)"),
            (5, 2, "9557068000035"),
            (5, 17, "1"),
            (5, 22, "3.50"),
            (5, 29, "0.00"),
            (5, 36, "3.50"),
            (6, 3, "- STEEL RULER 30CM"),
            (7, 2, "1"),
            (7, 17, "2"),
            (7, 22, "1.30"),
            (7, 29, "0.00"),
            (7, 36, "2.60"),
            (8, 3, "- LAMINATE FILM"),
            (9, 2, "NO. QTY: 3 NO. ITEMS: 2"),
            (10, 2, "TAX AMT (S) 6%"),
            (10, 37, "5.75"),
            (11, 2, "GST 6%"),
            (11, 37, "0.35"),
            (12, 2, "TOTAL"),
            (12, 37, "6.10"),
            (13, 2, "CASH"),
            (13, 36, "10.00"),
            (14, 2, "CHANGE"),
            (14, 37, "3.90"),
            (15, 8, "THANK YOU"),
        ])
    }

    #[test]
    fn column_headings_on_three_rows_head_the_item_table() {
        let lines = heads_and_descriptions_below();
        let slip = find_slip(&lines, 14.0).expect("a slip");
        assert_eq!(slip.header, 0..2);
        assert_eq!(slip.column_heads, Some(2..5));
        assert_eq!(slip.items, 5..9);
        let table = item_table(&slip, 1).expect("items");
        assert_eq!(table.rows, 3, "{}", table.markdown);
        // Headings over their columns: description, quantity, unit price, discount, price.
        assert_eq!(
            table.matrix[0],
            ["ITEM", "QTY", "U/P", "DISC%", "AMOUNT (RM)"],
            "{}",
            table.markdown
        );
        assert_eq!(table.matrix[1][1..], ["1", "3.50", "0.00", "3.50"]);
    }

    #[test]
    fn names_under_their_priced_rows_stay_with_them() {
        let lines = heads_and_descriptions_below();
        let slip = find_slip(&lines, 14.0).expect("a slip");
        let table = item_table(&slip, 1).expect("items");
        assert_eq!(
            table.matrix[1][0], "9557068000035 - STEEL RULER 30CM",
            "{}",
            table.markdown
        );
        assert_eq!(
            table.matrix[2][0], "1 - LAMINATE FILM",
            "{}",
            table.markdown
        );
        assert_eq!(table.matrix[2][4], "2.60");
    }

    #[test]
    fn tax_rows_and_an_item_count_above_the_total_are_totals() {
        let lines = heads_and_descriptions_below();
        let slip = find_slip(&lines, 14.0).expect("a slip");
        assert_eq!(slip.totals, 9..15);
        let totals = totals_table(&slip, 1).expect("totals");
        assert_eq!(totals.matrix[1], ["TAX AMT (S) 6%", "5.75"]);
        assert_eq!(totals.matrix[3], ["TOTAL", "6.10"]);
    }

    #[test]
    fn a_name_goes_on_until_its_legal_form() {
        let rows = rows(&slip_lines(&[
            (0, 10, "UniPlus"),
            (1, 4, "Harbour Oak Grocery"),
            (2, 8, "Pty. Ltd."),
            (3, 6, "Franchisee of UniPlus"),
            (4, 2, "SILVER FOX"),
            (5, 2, "ABN: 58 353 623 840"),
            (6, 2, "*** TAX INVOICE ***"),
        ]));
        assert!(continues_name(&rows[0..1], &rows[1]));
        assert!(continues_name(&rows[0..2], &rows[2]));
        // Closed by its legal form.
        assert!(!continues_name(&rows[0..3], &rows[3]));
        // A franchise line, a registration number, a title.
        assert!(!continues_name(&rows[4..5], &rows[3]));
        assert!(!continues_name(&rows[4..5], &rows[5]));
        assert!(!continues_name(&rows[4..5], &rows[6]));
        // At most three rows.
        assert!(!continues_name(&rows[0..3], &rows[4]) && continues_name(&rows[0..2], &rows[4]));
    }

    #[test]
    fn amounts_in_the_usual_notations() {
        for t in [
            "1.29",
            "1,29",
            "2,44-",
            "-0.39",
            "(0.02)",
            "3.30*",
            "$29.31",
            "RM12.50",
            "1,445.00",
            "1.234,56",
            "1'234.50",
            "1,23,456.78",
            "48,14€",
        ] {
            assert!(is_amount(t), "{t}");
        }
        for t in [
            "18.02.23",
            "14:12:06",
            "12",
            "1.2",
            "0,970",
            "12,4",
            "5214",
            "A",
            "1,2345.00",
        ] {
            assert!(!is_amount(t), "{t}");
        }
    }

    #[test]
    fn numbers_with_either_decimal_mark() {
        assert_eq!(number("0,970"), Some(0.97));
        assert_eq!(number("14,00/KG"), Some(14.0));
        assert_eq!(number("1,445.00"), Some(1445.0));
        assert_eq!(number("1.234,56"), Some(1234.56));
        assert_eq!(number("2,44-"), Some(-2.44));
        assert_eq!(number("2"), Some(2.0));
        assert_eq!(number("x"), None);
    }

    #[test]
    fn counts_with_a_glued_sign() {
        assert!(glued_count("2X") && glued_count("10x"));
        assert!(!glued_count("x") && !glued_count("MAX") && !glued_count("1000x"));
    }

    #[test]
    fn trailers_after_a_price() {
        for t in [
            "B", "T", "S", "*", "€", "EUR", "10,0%", "22%", "SR0", "SR.", "z",
        ] {
            assert!(is_trailer(t), "{t}");
        }
        for t in ["SHAMPOO", "12", "Stk"] {
            assert!(!is_trailer(t), "{t}");
        }
    }
}
