//! CID fonts rewritten into the forms pdf-extract reads, before it reads them: their widths,
//! and the code space of their embedded encoding CMaps.

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

/// Rewrites the code-space ranges of every embedded CMap a Type0 font uses as its `Encoding`
/// so that pdf-extract's CMap parser reads their code width.
///
/// adobe-cmap-parser 0.4.1 (pdf-extract 0.12's) takes a range's code width as half its byte
/// count: a one-byte space `<00> <FF>` gets width 0, which no code matches, so every glyph of
/// the font is dropped (a page set in such a font has no text at all); a two-byte space
/// `<0000> <FFFF>` gets width 1 and its codes are read a byte at a time. Each bound is written
/// with its bytes doubled by leading zeros (`<00> <FF>` → `<0000> <00FF>`): the same values
/// with the byte count the parser halves. The test below fails when the parser changes.
pub(crate) fn pad_encoding_codespaces(doc: &mut lopdf::Document) {
    let mut ids: Vec<lopdf::ObjectId> = doc
        .objects
        .values()
        .filter_map(|o| o.as_dict().ok())
        .filter(|d| {
            matches!(
                d.get(b"Subtype").and_then(lopdf::Object::as_name),
                Ok(b"Type0")
            )
        })
        .filter_map(|d| d.get(b"Encoding").ok()?.as_reference().ok())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        let Some(lopdf::Object::Stream(stream)) = doc.objects.get_mut(&id) else {
            continue;
        };
        if stream.is_compressed() {
            continue;
        }
        if let Some(padded) = pad_codespace_bounds(&stream.content) {
            stream.set_plain_content(padded);
        }
    }
}

