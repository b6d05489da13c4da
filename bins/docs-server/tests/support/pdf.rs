//! PDFs built in the tests: blank pages, and the hostile files of issue 13, each a few lines of
//! objects (generated here, never committed).

/// A PDF of `objects` (object `i + 1` is `objects[i]`, catalog first), offsets computed so every
/// reader accepts it.
pub fn pdf_from_objects(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut pdf = b"%PDF-1.5\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        pdf.extend_from_slice(object);
        pdf.extend_from_slice(b"\nendobj\n");
    }
    let xref = pdf.len();
    pdf.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        pdf.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    pdf.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    pdf
}

fn text(object: &str) -> Vec<u8> {
    object.as_bytes().to_vec()
}

/// A stream object with `dictionary` entries (without `/Length`) and raw `data`.
fn stream(dictionary: &str, data: &[u8]) -> Vec<u8> {
    let mut object = format!("<< {dictionary} /Length {} >>\nstream\n", data.len()).into_bytes();
    object.extend_from_slice(data);
    object.extend_from_slice(b"\nendstream");
    object
}

/// A PDF of `pages` empty pages (all sharing one empty content stream).
pub fn blank_pdf_pages(pages: usize) -> Vec<u8> {
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", i + 4)).collect();
    let mut objects = vec![
        text("<< /Type /Catalog /Pages 2 0 R >>"),
        text(&format!(
            "<< /Type /Pages /Kids [{}] /Count {pages} >>",
            kids.join(" ")
        )),
        stream("", b""),
    ];
    for _ in 0..pages {
        objects.push(text(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << >> /Contents 3 0 R >>",
        ));
    }
    pdf_from_objects(&objects)
}

/// A one-page PDF with nothing on its page.
pub fn blank_pdf() -> Vec<u8> {
    blank_pdf_pages(1)
}

/// One page (object 3) with `resources` and content object 4 = `content`; `extra` objects
/// follow from number 5.
fn one_page(media_box: &str, resources: &str, content: Vec<u8>, extra: Vec<Vec<u8>>) -> Vec<u8> {
    let mut objects = vec![
        text("<< /Type /Catalog /Pages 2 0 R >>"),
        text("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
        text(&format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [{media_box}] /Resources << {resources} >> /Contents 4 0 R >>"
        )),
        content,
    ];
    objects.extend(extra);
    pdf_from_objects(&objects)
}

const FONT: &str = "/Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >>";

/// A page that draws a form (object 5) that draws itself: parsers that follow `Do` without a
/// depth or loop check recurse until the stack overflows.
pub fn self_drawing_form() -> Vec<u8> {
    one_page(
        "0 0 595 842",
        &format!("{FONT} /XObject << /X 5 0 R >>"),
        stream("", b"BT /F1 12 Tf 72 720 Td (Invoice) Tj ET /X Do"),
        vec![stream(
            "/Type /XObject /Subtype /Form /BBox [0 0 595 842] /Resources << /XObject << /X 5 0 R >> >>",
            b"/X Do",
        )],
    )
}

/// Forms A -> B -> C -> D, each drawing the next `calls` times, D empty: no glyph is ever drawn,
/// so a glyph limit never trips, while the work is `calls`³ form invocations.
pub fn form_fan_out(calls: usize) -> Vec<u8> {
    let forms = ["A", "B", "C", "D"];
    let mut extra = Vec::new();
    for (i, _) in forms.iter().enumerate() {
        let (resources, body) = match forms.get(i + 1) {
            Some(next) => (
                format!("/XObject << /{next} {} 0 R >>", 6 + i),
                format!("/{next} Do\n").repeat(calls),
            ),
            None => (String::new(), String::new()),
        };
        extra.push(stream(
            &format!(
                "/Type /XObject /Subtype /Form /BBox [0 0 595 842] /Resources << {resources} >>"
            ),
            body.as_bytes(),
        ));
    }
    one_page(
        "0 0 595 842",
        &format!("{FONT} /XObject << /A 5 0 R >>"),
        stream("", b"BT /F1 12 Tf 72 720 Td (Report) Tj ET /A Do"),
        extra,
    )
}

/// A page whose FlateDecode content inflates to `inflated` bytes: a few plausible characters,
/// then spaces.
pub fn inflating_page(inflated: u64) -> Vec<u8> {
    let prefix = b"BT /F1 12 Tf 72 720 Td (Total 12,00 EUR) Tj ET\n";
    one_page(
        "0 0 595 842",
        FONT,
        stream(
            "/Filter /FlateDecode",
            &zlib_repeat(prefix, b" ", inflated - prefix.len() as u64),
        ),
        Vec::new(),
    )
}

