//! Header extraction on hand-built pages, German and English.

use doc_model::{HeaderFieldName as F, Method};

use super::{day_first, extract_header, extract_header_unfiltered, threshold};
use crate::key_values::find_key_values;
use crate::segments::test_pages::page;

fn header_of(pieces: &[(&str, f64, f64)], confidence: f64) -> doc_model::HeaderFields {
    let p = page(pieces, Vec::new(), confidence);
    let kvs = find_key_values(&p);
    extract_header(std::slice::from_ref(&p), &kvs)
}

/// The best value of every field before the thresholds: what the ranking puts first.
fn ranked_first(pieces: &[(&str, f64, f64)], confidence: f64) -> doc_model::HeaderFields {
    let p = page(pieces, Vec::new(), confidence);
    let kvs = find_key_values(&p);
    extract_header_unfiltered(std::slice::from_ref(&p), &kvs)
}

fn value(h: &doc_model::HeaderFields, name: F) -> Option<&str> {
    h.get(name).map(|f| f.value.as_str())
}

#[test]
fn german_letter_with_window_and_footer() {
    let h = header_of(
        &[
            (
                "Muster GmbH · Hauptstraße 1 · 12345 Musterstadt",
                50.0,
                120.0,
            ),
            ("Beispiel AG", 50.0, 140.0),
            ("Kundenweg 7", 50.0, 152.0),
            ("54321 Kundenstadt", 50.0, 164.0),
            ("Rechnung", 50.0, 230.0),
            ("Rechnungsnummer:", 350.0, 140.0),
            ("RE-2026-0042", 470.0, 140.0),
            ("Rechnungsdatum:", 350.0, 152.0),
            ("21.11.2026", 470.0, 152.0),
            ("Kundennummer:", 350.0, 164.0),
            ("K-778", 470.0, 164.0),
            ("Nettobetrag", 300.0, 500.0),
            ("1.000,00 €", 470.0, 500.0),
            ("MwSt. 19 %", 300.0, 512.0),
            ("190,00 €", 470.0, 512.0),
            ("Gesamtbetrag", 300.0, 524.0),
            ("1.190,00 €", 470.0, 524.0),
            (
                "Zahlbar innerhalb 14 Tagen bis 05.12.2026 ohne Abzug.",
                50.0,
                560.0,
            ),
            (
                "IBAN: DE89 3704 0044 0532 0130 00 BIC: COBADEFFXXX",
                50.0,
                780.0,
            ),
            ("USt-IdNr.: DE123456789", 50.0, 792.0),
        ],
        1.0,
    );
    assert_eq!(value(&h, F::DocumentType), Some("invoice"));
    assert_eq!(value(&h, F::InvoiceNumber), Some("RE-2026-0042"));
    assert_eq!(value(&h, F::IssueDate), Some("2026-11-21"));
    assert_eq!(value(&h, F::DueDate), Some("2026-12-05"));
    assert_eq!(value(&h, F::CustomerNumber), Some("K-778"));
    assert_eq!(value(&h, F::SellerName), Some("Muster GmbH"));
    assert_eq!(
        value(&h, F::SellerAddress),
        Some("Hauptstraße 1, 12345 Musterstadt")
    );
    assert_eq!(value(&h, F::BuyerName), Some("Beispiel AG"));
    assert_eq!(
        value(&h, F::BuyerAddress),
        Some("Kundenweg 7, 54321 Kundenstadt")
    );
    assert_eq!(value(&h, F::NetTotal), Some("1000.00"));
    assert_eq!(value(&h, F::TaxTotal), Some("190.00"));
    assert_eq!(value(&h, F::GrossTotal), Some("1190.00"));
    assert_eq!(value(&h, F::Currency), Some("EUR"));
    assert_eq!(value(&h, F::Iban), Some("DE89370400440532013000"));
    assert_eq!(value(&h, F::Bic), Some("COBADEFFXXX"));
    assert_eq!(value(&h, F::SellerVatId), Some("DE123456789"));
    // Not printed, not invented.
    assert_eq!(value(&h, F::OrderNumber), None);
    // No amount due printed and nothing that could make it differ: the gross total.
    assert_eq!(value(&h, F::AmountDue), Some("1190.00"));
    assert_eq!(value(&h, F::BuyerVatId), None);
    let number = h.invoice_number.as_ref().expect("found");
    // The key-value pair and the label rule read the same entry; either may be ranked first.
    assert!(matches!(
        number.source.method,
        Method::KeyValue | Method::Vocabulary
    ));
    assert_eq!(number.source.page, 1);
    assert_eq!(number.text, "RE-2026-0042");
}

