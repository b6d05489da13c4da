//! What the ranker knows of a candidate: the rule that proposed it, where it stands, what is
//! printed around it, what shape its value has and how the other candidates agree with it.
//!
//! Every feature is a number in roughly 0..1 so that one linear model per field can weigh
//! them (see [`super::model`]). The features describe a candidate in words that carry across
//! layouts and languages (a buyer cue above a name, a delivery cue left of a date, the largest
//! of the amounts proposed), never a corpus's particular strings.

use doc_model::{HeaderFieldName, Method, Page, PageBox, Word};

use super::normalize::{find_vat_ids, to_cents};
use super::parties::{LEGAL_FORM, looks_like_street};
use super::{Candidate, ValueKind, kind_of};
use crate::vocabulary;

/// The rule that proposed a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// A key-value pair whose key is a label of the field.
    KeyValue,
    /// A label with the value after it on the same segment.
    LabelSameLine,
    /// A label with the amount that closes its row.
    LabelRowEnd,
    /// A label with the value in the next segment to its right.
    LabelRight,
    /// A label with the value under it.
    LabelBelow,
    /// An IBAN with valid check digits, unlabelled.
    IbanPattern,
    /// A VAT id's shape, unlabelled.
    VatPattern,
    /// The document type of the title line.
    TitleType,
    /// The number printed on the title line.
    TitleNumber,
    /// The date printed on (or under) the title line.
    TitleDate,
    /// A payment-terms sentence (`Zahlbar bis …`).
    TermsSentence,
    /// The currency printed most often.
    CurrencyMost,
    /// A party heading with the name after it (`Käufer: Muster AG`).
    PartyHeadingInline,
    /// The first name-like line of the block under a party heading.
    PartyHeadingBlock,
    /// An address read from the block under a party heading.
    PartyAddress,
    /// The small sender line above the address window.
    SenderLine,
    /// The address window: its first line (the buyer) and the address under it.
    AddressWindow,
    /// A name with a legal form in the letterhead or footer.
    LegalForm,
    /// The amount due taken from the gross total where none is printed.
    InferredDue,
    /// Any date of the pages (as an issue or a due date).
    AnyDate,
    /// The amount closing a row whose words speak of a total.
    CueRowAmount,
    /// Any line that could be a name (as the seller's or the buyer's).
    NameLine,
    /// An identifier after or under a label of any wording (as the invoice or order number).
    AnyIdentifier,
}

impl Rule {
    /// How a candidate of this rule was located, as its provenance says. (The amount due
    /// inferred from the gross total is never offered: it keeps the gross total's.)
    pub fn method(self) -> Method {
        match self {
            Self::KeyValue => Method::KeyValue,
            Self::LabelSameLine
            | Self::LabelRowEnd
            | Self::LabelRight
            | Self::LabelBelow
            | Self::TitleType
            | Self::PartyHeadingInline
            | Self::PartyHeadingBlock
            | Self::PartyAddress => Method::Vocabulary,
            Self::IbanPattern
            | Self::VatPattern
            | Self::TitleNumber
            | Self::TitleDate
            | Self::TermsSentence
            | Self::CurrencyMost
            | Self::SenderLine
            | Self::AddressWindow
            | Self::LegalForm
            | Self::InferredDue
            | Self::AnyDate
            | Self::CueRowAmount
            | Self::NameLine
            | Self::AnyIdentifier => Method::Pattern,
        }
    }

    /// Whether the rule is one of the broad sources that propose values no label rule reads.
    pub fn is_broad(self) -> bool {
        matches!(
            self,
            Self::AnyDate | Self::CueRowAmount | Self::NameLine | Self::AnyIdentifier
        )
    }

