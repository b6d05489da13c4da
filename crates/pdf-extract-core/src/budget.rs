//! Budgets that refuse a hostile file before the third-party parsers see a page.
//!
//! pdf-extract follows `Do` into forms without a depth or loop check (a form that draws itself
//! overflows the stack), and neither it nor hayro bounds the work of forms calling forms
//! thousands of times, nor the size a content stream inflates to. So before any of them reads a
//! page, `PageBudget::preflight` walks the page with lopdf:
//!
//! - the page's content streams and everything they invoke: Form XObjects (`Do`), tiling
//!   patterns (`scn`/`SCN` with a pattern name), soft-mask groups of graphics states (`gs`),
//!   the glyph procedures of Type 3 fonts (once per shown byte) and the normal appearance
//!   streams of annotations (hayro draws them);
//! - a cycle, or nesting deeper than [`Budgets::max_form_depth`], refuses the page;
//! - the *expanded* operator count (operators of a stream times the times it is invoked,
//!   memoised over the graph, saturating) must stay within [`Budgets::max_page_operators`];
//! - every stream reachable from the page (contents, forms, fonts, images, colour profiles,
//!   functions…) is inflated with a bounded decoder that stops reading at its cap: per stream,
//!   per page for content streams, and per document for everything.
//!
//! The results are cached per page; streams are summarised once per document.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::sync::Mutex;

use lopdf::{Dictionary, Object, ObjectId};

use crate::error::{Budget, PdfError};

/// Work one call may cause, checked before the parsers see a page. The defaults keep every
/// document of the project's test corpora well inside (see the crate README for the figures).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budgets {
    /// Most indirect objects a file may hold once loaded.
    pub max_objects: usize,
    /// Deepest nesting of forms, patterns, soft masks and glyph procedures below the page.
    pub max_form_depth: u32,
    /// Most operators one page may execute, counting a form's operators once per invocation.
    pub max_page_operators: u64,
    /// Most bytes one stream may inflate to (an image: its declared size plus slack, when that
    /// is larger).
    pub max_stream_bytes: u64,
    /// Most bytes the content streams of one page (contents, forms, patterns, glyph
    /// procedures, appearances) may inflate to together.
    pub max_page_content_bytes: u64,
    /// Most bytes the streams of all pages read from one document may inflate to together.
    pub max_document_bytes: u64,
    /// Most pixels of any rendered page, whatever resolution was asked for.
    pub max_render_pixels: u64,
    /// Lowest resolution a render is lowered to in order to stay within the pixel cap; a page
    /// that does not fit even then is refused.
    pub min_render_dpi: f64,
}

impl Budgets {
    /// The budgets of the service.
    pub const DEFAULT: Self = Self {
        max_objects: 500_000,
        max_form_depth: 12,
        max_page_operators: 5_000_000,
        max_stream_bytes: 32 * 1024 * 1024,
        max_page_content_bytes: 64 * 1024 * 1024,
        max_document_bytes: 1024 * 1024 * 1024,
        max_render_pixels: 40_000_000,
        min_render_dpi: 36.0,
    };
}

impl Default for Budgets {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What a page costs to read, as measured by the preflight.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageWork {
    /// Operators the page runs, forms counted once per invocation.
    pub operators: u64,
    /// Bytes its content streams inflate to.
    pub content_bytes: u64,
    /// Deepest nesting of forms, patterns, soft masks and glyph procedures below the page.
    pub nesting: u32,
}

/// The expanded operator count of a stream and how deep invocations nest below it.
#[derive(Debug, Clone, Copy, Default)]
struct Cost {
    operators: u64,
    height: u32,
}

/// What one content stream does, independent of the resources it is run with.
#[derive(Debug, Default)]
struct StreamSummary {
    /// Operators, an inline image counting as one.
    operators: u64,
    /// Bytes of strings shown by text operators (each can run a Type 3 glyph procedure).
    shown_bytes: u64,
    /// Times each XObject name is painted with `Do`.
    xobjects: HashMap<Vec<u8>, u64>,
    /// Times each pattern name is selected with `scn`/`SCN`.
    patterns: HashMap<Vec<u8>, u64>,
    /// Times each graphics state name is set with `gs`.
    states: HashMap<Vec<u8>, u64>,
}

/// Per-document state of the preflight: summaries and inflated sizes of streams already
/// seen, and the document-wide inflate total.
#[derive(Debug, Default)]
pub(crate) struct DocumentBudget {
    inner: Mutex<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    summaries: HashMap<ObjectId, std::sync::Arc<StreamSummary>>,
    /// Streams whose inflated size was already checked and counted.
    sized: HashMap<ObjectId, u64>,
    inflated: u64,
}

/// One page's preflight.
pub(crate) struct PageBudget<'d> {
    doc: &'d lopdf::Document,
    budgets: &'d Budgets,
    shared: &'d DocumentBudget,
    page: u32,
    /// (stream, resources address) → expanded operator count.
    memo: HashMap<(ObjectId, usize), Cost>,
    on_stack: HashSet<ObjectId>,
    content_bytes: u64,
}

