//! Files embedded in the PDF (the `EmbeddedFiles` name tree of the catalog and its `AF`
//! array, PDF/A-3's associated files) and the e-invoice XML among them.
//!
//! Hostile files: the name tree is walked to a bounded depth and number of entries, and each
//! embedded stream is inflated with a cap ([`MAX_EMBEDDED_BYTES`]) before anything parses it.
//! A problem with the XML is reported in [`EmbeddedInvoice::problems`], never as an error.

use std::collections::HashSet;

use doc_analysis::einvoice::{MAX_XML_BYTES, read_invoice_xml};
use doc_model::EmbeddedInvoice;
use lopdf::{Dictionary, Object, ObjectId};

use crate::load::PdfDocument;

/// Largest embedded file inflated, in bytes: the XML reader's own limit.
pub const MAX_EMBEDDED_BYTES: usize = MAX_XML_BYTES;

/// Most name-tree levels walked.
const MAX_TREE_DEPTH: usize = 16;

/// Most embedded files looked at.
const MAX_FILES: usize = 64;

/// One file embedded in the PDF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedFile {
    /// Its name (`/UF`, else `/F`, else the name-tree key).
    pub name: String,
    /// Its content, inflated; `Err` with the reason when it could not be read.
    pub content: Result<Vec<u8>, EmbeddedFileError>,
}

/// Why an embedded file's content could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EmbeddedFileError {
    /// It inflates beyond the limit.
    #[error("the embedded file inflates beyond {MAX_EMBEDDED_BYTES} bytes; not read")]
    TooLarge,
    /// Its filter is broken; the decoder's words.
    #[error("the embedded file could not be inflated: {0}")]
    Inflate(String),
    /// The file specification points at no stream.
    #[error("the embedded file has no stream")]
    NoStream,
}

/// Names under which ZUGFeRD, Factur-X and XRechnung embed the invoice, folded to lower case.
const INVOICE_NAMES: &[&str] = &[
    "factur-x.xml",
    "zugferd-invoice.xml",
    "xrechnung.xml",
    "order-x.xml",
];

impl PdfDocument {
    /// Every embedded file of the document (name tree and `AF`, each once), at most 64.
    pub fn embedded_files(&self) -> Vec<EmbeddedFile> {
        let doc = &self.source;
        let mut specs: Vec<(String, &Dictionary)> = Vec::new();
        let mut seen: HashSet<ObjectId> = HashSet::new();
        let Ok(catalog) = doc.catalog() else {
            return Vec::new();
        };
        if let Some(tree) = catalog
            .get(b"Names")
            .ok()
            .and_then(|n| deref_dict(doc, n))
            .and_then(|n| n.get(b"EmbeddedFiles").ok())
            .and_then(|t| deref_dict(doc, t))
        {
            walk_names(doc, tree, 0, &mut seen, &mut specs);
        }
        if let Ok(af) = catalog.get(b"AF")
            && let Ok((_, Object::Array(items))) = doc.dereference(af)
        {
            for item in items.iter().take(MAX_FILES) {
                if let Ok(id) = item.as_reference()
                    && !seen.insert(id)
                {
                    continue;
                }
                if let Some(spec) = deref_dict(doc, item) {
                    specs.push((String::new(), spec));
                }
            }
        }
        specs
            .into_iter()
            .take(MAX_FILES)
            .filter_map(|(key, spec)| read_spec(doc, &key, spec))
            .collect()
    }

    /// The e-invoice XML the PDF embeds, read; `None` when it embeds none. The file is chosen
    /// by its name (`factur-x.xml`, `zugferd-invoice.xml`, `xrechnung.xml`), else the first
    /// `.xml` file. Never fails: problems are in the answer's `problems`.
    pub fn embedded_invoice(&self) -> Option<EmbeddedInvoice> {
        let files = self.embedded_files();
        let is_named = |f: &&EmbeddedFile| INVOICE_NAMES.contains(&f.name.to_lowercase().as_str());
        let file = files.iter().find(is_named).or_else(|| {
            files
                .iter()
                .find(|f| f.name.to_lowercase().ends_with(".xml"))
        })?;
        Some(match &file.content {
            Ok(bytes) => read_invoice_xml(&file.name, bytes),
            Err(reason) => EmbeddedInvoice {
                file_name: file.name.clone(),
                syntax: None,
                profile: None,
                fields: Default::default(),
                line_items: Vec::new(),
                problems: vec![reason.to_string()],
            },
        })
    }
}

