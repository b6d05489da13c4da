//! CID fonts' widths rewritten into the one form pdf-extract reads, before it reads them.

/// Most widths written out per document when CID-font width ranges are expanded (a few MB of
/// objects at worst; beyond it the remaining ranges keep the default width, as before).
pub(super) const MAX_CID_WIDTHS: usize = 1 << 18;
/// Highest CID a two-byte encoding can address.
const MAX_CID: i64 = 0xFFFF;
/// How deep CID-font dictionaries are looked for inside one object (a Type0 font's inline
/// `DescendantFonts` array holds them at depth 2).
const CID_FONT_DEPTH: usize = 3;

/// Rewrites the glyph widths of every CID font (`W`, `DW`) into the one form pdf-extract reads.
///
/// pdf-extract 0.12 skips the range form of `W` (`c_first c_last w`: it reads an empty range)
/// and panics on an indirect width inside the list form (`c [w1 w2 …]`), so such fonts fall back
/// to the default width of 1000. Every glyph is then placed too far along, and a run of
/// glyphs spills over the next text object on its line, whose glyphs the grouping below merges
/// into one word (`BeschreibuNnegttopreis`). Run before the text copy is handed to pdf-extract:
/// ranges become lists (CIDs clipped to 0–65535, at most [`MAX_CID_WIDTHS`] widths per
/// document), widths and `DW` become direct numbers; a width that is no number ends its list,
/// a malformed entry ends `W`.
pub(crate) fn normalize_cid_widths(doc: &mut lopdf::Document) {
    let ids: Vec<lopdf::ObjectId> = doc
        .objects
        .iter()
        .filter(|(_, o)| holds_cid_font(o, 0))
        .map(|(id, _)| *id)
        .collect();
    let mut budget = MAX_CID_WIDTHS;
    for id in ids {
        // Taken out while it is rewritten, so the rest of the document can be read meanwhile.
        if let Some(mut object) = doc.objects.remove(&id) {
            fix_cid_fonts(doc, &mut object, 0, &mut budget);
            doc.objects.insert(id, object);
        }
    }
}

fn is_cid_font(dict: &lopdf::Dictionary) -> bool {
    matches!(
        dict.get(b"Subtype").and_then(lopdf::Object::as_name),
        Ok(b"CIDFontType0" | b"CIDFontType2")
    )
}

fn holds_cid_font(object: &lopdf::Object, depth: usize) -> bool {
    if depth >= CID_FONT_DEPTH {
        return false;
    }
    match object {
        lopdf::Object::Dictionary(dict) => {
            is_cid_font(dict) || dict.iter().any(|(_, o)| holds_cid_font(o, depth + 1))
        }
        lopdf::Object::Array(items) => items.iter().any(|o| holds_cid_font(o, depth + 1)),
        _ => false,
    }
}

fn fix_cid_fonts(
    doc: &lopdf::Document,
    object: &mut lopdf::Object,
    depth: usize,
    budget: &mut usize,
) {
    if depth >= CID_FONT_DEPTH {
        return;
    }
    match object {
        lopdf::Object::Dictionary(dict) => {
            if is_cid_font(dict) {
                fix_cid_widths(doc, dict, budget);
            } else {
                for (_, o) in dict.iter_mut() {
                    fix_cid_fonts(doc, o, depth + 1, budget);
                }
            }
        }
        lopdf::Object::Array(items) => {
            for o in items {
                fix_cid_fonts(doc, o, depth + 1, budget);
            }
        }
        _ => {}
    }
}

/// One level of indirection resolved; a dangling reference stays a reference (no number).
fn resolved<'a>(doc: &'a lopdf::Document, object: &'a lopdf::Object) -> &'a lopdf::Object {
    match object {
        lopdf::Object::Reference(id) => doc.get_object(*id).unwrap_or(object),
        _ => object,
    }
}

fn number(doc: &lopdf::Document, object: &lopdf::Object) -> Option<lopdf::Object> {
    match resolved(doc, object) {
        n @ lopdf::Object::Integer(_) => Some(n.clone()),
        lopdf::Object::Real(r) if r.is_finite() => Some(lopdf::Object::Real(*r)),
        _ => None,
    }
}

fn integer(doc: &lopdf::Document, object: &lopdf::Object) -> Option<i64> {
    match resolved(doc, object) {
        lopdf::Object::Integer(i) => Some(*i),
        _ => None,
    }
}

fn fix_cid_widths(doc: &lopdf::Document, dict: &mut lopdf::Dictionary, budget: &mut usize) {
    match dict.get(b"DW").ok().map(|o| resolved(doc, o)) {
        Some(lopdf::Object::Integer(_)) | None => {}
        Some(lopdf::Object::Real(r)) if r.is_finite() => {
            let width = r.round() as i64;
            dict.set("DW", width);
        }
        Some(_) => {
            dict.remove(b"DW");
        }
    }
    let Some(items) = dict
        .get(b"W")
        .ok()
        .and_then(|w| resolved(doc, w).as_array().ok())
    else {
        dict.remove(b"W");
        return;
    };
    let mut out: Vec<lopdf::Object> = Vec::new();
    let mut i = 0;
    while let Some(first) = items.get(i).and_then(|o| integer(doc, o)) {
        match items.get(i + 1).map(|o| resolved(doc, o)) {
            Some(lopdf::Object::Array(list)) => {
                let widths: Vec<lopdf::Object> = list
                    .iter()
                    .map_while(|o| number(doc, o))
                    .take(*budget)
                    .collect();
                *budget -= widths.len();
                if (0..=MAX_CID).contains(&first) && !widths.is_empty() {
                    out.push(lopdf::Object::Integer(first));
                    out.push(lopdf::Object::Array(widths));
                }
                i += 2;
            }
            Some(last) => {
                let (Some(last), Some(width)) = (
                    integer(doc, last),
                    items.get(i + 2).and_then(|o| number(doc, o)),
                ) else {
                    break;
                };
                let (from, to) = (first.max(0), last.min(MAX_CID));
                if to >= from {
                    let count = usize::try_from(to - from + 1).unwrap_or(usize::MAX);
                    if count > *budget {
                        break;
                    }
                    *budget -= count;
                    out.push(lopdf::Object::Integer(from));
                    out.push(lopdf::Object::Array(vec![width; count]));
                }
                i += 3;
            }
            None => break,
        }
    }
    dict.set("W", out);
}