    /// Every rule, in the order of the one-hot features.
    pub const ALL: &'static [Self] = &[
        Self::KeyValue,
        Self::LabelSameLine,
        Self::LabelRowEnd,
        Self::LabelRight,
        Self::LabelBelow,
        Self::IbanPattern,
        Self::VatPattern,
        Self::TitleType,
        Self::TitleNumber,
        Self::TitleDate,
        Self::TermsSentence,
        Self::CurrencyMost,
        Self::PartyHeadingInline,
        Self::PartyHeadingBlock,
        Self::PartyAddress,
        Self::SenderLine,
        Self::AddressWindow,
        Self::LegalForm,
        Self::InferredDue,
        Self::AnyDate,
        Self::CueRowAmount,
        Self::NameLine,
        Self::AnyIdentifier,
    ];

    /// The rule's name in the feature list and the model file.
    pub fn name(self) -> &'static str {
        match self {
            Self::KeyValue => "key_value",
            Self::LabelSameLine => "label_same_line",
            Self::LabelRowEnd => "label_row_end",
            Self::LabelRight => "label_right",
            Self::LabelBelow => "label_below",
            Self::IbanPattern => "iban_pattern",
            Self::VatPattern => "vat_pattern",
            Self::TitleType => "title_type",
            Self::TitleNumber => "title_number",
            Self::TitleDate => "title_date",
            Self::TermsSentence => "terms_sentence",
            Self::CurrencyMost => "currency_most",
            Self::PartyHeadingInline => "party_heading_inline",
            Self::PartyHeadingBlock => "party_heading_block",
            Self::PartyAddress => "party_address",
            Self::SenderLine => "sender_line",
            Self::AddressWindow => "address_window",
            Self::LegalForm => "legal_form",
            Self::InferredDue => "inferred_due",
            Self::AnyDate => "any_date",
            Self::CueRowAmount => "cue_row_amount",
            Self::NameLine => "name_line",
            Self::AnyIdentifier => "any_identifier",
        }
    }
}