/// An English invoice with labels over their values.
const ENGLISH: [(&str, f64, f64); 14] = [
    ("INVOICE", 50.0, 60.0),
    ("Invoice number", 400.0, 100.0),
    ("INV-77", 400.0, 112.0),
    ("Due date", 400.0, 130.0),
    ("December 3, 2026", 400.0, 142.0),
    ("Bill to:", 50.0, 100.0),
    ("Acme Ltd", 50.0, 112.0),
    ("Your order: PO-5521", 50.0, 200.0),
    ("Subtotal", 300.0, 500.0),
    ("$1,250.00", 470.0, 500.0),
    ("Total", 300.0, 512.0),
    ("$1,250.00", 470.0, 512.0),
    ("Amount due", 300.0, 524.0),
    ("$1,250.00", 470.0, 524.0),
];

#[test]
fn english_invoice_with_stacked_labels_and_ocr_confidence() {
    let h = header_of(&ENGLISH, 0.9);
    assert_eq!(value(&h, F::DocumentType), Some("invoice"));
    assert_eq!(value(&h, F::InvoiceNumber), Some("INV-77"));
    assert_eq!(value(&h, F::DueDate), Some("2026-12-03"));
    assert_eq!(value(&h, F::BuyerName), Some("Acme Ltd"));
    assert_eq!(
        value(&ranked_first(&ENGLISH, 0.9), F::OrderNumber),
        Some("PO-5521")
    );
    assert_eq!(value(&h, F::NetTotal), Some("1250.00"));
    // Three equal amounts and no tax: ranked first, but not sure enough to be returned.
    let ranked = ranked_first(&ENGLISH, 0.9);
    assert_eq!(value(&ranked, F::GrossTotal), Some("1250.00"));
    assert_eq!(value(&ranked, F::AmountDue), Some("1250.00"));
    assert_eq!(value(&h, F::Currency), Some("USD"));
    let number = h.invoice_number.as_ref().expect("found");
    assert!(
        number.confidence.value() <= 0.9,
        "OCR words cap the confidence at their own: {number:?}"
    );
}

#[test]
fn an_invalid_iban_or_a_plain_letter_gives_nothing() {
    let pieces = [
        ("Sehr geehrte Damen und Herren,", 50.0, 300.0),
        ("vielen Dank für Ihre Nachricht vom Dienstag.", 50.0, 312.0),
        ("IBAN: DE89 3704 0044 0532 0130 01", 50.0, 780.0),
    ];
    // Recognised words whose check digits fail are a misreading: nothing.
    let h = header_of(&pieces, 0.95);
    assert_eq!(h.found(), 0, "{h:#?}");
    // In a text layer the labelled number is what the page prints, and the only value.
    let h = header_of(&pieces, 1.0);
    assert_eq!(h.found(), 1, "{h:#?}");
    assert_eq!(value(&h, F::Iban), Some("DE89370400440532013001"));
}

#[test]
fn values_under_their_fields_threshold_are_null() {
    // `MwSt. 19 %` with nothing after it on its row, under OCR confidence: the 19 is no tax
    // total, and a weak candidate is not returned.
    let pieces = [
        ("Rechnung", 50.0, 60.0),
        ("MwSt. 19 %", 300.0, 500.0),
        ("Summe", 300.0, 512.0),
        ("1.190,00 €", 470.0, 512.0),
    ];
    let p = page(&pieces, Vec::new(), 0.5);
    let kvs = find_key_values(&p);
    let raw = extract_header_unfiltered(std::slice::from_ref(&p), &kvs);
    let filtered = extract_header(std::slice::from_ref(&p), &kvs);
    for name in F::ALL {
        match (raw.get(*name), filtered.get(*name)) {
            (Some(r), Some(f)) => {
                assert_eq!(r, f);
                assert!(f.confidence.value() >= threshold(*name));
            }
            (Some(r), None) => assert!(r.confidence.value() < threshold(*name)),
            (None, Some(_)) => panic!("{} appears only after filtering", name.as_str()),
            (None, None) => {}
        }
    }
    // At OCR confidence 0.5 the gross total is found but, under its threshold, not returned
    // (a value's confidence is its probability times the words' confidence).
    let gross = raw.gross_total.as_ref().expect("found");
    assert!(
        gross.confidence.value() < threshold(F::GrossTotal),
        "{gross:?}"
    );
    assert_eq!(filtered.gross_total, None);
}