impl DocumentBudget {
    /// Bytes the streams checked so far inflate to.
    pub(crate) fn inflated(&self) -> u64 {
        self.lock().inflated
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        // The state is a cache and a counter; a panic elsewhere cannot leave it inconsistent.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn exceeded(page: u32, budget: Budget, detail: String) -> PdfError {
    PdfError::BudgetExceeded {
        page: Some(page),
        budget,
        detail,
    }
}

impl<'d> PageBudget<'d> {
    /// Checks page `page` (from 1, object `page_id`) against the budgets; see the module
    /// documentation.
    pub(crate) fn preflight(
        doc: &'d lopdf::Document,
        budgets: &'d Budgets,
        shared: &'d DocumentBudget,
        page: u32,
        page_id: ObjectId,
    ) -> Result<PageWork, PdfError> {
        let mut walk = PageBudget {
            doc,
            budgets,
            shared,
            page,
            memo: HashMap::new(),
            on_stack: HashSet::new(),
            content_bytes: 0,
        };
        let page_dict = doc
            .get_dictionary(page_id)
            .map_err(|e| PdfError::Malformed {
                reason: format!("page {page}: {e}"),
            })?;
        let resources =
            crate::tree::inherited(doc, page_dict, b"Resources").and_then(|r| r.as_dict().ok());
        let mut total: u64 = 0;
        let mut nesting = 0u32;
        for id in content_ids(doc, page_dict) {
            let cost = walk.expanded(id, resources, 0)?;
            total = total.saturating_add(cost.operators);
            nesting = nesting.max(cost.height);
            walk.check_operators(total)?;
        }
        if let Ok(annots) = page_dict
            .get(b"Annots")
            .and_then(|a| deref(doc, a).as_array())
        {
            for annot in annots {
                let Ok(annot) = deref(doc, annot).as_dict() else {
                    continue;
                };
                // hayro draws one appearance per annotation: the dearest one bounds it.
                let mut dearest = 0u64;
                for id in appearance_ids(doc, annot) {
                    let cost = walk.expanded(id, resources, 0)?;
                    dearest = dearest.max(cost.operators);
                    nesting = nesting.max(cost.height);
                }
                total = total.saturating_add(dearest);
                walk.check_operators(total)?;
            }
        }
        walk.check_reachable(page_dict)?;
        Ok(PageWork {
            operators: total,
            content_bytes: walk.content_bytes,
            nesting,
        })
    }

    fn check_operators(&self, total: u64) -> Result<(), PdfError> {
        if total > self.budgets.max_page_operators {
            return Err(exceeded(
                self.page,
                Budget::Operators,
                format!(
                    "the page runs more than {} operators (forms counted per invocation)",
                    self.budgets.max_page_operators
                ),
            ));
        }
        Ok(())
    }