/// An object stream declaring `count` objects whose header inflates to `"0 "` repeated: one
/// small stream, millions of objects for a parser that believes it.
pub fn object_stream_bomb(count: u64) -> Vec<u8> {
    let mut objects = vec![
        text("<< /Type /Catalog /Pages 2 0 R >>"),
        text("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
        text(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << >> /Contents 4 0 R >>",
        ),
        stream("", b""),
    ];
    let header_bytes = count * 4;
    objects.push(stream(
        &format!("/Type /ObjStm /N {count} /First {header_bytes} /Filter /FlateDecode"),
        &zlib_repeat(b"", b"0 ", header_bytes + 2),
    ));
    pdf_from_objects(&objects)
}

/// A text page of `width` × `height` points.
pub fn sized_page(width: u32, height: u32) -> Vec<u8> {
    one_page(
        &format!("0 0 {width} {height}"),
        FONT,
        stream("", b"BT /F1 12 Tf 72 72 Td (Hello) Tj ET"),
        Vec::new(),
    )
}

/// A page `depth` levels down a page tree whose root alone has a `root_box` MediaBox: readers
/// that stop inheriting early and readers that follow any depth see different page sizes.
pub fn deep_page_tree(depth: usize, root_box: &str) -> Vec<u8> {
    // 1 catalog, 2 root Pages, 3..3+depth-1 nested Pages, then the page, then its content.
    let page = 3 + depth - 1;
    let mut objects = vec![
        text("<< /Type /Catalog /Pages 2 0 R >>"),
        text(&format!(
            "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [{root_box}] >>"
        )),
    ];
    for level in 0..depth - 1 {
        let number = 3 + level;
        objects.push(text(&format!(
            "<< /Type /Pages /Parent {} 0 R /Kids [{} 0 R] /Count 1 >>",
            number - 1,
            number + 1
        )));
    }
    objects.push(text(&format!(
        "<< /Type /Page /Parent {} 0 R /Resources << {FONT} >> /Contents {} 0 R >>",
        page - 1,
        page + 1
    )));
    objects.push(stream("", b"BT /F1 12 Tf 72 72 Td (Deep) Tj ET"));
    pdf_from_objects(&objects)
}

/// A text page crossed by `count` stroked rulings (a table finder quadratic in rulings would
/// take hours).
pub fn ruled_page(count: usize) -> Vec<u8> {
    let mut content = String::from("BT /F1 10 Tf 40 800 Td (Amount 12,00) Tj ET\n0.1 w\n");
    for i in 0..count {
        let offset = 20.0 + (i as f64) * 800.0 / count as f64;
        if i % 2 == 0 {
            content.push_str(&format!("20 {offset:.3} m 575 {offset:.3} l S\n"));
        } else {
            content.push_str(&format!(
                "{:.3} 20 m {:.3} 820 l S\n",
                offset * 0.69,
                offset * 0.69
            ));
        }
    }
    one_page(
        "0 0 595 842",
        FONT,
        stream("", content.as_bytes()),
        Vec::new(),
    )
}

/// A zlib stream of `prefix` then `fill` repeated for `fill_bytes` bytes, written directly as
/// fixed-Huffman deflate (one literal run, then copies of 258 bytes at distance `fill.len()`),
/// so a stream that inflates to gigabytes is built in a fraction of a second. Compression is at
/// deflate's limit (about 1:1032).
pub fn zlib_repeat(prefix: &[u8], fill: &[u8], fill_bytes: u64) -> Vec<u8> {
    assert!((1..=258).contains(&fill.len()) && fill_bytes >= fill.len() as u64);
    let mut bits = BitWriter::default();
    bits.push_lsb(1, 1); // BFINAL
    bits.push_lsb(1, 2); // BTYPE = fixed Huffman
    for &byte in prefix.iter().chain(fill) {
        bits.literal(byte);
    }
    let mut left = fill_bytes - fill.len() as u64;
    while left >= 258 + 3 || left == 258 {
        bits.copy(258, fill.len());
        left -= 258;
    }
    if left >= 3 {
        bits.copy(left as usize, fill.len());
        left = 0;
    }
    // Fewer than three bytes left: as literals, continuing the pattern.
    let written = fill_bytes - left;
    for i in 0..left {
        bits.literal(fill[((written + i) % fill.len() as u64) as usize]);
    }
    bits.push_msb(0, 7); // end of block (256)
    let mut zlib = vec![0x78, 0x01];
    zlib.extend(bits.finish());
    zlib.extend_from_slice(&adler32_of_repeat(prefix, fill, fill_bytes).to_be_bytes());
    zlib
}

#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    current: u32,
    used: u32,
}

impl BitWriter {
    /// `count` bits of `value`, least significant first (header fields, extra bits).
    fn push_lsb(&mut self, value: u32, count: u32) {
        for i in 0..count {
            self.bit((value >> i) & 1);
        }
    }

    /// `count` bits of `value`, most significant first (Huffman codes).
    fn push_msb(&mut self, value: u32, count: u32) {
        for i in (0..count).rev() {
            self.bit((value >> i) & 1);
        }
    }

    fn bit(&mut self, bit: u32) {
        self.current |= bit << self.used;
        self.used += 1;
        if self.used == 8 {
            self.bytes.push(self.current as u8);
            self.current = 0;
            self.used = 0;
        }
    }