#[test]
fn french_dates_are_read_day_first_and_american_ones_month_first() {
    let h = header_of(
        &[
            ("Facture FA-2017-0010", 50.0, 100.0),
            ("Date de facture :", 50.0, 130.0),
            ("05/11/2017", 200.0, 130.0),
            ("Montant total de la facture", 50.0, 150.0),
        ],
        1.0,
    );
    assert_eq!(value(&h, F::IssueDate), Some("2017-11-05"));
    // An English page is read month first, and a date that can only be read one way decides.
    let h = header_of(
        &[
            ("Invoice date:", 50.0, 130.0),
            ("03/04/2026", 200.0, 130.0),
            ("Due date:", 50.0, 150.0),
            ("03/15/2026", 200.0, 150.0),
        ],
        1.0,
    );
    assert_eq!(value(&h, F::IssueDate), Some("2026-03-04"));
    let h = header_of(
        &[
            ("Invoice date:", 50.0, 130.0),
            ("03/04/2026", 200.0, 130.0),
            ("Due date:", 50.0, 150.0),
            ("17/04/2026", 200.0, 150.0),
        ],
        1.0,
    );
    assert_eq!(value(&h, F::IssueDate), Some("2026-04-03"));
}

#[test]
fn english_dates_are_month_first_only_beside_an_american_address() {
    let pages = |address: &str| {
        vec![page(
            &[
                ("Tax invoice", 50.0, 100.0),
                (address, 50.0, 115.0),
                ("Invoice date:", 50.0, 130.0),
                ("03/04/2026", 200.0, 130.0),
                ("Total amount due", 50.0, 150.0),
            ],
            Vec::new(),
            1.0,
        )]
    };
    // A British or Malaysian slip writes the day first, an American one the month.
    assert!(day_first(&pages("12 High Street, Birmingham B1 1BB")));
    assert!(day_first(&pages("81100 Johor Bahru, Johor")));
    assert!(!day_first(&pages("4557 De Silva St, Fremont CA 94538")));
    assert!(!day_first(&pages("Fremont, United States")));
}

#[test]
fn a_form_entry_beats_a_number_quoted_in_running_text() {
    let h = ranked_first(
        &[
            ("Bestellung", 50.0, 130.0),
            (": 2013-471331", 200.0, 130.0),
            (
                "Rechnung gemäß Bestellung Nr. 2018-471331 vom 01.03.2018.",
                50.0,
                300.0,
            ),
        ],
        1.0,
    );
    // The ranking puts the form's entry first; whether it is sure enough to return is the
    // model's threshold's call (order numbers are few in the training data).
    assert_eq!(value(&h, F::OrderNumber), Some("2013-471331"));
}

#[test]
fn a_party_name_over_two_lines_is_read_whole() {
    let h = header_of(
        &[
            ("Verkäufer:", 50.0, 300.0),
            ("MVM Musterhafter", 50.0, 322.0),
            ("Versicherungsverein Musterstadt a.G.", 50.0, 333.0),
            ("Musterstr. 12", 50.0, 355.0),
            ("DE 12345 Musterstadt", 50.0, 366.0),
        ],
        1.0,
    );
    assert_eq!(
        value(&h, F::SellerName),
        Some("MVM Musterhafter Versicherungsverein Musterstadt a.G.")
    );
}

#[test]
fn a_centred_name_over_two_lines_is_read_whole() {
    // A till slip (narrow and tall): the name centred over two lines, the second ending in its
    // legal form, the address under it. No envelope window on a slip.
    let mut p = page(
        &[
            ("FARMASI SETIA", 115.0, 40.0),
            ("INDAH SDN. BHD.", 109.5, 52.0),
            ("JLN BAHAGIA 17,", 109.5, 64.0),
            ("40875 SHAH ALAM", 109.5, 76.0),
            ("TOTAL 201.55", 80.0, 300.0),
        ],
        Vec::new(),
        1.0,
    );
    (p.width, p.height) = (300.0, 900.0);
    let kvs = find_key_values(&p);
    let names: Vec<String> = super::header_candidates(std::slice::from_ref(&p), &kvs)
        .into_iter()
        .filter(|c| c.field == F::SellerName)
        .map(|c| c.value.value)
        .collect();
    assert!(
        names.iter().any(|n| n == "FARMASI SETIA INDAH SDN. BHD."),
        "{names:?}"
    );
}

