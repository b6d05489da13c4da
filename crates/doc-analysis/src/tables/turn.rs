//! Tables printed turned a quarter: the page is read in the frame of its turned text, the
//! tables are found there (so rows and columns come out upright), and every box is mapped back
//! into the page's own frame.
//!
//! Words carry no direction, so the turn is read from their geometry: a line of several words
//! that progress down the page reads a quarter turn clockwise, one that progresses up the page
//! a quarter turn anticlockwise; a word of several characters taller than wide is turned.

use doc_model::{Line, Page, PageBox, Ruling, Table, Word};

/// A quarter turn of the page's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Turn {
    /// Text reads top to bottom (turned a quarter clockwise).
    Clockwise,
    /// Text reads bottom to top (turned a quarter anticlockwise).
    Anticlockwise,
}

/// The page's turn when most of its text (by characters) is turned; `None` for upright pages.
pub(crate) fn page_turn(page: &Page) -> Option<Turn> {
    let (mut upright, mut turned) = (0usize, 0usize);
    let (mut down, mut up) = (0usize, 0usize);
    for line in &page.lines {
        for w in &line.words {
            let chars = w.text.chars().count();
            if chars < 2 {
                continue;
            }
            if w.bbox.h > 1.5 * w.bbox.w {
                turned += chars;
            } else if w.bbox.w > w.bbox.h {
                upright += chars;
            }
        }
        // Successive words of one line: their progression gives the direction.
        for pair in line.words.windows(2) {
            let (a, b) = (&pair[0].bbox, &pair[1].bbox);
            let (dx, dy) = (b.center_x() - a.center_x(), b.center_y() - a.center_y());
            if dy.abs() > 2.0 * dx.abs() {
                if dy > 0.0 {
                    down += 1;
                } else {
                    up += 1;
                }
            }
        }
    }
    if turned <= upright || turned < 20 {
        return None;
    }
    // Without a line of several words the direction is unknown: clockwise is the usual way a
    // landscape table is set on a portrait page, but guessing would turn it upside down half
    // the time, so leave the page as it is.
    match down.cmp(&up) {
        std::cmp::Ordering::Greater => Some(Turn::Clockwise),
        std::cmp::Ordering::Less => Some(Turn::Anticlockwise),
        std::cmp::Ordering::Equal => None,
    }
}

/// Whether a line reads across the page's frame (turned a quarter either way): its words
/// progress down or up the page, or most of its words of four characters or more are taller
/// than wide.
fn reads_turned(line: &Line) -> bool {
    let progresses = line.words.windows(2).any(|pair| {
        let (a, b) = (&pair[0].bbox, &pair[1].bbox);
        let (dx, dy) = (b.center_x() - a.center_x(), b.center_y() - a.center_y());
        dy.abs() > 2.0 * dx.abs()
    });
    let (mut tall, mut wide) = (0usize, 0usize);
    // Four characters at least: an upright word of a few narrow letters ("ill") is taller
    // than wide too.
    for w in line.words.iter().filter(|w| w.text.chars().count() >= 4) {
        if w.bbox.h > 1.5 * w.bbox.w {
            tall += 1;
        } else {
            wide += 1;
        }
    }
    progresses || tall > wide
}

/// The page without its turned lines (a margin note set vertically beside a table), which no
/// upright table holds; `None` when it has none.
pub(crate) fn without_turned_lines(page: &Page) -> Option<Page> {
    if !page.lines.iter().any(reads_turned) {
        return None;
    }
    Some(Page {
        page: page.page,
        width: page.width,
        height: page.height,
        coordinate_frame: page.coordinate_frame,
        method: page.method,
        rotation: page.rotation,
        columns: page.columns,
        lines: page
            .lines
            .iter()
            .filter(|l| !reads_turned(l))
            .cloned()
            .collect(),
        rulings: page.rulings.clone(),
        recogniser: page.recogniser,
    })
}

impl Turn {
    /// A point of the page into the upright frame (width and height of the page as given).
    fn forward(self, page: &Page, x: f64, y: f64) -> (f64, f64) {
        match self {
            Self::Clockwise => (y, page.width - x),
            Self::Anticlockwise => (page.height - y, x),
        }
    }

    /// A point of the upright frame back onto the page.
    fn back(self, page: &Page, a: f64, b: f64) -> (f64, f64) {
        match self {
            Self::Clockwise => (page.width - b, a),
            Self::Anticlockwise => (b, page.height - a),
        }
    }

    fn map_box(self, page: &Page, bbox: &PageBox, forward: bool) -> PageBox {
        let f = |x, y| {
            if forward {
                self.forward(page, x, y)
            } else {
                self.back(page, x, y)
            }
        };
        let (ax, ay) = f(bbox.x, bbox.y);
        let (bx, by) = f(bbox.right(), bbox.bottom());
        PageBox::from_edges(bbox.page, ax, ay, bx, by)
    }

    /// The page as read upright: words, lines and rulings in the turned frame.
    pub(crate) fn upright_page(self, page: &Page) -> Page {
        let lines = page
            .lines
            .iter()
            .filter_map(|line| {
                let words: Vec<Word> = line
                    .words
                    .iter()
                    .map(|w| Word {
                        text: w.text.clone(),
                        bbox: self.map_box(page, &w.bbox, true),
                        confidence: w.confidence,
                    })
                    .collect();
                let mut upright = Line::from_words(words, line.font_size)?;
                upright.order = line.order;
                upright.column = line.column;
                Some(upright)
            })
            .collect();
        let rulings = page
            .rulings
            .iter()
            .map(|r| {
                let (x0, y0) = self.forward(page, r.x0, r.y0);
                let (x1, y1) = self.forward(page, r.x1, r.y1);
                Ruling::new(x0, y0, x1, y1)
            })
            .collect();
        Page {
            page: page.page,
            width: page.height,
            height: page.width,
            coordinate_frame: page.coordinate_frame,
            method: page.method,
            rotation: page.rotation,
            columns: page.columns,
            lines,
            rulings,
            recogniser: page.recogniser,
        }
    }

    /// A table found on the upright page, its boxes mapped back into the page's frame.
    pub(crate) fn table_back(self, page: &Page, mut table: Table) -> Table {
        table.bbox = self.map_box(page, &table.bbox, false);
        for cell in &mut table.cells {
            cell.bbox = self.map_box(page, &cell.bbox, false);
            for line in &mut cell.line_boxes {
                *line = self.map_box(page, line, false);
            }
        }
        table
    }
}
