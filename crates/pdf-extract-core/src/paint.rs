//! Operators pdf-extract 0.12 passes over, rewritten in the copy it reads into ones it knows.
//!
//! Paint: it hands paths to the collector only for `S`, `f` and `F`, and silently skips `f*`
//! (even-odd fill), `B`, `B*`, `b`, `b*` (fill and stroke) and `s` (close and stroke). Table
//! rulings drawn with them (a word processor's cell borders as thin rectangles filled
//! even-odd, as in camelot's `split_text_lattice.pdf`) were lost. `f*` becomes `f` and the
//! stroking ones become `S` (after `h` where they close the path): only rulings are taken from
//! paths, and a stroke draws every edge a fill would show.
//!
//! Text: it has no case for `'` (next line, then show) and `"` (set word and character
//! spacing, next line, then show), so their text was dropped and the lines after them were
//! placed as if no line had been moved to. ReportLab writes every line of a text object with
//! `'`, which is how many generated invoices print their header. `(s) '` becomes
//! `T* (s) Tj` and `aw ac (s) "` becomes `aw Tw ac Tc T* (s) Tj` (ISO 32000-1, 9.4.3).

use lopdf::{Document, Object, ObjectId};

/// Rewrites the skipped operators of every page content and form stream.
pub(crate) fn rewrite_skipped_operators(doc: &mut Document) {
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

/// Whether a regular token is an operand (a number or a keyword value), not an operator.
fn is_operand(token: &[u8]) -> bool {
    token
        .first()
        .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.'))
        || matches!(token, b"true" | b"false" | b"null")
}

/// The stream with the skipped operators replaced, or `None` when it has none. One pass over
/// the bytes: strings, hex strings, names, comments and inline image data are copied as they
/// are, so only operator tokens are ever replaced. Where each operand of the pending operator
/// starts in the output is kept, to put `T*` before the text of `'` and `"`.
fn rewrite(content: &[u8]) -> Option<Vec<u8>> {
    let mut out: Vec<u8> = Vec::with_capacity(content.len() + 16);
    let mut changed = false;
    let mut operands: Vec<usize> = Vec::new();
    let mut i = 0;
    let n = content.len();
    while i < n {
        let b = content[i];
        if b == b'[' {
            operands.push(out.len());
            out.push(b);
            i += 1;
        } else if b.is_ascii_whitespace() || matches!(b, b']' | b'{' | b'}' | b'>' | b')') {
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
            operands.push(out.len());
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
                operands.push(out.len());
                out.extend_from_slice(b"<<");
                i += 2;
            } else {
                operands.push(out.len());
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
            if b == b'/' || is_operand(token) {
                operands.push(out.len());
                out.extend_from_slice(token);
                continue;
            }
            match token {
                b"'" if !operands.is_empty() => {
                    let text = operands[operands.len() - 1];
                    out.splice(text..text, b"T* ".iter().copied());
                    out.extend_from_slice(b"Tj");
                    changed = true;
                }
                b"\"" if operands.len() >= 3 => {
                    let at = operands.len() - 3;
                    let (aw, ac, text) = (operands[at], operands[at + 1], operands[at + 2]);
                    let word = out[aw..ac].trim_ascii().to_vec();
                    let character = out[ac..text].trim_ascii().to_vec();
                    let shown = out[text..].to_vec();
                    out.truncate(aw);
                    out.extend_from_slice(&word);
                    out.extend_from_slice(b" Tw ");
                    out.extend_from_slice(&character);
                    out.extend_from_slice(b" Tc T* ");
                    out.extend_from_slice(&shown);
                    out.extend_from_slice(b" Tj");
                    changed = true;
                }
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
            } else {
                operands.clear();
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
        rewrite_skipped_operators(&mut doc);
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

    fn operations(content: &[u8]) -> Vec<(String, Vec<String>)> {
        Content::decode(content)
            .expect("decodes")
            .operations
            .into_iter()
            .map(|o| {
                let operands = o
                    .operands
                    .iter()
                    .map(|x| match x {
                        Object::String(s, _) => String::from_utf8_lossy(s).into_owned(),
                        other => format!("{other:?}"),
                    })
                    .collect();
                (o.operator, operands)
            })
            .collect()
    }

    #[test]
    fn quote_operators_become_next_line_and_show() {
        // As ReportLab writes a text object.
        let content = b"BT /F1 12 Tf 1 0 0 1 56 785 Tm (INVOICE)Tj 14 TL (No: 42)' (Date: 1.2.2026)' 2 0.5 (Spaced)\" ET";
        let rewritten = rewrite(content).expect("changed");
        let ops = operations(&rewritten);
        let names: Vec<&str> = ops.iter().map(|(o, _)| o.as_str()).collect();
        assert_eq!(
            names,
            [
                "BT", "Tf", "Tm", "Tj", "TL", "T*", "Tj", "T*", "Tj", "Tw", "Tc", "T*", "Tj", "ET"
            ]
        );
        assert_eq!(ops[6].1, ["No: 42"]);
        assert_eq!(ops[8].1, ["Date: 1.2.2026"]);
        assert_eq!(ops[9].1, ["2"]);
        assert_eq!(ops[10].1, ["0.5"]);
        assert_eq!(ops[12].1, ["Spaced"]);
        // A quote inside a string or a name is text, not an operator.
        assert_eq!(rewrite(b"BT (it's) Tj /a' 1 Tf ET"), None);
    }
}
