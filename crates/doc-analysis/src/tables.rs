//! Tables of a page: from ruling lines (a lattice: rows and columns are the gaps between
//! rulings; a missing ruling inside the grid merges cells, across columns or rows), and from
//! the alignment of text in columns (no rulings: columns are the x-ranges shared by the rows,
//! and text crossing a column boundary spans those columns; vertical merges are never guessed).
//! Plain paragraphs give no table: at least two columns and three aligned rows are needed.

use doc_model::{
    Cell, Confidence, Method, Page, PageBox, PageMethod, Ruling, Table, TableMethod, Word,
};

use crate::segments::words_box;

mod stream;
mod turn;

/// Rulings closer than this (points or pixels) are the same line; ends this close touch.
const SNAP: f64 = 2.0;
/// Most rulings of one page looked at for lattice tables: grouping them is quadratic, so a page
/// with more (a hostile page of 20,000 hairlines; real pages of the test corpora have at most
/// 1,764) gets alignment tables only.
pub const MAX_TABLE_RULINGS: usize = 5_000;
/// Most base cells of one lattice; a larger grid (each cell checks the grid's rulings) is no
/// table this finder reports.
pub const MAX_GRID_CELLS: usize = 20_000;

/// Every table of the page, top to bottom: lattice tables first found from rulings, then
/// alignment tables from the text outside them. A page whose text is mostly turned a quarter
/// (a landscape table set on a portrait page) is read in the frame of its text, so rows and
/// columns come out upright; the boxes stay in the page's frame.
pub fn find_tables(page: &Page) -> Vec<Table> {
    if let Some(turn) = turn::page_turn(page) {
        let upright = turn.upright_page(page);
        let upright = turn::without_turned_lines(&upright).unwrap_or(upright);
        return find_upright_tables(&upright)
            .into_iter()
            .map(|table| turn.table_back(page, table))
            .collect();
    }
    // Turned lines (a vertical margin note) belong to no upright table.
    match turn::without_turned_lines(page) {
        Some(upright) => find_upright_tables(&upright),
        None => find_upright_tables(page),
    }
}

fn find_upright_tables(page: &Page) -> Vec<Table> {
    let source = match page.method {
        PageMethod::TextLayer => Method::TextLayer,
        PageMethod::Ocr => Method::Ocr,
    };
    let words: Vec<&Word> = page.lines.iter().flat_map(|l| &l.words).collect();
    let grids = if page.rulings.len() > MAX_TABLE_RULINGS {
        tracing::warn!(
            page = page.page,
            rulings = page.rulings.len(),
            "too many rulings for lattice tables; alignment tables only"
        );
        Vec::new()
    } else {
        lattice_grids(&page.rulings)
    };
    let mut tables: Vec<Table> = grids
        .into_iter()
        .filter_map(|grid| lattice_table(page.page, source, &grid, &words))
        .collect();
    let taken: Vec<PageBox> = tables.iter().map(|t| t.bbox).collect();
    tables.extend(stream::alignment_tables(page, source, &taken));
    tables.sort_by(|a, b| a.bbox.y.total_cmp(&b.bbox.y));
    tables
}

/// A lattice: sorted row and column boundaries and the rulings that drew them.
struct Grid {
    ys: Vec<f64>,
    xs: Vec<f64>,
    horizontal: Vec<Ruling>,
    vertical: Vec<Ruling>,
}