#[test]
fn the_salutation_opens_the_recipient_of_the_address_window() {
    // The sender's name printed over the window is not the buyer. (On a page of nothing but
    // the window the model is not sure enough to return it: the ranking is what is tested.)
    let h = ranked_first(
        &[
            ("MVM Musterhafter", 70.0, 106.0),
            ("Versicherungsverein Musterstadt a.G.", 70.0, 117.5),
            ("Herrn", 70.0, 140.5),
            ("Max Mustermann", 70.0, 152.0),
            ("Musterstr. 11", 70.0, 163.5),
            ("12346 Bad Musterhausen", 70.0, 175.0),
        ],
        1.0,
    );
    // The personal form of address on the line over the name is part of it, as the
    // e-invoice writes the name (`Herrn\nMax Mustermann`).
    assert_eq!(value(&h, F::BuyerName), Some("Herrn Max Mustermann"));
}

#[test]
fn a_personal_salutation_is_kept_with_the_name_and_firma_is_not() {
    // Under a party heading, as the e-invoice viewers print the buyer.
    let h = header_of(
        &[
            ("Käufer/Leistungsempfänger:", 50.0, 300.0),
            ("Frau", 50.0, 322.0),
            ("Erika Musterfrau", 50.0, 333.5),
            ("Musterstr. 11", 50.0, 356.0),
            ("DE 12346 Bad Musterhausen", 50.0, 367.5),
        ],
        1.0,
    );
    assert_eq!(value(&h, F::BuyerName), Some("Frau Erika Musterfrau"));
    // `Firma` only says who the letter goes to.
    let h = header_of(
        &[
            ("Firma", 70.0, 140.5),
            ("Beispiel AG", 70.0, 152.0),
            ("Kundenweg 7", 70.0, 163.5),
            ("54321 Kundenstadt", 70.0, 175.0),
        ],
        1.0,
    );
    assert_eq!(value(&h, F::BuyerName), Some("Beispiel AG"));
    // A salutation a paragraph above the name is not part of it.
    let h = header_of(
        &[
            ("Herrn", 70.0, 110.0),
            ("Max Mustermann", 70.0, 152.0),
            ("Musterstr. 11", 70.0, 163.5),
            ("12346 Bad Musterhausen", 70.0, 175.0),
        ],
        1.0,
    );
    assert_eq!(value(&h, F::BuyerName), Some("Max Mustermann"));
}

/// Totals that add up, printed with sure labels.
const TOTALS: [(&str, f64, f64); 6] = [
    ("Nettobetrag", 300.0, 500.0),
    ("1.000,00 €", 470.0, 500.0),
    ("MwSt. 19 %", 300.0, 512.0),
    ("190,00 €", 470.0, 512.0),
    ("Gesamtbetrag", 300.0, 524.0),
    ("1.190,00 €", 470.0, 524.0),
];

/// A letter's rows above the totals: a till slip's totals stand a few rows under its top, an
/// invoice's under its letterhead and items (the ranker weighs how many rows stand above).
const LETTER: [(&str, f64, f64); 8] = [
    ("Muster GmbH", 50.0, 60.0),
    ("Rechnung", 50.0, 200.0),
    ("Beratung beim Kunden", 50.0, 300.0),
    ("Konzeption und Entwurf", 50.0, 320.0),
    ("Schulung der Mitarbeiter", 50.0, 340.0),
    ("Dokumentation", 50.0, 360.0),
    ("Reisezeit", 50.0, 380.0),
    ("Wartung und Pflege", 50.0, 400.0),
];

