//! Simple fonts whose text pdf-extract would decode with the wrong encoding.
//!
//! A Type 1 font embedded as compact font format (`FontFile3`, `Type1C`) without a `ToUnicode`
//! map: pdf-extract 0.12 reads the character codes through the embedded program's own built-in
//! encoding and lets it win over the font dictionary's `Encoding` (base encoding and
//! `Differences`), although the PDF specification (ISO 32000-1, 9.6.6) says the dictionary's
//! encoding replaces the built-in one. A subset font's built-in encoding is often arbitrary, so
//! whole pages decode to near-text ("Yerala" for "Kerala", "DE.." for "2400"). Before pdf-extract
//! sees the file, such a font gets a `ToUnicode` map written from its own `Encoding` (read with
//! lopdf, which applies base encoding and differences as specified); pdf-extract lets a
//! `ToUnicode` entry override the built-in encoding.

use lopdf::{Dictionary, Document, Object, ObjectId, Stream};

/// Adds a `ToUnicode` map derived from `Encoding` to every simple Type 1 font that embeds a
/// `Type1C` program, has an `Encoding` and no `ToUnicode`.
pub(crate) fn add_to_unicode_from_encoding(doc: &mut Document) {
    let mut fixes: Vec<(ObjectId, Vec<u8>)> = Vec::new();
    for (id, object) in &doc.objects {
        let Ok(font) = object.as_dict() else {
            continue;
        };
        if !needs_to_unicode(doc, font) {
            continue;
        }
        let Ok(encoding) = font.get_font_encoding(doc) else {
            continue;
        };
        let mut pairs: Vec<(u8, String)> = Vec::new();
        for code in 0..=255u8 {
            if let Ok(text) = encoding.bytes_to_string(&[code])
                && !text.is_empty()
                && !text.chars().any(char::is_control)
            {
                pairs.push((code, text));
            }
        }
        if !pairs.is_empty() {
            fixes.push((*id, cmap(&pairs)));
        }
    }
    for (id, content) in fixes {
        let stream = doc.add_object(Stream::new(Dictionary::new(), content));
        if let Some(Object::Dictionary(font)) = doc.objects.get_mut(&id) {
            font.set("ToUnicode", stream);
        }
    }
}

fn needs_to_unicode(doc: &Document, font: &Dictionary) -> bool {
    let is_font = font.get(b"Type").and_then(Object::as_name).ok() == Some(b"Font".as_slice());
    let simple_type1 = matches!(
        font.get(b"Subtype").and_then(Object::as_name),
        Ok(b"Type1" | b"MMType1")
    );
    if !is_font || !simple_type1 || font.has(b"ToUnicode") || !font.has(b"Encoding") {
        return false;
    }
    let Ok(descriptor) = font
        .get_deref(b"FontDescriptor", doc)
        .and_then(Object::as_dict)
    else {
        return false;
    };
    descriptor
        .get_deref(b"FontFile3", doc)
        .and_then(Object::as_stream)
        .is_ok_and(|s| {
            s.dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Type1C".as_slice())
        })
}

/// A `ToUnicode` CMap of one-byte codes, in blocks of at most 100 `bfchar` entries.
fn cmap(pairs: &[(u8, String)]) -> Vec<u8> {
    let mut out = String::from(
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n\
         /CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n\
         /CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n\
         1 begincodespacerange\n<00> <FF>\nendcodespacerange\n",
    );
    for block in pairs.chunks(100) {
        out.push_str(&format!("{} beginbfchar\n", block.len()));
        for (code, text) in block {
            let hex: String = text.encode_utf16().map(|u| format!("{u:04X}")).collect();
            out.push_str(&format!("<{code:02X}> <{hex}>\n"));
        }
        out.push_str("endbfchar\n");
    }
    out.push_str("endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::dictionary;

    #[test]
    fn a_type1c_font_with_differences_gets_a_to_unicode_map_from_them() {
        let mut doc = Document::with_version("1.5");
        let program = doc.add_object(Stream::new(dictionary! { "Subtype" => "Type1C" }, vec![]));
        let descriptor =
            doc.add_object(dictionary! { "Type" => "FontDescriptor", "FontFile3" => program });
        let font = doc.add_object(dictionary! {
            "Type" => "Font",
            "Subtype" => "Type1",
            "BaseFont" => "ABCDEF+Helvetica",
            "FontDescriptor" => descriptor,
            "Encoding" => dictionary! {
                "BaseEncoding" => "WinAnsiEncoding",
                // Code 65 prints "K" in this font; 66 keeps WinAnsi's "B".
                "Differences" => vec![65.into(), Object::Name(b"K".to_vec())],
            },
        });
        // A font with its own map and one without an embedded CFF program are left alone.
        let plain = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
            "Encoding" => "WinAnsiEncoding",
        });
        add_to_unicode_from_encoding(&mut doc);
        assert!(!doc.get_dictionary(plain).expect("font").has(b"ToUnicode"));
        let map_id = doc
            .get_dictionary(font)
            .expect("font")
            .get(b"ToUnicode")
            .and_then(Object::as_reference)
            .expect("a ToUnicode reference");
        let content = String::from_utf8(
            doc.get_object(map_id)
                .and_then(Object::as_stream)
                .expect("stream")
                .content
                .clone(),
        )
        .expect("ascii");
        assert!(content.contains("<41> <004B>"), "{content}");
        assert!(content.contains("<42> <0042>"), "{content}");
        assert!(content.contains("<32> <0032>"), "{content}");
    }
}