    /// Operators run by content stream `id` with `resources`, forms and the like expanded, and
    /// how deep its invocations nest below it. `depth` is the stream's own nesting level (0 for
    /// the page's contents).
    fn expanded(
        &mut self,
        id: ObjectId,
        resources: Option<&'d Dictionary>,
        depth: u32,
    ) -> Result<Cost, PdfError> {
        let key = (id, resources.map_or(0, |r| std::ptr::from_ref(r) as usize));
        let known = self.memo.get(&key).copied();
        let too_deep = |height: u32| depth.saturating_add(height) > self.budgets.max_form_depth;
        if let Some(cost) = known {
            // A memoised stream still nests as deep below this invocation as it did before.
            if too_deep(cost.height) {
                return Err(self.too_deep());
            }
            return Ok(cost);
        }
        if too_deep(0) {
            return Err(self.too_deep());
        }
        if !self.on_stack.insert(id) {
            return Err(exceeded(
                self.page,
                Budget::FormCycle,
                format!("object {} {} invokes itself", id.0, id.1),
            ));
        }
        let doc = self.doc;
        let Ok(Object::Stream(stream)) = doc.get_object(id) else {
            self.on_stack.remove(&id);
            return Ok(Cost::default());
        };
        let summary = self.summary(id, stream)?;
        let mut cost = Cost {
            operators: summary.operators,
            height: 0,
        };
        for (name, times) in &summary.xobjects {
            let Some(child) =
                resource(doc, resources, b"XObject", name).and_then(|o| o.as_reference().ok())
            else {
                continue;
            };
            match doc.get_object(child) {
                Ok(Object::Stream(s)) if name_of(&s.dict, b"Subtype") != Some(b"Image") => {}
                _ => continue,
            }
            let own = self.own_resources(child);
            let sub = self.expanded(child, own.or(resources), depth + 1)?;
            self.add(&mut cost, *times, sub)?;
        }
        for (name, times) in &summary.patterns {
            let Some(child) =
                resource(doc, resources, b"Pattern", name).and_then(|o| o.as_reference().ok())
            else {
                continue;
            };
            let own = self.own_resources(child);
            let sub = self.expanded(child, own.or(resources), depth + 1)?;
            self.add(&mut cost, *times, sub)?;
        }
        for (name, times) in &summary.states {
            let Some(group) = resource(doc, resources, b"ExtGState", name)
                .and_then(|o| deref(doc, o).as_dict().ok())
                .and_then(|s| s.get(b"SMask").ok())
                .and_then(|m| deref(doc, m).as_dict().ok())
                .and_then(|m| m.get(b"G").ok())
                .and_then(|g| g.as_reference().ok())
            else {
                continue;
            };
            let own = self.own_resources(group);
            let sub = self.expanded(group, own.or(resources), depth + 1)?;
            self.add(&mut cost, *times, sub)?;
        }
        if summary.shown_bytes > 0 {
            let glyph = self.dearest_glyph(resources, depth)?;
            self.add(&mut cost, summary.shown_bytes, glyph)?;
        }
        self.on_stack.remove(&id);
        self.memo.insert(key, cost);
        Ok(cost)
    }

    /// Adds `times` invocations of `sub` to `cost`, failing as soon as the page is over budget.
    fn add(&self, cost: &mut Cost, times: u64, sub: Cost) -> Result<(), PdfError> {
        cost.operators = cost
            .operators
            .saturating_add(times.saturating_mul(sub.operators));
        cost.height = cost.height.max(sub.height.saturating_add(1));
        self.check_operators(cost.operators)
    }

    fn too_deep(&self) -> PdfError {
        exceeded(
            self.page,
            Budget::FormDepth,
            format!(
                "forms nest deeper than {} levels",
                self.budgets.max_form_depth
            ),
        )
    }

    /// The dearest glyph procedure of any Type 3 font in `resources` (0 without one): text
    /// shown with such a font runs one procedure per byte.
    fn dearest_glyph(
        &mut self,
        resources: Option<&'d Dictionary>,
        depth: u32,
    ) -> Result<Cost, PdfError> {
        let doc = self.doc;
        let Some(fonts) = resources
            .and_then(|r| r.get(b"Font").ok())
            .and_then(|f| deref(doc, f).as_dict().ok())
        else {
            return Ok(Cost::default());
        };
        let mut dearest = Cost::default();
        for (_, font) in fonts.iter() {
            let Ok(font) = deref(doc, font).as_dict() else {
                continue;
            };
            if name_of(font, b"Subtype") != Some(b"Type3") {
                continue;
            }
            let font_resources = font
                .get(b"Resources")
                .ok()
                .and_then(|r| deref(doc, r).as_dict().ok())
                .or(resources);
            let Some(procs) = font
                .get(b"CharProcs")
                .ok()
                .and_then(|p| deref(doc, p).as_dict().ok())
            else {
                continue;
            };
            for (_, glyph) in procs.iter() {
                if let Ok(id) = glyph.as_reference() {
                    let glyph = self.expanded(id, font_resources, depth + 1)?;
                    dearest.operators = dearest.operators.max(glyph.operators);
                    dearest.height = dearest.height.max(glyph.height);
                }
            }
        }
        Ok(dearest)
    }