/// Kinds of words printed near a value, in the five languages of the vocabulary. A stem
/// matches a folded word that starts with it (`kund` for `Kundennummer`).
const CUES: &[(&str, &[&str])] = &[
    (
        "buyer",
        &[
            "client",
            "customer",
            "kunde",
            "käufer",
            "kaeufer",
            "empfänger",
            "billto",
            "bill",
            "sold",
            "destinat",
            "acheteur",
            "acquéreur",
            "klant",
            "afnemer",
            "cliente",
            "acquirente",
            "buyer",
            "facturéà",
            "factureà",
            "invoiceto",
            "committente",
        ],
    ),
    (
        "seller",
        &[
            "verkäufer",
            "lieferant",
            "seller",
            "supplier",
            "vendor",
            "from",
            "émetteur",
            "emetteur",
            "vendeur",
            "fournisseur",
            "leverancier",
            "verkoper",
            "fornitore",
            "venditore",
            "cedente",
            "prestataire",
            "absender",
            "rechnungssteller",
            "issuer",
        ],
    ),
    (
        "issue_date",
        &[
            "rechnungsdatum",
            "invoicedate",
            "datefacture",
            "datedefacture",
            "factuurdatum",
            "datafattura",
            "belegdatum",
            "issued",
            "émisle",
            "emisle",
            "datum",
            "date",
            "data",
        ],
    ),
    (
        "reference_elsewhere",
        &[
            "associ",
            "related",
            "bezug",
            "ursprüng",
            "zugehör",
            "origin",
            "oorspronk",
            "gerelateer",
            "collegat",
            "riferim",
            "référence",
            "reference",
            "precedent",
            "précédent",
            "previous",
            "vorherig",
            "corrig",
            "storno",
        ],
    ),
    (
        "delivery",
        &[
            "liefer",
            "delivery",
            "livraison",
            "livré",
            "leverdatum",
            "levering",
            "consegna",
            "shipping",
            "shipped",
            "versand",
            "leistungsdatum",
            "dispatch",
        ],
    ),
    (
        "order",
        &[
            "bestell",
            "order",
            "commande",
            "bon",
            "auftrag",
            "ordine",
            "purchase",
            "po",
            "bestelling",
        ],
    ),
    (
        "period",
        &[
            "zeitraum", "period", "période", "periode", "periodo", "du", "vom", "from", "bis",
        ],
    ),
    (
        "due",
        &[
            "fällig",
            "faellig",
            "due",
            "échéance",
            "echeance",
            "zahlbar",
            "payable",
            "scadenza",
            "vervaldatum",
            "vervaldag",
            "zahlungsziel",
            "before",
        ],
    ),
    (
        "total",
        &[
            "total",
            "summe",
            "gesamt",
            "ttc",
            "brutto",
            "montant",
            "totaal",
            "totale",
            "endbetrag",
            "rechnungsbetrag",
            "importo",
            "bedrag",
            "grand",
        ],
    ),
    (
        "net",
        &[
            "net",
            "ht",
            "hors",
            "imponibile",
            "subtotal",
            "zwischensumme",
            "sous",
            "excl",
            "exkl",
            "warenwert",
        ],
    ),
    (
        "tax",
        &[
            "tva",
            "mwst",
            "ust",
            "vat",
            "tax",
            "steuer",
            "btw",
            "iva",
            "umsatzsteuer",
        ],
    ),
    (
        "paid",
        &[
            "paid",
            "bezahlt",
            "payé",
            "acompte",
            "anzahlung",
            "prepa",
            "vorauszahlung",
            "betaald",
            "pagato",
            "déjà",
            "already",
            "deposit",
        ],
    ),
    (
        "payable",
        &[
            "zahlbetrag",
            "payer",
            "àpayer",
            "netàpayer",
            "amountdue",
            "balance",
            "solde",
            "tepayeren",
            "dapagare",
            "zuzahlen",
            "owing",
            "remaining",
        ],
    ),
    (
        "number",
        &[
            "nr", "no", "nummer", "number", "numéro", "numero", "nº", "n°", "num", "#",
        ],
    ),
    (
        "customer_id",
        &[
            "kundennummer",
            "kundennr",
            "customerno",
            "customernumber",
            "clientn",
            "klantnummer",
        ],
    ),
    (
        "bank",
        &[
            "iban", "bic", "swift", "bank", "banque", "konto", "account", "compte", "rekening",
        ],
    ),
    (
        "line_item",
        &[
            "menge",
            "qty",
            "quantity",
            "quantité",
            "aantal",
            "quantità",
            "einzelpreis",
            "unit",
            "prix",
            "pos",
            "artikel",
            "article",
            "description",
            "bezeichnung",
        ],
    ),
    (
        "invoice",
        &[
            "rechnung",
            "invoice",
            "facture",
            "factuur",
            "fattura",
            "gutschrift",
            "credit",
            "avoir",
            "creditnota",
            "beleg",
        ],
    ),
    (
        "addressee",
        &[
            "your", "votre", "vos", "ihr", "ihre", "ihrer", "uw", "vostro", "vostra", "vs",
        ],
    ),
];

/// Names of the features, in order: the model file lists them so that a model made for
/// another list is refused.
pub fn feature_names() -> Vec<String> {
    let mut names: Vec<String> = Rule::ALL
        .iter()
        .map(|r| format!("rule_{}", r.name()))
        .collect();
    for fixed in FIXED {
        names.push((*fixed).to_string());
    }
    for (cue, _) in CUES {
        names.push(format!("left_{cue}"));
    }
    for (cue, _) in CUES {
        names.push(format!("above_{cue}"));
    }
    names
}

/// The features that are neither a rule nor a cue, in order.
const FIXED: &[&str] = &[
    "direct_debit",
    "payable_may_differ",
    "rule_confidence",
    "corroborated",
    "reconciled",
    "word_confidence",
    "first_page",
    "last_page",
    "top",
    "left",
    "relative_size",
    "same_value_elsewhere",
    "distinct_values",
    "best_by_rule",
    "margin_over_other_values",
    "value_in_other_field",
    "in_buyer_block",
    "in_seller_block",
    "party_legal_form",
    "party_street_like",
    "party_has_digit",
    "party_words",
    "party_upper",
    "block_lines",
    "block_contact",
    "block_tax_id",
    "amount_largest",
    "amount_smallest",
    "amount_negative",
    "amount_magnitude",
    "date_earliest",
    "date_latest",
    "identifier_letters",
    "identifier_length",
    "value_length",
    "text_width",
    "rows_above",
    "centred",
];