#[test]
fn the_amount_due_is_the_gross_total_when_nothing_else_is_printed() {
    let invoice = |more: &[(&'static str, f64, f64)]| -> Vec<(&'static str, f64, f64)> {
        LETTER.iter().chain(&TOTALS).chain(more).copied().collect()
    };
    let h = header_of(&invoice(&[]), 1.0);
    assert_eq!(value(&h, F::GrossTotal), Some("1190.00"));
    assert_eq!(value(&h, F::AmountDue), Some("1190.00"));
    let due = h.get(F::AmountDue).expect("due");
    let gross = h.get(F::GrossTotal).expect("gross");
    assert!(due.confidence.value() < gross.confidence.value());
    assert_eq!(due.source.bbox, gross.source.bbox);
    // A prepayment or a discount printed anywhere: the amount due may differ, so it is null.
    for remark in [
        "Abzüglich Anzahlung vom 01.10.2026",
        "Bei Zahlung innerhalb 8 Tagen 2 % Skonto",
        "Less amount already paid",
    ] {
        let h = header_of(&invoice(&[(remark, 50.0, 600.0)]), 1.0);
        assert_eq!(value(&h, F::AmountDue), None, "{remark}");
    }
    // A printed amount due is read, not inferred.
    let h = header_of(
        &invoice(&[
            ("Zu zahlender Beitrag", 300.0, 560.0),
            ("440,00 €", 470.0, 560.0),
        ]),
        1.0,
    );
    assert_eq!(value(&h, F::AmountDue), Some("440.00"));
    // An unsure gross total (a lone unlabelled sum) gives no amount due.
    let h = header_of(
        &[("Gesamtbetrag", 300.0, 524.0), ("1.190,00 €", 470.0, 524.0)],
        0.6,
    );
    assert_eq!(value(&h, F::AmountDue), None);
}

#[test]
fn seller_bank_labels_of_the_e_invoice_viewers_and_a_number_filling_its_entry() {
    // `DE12 1234 4321 9876 00` is 18 characters, not a German IBAN's 22: taken as printed
    // because it is all the labelled entry holds.
    let h = header_of(
        &[
            ("Verkäufer-IBAN", 50.0, 700.0),
            (": DE12 1234 4321 9876 00", 170.0, 700.0),
            ("Verkäufer-BIC:", 50.0, 712.0),
            ("BYLADEM1001", 170.0, 712.0),
        ],
        1.0,
    );
    assert_eq!(value(&h, F::Iban), Some("DE1212344321987600"));
    assert_eq!(value(&h, F::Bic), Some("BYLADEM1001"));
    // The same number with more printed after it in the entry is not taken.
    let h = header_of(
        &[("IBAN: DE12 1234 4321 9876 00 Sparkasse", 50.0, 700.0)],
        1.0,
    );
    assert_eq!(value(&h, F::Iban), None);
}

#[test]
fn breakdown_rows_and_rates_are_no_tax_total() {
    let h = header_of(
        &[
            ("Umsatzsteuer (S)", 50.0, 400.0),
            ("-4,85", 300.0, 400.0),
            ("19", 400.0, 400.0),
            ("-0,92", 480.0, 400.0),
            ("Umsatzsteuer (S)", 50.0, 413.0),
            ("-2,82", 300.0, 413.0),
            ("7", 400.0, 413.0),
            ("-0,20", 480.0, 413.0),
            ("MwSt. % 7,0", 50.0, 450.0),
        ],
        1.0,
    );
    assert_eq!(value(&h, F::TaxTotal), None);
}

#[test]
fn a_labelled_iban_is_read_as_printed_unless_it_is_the_payers() {
    // Check digits that fail: read after its label (what the page says), never unlabelled.
    let labelled = [
        ("IBAN :", 50.0, 700.0),
        ("DE12123456781234567890", 200.0, 700.0),
    ];
    let h = header_of(&labelled, 1.0);
    assert_eq!(value(&h, F::Iban), Some("DE12123456781234567890"));
    let h = header_of(&[("DE12123456781234567890", 200.0, 700.0)], 1.0);
    assert_eq!(value(&h, F::Iban), None);
    // A German IBAN has 22 characters; the next label ends it, and a shorter number that is
    // all its entry holds is read as printed.
    let h = header_of(
        &[("IBAN: DE12 1234 4321 9876 00 BIC: COBADEFFXXX", 50.0, 700.0)],
        1.0,
    );
    assert_eq!(value(&h, F::Iban), Some("DE1212344321987600"));
    assert_eq!(value(&h, F::Bic), Some("COBADEFFXXX"));
    // On a direct debit the account printed is the payer's.
    let mut debit = labelled.to_vec();
    debit.push((
        "Der Betrag wird per SEPA-Lastschrift von Ihrem Konto eingezogen.",
        50.0,
        720.0,
    ));
    let h = header_of(&debit, 1.0);
    assert_eq!(value(&h, F::Iban), None);
}

#[test]
fn a_customer_vat_number_is_the_buyers() {
    let h = header_of(
        &[
            ("Customer VAT Number", 50.0, 300.0),
            ("ESA12345674", 250.0, 300.0),
            ("TVA : FR11999999998", 50.0, 780.0),
        ],
        1.0,
    );
    assert_eq!(value(&h, F::BuyerVatId), Some("ESA12345674"));
    assert_eq!(value(&h, F::SellerVatId), Some("FR11999999998"));
    // The French label, as `Facture_FR` prints it under the references.
    let h = header_of(
        &[
            ("TVA : FR11999999998", 50.0, 50.0),
            ("N° TVA client", 35.0, 326.0),
            ("FR19787878784", 155.0, 326.0),
        ],
        1.0,
    );
    assert_eq!(value(&h, F::BuyerVatId), Some("FR19787878784"));
    assert_eq!(value(&h, F::SellerVatId), Some("FR11999999998"));
}

#[test]
fn a_credit_note_states_its_totals_positive_and_a_correction_keeps_its_signs() {
    let pieces = |title: &'static str| {
        vec![
            (title, 50.0, 200.0),
            ("Total HT", 300.0, 500.0),
            ("-218,48 €", 470.0, 500.0),
            ("Total TVA", 300.0, 512.0),
            ("-14,99 €", 470.0, 512.0),
            ("Total TTC", 300.0, 524.0),
            ("-233,47 €", 470.0, 524.0),
        ]
    };
    let h = header_of(&pieces("Avoir AV-2017-0005"), 1.0);
    assert_eq!(value(&h, F::DocumentType), Some("credit_note"));
    assert_eq!(value(&h, F::NetTotal), Some("218.48"));
    assert_eq!(value(&h, F::GrossTotal), Some("233.47"));
    let h = header_of(&pieces("Rechnungskorrektur RK21012345"), 1.0);
    assert_eq!(value(&h, F::DocumentType), Some("credit_note"));
    assert_eq!(value(&h, F::GrossTotal), Some("-233.47"));
}