fn deref_dict<'a>(doc: &'a lopdf::Document, object: &'a Object) -> Option<&'a Dictionary> {
    match doc.dereference(object) {
        Ok((_, Object::Dictionary(d))) => Some(d),
        _ => None,
    }
}

/// Collects the file specifications of a name tree (`/Names [key spec …]`, `/Kids`).
fn walk_names<'a>(
    doc: &'a lopdf::Document,
    node: &'a Dictionary,
    depth: usize,
    seen: &mut HashSet<ObjectId>,
    out: &mut Vec<(String, &'a Dictionary)>,
) {
    if depth > MAX_TREE_DEPTH || out.len() >= MAX_FILES {
        return;
    }
    if let Ok(names) = node.get(b"Names")
        && let Ok((_, Object::Array(items))) = doc.dereference(names)
    {
        for pair in items.chunks(2) {
            let [key, value] = pair else {
                continue;
            };
            if let Ok(id) = value.as_reference()
                && !seen.insert(id)
            {
                continue;
            }
            let key = match doc.dereference(key) {
                Ok((_, Object::String(bytes, _))) => text_string(bytes),
                _ => String::new(),
            };
            if let Some(spec) = deref_dict(doc, value) {
                out.push((key, spec));
            }
            if out.len() >= MAX_FILES {
                return;
            }
        }
    }
    if let Ok(kids) = node.get(b"Kids")
        && let Ok((_, Object::Array(kids))) = doc.dereference(kids)
    {
        for kid in kids {
            // A kid seen before is a cycle.
            if let Ok(id) = kid.as_reference()
                && !seen.insert(id)
            {
                continue;
            }
            if let Some(kid) = deref_dict(doc, kid) {
                walk_names(doc, kid, depth + 1, seen, out);
            }
        }
    }
}

/// A file specification's name and inflated content.
fn read_spec(doc: &lopdf::Document, key: &str, spec: &Dictionary) -> Option<EmbeddedFile> {
    let name = [b"UF".as_slice(), b"F".as_slice()]
        .iter()
        .find_map(|k| match spec.get(k).ok().map(|o| doc.dereference(o)) {
            Some(Ok((_, Object::String(bytes, _)))) => Some(text_string(bytes)),
            _ => None,
        })
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| key.to_string());
    let ef = spec.get(b"EF").ok().and_then(|e| deref_dict(doc, e))?;
    let stream = ef.get(b"UF").or_else(|_| ef.get(b"F")).ok()?;
    let content = match doc.dereference(stream) {
        Ok((_, Object::Stream(stream))) => stream
            .decompressed_content_with_limit(MAX_EMBEDDED_BYTES)
            .map_err(|e| match e {
                lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded {
                    ..
                }) => EmbeddedFileError::TooLarge,
                other => EmbeddedFileError::Inflate(other.to_string()),
            }),
        _ => Err(EmbeddedFileError::NoStream),
    };
    Some(EmbeddedFile { name, content })
}

/// A PDF text string: UTF-16BE with a byte-order mark, UTF-8 with one, else PDFDocEncoding
/// (read as Latin-1, which it equals for file names).
fn text_string(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(&[0xfe, 0xff]) {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        return String::from_utf16_lossy(&units);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xef, 0xbb, 0xbf]) {
        return String::from_utf8_lossy(rest).into_owned();
    }
    bytes.iter().map(|b| char::from(*b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_strings_decode_utf16_and_latin1() {
        assert_eq!(text_string(b"\xfe\xff\x00a\x00.\x00x"), "a.x");
        assert_eq!(text_string(b"factur-x.xml"), "factur-x.xml");
        assert_eq!(text_string(b"\xe4"), "ä");
    }
}