fn fixed_at(name: &str) -> usize {
    Rule::ALL.len() + FIXED.iter().position(|f| *f == name).unwrap_or(0)
}

/// The position of the words' confidence in the feature vector.
pub fn word_confidence_at() -> usize {
    fixed_at("word_confidence")
}

/// The position of the rules' own confidence in the feature vector.
pub fn rule_confidence_at() -> usize {
    fixed_at("rule_confidence")
}

/// The position of the direct-debit flag in the feature vector.
pub fn direct_debit_at() -> usize {
    fixed_at("direct_debit")
}

/// The number of features.
pub fn feature_count() -> usize {
    Rule::ALL.len() + FIXED.len() + 2 * CUES.len()
}

/// A page's measures that the features scale by.
struct PageScale {
    page: u32,
    /// Its median word height.
    typical_height: f64,
    /// Where its text starts and ends across, page units.
    text_left: f64,
    text_right: f64,
    /// The vertical centres of its rows of text, top to bottom (lines on one row counted once).
    row_centres: Vec<f64>,
}

/// What the document says around its candidates: its pages (with each page's usual word
/// height, found once), the party blocks the rules found and the document-wide flags.
pub(super) struct Context<'a> {
    pages: &'a [Page],
    last_page: u32,
    /// Per page, its measures (found once).
    page_scales: Vec<PageScale>,
    /// The buyer's blocks the rules found (under a buyer heading, the address window).
    buyer_blocks: &'a [PageBox],
    /// The seller's blocks the rules found (under a seller heading).
    seller_blocks: &'a [PageBox],
    /// The document announces a direct debit: its IBAN is the payer's.
    pub(super) direct_debit: bool,
    /// The document prints a prepayment, discount or balance: the amount due may differ from
    /// the gross total.
    pub(super) payable_may_differ: bool,
}

impl<'a> Context<'a> {
    pub(super) fn new(
        pages: &'a [Page],
        buyer_blocks: &'a [PageBox],
        seller_blocks: &'a [PageBox],
        direct_debit: bool,
        payable_may_differ: bool,
    ) -> Self {
        let page_scales = pages
            .iter()
            .map(|page| {
                let words = || page.lines.iter().flat_map(|l| &l.words);
                let mut heights: Vec<f64> =
                    words().map(|w| w.bbox.h).filter(|h| *h > 0.0).collect();
                heights.sort_by(f64::total_cmp);
                let typical_height = heights.get(heights.len() / 2).copied().unwrap_or(10.0);
                let left = words().map(|w| w.bbox.x).fold(f64::MAX, f64::min);
                let right = words().map(|w| w.bbox.right()).fold(f64::MIN, f64::max);
                let mut centres: Vec<f64> = page
                    .lines
                    .iter()
                    .filter(|l| !l.words.is_empty())
                    .map(|l| l.bbox.center_y())
                    .collect();
                centres.sort_by(f64::total_cmp);
                // Lines whose centres lie within half a word height are one row (a label and
                // its amount recognised as two boxes).
                let mut row_centres: Vec<f64> = Vec::new();
                for c in centres {
                    if row_centres
                        .last()
                        .is_none_or(|last| c - last > 0.5 * typical_height)
                    {
                        row_centres.push(c);
                    }
                }
                PageScale {
                    page: page.page,
                    typical_height,
                    text_left: left,
                    text_right: right,
                    row_centres,
                }
            })
            .collect();
        Self {
            pages,
            page_scales,
            buyer_blocks,
            seller_blocks,
            last_page: pages.iter().map(|p| p.page).max().unwrap_or(1),
            direct_debit,
            payable_may_differ,
        }
    }