    fn literal(&mut self, byte: u8) {
        if byte < 144 {
            self.push_msb(0x30 + u32::from(byte), 8);
        } else {
            self.push_msb(0x190 + u32::from(byte) - 144, 9);
        }
    }

    /// A copy of `length` (3..=258) bytes from `distance` (1..=4) back.
    fn copy(&mut self, length: usize, distance: usize) {
        // RFC 1951 §3.2.5: length codes 257..285 with extra bits.
        const BASES: [(u32, u32, u32); 29] = [
            (257, 3, 0),
            (258, 4, 0),
            (259, 5, 0),
            (260, 6, 0),
            (261, 7, 0),
            (262, 8, 0),
            (263, 9, 0),
            (264, 10, 0),
            (265, 11, 1),
            (266, 13, 1),
            (267, 15, 1),
            (268, 17, 1),
            (269, 19, 2),
            (270, 23, 2),
            (271, 27, 2),
            (272, 31, 2),
            (273, 35, 3),
            (274, 43, 3),
            (275, 51, 3),
            (276, 59, 3),
            (277, 67, 4),
            (278, 83, 4),
            (279, 99, 4),
            (280, 115, 4),
            (281, 131, 5),
            (282, 163, 5),
            (283, 195, 5),
            (284, 227, 5),
            (285, 258, 0),
        ];
        let length = length as u32;
        let &(code, base, extra) = BASES
            .iter()
            .rev()
            .find(|(_, base, _)| *base <= length)
            .expect("a length code");
        if code < 280 {
            self.push_msb(code - 256, 7);
        } else {
            self.push_msb(0xC0 + code - 280, 8);
        }
        self.push_lsb(length - base, extra);
        // Distances 1..=4 are codes 0..=3 without extra bits, 5 bits each.
        assert!((1..=4).contains(&distance), "short distances only");
        self.push_msb(distance as u32 - 1, 5);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.used > 0 {
            self.bytes.push(self.current as u8);
        }
        self.bytes
    }
}

/// Adler-32 of `prefix` followed by `fill` repeated over `fill_bytes` bytes, computed a 64 KiB
/// block at a time so gigabytes take milliseconds.
fn adler32_of_repeat(prefix: &[u8], fill: &[u8], fill_bytes: u64) -> u32 {
    const MOD: u64 = 65_521;
    let (mut a, mut b) = (1u64, 0u64);
    let feed = |bytes: &[u8], a: &mut u64, b: &mut u64| {
        for &byte in bytes {
            *a = (*a + u64::from(byte)) % MOD;
            *b = (*b + *a) % MOD;
        }
    };
    feed(prefix, &mut a, &mut b);
    let block: Vec<u8> = fill
        .iter()
        .copied()
        .cycle()
        .take(fill.len() * 16_384)
        .collect();
    let block_len = block.len() as u64;
    // One block moves (a, b) to (a + S, b + L·a + W), with S the byte sum and W the sum of
    // each byte times the number of positions from it to the block's end.
    let sum: u64 = block.iter().map(|&x| u64::from(x)).sum::<u64>() % MOD;
    let weighted: u64 = block
        .iter()
        .enumerate()
        .map(|(i, &x)| u64::from(x) * (block_len - i as u64) % MOD)
        .sum::<u64>()
        % MOD;
    let mut left = fill_bytes;
    while left >= block_len {
        b = (b + (block_len % MOD) * a + weighted) % MOD;
        a = (a + sum) % MOD;
        left -= block_len;
    }
    feed(&block[..left as usize], &mut a, &mut b);
    ((b << 16) | a) as u32
}

/// An A4 page without a text layer: a grey picture (`width` × `height`, 8 bits, Flate) drawn
/// over the whole page, as a scanner writes one.
pub fn picture_page(grey: &[u8], width: u32, height: u32) -> Vec<u8> {
    use std::io::Write as _;
    let mut deflated = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    deflated.write_all(grey).expect("deflate in memory");
    let data = deflated.finish().expect("deflate in memory");
    one_page(
        "0 0 595 842",
        "/XObject << /Im 5 0 R >>",
        stream("", b"q 595 0 0 842 0 0 cm /Im Do Q"),
        vec![stream(
            &format!(
                "/Type /XObject /Subtype /Image /Width {width} /Height {height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode"
            ),
            &data,
        )],
    )
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    use super::*;

    #[test]
    fn the_handmade_deflate_inflates_to_what_it_promises() {
        for (prefix, fill, bytes) in [
            (&b"BT ET\n"[..], &b" "[..], 100_000u64),
            (b"", b"0 ", 70_001),
            (b"x", b"ab", 3),
            (b"", b" ", 259),
        ] {
            let zlib = zlib_repeat(prefix, fill, bytes);
            let mut out = Vec::new();
            flate2::read::ZlibDecoder::new(zlib.as_slice())
                .read_to_end(&mut out)
                .expect("valid zlib, checksum included");
            let mut expected = prefix.to_vec();
            expected.extend(fill.iter().copied().cycle().take(bytes as usize));
            assert_eq!(out, expected);
        }
    }
}