    fn own_resources(&self, id: ObjectId) -> Option<&'d Dictionary> {
        let Ok(Object::Stream(stream)) = self.doc.get_object(id) else {
            return None;
        };
        stream
            .dict
            .get(b"Resources")
            .ok()
            .and_then(|r| deref(self.doc, r).as_dict().ok())
    }

    /// The summary of a content stream, inflated within the budgets once per document.
    fn summary(
        &mut self,
        id: ObjectId,
        stream: &lopdf::Stream,
    ) -> Result<std::sync::Arc<StreamSummary>, PdfError> {
        if let Some(known) = self.shared.lock().summaries.get(&id) {
            return Ok(known.clone());
        }
        let cap = self.budgets.max_stream_bytes;
        let content = match stream.decompressed_content_with_limit(usize_cap(cap)) {
            Ok(content) => content,
            Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded {
                ..
            })) => return Err(self.stream_too_large(id, cap)),
            // An unsupported or broken filter: the parsers will not get more out of it than
            // its raw bytes either.
            Err(_) => stream.content.clone(),
        };
        let len = content.len() as u64;
        self.content_bytes = self.content_bytes.saturating_add(len);
        if self.content_bytes > self.budgets.max_page_content_bytes {
            return Err(exceeded(
                self.page,
                Budget::PageContentBytes,
                format!(
                    "the page's content streams inflate to more than {} bytes",
                    self.budgets.max_page_content_bytes
                ),
            ));
        }
        self.count_document_bytes(id, len)?;
        let summary = std::sync::Arc::new(summarize(&content));
        self.shared.lock().summaries.insert(id, summary.clone());
        Ok(summary)
    }

    fn stream_too_large(&self, id: ObjectId, cap: u64) -> PdfError {
        exceeded(
            self.page,
            Budget::StreamBytes,
            format!("stream {} {} inflates to more than {cap} bytes", id.0, id.1),
        )
    }

    /// Adds a stream's inflated size to the document total, once per stream.
    fn count_document_bytes(&self, id: ObjectId, len: u64) -> Result<(), PdfError> {
        let mut shared = self.shared.lock();
        if shared.sized.insert(id, len).is_none() {
            shared.inflated = shared.inflated.saturating_add(len);
        }
        if shared.inflated > self.budgets.max_document_bytes {
            return Err(exceeded(
                self.page,
                Budget::DocumentBytes,
                format!(
                    "the document's streams inflate to more than {} bytes",
                    self.budgets.max_document_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Inflates, within the caps, every stream reachable from the page's resources, contents
    /// and annotation appearances (not from `/Parent` and other links to the rest of the
    /// document): fonts, images, colour profiles and functions are decoded by the renderer.
    fn check_reachable(&self, page: &'d Dictionary) -> Result<(), PdfError> {
        let mut seen: HashSet<ObjectId> = HashSet::new();
        let mut todo: Vec<&'d Object> = Vec::new();
        for key in [b"Resources".as_slice(), b"Contents"] {
            if let Some(value) = crate::tree::inherited(self.doc, page, key) {
                todo.push(value);
            }
        }
        if let Ok(annots) = page
            .get(b"Annots")
            .and_then(|a| deref(self.doc, a).as_array())
        {
            for annot in annots {
                if let Ok(ap) = deref(self.doc, annot).as_dict().and_then(|a| a.get(b"AP")) {
                    todo.push(ap);
                }
            }
        }
        while let Some(object) = todo.pop() {
            let object = match object {
                Object::Reference(id) => {
                    if !seen.insert(*id) {
                        continue;
                    }
                    match self.doc.get_object(*id) {
                        Ok(Object::Stream(stream)) => {
                            self.check_stream_size(*id, stream)?;
                            push_children(&stream.dict, &mut todo);
                            continue;
                        }
                        Ok(other) => other,
                        Err(_) => continue,
                    }
                }
                other => other,
            };
            match object {
                Object::Array(items) => todo.extend(items.iter()),
                Object::Dictionary(dict) => push_children(dict, &mut todo),
                _ => {}
            }
        }
        Ok(())
    }

    /// Counts the inflated size of one stream (without keeping it), refusing it over its cap.
    fn check_stream_size(&self, id: ObjectId, stream: &lopdf::Stream) -> Result<(), PdfError> {
        if let Some(len) = self.shared.lock().sized.get(&id) {
            // Already counted; the cap was checked then.
            let _ = len;
            return Ok(());
        }
        let cap = self
            .budgets
            .max_stream_bytes
            .max(declared_image_bytes(stream));
        let len = inflated_len(stream, cap).ok_or_else(|| self.stream_too_large(id, cap))?;
        self.count_document_bytes(id, len)
    }
}

fn usize_cap(cap: u64) -> usize {
    usize::try_from(cap).unwrap_or(usize::MAX)
}

/// Links that lead from a page's resources back into the rest of the document.
const NOT_FOLLOWED: &[&[u8]] = &[
    b"Parent",
    b"P",
    b"Pg",
    b"Dest",
    b"A",
    b"Next",
    b"Prev",
    b"First",
    b"Last",
    b"StructParent",
    b"Popup",
    b"IRT",
];

fn push_children<'a>(dict: &'a Dictionary, todo: &mut Vec<&'a Object>) {
    for (key, value) in dict.iter() {
        if !NOT_FOLLOWED.contains(&key.as_slice()) {
            todo.push(value);
        }
    }
}

/// Entry `name` of resource category `category` (`/XObject`, `/Pattern`…), not dereferenced.
fn resource<'a>(
    doc: &'a lopdf::Document,
    resources: Option<&'a Dictionary>,
    category: &[u8],
    name: &[u8],
) -> Option<&'a Object> {
    let dict = deref(doc, resources?.get(category).ok()?).as_dict().ok()?;
    dict.get(name).ok()
}

fn deref<'a>(doc: &'a lopdf::Document, object: &'a Object) -> &'a Object {
    doc.dereference(object).map_or(object, |(_, o)| o)
}

fn name_of<'a>(dict: &'a Dictionary, key: &[u8]) -> Option<&'a [u8]> {
    dict.get(key).ok()?.as_name().ok()
}