    fn page(&self, number: u32) -> Option<&'a Page> {
        self.pages.iter().find(|p| p.page == number)
    }

    fn page_scale(&self, number: u32) -> Option<&PageScale> {
        self.page_scales.iter().find(|s| s.page == number)
    }

    /// The median word height of a page: a letterhead's name stands out above it.
    fn typical_height(&self, number: u32) -> f64 {
        self.page_scale(number).map_or(10.0, |s| s.typical_height)
    }

    /// How wide the page's text runs, in its median word heights, scaled to 0..1 at 200: a
    /// till slip's text spans about 20 to 35 (measured on SROIE's scans and our generated
    /// slips), an A4 invoice's 40 to 80. The model tells receipts from invoices by it,
    /// whatever the scan's resolution.
    fn text_width(&self, number: u32) -> f64 {
        self.page_scale(number).map_or(0.0, |s| {
            let heights = (s.text_right - s.text_left).max(0.0) / s.typical_height.max(1e-6);
            (heights / 200.0).clamp(0.0, 1.0)
        })
    }

    /// How many rows of text the page prints above the box, scaled to 0..1 at 20: a till
    /// slip opens with its shop's name, as a letterhead does, whatever the picture's margins
    /// (which the box's relative `top` counts).
    fn rows_above(&self, bbox: &PageBox) -> f64 {
        let Some(scale) = self.page_scale(bbox.page) else {
            return 0.0;
        };
        let top = bbox.center_y() - 0.5 * scale.typical_height;
        let rows = scale.row_centres.iter().filter(|c| **c < top).count();
        (rows as f64).min(20.0) / 20.0
    }

    /// How near the box's centre lies to the centre of the page's text, across: 1 centred, 0
    /// at the text's edge. Till slips and many letterheads centre the name.
    fn centred(&self, bbox: &PageBox) -> f64 {
        let Some(scale) = self.page_scale(bbox.page) else {
            return 0.0;
        };
        let half = 0.5 * (scale.text_right - scale.text_left);
        if half <= 0.0 {
            return 0.0;
        }
        let middle = scale.text_left + half;
        (1.0 - (bbox.center_x() - middle).abs() / half).clamp(0.0, 1.0)
    }

    /// The mean confidence of the words inside the box: 1 on a text layer, the recogniser's
    /// on an OCR page.
    fn word_confidence(&self, bbox: &PageBox) -> f64 {
        let Some(page) = self.page(bbox.page) else {
            return 1.0;
        };
        let (sum, n) = page
            .lines
            .iter()
            .flat_map(|l| &l.words)
            .filter(|w| bbox.contains_center_of(&w.bbox))
            .fold((0.0, 0usize), |(s, n), w| (s + w.confidence.value(), n + 1));
        if n == 0 { 1.0 } else { sum / n as f64 }
    }

    /// The block a name heads: the rows under it that start in its column, down to the first
    /// gap of more than two and a half rows (at most eight rows), as (row count, text).
    fn block_below(&self, bbox: &PageBox) -> (usize, String) {
        let Some(page) = self.page(bbox.page) else {
            return (0, String::new());
        };
        let row = self.typical_height(bbox.page).max(bbox.h).max(4.0);
        let mut words: Vec<&Word> = page
            .lines
            .iter()
            .flat_map(|l| &l.words)
            .filter(|w| {
                w.bbox.y > bbox.y + 0.5 * bbox.h
                    && w.bbox.y < bbox.bottom() + 9.0 * row
                    && w.bbox.x >= bbox.x - 2.0 * row
                    && w.bbox.x < bbox.x + bbox.w.max(15.0 * row)
            })
            .collect();
        words.sort_by(|a, b| a.bbox.y.total_cmp(&b.bbox.y));
        let (mut rows, mut text, mut bottom) = (0usize, String::new(), bbox.bottom());
        let mut row_top = f64::NEG_INFINITY;
        for w in words {
            if w.bbox.y - bottom > 2.5 * row {
                break;
            }
            if w.bbox.y > row_top + 0.5 * row {
                rows += 1;
                row_top = w.bbox.y;
                if rows > 8 {
                    break;
                }
                text.push('\n');
            }
            text.push_str(&w.text);
            text.push(' ');
            bottom = bottom.max(w.bbox.bottom());
        }
        (rows, text)
    }

    /// Up to six words left of the box on its line, nearest last, folded.
    fn left_words(&self, bbox: &PageBox) -> Vec<String> {
        let Some(page) = self.page(bbox.page) else {
            return Vec::new();
        };
        let middle = bbox.y + bbox.h / 2.0;
        let mut words: Vec<&Word> = page
            .lines
            .iter()
            .flat_map(|l| &l.words)
            .filter(|w| {
                w.bbox.y <= middle && w.bbox.bottom() >= middle && w.bbox.right() <= bbox.x + 1.0
            })
            .collect();
        words.sort_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x));
        let skip = words.len().saturating_sub(6);
        words[skip..]
            .iter()
            .map(|w| vocabulary::fold(&w.text))
            .collect()
    }

    /// The words of the nearest line above the box that overlaps it across, folded.
    fn above_words(&self, bbox: &PageBox) -> Vec<String> {
        let Some(page) = self.page(bbox.page) else {
            return Vec::new();
        };
        let reach = 3.0 * bbox.h.max(6.0);
        let overlapping = |w: &&Word| {
            w.bbox.bottom() <= bbox.y + 0.5
                && w.bbox.bottom() > bbox.y - reach
                && w.bbox.right() > bbox.x - bbox.h
                && w.bbox.x < bbox.right() + bbox.h
        };
        let nearest = page
            .lines
            .iter()
            .flat_map(|l| &l.words)
            .filter(overlapping)
            .map(|w| w.bbox.bottom())
            .fold(f64::NEG_INFINITY, f64::max);
        if !nearest.is_finite() {
            return Vec::new();
        }
        page.lines
            .iter()
            .flat_map(|l| &l.words)
            .filter(overlapping)
            .filter(|w| (w.bbox.bottom() - nearest).abs() < bbox.h.max(6.0) * 0.5)
            .map(|w| vocabulary::fold(&w.text))
            .collect()
    }
}