/// A recognised word with its ink box: `(text, x, y, w, h)`.
type InkWord<'a> = (&'a str, f64, f64, f64, f64);

/// A recognised page from lines of words with their ink boxes, as Tesseract gives them; every
/// word at confidence 0.9.
fn ocr_header(lines: &[&[InkWord<'_>]]) -> doc_model::HeaderFields {
    let mut p = page(&[], Vec::new(), 0.9);
    p.lines = lines
        .iter()
        .filter_map(|words| {
            let words = words
                .iter()
                .map(|(text, x, y, w, h)| doc_model::Word {
                    text: (*text).to_string(),
                    bbox: doc_model::PageBox::from_edges(1, *x, *y, x + w, y + h),
                    confidence: doc_model::Confidence::new(0.9),
                })
                .collect();
            doc_model::Line::from_words(words, None)
        })
        .collect();
    let kvs = find_key_values(&p);
    extract_header_unfiltered(std::slice::from_ref(&p), &kvs)
}

#[test]
fn on_an_ocr_page_a_party_name_over_two_lines_is_read_whole() {
    // Ink boxes of `zugferd_2p0_EN16931_Kraftfahrversicherung_Bruttopreise` at 300 dpi: the
    // first line has no descenders, so 5 pt of white lie between two lines 11.5 pt apart.
    let block = |second_line_y: f64| {
        ocr_header(&[
            &[("Verkäufer:", 50.0, 308.6, 40.0, 6.5)],
            &[
                ("MVM", 50.0, 331.4, 20.0, 6.0),
                ("Musterhafter", 74.0, 331.2, 52.0, 6.5),
            ],
            &[
                ("Versicherungsverein", 50.0, second_line_y, 114.0, 8.4),
                ("Musterstadt", 169.0, second_line_y, 68.0, 6.5),
                ("a.G.", 242.0, second_line_y + 0.3, 17.0, 6.2),
            ],
            &[
                ("Musterstr.", 50.0, 365.8, 62.0, 6.0),
                ("12", 117.0, 365.3, 10.0, 6.2),
            ],
            &[
                ("DE", 51.0, 377.0, 13.0, 5.8),
                ("12345", 69.0, 376.6, 30.0, 6.5),
                ("Musterstadt", 104.0, 376.6, 68.0, 6.5),
            ],
        ])
    };
    assert_eq!(
        value(&block(342.7), F::SellerName),
        Some("MVM Musterhafter Versicherungsverein Musterstadt a.G.")
    );
    // A blank line between (17 pt top to top): two lines, not one name.
    let apart = block(348.2);
    for field in [F::SellerName, F::BuyerName] {
        assert_eq!(
            value(&apart, field).filter(|v| v.contains("MVM") && v.contains("Versicherungsverein")),
            None
        );
    }
}

#[test]
fn a_logo_read_as_letters_is_not_part_of_the_senders_name() {
    // `Facture_FR` recognised: the logo left of the sender line read as `NN O`, far from it.
    let h = ocr_header(&[&[
        ("NN", 41.0, 31.9, 12.0, 10.8),
        ("O", 55.0, 34.6, 9.0, 8.4),
        ("Au", 111.0, 32.9, 9.0, 5.8),
        ("bon", 124.0, 32.9, 12.0, 5.8),
        ("moulin", 139.0, 32.9, 22.0, 5.8),
        ("SARL", 165.0, 32.9, 20.0, 5.8),
        ("-", 187.0, 36.2, 2.0, 0.7),
        ("1242", 193.0, 32.9, 17.0, 5.8),
        ("chemin", 212.0, 32.9, 25.0, 5.8),
        ("de", 240.0, 32.9, 8.0, 5.8),
        ("l'olive", 252.0, 32.9, 19.0, 5.8),
        ("-", 273.0, 36.2, 2.0, 0.7),
        ("84340", 278.0, 32.9, 21.0, 5.8),
        ("Malaucène", 303.0, 32.9, 38.0, 5.8),
        ("-", 344.0, 36.2, 2.0, 0.7),
        ("France", 349.0, 32.9, 24.0, 5.8),
    ]]);
    assert_eq!(value(&h, F::SellerName), Some("Au bon moulin SARL"));
}

#[test]
fn on_an_ocr_page_the_buyers_block_keeps_its_vat_id() {
    // Boxes of `zugferd_2p1_EN16931_Gutschrift` recognised: `Nummer   :   GE2020211` is three
    // segments, `Kundenstraße 15` and `DE 69876 Frankfurt` two each (their gaps are wider
    // than 1.2 ink heights); the block under `Käufer:` still reaches its `USt.-Id.-Nr.`
    // line, six lines down, whose id is the buyer's.
    let h = ocr_header(&[
        &[("Verkäufer:", 49.0, 303.8, 40.0, 6.5)],
        &[
            ("Lieferant", 50.0, 337.7, 52.0, 6.5),
            ("GmbH", 108.0, 337.7, 28.0, 6.5),
        ],
        &[
            ("Lieferantenstraße", 50.0, 349.0, 100.0, 6.5),
            ("20", 156.0, 349.2, 10.0, 6.2),
        ],
        &[
            ("DE", 50.0, 361.0, 13.0, 5.5),
            ("80333", 68.0, 360.2, 30.0, 6.5),
            ("München", 102.0, 360.5, 45.0, 6.2),
        ],
        &[
            ("USt.-Id.-Nr.", 50.0, 394.1, 67.0, 6.2),
            (":", 128.0, 396.0, 1.0, 4.3),
            ("DE123456789", 138.0, 393.8, 63.0, 6.5),
        ],
        &[("Käufer:", 50.0, 416.4, 30.0, 6.5)],
        &[
            ("Nummer", 50.0, 428.4, 35.0, 5.8),
            (":", 134.0, 429.8, 1.0, 4.3),
            ("GE2020211", 144.0, 427.9, 45.0, 6.2),
        ],
        &[
            ("Kunden", 50.0, 439.0, 36.0, 6.5),
            ("AG", 90.0, 439.2, 14.0, 6.2),
            ("Mitte", 108.0, 439.0, 25.0, 6.5),
        ],
        &[
            ("Kundenstraße", 50.2, 450.5, 68.9, 6.2),
            ("15", 127.0, 450.5, 9.4, 6.2),
        ],
        &[
            // `DE` is 7.9 pt from the postal code: a segment of its own.
            ("DE", 50.4, 462.2, 10.1, 5.5),
            ("69876", 68.4, 461.5, 27.1, 6.5),
            ("Frankfurt", 103.0, 461.8, 51.1, 6.2),
        ],
        &[
            ("USt.-Id.-Nr.", 50.0, 484.1, 67.0, 6.2),
            (":", 128.0, 486.0, 1.0, 4.3),
            ("DE136695976", 138.0, 483.8, 63.0, 6.5),
        ],
    ]);
    assert_eq!(value(&h, F::BuyerName), Some("Kunden AG Mitte"));
    assert_eq!(value(&h, F::BuyerVatId), Some("DE136695976"));
    assert_eq!(value(&h, F::SellerVatId), Some("DE123456789"));
}

#[test]
fn a_figure_split_by_a_false_space_gives_no_amount() {
    // Recognised `470,15 €` as `470,1` and `5€`: neither part is the amount due.
    let h = header_of(
        &[("Solde à payer", 429.0, 475.0), ("470,1 5€", 523.0, 475.0)],
        0.9,
    );
    assert_eq!(value(&h, F::AmountDue), None);
    let h = header_of(
        &[("Solde à payer", 429.0, 475.0), ("470,15 €", 523.0, 475.0)],
        0.9,
    );
    assert_eq!(value(&h, F::AmountDue), Some("470.15"));
}

#[test]
fn a_tax_representatives_vat_id_is_not_the_sellers() {
    // `zugferd_2p0_EXTENDED_Fremdwaehrung`: the representative's block after the buyer's,
    // with its own `USt.-Id.-Nr.`.
    let pieces = vec![
        ("Verkäufer:", 50.0, 330.0),
        ("Rohstoff AG Salzgitter", 50.0, 352.0),
        ("Marktstr. 153", 50.0, 363.0),
        ("DE 38226 Salzgitter", 50.0, 374.0),
        ("USt.-Id.-Nr. : DE123456789", 50.0, 396.0),
        ("Käufer/Leistungsempfänger:", 50.0, 418.0),
        ("Metallbau Leipzig GmbH & Co. KG", 50.0, 440.0),
        ("Pappelallee 15", 50.0, 451.0),
        ("DE 12345 Leipzig", 50.0, 462.0),
        ("Steuerbevollmächtigter des Verkäufers:", 50.0, 510.0),
        ("Global Supplies Financial Services", 50.0, 532.0),
        ("Friedrichstraße 165", 50.0, 543.0),
        ("DE 12345 Berlin", 50.0, 554.0),
        ("USt.-Id.-Nr. : DE133456701", 50.0, 576.0),
    ];
    let h = header_of(&pieces, 1.0);
    assert_eq!(value(&h, F::SellerVatId), Some("DE123456789"));
    // The seller's block under `Verkäufer:` is not taken for the address window (that made
    // its id the buyer's).
    assert_eq!(value(&h, F::BuyerVatId), None);
    // With the seller's own id not printed, the representative's is not returned instead.
    let without_sellers: Vec<_> = pieces
        .into_iter()
        .filter(|(text, _, y)| !(text.starts_with("USt") && *y < 400.0))
        .collect();
    let raw = {
        let p = page(&without_sellers, Vec::new(), 1.0);
        let kvs = find_key_values(&p);
        extract_header_unfiltered(std::slice::from_ref(&p), &kvs)
    };
    assert_eq!(value(&raw, F::SellerVatId), None);
}

/// The candidates (field, value) of the invoice and order numbers on a page: of every rule,
/// or of the broad identifier source alone.
fn identifier_candidates(pieces: &[(&str, f64, f64)], broad_only: bool) -> Vec<(F, String)> {
    let p = page(pieces, Vec::new(), 1.0);
    let kvs = find_key_values(&p);
    super::header_candidates(std::slice::from_ref(&p), &kvs)
        .into_iter()
        .filter(|c| matches!(c.field, F::InvoiceNumber | F::OrderNumber))
        .filter(|c| !broad_only || c.rule == super::rank::Rule::AnyIdentifier)
        .map(|c| (c.field, c.value.value))
        .collect()
}

#[test]
fn identifiers_after_labels_the_vocabulary_lacks_are_candidates() {
    let found = identifier_candidates(
        &[
            ("Credit note No.: 2024/5126", 400.0, 120.0),
            ("N° FX-2026-0042", 400.0, 140.0),
            ("Votre référence", 50.0, 300.0),
            ("PO445", 160.0, 300.0),
            ("Factuur", 400.0, 400.0),
            ("VF1005193039", 400.0, 412.0),
        ],
        false,
    );
    for value in ["2024/5126", "FX-2026-0042", "PO445", "VF1005193039"] {
        for field in [F::InvoiceNumber, F::OrderNumber] {
            assert!(
                found.contains(&(field, value.to_string())),
                "{value} as {field:?} in {found:?}"
            );
        }
    }
}

#[test]
fn numbers_without_a_label_are_no_identifier_candidates() {
    // A street number, a postcode line, a date and a lone number under a number.
    let found = identifier_candidates(
        &[
            ("Hauptstraße 12", 50.0, 120.0),
            ("12345 Musterstadt", 50.0, 132.0),
            ("Datum: 21.11.2026", 400.0, 120.0),
            ("4711", 400.0, 300.0),
            ("0815", 400.0, 312.0),
        ],
        true,
    );
    assert!(found.is_empty(), "{found:?}");
}