fn lattice_grids(rulings: &[Ruling]) -> Vec<Grid> {
    let horizontal: Vec<Ruling> = rulings
        .iter()
        .copied()
        .filter(|r| r.is_horizontal(1.0))
        .collect();
    let vertical: Vec<Ruling> = rulings
        .iter()
        .copied()
        .filter(|r| r.is_vertical(1.0))
        .collect();
    // Connected groups: a horizontal and a vertical ruling that cross or touch belong together.
    let all: Vec<(bool, Ruling)> = horizontal
        .iter()
        .map(|r| (true, *r))
        .chain(vertical.iter().map(|r| (false, *r)))
        .collect();
    let mut parent: Vec<usize> = (0..all.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for i in 0..all.len() {
        for j in i + 1..all.len() {
            let (a, b) = (&all[i], &all[j]);
            let touch = match (a.0, b.0) {
                (true, false) => crosses(&a.1, &b.1),
                (false, true) => crosses(&b.1, &a.1),
                // Collinear pieces of one line (a ruling drawn per cell).
                (true, true) => {
                    (a.1.y0 - b.1.y0).abs() <= SNAP
                        && a.1.x0 <= b.1.x1 + SNAP
                        && b.1.x0 <= a.1.x1 + SNAP
                }
                (false, false) => {
                    (a.1.x0 - b.1.x0).abs() <= SNAP
                        && a.1.y0 <= b.1.y1 + SNAP
                        && b.1.y0 <= a.1.y1 + SNAP
                }
            };
            if touch {
                let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                parent[ri] = rj;
            }
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<(bool, Ruling)>> = Default::default();
    for (i, ruling) in all.iter().enumerate() {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(*ruling);
    }
    groups
        .into_values()
        .filter_map(|group| {
            let horizontal: Vec<Ruling> = group.iter().filter(|g| g.0).map(|g| g.1).collect();
            let vertical: Vec<Ruling> = group.iter().filter(|g| !g.0).map(|g| g.1).collect();
            let ys = distinct(horizontal.iter().map(|r| r.y0));
            let xs = distinct(vertical.iter().map(|r| r.x0));
            // A boundary must close at least one base cell: an underline or a short stroke
            // inside a cell that touches the grid is no row or column boundary.
            let ys = closing(&horizontal, true, ys, &xs);
            let xs = closing(&vertical, false, xs, &ys);
            let cells = (ys.len().saturating_sub(1)).saturating_mul(xs.len().saturating_sub(1));
            let shaped = ys.len() >= 2 && xs.len() >= 3 || ys.len() >= 3 && xs.len() >= 2;
            (shaped && cells <= MAX_GRID_CELLS).then_some(Grid {
                ys,
                xs,
                horizontal,
                vertical,
            })
        })
        .collect()
}

fn crosses(h: &Ruling, v: &Ruling) -> bool {
    v.x0 >= h.x0 - SNAP && v.x0 <= h.x1 + SNAP && h.y0 >= v.y0 - SNAP && h.y0 <= v.y1 + SNAP
}

/// Sorted values with near-duplicates merged.
fn distinct(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let mut out: Vec<f64> = Vec::new();
    for x in v {
        if out.last().is_none_or(|last| x - last > SNAP) {
            out.push(x);
        }
    }
    out
}

/// The boundaries (at `at`) drawn along at least one base cell between two `across` boundaries.
fn closing(rulings: &[Ruling], horizontal: bool, at: Vec<f64>, across: &[f64]) -> Vec<f64> {
    at.into_iter()
        .filter(|&pos| {
            across
                .windows(2)
                .any(|w| drawn(rulings, horizontal, pos, w[0], w[1]))
        })
        .collect()
}

/// Whether rulings draw the segment from `from` to `to` along `at` (at least 60 % of it).
fn drawn(rulings: &[Ruling], horizontal: bool, at: f64, from: f64, to: f64) -> bool {
    let mut covered = 0.0;
    for r in rulings {
        let (pos, start, end) = if horizontal {
            (r.y0, r.x0, r.x1)
        } else {
            (r.x0, r.y0, r.y1)
        };
        if (pos - at).abs() <= SNAP {
            covered += (end.min(to) - start.max(from)).max(0.0);
        }
    }
    covered >= 0.6 * (to - from)
}

fn lattice_table(page: u32, source: Method, grid: &Grid, words: &[&Word]) -> Option<Table> {
    let rows = grid.ys.len() - 1;
    let cols = grid.xs.len() - 1;
    // Union-find over base cells: a missing inner ruling merges neighbours.
    let mut owner: Vec<usize> = (0..rows * cols).collect();
    fn find(owner: &mut [usize], mut i: usize) -> usize {
        while owner[i] != i {
            owner[i] = owner[owner[i]];
            i = owner[i];
        }
        i
    }
    for r in 0..rows {
        for c in 0..cols {
            let (y0, y1) = (grid.ys[r], grid.ys[r + 1]);
            let (x0, x1) = (grid.xs[c], grid.xs[c + 1]);
            if c + 1 < cols && !drawn(&grid.vertical, false, x1, y0, y1) {
                let (a, b) = (
                    find(&mut owner, r * cols + c),
                    find(&mut owner, r * cols + c + 1),
                );
                owner[a] = b;
            }
            if r + 1 < rows && !drawn(&grid.horizontal, true, y1, x0, x1) {
                let (a, b) = (
                    find(&mut owner, r * cols + c),
                    find(&mut owner, (r + 1) * cols + c),
                );
                owner[a] = b;
            }
        }
    }
    // Each merged group becomes the rectangle spanning its base cells.
    let mut spans: std::collections::BTreeMap<usize, (usize, usize, usize, usize)> =
        Default::default();
    for r in 0..rows {
        for c in 0..cols {
            let g = find(&mut owner, r * cols + c);
            let e = spans.entry(g).or_insert((r, c, r, c));
            e.0 = e.0.min(r);
            e.1 = e.1.min(c);
            e.2 = e.2.max(r);
            e.3 = e.3.max(c);
        }
    }
    let mut covered = vec![false; rows * cols];
    let mut cells = Vec::new();
    let mut spans: Vec<_> = spans.into_values().collect();
    spans.sort();
    for (r0, c0, r1, c1) in spans {
        if covered[r0 * cols + c0] {
            continue;
        }
        for r in r0..=r1 {
            for c in c0..=c1 {
                covered[r * cols + c] = true;
            }
        }
        let bbox = PageBox::from_edges(
            page,
            grid.xs[c0],
            grid.ys[r0],
            grid.xs[c1 + 1],
            grid.ys[r1 + 1],
        );
        let inside: Vec<&Word> = words
            .iter()
            .copied()
            .filter(|w| bbox.contains_center_of(&w.bbox))
            .collect();
        cells.push(cell(
            r0 as u32,
            c0 as u32,
            (r1 - r0 + 1) as u32,
            (c1 - c0 + 1) as u32,
            bbox,
            &inside,
        ));
    }
    // A frame around one block of text, or decorative lines around a mostly empty grid, is
    // not a table.
    let filled = cells.iter().filter(|c| !c.text.is_empty()).count();
    let frame_like = cells.iter().any(|c| {
        2 * c.row_span as usize > rows && 2 * c.col_span as usize > cols && rows * cols > 4
    });
    if filled < 2 || cols < 2 || frame_like || (filled as f64) < 0.25 * cells.len() as f64 {
        return None;
    }
    Table::new(
        page,
        TableMethod::Ruling,
        source,
        rows as u32,
        cols as u32,
        cells,
    )
}

/// A cell from its words: lines of text joined by newlines, one box per line.
fn cell(row: u32, col: u32, row_span: u32, col_span: u32, bbox: PageBox, words: &[&Word]) -> Cell {
    let mut sorted: Vec<&Word> = words.to_vec();
    sorted.sort_by(|a, b| a.bbox.center_y().total_cmp(&b.bbox.center_y()));
    let mut lines: Vec<Vec<&Word>> = Vec::new();
    for w in sorted {
        match lines.last_mut() {
            Some(line) if line.iter().any(|o| o.bbox.vertical_overlap(&w.bbox) > 0.5) => {
                line.push(w)
            }
            _ => lines.push(vec![w]),
        }
    }
    for line in &mut lines {
        line.sort_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x));
    }
    let text = lines
        .iter()
        .map(|l| {
            l.iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n");
    let line_boxes = lines.iter().filter_map(|l| words_box(l)).collect();
    let confidence =
        Confidence::mean(words.iter().map(|w| w.confidence)).unwrap_or(Confidence::NONE);
    Cell {
        row,
        col,
        row_span,
        col_span,
        merged: row_span > 1 || col_span > 1,
        text,
        bbox,
        line_boxes,
        confidence,
    }
}

/// The table with each cell's text read again from another reading of the same page (OCR of a
/// page whose text layer decodes to junk inside the table): every cell takes the words of
/// `page` whose centre lies in its box. Grid, spans and boxes are kept; the source becomes
/// `page`'s method. `None` when the table has no cells.
pub fn reread_cells(table: &Table, page: &Page) -> Option<Table> {
    let source = match page.method {
        PageMethod::TextLayer => Method::TextLayer,
        PageMethod::Ocr => Method::Ocr,
    };
    let words: Vec<&Word> = page.lines.iter().flat_map(|l| &l.words).collect();
    let cells = table
        .cells
        .iter()
        .map(|c| {
            let inside: Vec<&Word> = words
                .iter()
                .copied()
                .filter(|w| c.bbox.contains_center_of(&w.bbox))
                .collect();
            cell(c.row, c.col, c.row_span, c.col_span, c.bbox, &inside)
        })
        .collect();
    Table::new(
        table.page,
        table.method,
        source,
        table.rows,
        table.cols,
        cells,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segments::test_pages::page;

    fn grid_rulings(xs: &[f64], ys: &[f64]) -> Vec<Ruling> {
        let mut out = Vec::new();
        for y in ys {
            out.push(Ruling::new(xs[0], *y, xs[xs.len() - 1], *y));
        }
        for x in xs {
            out.push(Ruling::new(*x, ys[0], *x, ys[ys.len() - 1]));
        }
        out
    }

    #[test]
    fn lattice_with_merged_header_cell() {
        let xs = [50.0, 150.0, 250.0, 350.0];
        let ys = [100.0, 120.0, 140.0, 160.0];
        let mut rulings = grid_rulings(&xs, &ys);
        // The header row has no ruling between columns 1 and 2: "Preis" spans both.
        rulings.retain(|r| !(r.x0 == 250.0 && r.y0 == 100.0));
        rulings.push(Ruling::new(250.0, 120.0, 250.0, 160.0));
        let p = page(
            &[
                ("Artikel", 55.0, 105.0),
                ("Preis", 180.0, 105.0),
                ("Tee", 55.0, 125.0),
                ("3,50", 155.0, 125.0),
                ("EUR", 255.0, 125.0),
                ("Kaffee", 55.0, 145.0),
                ("4,20", 155.0, 145.0),
                ("EUR", 255.0, 145.0),
            ],
            rulings,
            1.0,
        );
        let tables = find_tables(&p);
        assert_eq!(tables.len(), 1);
        let t = &tables[0];
        assert_eq!((t.rows, t.cols, t.method), (3, 3, TableMethod::Ruling));
        let header = t
            .cells
            .iter()
            .find(|c| c.text == "Preis")
            .expect("header cell");
        assert_eq!(
            (header.row, header.col, header.col_span, header.row_span),
            (0, 1, 2, 1)
        );
        assert!(header.merged);
        assert_eq!(t.matrix[2], vec!["Kaffee", "4,20", "EUR"]);
        assert_eq!(header.line_boxes.len(), 1);
        assert_eq!(t.confidence.value(), 1.0);
    }

    #[test]
    fn lattice_vertical_merge_only_where_rulings_prove_it() {
        let xs = [50.0, 150.0, 250.0];
        let ys = [100.0, 120.0, 140.0, 160.0];
        let mut rulings = grid_rulings(&xs, &ys);
        // No ruling at y=140 under column 0: rows 1 and 2 of column 0 are one cell.
        rulings.retain(|r| !(r.y0 == 140.0 && r.is_horizontal(1.0)));
        rulings.push(Ruling::new(150.0, 140.0, 250.0, 140.0));
        let p = page(
            &[
                ("Gruppe", 55.0, 105.0),
                ("Wert", 155.0, 105.0),
                ("A", 55.0, 135.0),
                ("1", 155.0, 125.0),
                ("2", 155.0, 145.0),
            ],
            rulings,
            1.0,
        );
        let t = &find_tables(&p)[0];
        let a = t.cells.iter().find(|c| c.text == "A").expect("merged cell");
        assert_eq!((a.row, a.row_span), (1, 2));
        assert_eq!(t.matrix[2][0], "");
    }

    #[test]
    fn alignment_table_from_columns_with_spanning_text_and_ocr_confidence() {
        let p = page(
            &[
                ("Pos", 50.0, 100.0),
                ("Beschreibung", 120.0, 100.0),
                ("Menge", 300.0, 100.0),
                ("Betrag", 400.0, 100.0),
                ("1", 50.0, 115.0),
                ("Trennblätter A4", 120.0, 115.0),
                ("20", 300.0, 115.0),
                ("198,00", 400.0, 115.0),
                ("2", 50.0, 130.0),
                ("Joghurt Banane", 120.0, 130.0),
                ("50", 300.0, 130.0),
                ("275,00", 400.0, 130.0),
                (
                    "Summe netto über alle Positionen der Rechnung",
                    120.0,
                    145.0,
                ),
                ("473,00", 400.0, 145.0),
            ],
            Vec::new(),
            0.9,
        );
        let tables = find_tables(&p);
        assert_eq!(tables.len(), 1);
        let t = &tables[0];
        assert_eq!(
            (t.rows, t.cols, t.method, t.source),
            (4, 4, TableMethod::Alignment, Method::Ocr)
        );
        assert_eq!(t.matrix[1], vec!["1", "Trennblätter A4", "20", "198,00"]);
        let span = t
            .cells
            .iter()
            .find(|c| c.text.starts_with("Summe"))
            .expect("spanning cell");
        assert_eq!((span.col, span.col_span), (1, 2));
        assert!((t.confidence.value() - 0.9).abs() < 1e-9);
        assert!(
            t.markdown
                .starts_with("| Pos | Beschreibung | Menge | Betrag |")
        );
    }

    #[test]
    fn paragraphs_and_key_value_lists_are_no_tables() {
        let p = page(
            &[
                (
                    "Sehr geehrte Damen und Herren, wir danken Ihnen für",
                    50.0,
                    100.0,
                ),
                (
                    "Ihren Auftrag und erlauben uns, Ihnen folgende",
                    50.0,
                    112.0,
                ),
                (
                    "Leistungen in Rechnung zu stellen. Mit freundlichen",
                    50.0,
                    124.0,
                ),
                ("Grüßen aus München.", 50.0, 136.0),
                ("Rechnungsnummer:", 50.0, 200.0),
                ("471102", 300.0, 200.0),
                ("Kundennummer:", 50.0, 212.0),
                ("GE2020211", 300.0, 212.0),
                ("Datum:", 50.0, 224.0),
                ("05.03.2018", 300.0, 224.0),
            ],
            Vec::new(),
            1.0,
        );
        assert!(find_tables(&p).is_empty());
        // A single framed box is not a table either.
        let framed = page(
            &[("Hinweis: bitte zahlen", 60.0, 105.0)],
            grid_rulings(&[50.0, 300.0], &[100.0, 120.0]),
            1.0,
        );
        assert!(find_tables(&framed).is_empty());
    }

    #[test]
    fn reread_cells_takes_the_words_of_another_reading_inside_each_cell() {
        let xs = [50.0, 150.0, 250.0];
        let ys = [100.0, 120.0, 140.0, 160.0];
        let garbled = page(
            &[
                ("Vwdwh", 55.0, 105.0),
                ("Q", 155.0, 105.0),
                ("Yhudod", 55.0, 125.0),
                ("DE..", 155.0, 125.0),
                ("Wdplo", 55.0, 145.0),
                ("DE..", 155.0, 145.0),
            ],
            grid_rulings(&xs, &ys),
            1.0,
        );
        let table = &find_tables(&garbled)[0];
        let ocr = page(
            &[
                ("State", 55.0, 105.0),
                ("n", 155.0, 105.0),
                ("Kerala", 55.0, 125.0),
                ("2400", 155.0, 125.0),
                ("Tamil Nadu", 55.0, 145.0),
                ("2400", 155.0, 145.0),
            ],
            Vec::new(),
            0.8,
        );
        let read = reread_cells(table, &ocr).expect("cells");
        assert_eq!(read.source, Method::Ocr);
        assert_eq!(read.matrix[1], vec!["Kerala", "2400"]);
        assert_eq!(read.matrix[2], vec!["Tamil Nadu", "2400"]);
        assert_eq!(
            (read.rows, read.cols, read.bbox),
            (table.rows, table.cols, table.bbox)
        );
    }

    #[test]
    fn an_underline_touching_the_grid_is_no_row_boundary() {
        let xs = [50.0, 150.0, 250.0];
        let ys = [100.0, 120.0, 140.0, 160.0];
        let mut rulings = grid_rulings(&xs, &ys);
        // A link's underline in the last cell of row 1, from its left border, a third across.
        rulings.push(Ruling::new(150.0, 133.0, 183.0, 133.0));
        let p = page(
            &[
                ("Name", 55.0, 105.0),
                ("Mail", 155.0, 105.0),
                ("Ada", 55.0, 125.0),
                ("a@b.org", 155.0, 122.0),
                ("Bob", 55.0, 145.0),
                ("b@b.org", 155.0, 145.0),
            ],
            rulings,
            1.0,
        );
        let t = &find_tables(&p)[0];
        assert_eq!((t.rows, t.cols), (3, 2));
        assert_eq!(t.matrix[1], vec!["Ada", "a@b.org"]);
    }
}