/// Whether folded words speak of a total, a net, a tax or a payable amount.
pub(super) fn speaks_of_totals(words: &[String]) -> bool {
    let cues = cues_of(words);
    CUES.iter()
        .zip(cues)
        .any(|((name, _), hit)| hit > 0.0 && matches!(*name, "total" | "net" | "tax" | "payable"))
}

/// Which cue kinds the words hold, as 0/1 per kind of [`CUES`].
fn cues_of(words: &[String]) -> Vec<f64> {
    CUES.iter()
        .map(|(_, stems)| {
            let hit = words.iter().any(|w| {
                !w.is_empty()
                    && stems.iter().any(|s| {
                        // Short stems (`no`, `du`, `po`) must be the whole word.
                        if s.chars().count() <= 3 {
                            w == s
                        } else {
                            w.starts_with(s)
                        }
                    })
            });
            f64::from(u8::from(hit))
        })
        .collect()
}

/// The extremes of the amounts and dates proposed for any field of a document, against which
/// each amount and date candidate is placed (found once per document, not per candidate).
struct Extremes<'a> {
    /// Largest and smallest amount, unsigned, in cents.
    amounts: Option<(i64, i64)>,
    /// Latest and earliest date (ISO, so ordered as text).
    dates: Option<(&'a str, &'a str)>,
}

impl<'a> Extremes<'a> {
    fn of(candidates: &'a [Candidate]) -> Self {
        let mut amounts: Option<(i64, i64)> = None;
        let mut dates: Option<(&'a str, &'a str)> = None;
        for c in candidates {
            match kind_of(c.field) {
                Some(ValueKind::Amount) => {
                    if let Some(v) = to_cents(&c.value.value).map(i64::abs) {
                        amounts = Some(amounts.map_or((v, v), |(hi, lo)| (hi.max(v), lo.min(v))));
                    }
                }
                Some(ValueKind::Date) => {
                    let v = c.value.value.as_str();
                    dates = Some(dates.map_or((v, v), |(hi, lo)| (hi.max(v), lo.min(v))));
                }
                _ => {}
            }
        }
        Self { amounts, dates }
    }
}

/// The features of every candidate, in the order of `candidates`.
pub(super) fn features(context: &Context<'_>, candidates: &[Candidate]) -> Vec<Vec<f64>> {
    let extremes = Extremes::of(candidates);
    candidates
        .iter()
        .map(|c| features_of(context, candidates, &extremes, c))
        .collect()
}