/// The content streams of a page (`/Contents`: one stream or an array of them).
fn content_ids(doc: &lopdf::Document, page: &Dictionary) -> Vec<ObjectId> {
    let Ok(contents) = page.get(b"Contents") else {
        return Vec::new();
    };
    match contents {
        Object::Reference(id) => match doc.get_object(*id) {
            Ok(Object::Array(items)) => {
                items.iter().filter_map(|i| i.as_reference().ok()).collect()
            }
            _ => vec![*id],
        },
        Object::Array(items) => items.iter().filter_map(|i| i.as_reference().ok()).collect(),
        _ => Vec::new(),
    }
}

/// The normal appearance streams of an annotation (one, or one per appearance state).
fn appearance_ids(doc: &lopdf::Document, annot: &Dictionary) -> Vec<ObjectId> {
    let Some(normal) = annot
        .get(b"AP")
        .ok()
        .and_then(|ap| deref(doc, ap).as_dict().ok())
        .and_then(|ap| ap.get(b"N").ok())
    else {
        return Vec::new();
    };
    match normal {
        Object::Reference(id) => match doc.get_object(*id) {
            Ok(Object::Dictionary(states)) => states
                .iter()
                .filter_map(|(_, s)| s.as_reference().ok())
                .collect(),
            _ => vec![*id],
        },
        Object::Dictionary(states) => states
            .iter()
            .filter_map(|(_, s)| s.as_reference().ok())
            .collect(),
        _ => Vec::new(),
    }
}

