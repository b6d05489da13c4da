//! Paint operators pdf-extract 0.12 passes over: it hands paths to the collector only for `S`,
//! `f` and `F`, and silently skips `f*` (even-odd fill), `B`, `B*`, `b`, `b*` (fill and stroke)
//! and `s` (close and stroke). Table rulings drawn with them (a word processor's cell borders
//! as thin rectangles filled even-odd, as in camelot's `split_text_lattice.pdf`) were lost.
//! In the copy pdf-extract reads, `f*` becomes `f` and the stroking ones become `S` (after `h`
//! where they close the path): only rulings are taken from paths, and a stroke draws every
//! edge a fill would show.

use lopdf::{Document, Object, ObjectId};

/// Rewrites the skipped paint operators of every page content and form stream.
pub(crate) fn rewrite_paint_operators(doc: &mut Document) {
    let mut ids: Vec<ObjectId> = doc
        .get_pages()
        .values()
        .flat_map(|page| doc.get_page_contents(*page))
        .collect();
    ids.extend(doc.objects.iter().filter_map(|(id, object)| {
        let stream = object.as_stream().ok()?;
        (stream.dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Form".as_slice()))
            .then_some(*id)
    }));
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        let Some(Object::Stream(stream)) = doc.objects.get_mut(&id) else {
            continue;
        };
        if stream.is_compressed() {
            continue;
        }
        if let Some(rewritten) = rewrite(&stream.content) {
            stream.set_plain_content(rewritten);
        }
    }
}

/// Delimiters of the content-stream syntax (ISO 32000-1, 7.2.2).
fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// The stream with the skipped operators replaced, or `None` when it has none. One pass over
/// the bytes: strings, hex strings, names, comments and inline image data are copied as they
/// are, so only operator tokens are ever replaced.
fn rewrite(content: &[u8]) -> Option<Vec<u8>> {
    let mut out: Vec<u8> = Vec::with_capacity(content.len() + 16);
    let mut changed = false;
    let mut i = 0;
    let n = content.len();
    while i < n {
        let b = content[i];
        if b.is_ascii_whitespace() || matches!(b, b'[' | b']' | b'{' | b'}' | b'>' | b')') {
            out.push(b);
            i += 1;
        } else if b == b'%' {
            let end = content[i..]
                .iter()
                .position(|&c| c == b'\n' || c == b'\r')
                .map_or(n, |p| i + p);
            out.extend_from_slice(&content[i..end]);
            i = end;
        } else if b == b'(' {
            // A literal string: balanced parentheses, backslash escapes.
            let mut depth = 0usize;
            let start = i;
            while i < n {
                match content[i] {
                    b'\\' => i += 1,
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            let end = i.min(n);
            out.extend_from_slice(&content[start..end]);
            i = end;
        } else if b == b'<' {
            // `<<` opens a dictionary; a single `<` a hex string up to `>`.
            if content.get(i + 1) == Some(&b'<') {
                out.extend_from_slice(b"<<");
                i += 2;
            } else {
                let end = content[i..]
                    .iter()
                    .position(|&c| c == b'>')
                    .map_or(n, |p| i + p + 1);
                out.extend_from_slice(&content[i..end]);
                i = end;
            }
        } else {
            // A name (after `/`) or a regular token: a number, a keyword, an operator.
            let start = i;
            if b == b'/' {
                i += 1;
            }
            while i < n && !content[i].is_ascii_whitespace() && !is_delimiter(content[i]) {
                i += 1;
            }
            let token = &content[start..i];
            match token {
                b"f*" => {
                    out.push(b'f');
                    changed = true;
                }
                b"B" | b"B*" => {
                    out.push(b'S');
                    changed = true;
                }
                b"b" | b"b*" | b"s" => {
                    out.extend_from_slice(b"h S");
                    changed = true;
                }
                b"ID" => {
                    // Inline image data: copied up to the `EI` that ends it.
                    out.extend_from_slice(token);
                    let end = inline_image_end(content, i);
                    out.extend_from_slice(&content[i..end]);
                    i = end;
                }
                _ => out.extend_from_slice(token),
            }
            if i == start {
                // A stray delimiter byte: copied, so the scan always moves on.
                out.push(b);
                i += 1;
            }
        }
    }
    changed.then_some(out)
}

/// Where the `EI` that ends an inline image's data starts (after whitespace), or the end.
fn inline_image_end(content: &[u8], from: usize) -> usize {
    let mut i = from + 1;
    while i + 2 <= content.len() {
        let ends = &content[i..i + 2] == b"EI"
            && content[i - 1].is_ascii_whitespace()
            && content.get(i + 2).is_none_or(|c| c.is_ascii_whitespace());
        if ends {
            return i;
        }
        i += 1;
    }
    content.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    use lopdf::content::Content;
    use lopdf::dictionary;

    #[test]
    fn skipped_operators_become_ones_pdf_extract_reads() {
        // Strings, names, hex strings and inline image data are left alone.
        let untouched = b"BT /B 9 Tf (b (s) B\\) f*) Tj <62> Tj ET BI /W 1 ID b s EI 0 0 m 5 0 l S";
        assert_eq!(rewrite(untouched), None);
        let mut doc = Document::with_version("1.5");
        let id = doc.add_object(lopdf::Stream::new(
            lopdf::Dictionary::new(),
            b"0 0 100 0.4 re f* 0 0 m 0 50 l 50 50 l b 0 0 10 10 re B".to_vec(),
        ));
        let pages = doc.new_object_id();
        let page = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages, "Contents" => id,
        });
        doc.objects.insert(
            pages,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => vec![Object::Reference(page)], "Count" => 1,
            }),
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages });
        doc.trailer.set("Root", catalog);
        rewrite_paint_operators(&mut doc);
        let content = doc
            .get_object(id)
            .and_then(Object::as_stream)
            .expect("stream");
        let ops: Vec<String> = Content::decode(&content.content)
            .expect("decodes")
            .operations
            .into_iter()
            .map(|o| o.operator)
            .collect();
        assert_eq!(ops, ["re", "f", "m", "l", "l", "h", "S", "re", "S"]);
    }
}
