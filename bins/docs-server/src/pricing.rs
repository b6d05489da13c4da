//! Per-page prices: every selected page is an item of the 402 body, and the x402
//! terms ask for exactly their total.

use alloy::primitives::U256;
use serde_json::{Value, json};
use x402_core::format_units_fixed;

/// How a page of `/document` is read, and so what it costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentPageKind {
    /// It has a usable text layer.
    TextLayer,
    /// It is rendered and recognised.
    Ocr,
}

impl DocumentPageKind {
    /// The wire name (`text_layer`, `ocr`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TextLayer => "text_layer",
            Self::Ocr => "ocr",
        }
    }
}

/// One priced page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriceItem {
    /// Page number, from 1.
    pub page: u32,
    /// What the page is charged as (`text_layer`, `ocr`, `first`, `further`, `picture`).
    pub kind: &'static str,
    /// Its price in atomic units.
    pub amount: U256,
}

/// The itemised price of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Itemised {
    /// Every selected page.
    pub items: Vec<PriceItem>,
    /// A warning for the 402 body (range likely to exceed the time limit).
    pub warning: Option<String>,
}

impl Itemised {
    /// `/document`: each page at its kind's price.
    pub fn document(pages: &[(u32, DocumentPageKind)], text_layer: U256, ocr: U256) -> Self {
        let items = pages
            .iter()
            .map(|&(page, kind)| PriceItem {
                page,
                kind: kind.as_str(),
                amount: match kind {
                    DocumentPageKind::TextLayer => text_layer,
                    DocumentPageKind::Ocr => ocr,
                },
            })
            .collect();
        Self {
            items,
            warning: None,
        }
    }

    /// `/ocr`: the first page (or the image) at `first`, each further page at `further`, and a
    /// warning past `warn_after` pages.
    pub fn ocr(
        pages: &[u32],
        first: U256,
        further: U256,
        warn_after: usize,
        budget_seconds: u64,
    ) -> Self {
        let items = pages
            .iter()
            .enumerate()
            .map(|(index, &page)| PriceItem {
                page,
                kind: if index == 0 { "first" } else { "further" },
                amount: if index == 0 { first } else { further },
            })
            .collect();
        let warning = (pages.len() > warn_after).then(|| {
            format!(
                "{} pages at about 2 to 5 seconds each may exceed the {budget_seconds} s time limit; a call that runs out of time is answered 504 and not charged, so consider splitting the range (splitting costs exactly the same per page)",
                pages.len()
            )
        });
        Self { items, warning }
    }

    /// `/ocr` of a picture: one unit, item 1 of kind `picture`, at the first page's price.
    pub fn picture(price: U256) -> Self {
        Self {
            items: vec![PriceItem {
                page: 1,
                kind: "picture",
                amount: price,
            }],
            warning: None,
        }
    }

    /// The total in atomic units.
    pub fn total(&self) -> U256 {
        self.items
            .iter()
            .map(|i| i.amount)
            .fold(U256::ZERO, |a, b| a + b)
    }

    /// The `price` member of the 402 body.
    pub fn to_json(&self, decimals: u8, currency: &str) -> Value {
        let items: Vec<Value> = self
            .items
            .iter()
            .map(|i| {
                json!({
                    "page": i.page,
                    "kind": i.kind,
                    "amount": format_units_fixed(i.amount, decimals),
                })
            })
            .collect();
        json!({
            "currency": currency,
            "pages": items,
            "page_count": self.items.len(),
            "total": format_units_fixed(self.total(), decimals),
            "total_atomic": self.total().to_string(),
            "warning": self.warning,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: U256 = U256::from_limbs([20_000, 0, 0, 0]);
    const OCR: U256 = U256::from_limbs([50_000, 0, 0, 0]);

    #[test]
    fn twenty_ocr_pages_are_exactly_one_usdc() {
        let pages: Vec<_> = (1..=20).map(|p| (p, DocumentPageKind::Ocr)).collect();
        let price = Itemised::document(&pages, TEXT, OCR);
        assert_eq!(price.total(), U256::from(1_000_000u64));
        assert_eq!(price.to_json(6, "USDC")["total"], "1.000000");
    }

    #[test]
    fn document_items_follow_the_page_kinds() {
        let price = Itemised::document(
            &[(1, DocumentPageKind::TextLayer), (3, DocumentPageKind::Ocr)],
            TEXT,
            OCR,
        );
        let json = price.to_json(6, "USDC");
        assert_eq!(
            json["pages"][0],
            json!({"page": 1, "kind": "text_layer", "amount": "0.020000"})
        );
        assert_eq!(
            json["pages"][1],
            json!({"page": 3, "kind": "ocr", "amount": "0.050000"})
        );
        assert_eq!(json["total"], "0.070000");
        assert_eq!(json["warning"], Value::Null);
    }

    #[test]
    fn ocr_first_and_further_pages_and_the_maximum() {
        let first = U256::from(6_000u64);
        let further = U256::from(2_000u64);
        let pages: Vec<u32> = (1..=50).collect();
        let price = Itemised::ocr(&pages, first, further, 15, 85);
        assert_eq!(price.total(), U256::from(104_000u64), "0.104 USDC at most");
        assert!(price.warning.is_some());
        let short = Itemised::ocr(&pages[..15], first, further, 15, 85);
        assert!(short.warning.is_none());
        assert_eq!(short.items[1].kind, "further");
    }

    #[test]
    fn a_picture_is_one_item() {
        let price = Itemised::picture(U256::from(6_000u64));
        assert_eq!(
            price.to_json(6, "USDC"),
            json!({"currency": "USDC", "pages": [{"page": 1, "kind": "picture", "amount": "0.006000"}],
                "page_count": 1, "total": "0.006000", "total_atomic": "6000", "warning": null})
        );
    }
}
