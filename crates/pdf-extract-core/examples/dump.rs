//! Prints what the extractor reads from PDFs: per page the text-layer verdict, the lines in
//! reading order with their boxes, and the rulings (a debugging aid).
//!
//! `cargo run -p pdf-extract-core --example dump -- FILE.pdf [PAGES]`

use pdf_extract_core::{Limits, PdfDocument, RenderOptions};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: dump FILE.pdf [PAGES]");
        std::process::exit(2);
    };
    let selector = args.next();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let doc = match PdfDocument::load(&bytes, &Limits::DOCUMENT) {
        Ok(d) => d,
        Err(e) => {
            println!("{path}: {e}");
            return;
        }
    };
    let pages = match doc.select_pages(selector.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            println!("{path}: {e}");
            return;
        }
    };
    println!("{path}: {} pages", doc.page_count());
    for page in pages {
        println!(
            "--- page {page}: text layer {:?}, render dpi {:?}",
            doc.has_text_layer(page),
            doc.render_dpi(page, &RenderOptions::OCR)
        );
        match doc.extract_page(page) {
            Ok(p) => {
                println!(
                    "size {} x {}, rotation {}, columns {}, {} rulings",
                    p.width,
                    p.height,
                    p.rotation,
                    p.columns,
                    p.rulings.len()
                );
                for l in &p.lines {
                    println!(
                        "{:>3} c{} [{:>7.2} {:>7.2} {:>7.2} {:>6.2}] {:?} {}",
                        l.order,
                        l.column,
                        l.bbox.x,
                        l.bbox.y,
                        l.bbox.w,
                        l.bbox.h,
                        l.font_size,
                        l.text
                    );
                }
                for r in &p.rulings {
                    println!("rule ({}, {}) - ({}, {})", r.x0, r.y0, r.x1, r.y1);
                }
            }
            Err(e) => println!("{e}"),
        }
    }
}
