//! Scratch: print what read_codes finds on one image.
use ocr_core::codes::{CodeOptions, read_codes};
fn main() {
    let path = std::env::args().nth(1).expect("path");
    let retries = std::env::args().nth(2).is_none();
    let image = image::open(&path).expect("open").to_luma8();
    let options = CodeOptions { retries, ..CodeOptions::default() };
    let start = std::time::Instant::now();
    let codes = read_codes(image.as_raw(), image.width(), image.height(), 1, &options).expect("read");
    println!("{} ms", start.elapsed().as_millis());
    for c in codes {
        println!("{:?} {:?} box=({:.0},{:.0},{:.0},{:.0}) quad={:?}", c.symbology, &c.text.chars().take(25).collect::<String>(), c.bbox.x, c.bbox.y, c.bbox.w, c.bbox.h, c.quad.iter().map(|p| (p.x as i64, p.y as i64)).collect::<Vec<_>>());
    }
}