/// The CMap text with every hex string between `begincodespacerange` and
/// `endcodespacerange` doubled in byte count by leading zeros; `None` when it has no such
/// section.
fn pad_codespace_bounds(cmap: &[u8]) -> Option<Vec<u8>> {
    const BEGIN: &[u8] = b"begincodespacerange";
    const END: &[u8] = b"endcodespacerange";
    let find = |from: usize, what: &[u8]| {
        cmap.get(from..)?
            .windows(what.len())
            .position(|w| w == what)
            .map(|p| p + from)
    };
    let mut out = Vec::with_capacity(cmap.len() + 32);
    let mut cursor = 0;
    let mut changed = false;
    while let Some(begin) = find(cursor, BEGIN) {
        let body = begin + BEGIN.len();
        let end = find(body, END)?;
        out.extend_from_slice(&cmap[cursor..body]);
        let mut i = body;
        while i < end {
            if cmap[i] == b'<' {
                let close = cmap[i..end].iter().position(|&b| b == b'>')? + i;
                let mut digits: Vec<u8> = cmap[i + 1..close]
                    .iter()
                    .copied()
                    .filter(|b| !b.is_ascii_whitespace())
                    .collect();
                if !digits.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                // An odd last digit stands for its byte's high half (ISO 32000-1, 7.3.4.3).
                if digits.len() % 2 == 1 {
                    digits.push(b'0');
                }
                out.push(b'<');
                out.extend(std::iter::repeat_n(b'0', digits.len()));
                out.extend_from_slice(&digits);
                out.push(b'>');
                changed = true;
                i = close + 1;
            } else {
                out.push(cmap[i]);
                i += 1;
            }
        }
        cursor = end;
    }
    out.extend_from_slice(&cmap[cursor..]);
    changed.then_some(out)
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

#[cfg(test)]
mod tests {
    use super::pad_codespace_bounds;

    #[test]
    fn codespace_bounds_are_doubled_and_nothing_else_changes() {
        let cmap = b"/CMapName /OneByteIdentityH def\n2 begincodespacerange\n<00> <7F>\n<8 1 4 0> <9FFC>\nendcodespacerange\n1 begincidrange\n<00> <FF> 0\nendcidrange\n";
        let padded = pad_codespace_bounds(cmap).expect("has a code space");
        assert_eq!(
            String::from_utf8_lossy(&padded),
            "/CMapName /OneByteIdentityH def\n2 begincodespacerange\n<0000> <007F>\n<00008140> <00009FFC>\nendcodespacerange\n1 begincidrange\n<00> <FF> 0\nendcidrange\n"
        );
        assert_eq!(
            pad_codespace_bounds(b"1 begincidrange <00> <FF> 0 endcidrange"),
            None
        );
        // An unterminated section or a broken hex string leaves the CMap as it is.
        assert_eq!(
            pad_codespace_bounds(b"1 begincodespacerange <00> <FF>"),
            None
        );
        assert_eq!(
            pad_codespace_bounds(b"1 begincodespacerange <0G> <FF> endcodespacerange"),
            None
        );
    }

    /// A page set in a Type0 font whose `Encoding` is an embedded one-byte identity CMap (as
    /// one invoice generator writes its Fira Sans subsets) reads as its text.
    #[test]
    fn a_font_with_a_one_byte_embedded_cmap_has_text() {
        use lopdf::{Document, Object, Stream, dictionary};
        let mut doc = Document::with_version("1.7");
        let encoding = doc.add_object(Stream::new(
            dictionary! { "Type" => "CMap", "CMapName" => "OneByteIdentityH" },
            b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n\
              /CMapName /OneByteIdentityH def /CMapType 1 def\n\
              1 begincodespacerange\n<00> <FF>\nendcodespacerange\n\
              1 begincidrange\n<00> <FF> 0\nendcidrange\n\
              endcmap CMapName currentdict /CMap defineresource pop end end\n"
                .to_vec(),
        ));
        let entries: String = (0x20u8..0x7F)
            .map(|c| format!("<{c:02x}> <{c:04x}>\n"))
            .collect();
        let to_unicode = doc.add_object(Stream::new(
            dictionary! {},
            format!(
                "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n\
                 /CMapName /U def /CMapType 2 def\n1 begincodespacerange\n<00><ff>\n\
                 endcodespacerange\n{} beginbfchar\n{entries}endbfchar\n\
                 endcmap CMapName currentdict /CMap defineresource pop end end\n",
                0x7F - 0x20
            )
            .into_bytes(),
        ));
        let font = doc.add_object(dictionary! {
            "Type" => "Font",
            "Subtype" => "Type0",
            "BaseFont" => "ABCDEF+FiraSans-Regular",
            "Encoding" => encoding,
            "ToUnicode" => to_unicode,
            "DescendantFonts" => vec![Object::Dictionary(dictionary! {
                "Type" => "Font",
                "Subtype" => "CIDFontType2",
                "BaseFont" => "ABCDEF+FiraSans-Regular",
                "CIDSystemInfo" => dictionary! {
                    "Registry" => Object::string_literal("Adobe"),
                    "Ordering" => Object::string_literal("Identity"),
                    "Supplement" => 0,
                },
                "FontDescriptor" => dictionary! {
                    "Type" => "FontDescriptor",
                    "FontName" => "ABCDEF+FiraSans-Regular",
                    "Flags" => 32,
                },
                "DW" => 500,
            })],
        });
        let content = doc.add_object(Stream::new(
            dictionary! {},
            b"BT /F1 12 Tf 1 0 0 1 72 700 Tm (Rechnungs-Nr.: R-00011) Tj ET".to_vec(),
        ));
        let pages = doc.new_object_id();
        let page = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages,
            "Contents" => content,
            "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        });
        doc.objects.insert(
            pages,
            Object::Dictionary(dictionary! {
                "Type" => "Pages",
                "Kids" => vec![Object::Reference(page)],
                "Count" => 1,
            }),
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages });
        doc.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).expect("saves");
        let pdf = crate::PdfDocument::load(&bytes, &crate::Limits::DOCUMENT).expect("loads");
        let page = pdf.extract_page(1).expect("page");
        let text: Vec<&str> = page.lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(text, ["Rechnungs-Nr.: R-00011"]);
    }
}