/// What an image's pixels take at most, from its dictionary (0 when it is no image): its
/// inflated data may be that large, plus a predictor byte per row and some slack.
fn declared_image_bytes(stream: &lopdf::Stream) -> u64 {
    let dict = &stream.dict;
    if name_of(dict, b"Subtype") != Some(b"Image") {
        return 0;
    }
    let number = |key: &[u8]| {
        dict.get(key)
            .ok()
            .and_then(|v| v.as_i64().ok())
            .and_then(|v| u64::try_from(v).ok())
            .unwrap_or(0)
    };
    let (width, height) = (number(b"Width"), number(b"Height"));
    let bits = number(b"BitsPerComponent").clamp(1, 16);
    // Components are not worth resolving here (indexed, ICC, DeviceN…): four is the most
    // of the common spaces, and DeviceN names its colourants.
    let components = match dict.get(b"ColorSpace") {
        Ok(Object::Array(items))
            if items.first().and_then(|n| n.as_name().ok()) == Some(b"DeviceN") =>
        {
            items
                .get(1)
                .and_then(|n| n.as_array().ok())
                .map_or(4, |n| n.len().clamp(1, 32) as u64)
        }
        _ => 4,
    };
    let row = width
        .saturating_mul(components)
        .saturating_mul(bits)
        .div_ceil(8)
        .saturating_add(1);
    row.saturating_mul(height).saturating_add(64 * 1024)
}

/// The inflated size of a stream, or `None` when it exceeds `cap`. A single Flate filter (how
/// nearly every large stream is compressed) is counted through a small buffer without keeping
/// the output; other chains are decoded by lopdf within the cap. Filters lopdf cannot decode
/// (image codecs) count their raw bytes: their output is bounded by the image's pixels.
fn inflated_len(stream: &lopdf::Stream, cap: u64) -> Option<u64> {
    let filters = stream.filters().unwrap_or_default();
    if filters.as_slice() == [b"FlateDecode".as_slice()] {
        let mut decoder = flate2::read::ZlibDecoder::new(stream.content.as_slice());
        let mut buffer = vec![0u8; 64 * 1024];
        let mut total = 0u64;
        loop {
            match decoder.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => {
                    total = total.saturating_add(n as u64);
                    if total > cap {
                        return None;
                    }
                }
                // A broken stream ends here for the counter; decoders that are more lenient
                // (raw deflate) get no further than the cap either, see below.
                Err(_) => break,
            }
        }
        if total == 0 && !stream.content.is_empty() {
            // lopdf and hayro retry a broken zlib stream as raw deflate: bound that too.
            let mut raw = flate2::read::DeflateDecoder::new(stream.content.as_slice());
            let mut counted = 0u64;
            while let Ok(n) = raw.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                counted = counted.saturating_add(n as u64);
                if counted > cap {
                    return None;
                }
            }
            return Some(counted);
        }
        return Some(total);
    }
    match stream.decompressed_content_with_limit(usize_cap(cap)) {
        Ok(content) => Some(content.len() as u64),
        Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. })) => None,
        Err(_) => Some(stream.content.len() as u64),
    }
}

