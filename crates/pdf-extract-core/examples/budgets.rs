//! What real documents cost against the budgets (see `pdf_extract_core::budget`): opens every
//! PDF under ROOT with every budget lifted, preflights every page, and prints the largest
//! object count, expanded operator count, form nesting, inflated page content, inflated
//! document total and page size in points, each with the file it came from, plus every file
//! the default budgets would refuse.
//!
//! ```text
//! cargo run --release -p pdf-extract-core --example budgets -- [ROOT]
//! ```
//! ROOT defaults to `../shared/test-data` next to the workspace.

use std::path::{Path, PathBuf};

use pdf_extract_core::{Budgets, Limits, PdfDocument};

/// Every budget lifted, so what is measured is the file, not the cap.
const LIFTED: Budgets = Budgets {
    max_objects: usize::MAX,
    max_form_depth: u32::MAX,
    max_page_operators: u64::MAX,
    max_stream_bytes: 1 << 40,
    max_page_content_bytes: u64::MAX,
    max_document_bytes: u64::MAX,
    max_render_pixels: u64::MAX,
    min_render_dpi: 0.0,
};

#[derive(Default)]
struct Max {
    value: f64,
    file: String,
}

impl Max {
    fn see(&mut self, value: f64, file: &str) {
        if value > self.value {
            self.value = value;
            self.file = file.to_owned();
        }
    }
}

fn pdfs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            pdfs(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
        {
            out.push(path);
        }
    }
}

fn main() {
    let root = std::env::args().nth(1).map_or_else(
        || {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../../shared/test-data"
            ))
        },
        PathBuf::from,
    );
    let mut files = Vec::new();
    pdfs(&root, &mut files);
    files.sort();
    let limits = Limits {
        max_bytes: usize::MAX,
        max_pages: u32::MAX,
    };
    let (mut ops, mut depth, mut content, mut total, mut area, mut side) = Default::default();
    let (mut objects, mut indirect, mut objstm): (Max, Max, Max) = Default::default();
    let (mut rulings, mut tables_ms): (Max, Max) = Default::default();
    let (mut opened, mut pages) = (0, 0);
    let mut refused = Vec::new();
    for path in &files {
        let name = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let Ok(doc) = PdfDocument::load_with_budgets(&bytes, &limits, &LIFTED) else {
            continue;
        };
        opened += 1;
        if let Err(e) = PdfDocument::load(&bytes, &limits) {
            refused.push(format!("{name}: {e}"));
        }
        let strict = PdfDocument::load(&bytes, &limits).ok();
        for page in 1..=doc.page_count() {
            pages += 1;
            if let Ok(work) = doc.page_work(page) {
                let (o, d, c): (&mut Max, &mut Max, &mut Max) =
                    (&mut ops, &mut depth, &mut content);
                o.see(work.operators as f64, &name);
                d.see(f64::from(work.nesting), &name);
                c.see(work.content_bytes as f64, &name);
            }
            if let Ok(text) = doc.extract_page(page) {
                let r: &mut Max = &mut rulings;
                r.see(text.rulings.len() as f64, &format!("{name} page {page}"));
                let started = std::time::Instant::now();
                let _ = doc_analysis::find_tables(&text);
                let t: &mut Max = &mut tables_ms;
                t.see(
                    started.elapsed().as_secs_f64() * 1000.0,
                    &format!("{name} page {page}"),
                );
            }
            if let Ok((w, h)) = doc.page_size(page) {
                let a: &mut Max = &mut area;
                a.see(w * h, &name);
                let s: &mut Max = &mut side;
                s.see(w.max(h), &name);
            }
            if let Some(strict) = &strict
                && let Err(e) = strict.preflight(page)
            {
                refused.push(format!("{name} page {page}: {e}"));
            }
        }
        if let Ok(raw) = lopdf::Document::load_mem(&bytes) {
            let o: &mut Max = &mut objects;
            o.see(nested_objects(&raw) as f64, &name);
            let i: &mut Max = &mut indirect;
            i.see(raw.objects.len() as f64, &name);
        }
        if let Ok((id, len)) = largest_object_stream(&bytes) {
            let s: &mut Max = &mut objstm;
            s.see(len as f64, &format!("{name} ({id:?})"));
        }
        let t: &mut Max = &mut total;
        t.see(doc.inflated_bytes() as f64, &name);
    }
    println!("{opened} PDFs opened of {}, {pages} pages", files.len());
    for (label, max) in [
        ("objects, members counted", &objects),
        ("indirect objects", &indirect),
        ("inflated object stream, bytes", &objstm),
        ("rulings per page", &rulings),
        ("find_tables per page, ms", &tables_ms),
        ("expanded operators per page", &ops),
        ("form nesting", &depth),
        ("inflated page content, bytes", &content),
        ("inflated streams per document, bytes", &total),
        ("page area, pt²", &area),
        ("longest page side, pt", &side),
    ] {
        println!("{label}: {} ({})", max.value, max.file);
    }
    println!("refused by the default budgets: {}", refused.len());
    for line in refused {
        println!("  {line}");
    }
}

/// Objects of a file with the members of arrays and dictionaries.
fn nested_objects(doc: &lopdf::Document) -> usize {
    let mut count = 0;
    let mut todo: Vec<&lopdf::Object> = doc.objects.values().collect();
    while let Some(object) = todo.pop() {
        count += 1;
        match object {
            lopdf::Object::Array(items) => todo.extend(items),
            lopdf::Object::Dictionary(d) => todo.extend(d.iter().map(|(_, v)| v)),
            lopdf::Object::Stream(s) => todo.extend(s.dict.iter().map(|(_, v)| v)),
            _ => {}
        }
    }
    count
}

/// The largest inflated object stream of a file (loaded without dropping containers).
fn largest_object_stream(bytes: &[u8]) -> Result<((u32, u16), usize), lopdf::Error> {
    let raw = lopdf::Document::load_mem(bytes)?;
    let mut best = ((0, 0), 0);
    for (id, object) in &raw.objects {
        if let lopdf::Object::Stream(s) = object
            && s.dict.get(b"Type").and_then(|t| t.as_name()).ok() == Some(b"ObjStm".as_slice())
            && let Ok(content) = s.decompressed_content_with_limit(1 << 30)
            && content.len() > best.1
        {
            best = (*id, content.len());
        }
    }
    Ok(best)
}