fn flag(b: bool) -> f64 {
    f64::from(u8::from(b))
}

fn features_of(
    context: &Context<'_>,
    all: &[Candidate],
    extremes: &Extremes<'_>,
    c: &Candidate,
) -> Vec<f64> {
    let mut out = Vec::with_capacity(feature_count());
    out.extend(Rule::ALL.iter().map(|r| flag(*r == c.rule)));
    let bbox = c.value.source.bbox;
    let page = context.page(bbox.page);
    let (width, height) = page.map_or((595.0, 842.0), |p| (p.width, p.height));
    let same_field: Vec<&Candidate> = all.iter().filter(|o| o.field == c.field).collect();
    let confidence = c.value.confidence.value();
    let same_value = same_field
        .iter()
        .filter(|o| !std::ptr::eq(**o, c) && o.value.value == c.value.value)
        .count();
    let mut distinct: Vec<&str> = same_field.iter().map(|o| o.value.value.as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let best_other_value = same_field
        .iter()
        .filter(|o| o.value.value != c.value.value)
        .map(|o| o.value.confidence.value())
        .fold(0.0, f64::max);
    let best_of_field = same_field
        .iter()
        .map(|o| o.value.confidence.value())
        .fold(0.0, f64::max);
    // Another field's value by one of the rules (the broad sources propose every value for
    // both fields of a kind, so they say nothing here).
    let in_other_field = all.iter().any(|o| {
        o.field != c.field
            && !o.rule.is_broad()
            && kind_of(o.field) == kind_of(c.field)
            && o.value.value == c.value.value
    });
    let inside = |regions: &[PageBox]| {
        regions
            .iter()
            .any(|r| r.page == bbox.page && r.contains_center_of(&bbox))
    };
    let word_confidence = context.word_confidence(&bbox);
    out.extend([
        flag(context.direct_debit),
        flag(context.payable_may_differ),
        confidence,
        flag(c.corroborated),
        flag(c.reconciled),
        word_confidence,
        flag(bbox.page == 1),
        flag(bbox.page == context.last_page),
        (bbox.y / height).clamp(0.0, 1.0),
        (bbox.x / width).clamp(0.0, 1.0),
        (bbox.h / context.typical_height(bbox.page)).clamp(0.0, 3.0) / 3.0,
        (same_value as f64).min(3.0) / 3.0,
        (distinct.len() as f64).min(5.0) / 5.0,
        flag(confidence >= best_of_field),
        (confidence - best_other_value).clamp(-1.0, 1.0),
        flag(in_other_field),
        flag(inside(context.buyer_blocks)),
        flag(inside(context.seller_blocks)),
    ]);
    let kind = kind_of(c.field);
    let value = c.value.value.as_str();
    // Party names.
    let party = kind == Some(ValueKind::Party);
    let words = value.split_whitespace().count();
    out.extend([
        flag(party && LEGAL_FORM.is_match(value)),
        flag(party && looks_like_street(value)),
        flag(party && value.chars().any(|ch| ch.is_ascii_digit())),
        if party {
            (words as f64).min(8.0) / 8.0
        } else {
            0.0
        },
        flag(
            party
                && value.chars().any(char::is_alphabetic)
                && !value.chars().any(char::is_lowercase),
        ),
    ]);
    // What the block the name heads holds: a sender prints how to reach it and its tax ids
    // under its name; a recipient's block is an address.
    let (rows, block) = if party {
        context.block_below(&bbox)
    } else {
        (0, String::new())
    };
    let folded: Vec<String> = block.split_whitespace().map(vocabulary::fold).collect();
    let contact = block.contains('@')
        || folded.iter().any(|w| {
            [
                "tel",
                "phone",
                "fax",
                "mail",
                "www",
                "http",
                "telefon",
                "téléphone",
                "telefono",
            ]
            .iter()
            .any(|cue| w.starts_with(cue))
        });
    let tax_id = !find_vat_ids(&block).is_empty()
        || folded.iter().any(|w| {
            [
                "ustid",
                "vat",
                "tva",
                "btw",
                "piva",
                "partitaiva",
                "steuernr",
                "siret",
                "siren",
            ]
            .iter()
            .any(|cue| w.starts_with(cue))
        });
    out.extend([(rows as f64).min(8.0) / 8.0, flag(contact), flag(tax_id)]);
    // Amounts, against the other amounts proposed for any total.
    let cents = (kind == Some(ValueKind::Amount))
        .then(|| to_cents(value))
        .flatten();
    out.extend(match (cents, extremes.amounts) {
        (Some(v), Some((largest, smallest))) => [
            flag(v.abs() >= largest),
            flag(v.abs() <= smallest),
            flag(v < 0),
            ((v.unsigned_abs() as f64 / 100.0 + 1.0).log10() / 7.0).min(1.0),
        ],
        _ => [0.0; 4],
    });
    // Dates, against the other dates proposed for any field.
    let date = kind == Some(ValueKind::Date);
    let (latest, earliest) = extremes.dates.unwrap_or_default();
    out.extend([
        flag(date && value <= earliest),
        flag(date && value >= latest),
    ]);
    let identifier = kind == Some(ValueKind::Identifier);
    out.extend([
        flag(identifier && value.chars().any(char::is_alphabetic)),
        if identifier {
            (value.chars().count() as f64).min(24.0) / 24.0
        } else {
            0.0
        },
        (value.chars().count() as f64).min(60.0) / 60.0,
        context.text_width(bbox.page),
        context.rows_above(&bbox),
        context.centred(&bbox),
    ]);
    out.extend(cues_of(&context.left_words(&bbox)));
    out.extend(cues_of(&context.above_words(&bbox)));
    debug_assert_eq!(out.len(), feature_count());
    out
}

/// Whether a field is ranked by the model; the others keep the rules' own order.
pub fn ranked(field: HeaderFieldName) -> bool {
    use HeaderFieldName as F;
    matches!(
        field,
        F::InvoiceNumber
            | F::IssueDate
            | F::DueDate
            | F::Currency
            | F::SellerName
            | F::SellerVatId
            | F::BuyerName
            | F::NetTotal
            | F::TaxTotal
            | F::GrossTotal
            | F::AmountDue
            | F::Iban
            | F::Bic
            | F::OrderNumber
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_the_vector() {
        assert_eq!(feature_names().len(), feature_count());
    }

    #[test]
    fn text_width_counts_word_heights_across_the_page() {
        use crate::segments::test_pages::page;
        // The test pages' words are 10 high: an A4 line from 50 to 550 spans 50 heights, a
        // till slip's from 20 to 250 spans 23.
        let invoice = page(
            &[("Rechnung", 50.0, 100.0), ("1.190,00", 506.0, 500.0)],
            Vec::new(),
            1.0,
        );
        let slip = page(
            &[("CAFE", 20.0, 10.0), ("12.50", 222.5, 200.0)],
            Vec::new(),
            1.0,
        );
        let width =
            |p: &Page| Context::new(std::slice::from_ref(p), &[], &[], false, false).text_width(1);
        assert!(
            (width(&invoice) - 50.0 / 200.0).abs() < 1e-9,
            "{}",
            width(&invoice)
        );
        assert!(
            (width(&slip) - 23.0 / 200.0).abs() < 1e-9,
            "{}",
            width(&slip)
        );
    }

    #[test]
    fn cues_need_whole_short_words() {
        let words = |ws: &[&str]| ws.iter().map(|w| (*w).to_string()).collect::<Vec<_>>();
        let position = |name: &str| CUES.iter().position(|(c, _)| *c == name).unwrap_or(0);
        let cues = cues_of(&words(&["date", "de", "livraison"]));
        assert_eq!(cues[position("delivery")], 1.0);
        assert_eq!(cues[position("issue_date")], 1.0);
        // `no` is a number cue only as a whole word, not in `november`.
        let cues = cues_of(&words(&["november"]));
        assert_eq!(cues[position("number")], 0.0);
        let cues = cues_of(&words(&["adresse", "du", "client"]));
        assert_eq!(cues[position("buyer")], 1.0);
    }
}