/// PDF whitespace.
fn is_space(b: u8) -> bool {
    matches!(b, b'\0' | b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// Counts the operators of a content stream and what they invoke, in one pass without building
/// operations (a parser's operation list of a hostile stream is itself a memory bomb).
fn summarize(content: &[u8]) -> StreamSummary {
    let mut summary = StreamSummary::default();
    let mut last_name: Option<&[u8]> = None;
    let mut shown = 0u64;
    let mut i = 0usize;
    let n = content.len();
    while i < n {
        let b = content[i];
        if is_space(b) {
            i += 1;
            continue;
        }
        match b {
            b'%' => {
                while i < n && content[i] != b'\n' && content[i] != b'\r' {
                    i += 1;
                }
            }
            b'(' => {
                let (end, bytes) = literal_string(content, i);
                shown = shown.saturating_add(bytes);
                i = end;
            }
            b'<' if content.get(i + 1) == Some(&b'<') => i += 2,
            b'>' if content.get(i + 1) == Some(&b'>') => i += 2,
            b'<' => {
                let start = i + 1;
                while i < n && content[i] != b'>' {
                    i += 1;
                }
                let digits = content[start..i.min(n)]
                    .iter()
                    .filter(|c| c.is_ascii_hexdigit())
                    .count() as u64;
                shown = shown.saturating_add(digits.div_ceil(2));
                i += 1;
            }
            b'/' => {
                let start = i + 1;
                i += 1;
                while i < n && !is_space(content[i]) && !is_delimiter(content[i]) {
                    i += 1;
                }
                last_name = Some(&content[start..i]);
            }
            b'[' | b']' | b'{' | b'}' | b')' | b'>' => i += 1,
            _ => {
                let start = i;
                while i < n && !is_space(content[i]) && !is_delimiter(content[i]) {
                    i += 1;
                }
                let word = &content[start..i];
                if i == start {
                    i += 1;
                    continue;
                }
                let first = word[0];
                if first.is_ascii_digit()
                    || matches!(first, b'+' | b'-' | b'.')
                    || matches!(word, b"true" | b"false" | b"null")
                {
                    continue;
                }
                summary.operators = summary.operators.saturating_add(1);
                let bump = |map: &mut HashMap<Vec<u8>, u64>, name: Option<&[u8]>| {
                    if let Some(name) = name {
                        let slot = map.entry(name.to_vec()).or_insert(0);
                        *slot = slot.saturating_add(1);
                    }
                };
                match word {
                    b"Do" => bump(&mut summary.xobjects, last_name),
                    b"scn" | b"SCN" => bump(&mut summary.patterns, last_name),
                    b"gs" => bump(&mut summary.states, last_name),
                    b"Tj" | b"TJ" | b"'" | b"\"" => {
                        summary.shown_bytes = summary.shown_bytes.saturating_add(shown);
                    }
                    b"BI" => i = skip_inline_image(content, i),
                    _ => {}
                }
                last_name = None;
                shown = 0;
            }
        }
    }
    summary
}

/// End of a literal string starting at `start` (`(`), and its length in bytes.
fn literal_string(content: &[u8], start: usize) -> (usize, u64) {
    let mut depth = 0u32;
    let mut bytes = 0u64;
    let mut i = start;
    while i < content.len() {
        match content[i] {
            b'\\' => {
                bytes += u64::from(depth > 0);
                i += 2;
                continue;
            }
            b'(' => {
                depth += 1;
                bytes += u64::from(depth > 1);
            }
            b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return (i + 1, bytes);
                }
                bytes += 1;
            }
            _ => bytes += 1,
        }
        i += 1;
    }
    (i, bytes)
}

/// Skips an inline image from after `BI` to after its `EI`.
fn skip_inline_image(content: &[u8], from: usize) -> usize {
    let n = content.len();
    // The image dictionary ends at the `ID` keyword.
    let mut i = from;
    while i + 1 < n {
        if content[i] == b'I'
            && content[i + 1] == b'D'
            && i > 0
            && is_space(content[i - 1])
            && content.get(i + 2).is_none_or(|b| is_space(*b))
        {
            i += 3;
            break;
        }
        i += 1;
    }
    // The data ends at whitespace, `EI`, then whitespace or the end.
    while i + 2 < n {
        if is_space(content[i])
            && content[i + 1] == b'E'
            && content[i + 2] == b'I'
            && content
                .get(i + 3)
                .is_none_or(|b| is_space(*b) || is_delimiter(*b))
        {
            return i + 3;
        }
        i += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_operators_and_invocations() {
        let s = summarize(
            b"q 1 0 0 1 0 0 cm /Fm1 Do /Fm1 Do Q % comment Do\n\
              BT /F1 12 Tf (ab\\)c) Tj [(de) 3 <4142>] TJ ET\n\
              /P0 scn /GS1 gs BI /W 2 /H 1 ID \x00Do EI\n EI Q",
        );
        // q cm Do Do Q BT Tf Tj TJ ET scn gs BI Q, plus the stray EI.
        assert_eq!(s.operators, 15);
        assert_eq!(s.xobjects.get(b"Fm1".as_slice()), Some(&2));
        assert_eq!(s.patterns.get(b"P0".as_slice()), Some(&1));
        assert_eq!(s.states.get(b"GS1".as_slice()), Some(&1));
        // "ab)c" is 4 bytes, "de" 2 and <4142> 2.
        assert_eq!(s.shown_bytes, 8);
    }

    #[test]
    fn nested_literal_strings() {
        assert_eq!(literal_string(b"(a(b)c) Tj", 0), (7, 5));
    }
}
