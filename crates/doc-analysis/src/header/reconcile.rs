//! Candidates weighed against each other: values printed twice, credit notes' unsigned
//! amounts, the amount due inferred from the totals, totals that must add up.

use super::*;

/// A value printed twice, apart (the number in the title and in the form, the seller in the
/// heading block and in the footer), is surer than a value found once: the reading of one
/// place is confirmed by another.
pub(super) fn corroborate(candidates: &mut Candidates) {
    let key = |c: &Candidate| -> String {
        match kind_of(c.field) {
            Some(ValueKind::Party) => vocabulary::fold(&c.value.value),
            _ => c.value.value.clone(),
        }
    };
    let confirmed: Vec<bool> = candidates
        .0
        .iter()
        .map(|c| {
            let k = key(c);
            candidates.0.iter().any(|o| {
                o.field == c.field
                    && !std::ptr::eq(o, c)
                    && key(o) == k
                    && !o.value.source.bbox.contains_center_of(&c.value.source.bbox)
                    && !c.value.source.bbox.contains_center_of(&o.value.source.bbox)
            })
        })
        .collect();
    for (c, confirmed) in candidates.0.iter_mut().zip(confirmed) {
        c.corroborated = confirmed;
        if confirmed {
            c.value.confidence = Confidence::new((c.value.confidence.value() + 0.15).min(1.0));
        }
    }
}

/// A credit note (`Avoir`, `Gutschrift`, `Credit note`) states its amounts positive, as EN 16931
/// does (the document type says which way the money goes); a minus printed before its totals is
/// dropped. A corrective invoice (`Rechnungskorrektur`, `Stornorechnung`) is an invoice of
/// negative amounts and keeps its signs.
pub(super) fn credit_note_amounts_unsigned(candidates: &mut Candidates) {
    let credit_note = candidates
        .best(HeaderFieldName::DocumentType)
        .is_some_and(|c| {
            let title = vocabulary::fold(&c.value.text);
            c.value.value == "credit_note"
                && (title.ends_with("gutschrift") || title == "avoir" || title == "credit")
        });
    if !credit_note {
        return;
    }
    for c in candidates
        .0
        .iter_mut()
        .filter(|c| kind_of(c.field) == Some(ValueKind::Amount))
    {
        if let Some(unsigned) = c.value.value.strip_prefix('-') {
            c.value.value = unsigned.to_string();
        }
    }
}

/// The least confidence a gross total needs to stand for the amount due when no amount due is
/// printed: the calibration's bands from 0.7 up were right 97–98 % of the time, the gross
/// totals under it (0.5–0.65) about half the time.
pub(super) const DUE_FROM_GROSS_MIN: f64 = 0.7;

/// No amount due printed: the amount due is the gross total (EN 16931: BT-115 = BT-112 less
/// prepaid amounts and rounding), unless the document prints anything that makes them differ
/// — a prepayment, a discount or an allowance, an outstanding balance or a credit set off
/// ([`payable_may_differ`]). The inferred value keeps the gross total's box and method, a
/// little less sure than the gross total itself.
pub(super) fn infer_amount_due(pages: &[Page], candidates: &mut Candidates) {
    if candidates
        .0
        .iter()
        .any(|c| c.field == HeaderFieldName::AmountDue)
    {
        return;
    }
    let Some(gross) = candidates.best(HeaderFieldName::GrossTotal).cloned() else {
        return;
    };
    if gross.value.confidence.value() < DUE_FROM_GROSS_MIN || payable_may_differ(pages) {
        return;
    }
    let mut due = gross;
    due.field = HeaderFieldName::AmountDue;
    due.rule = Rule::InferredDue;
    due.value.confidence = Confidence::new(due.value.confidence.value() * 0.9);
    candidates.0.push(due);
}

/// Whether the pages print a word by which the amount due may differ from the gross total:
/// prepayments (`Anzahlung`, `Vorauszahlung`, `Abschlag…`, `acompte`, `prepaid`, `bereits
/// bezahlt`), discounts and allowances (`Skonto`, `Rabatt`, `Nachlass`, `discount`, `remise`,
/// `escompte`), balances (`ausstehend`, `Forderung`, `Guthaben`, `verrechnet`, `balance`,
/// `solde`) and deductions (`abzüglich`, `less`).
pub(super) fn payable_may_differ(pages: &[Page]) -> bool {
    const STEMS: &[&str] = &[
        "anzahlung",
        "vorauszahlung",
        "abschlag",
        "acompte",
        "prepaid",
        "prepayment",
        "skonto",
        "rabatt",
        "nachlass",
        "discount",
        "remise",
        "escompte",
        "ausstehend",
        "forderung",
        "guthaben",
        "verrechn",
        "gutgeschrieben",
        "balance",
        "solde",
        "abzüglich",
        "abzgl",
        "deposit",
    ];
    let words: Vec<String> = pages
        .iter()
        .flat_map(|p| &p.lines)
        .flat_map(|l| &l.words)
        .map(|w| vocabulary::fold(&w.text))
        .collect();
    words.iter().any(|w| STEMS.iter().any(|s| w.contains(s)))
        || words.windows(2).any(|p| {
            matches!(
                (p[0].as_str(), p[1].as_str()),
                ("bereits", "bezahlt" | "gezahlt" | "erhalten")
                    | ("already", "paid")
                    | ("amount", "paid")
                    | ("less", _)
            )
        })
}

/// Where net + tax = gross holds for some candidates, those are preferred over candidates that
/// fit no sum.
pub(super) fn reconcile_totals(candidates: &mut Candidates) {
    let of = |field| -> Vec<(usize, i64)> {
        candidates
            .0
            .iter()
            .enumerate()
            .filter(|(_, c)| c.field == field)
            .filter_map(|(i, c)| to_cents(&c.value.value).map(|v| (i, v)))
            .collect()
    };
    let nets = of(HeaderFieldName::NetTotal);
    let taxes = of(HeaderFieldName::TaxTotal);
    let grosses = of(HeaderFieldName::GrossTotal);
    let mut best: Option<(f64, [usize; 3])> = None;
    for (g, gv) in &grosses {
        for (n, nv) in &nets {
            for (t, tv) in &taxes {
                if nv + tv == *gv && *gv != 0 {
                    let score: f64 = [*g, *n, *t]
                        .iter()
                        .map(|i| candidates.0[*i].value.confidence.value())
                        .sum();
                    if best.is_none_or(|(s, _)| score > s) {
                        best = Some((score, [*n, *t, *g]));
                    }
                }
            }
        }
    }
    if let Some((_, chosen)) = best {
        for i in chosen {
            let c = &mut candidates.0[i];
            c.reconciled = true;
            c.value.confidence = Confidence::new((c.value.confidence.value() + 0.3).min(1.0));
        }
    }
}
