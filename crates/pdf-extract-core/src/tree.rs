//! The page tree: attributes a page inherits from its parents.

use lopdf::{Dictionary, Object};

/// Parents followed when looking up inherited page attributes (the tree may have cycles). A
/// page further down is refused at load: hayro follows any depth from the root, so the two
/// would disagree on the page's size.
pub(crate) const MAX_INHERITANCE_DEPTH: usize = 32;

/// An attribute of a page, looked up through its parents (`/MediaBox`, `/CropBox`, `/Rotate`,
/// `/Resources` are inheritable).
pub(crate) fn inherited<'a>(
    doc: &'a lopdf::Document,
    page: &'a Dictionary,
    key: &[u8],
) -> Option<&'a Object> {
    let mut dict = page;
    for _ in 0..MAX_INHERITANCE_DEPTH {
        if let Ok(value) = dict.get(key) {
            return doc.dereference(value).ok().map(|(_, v)| v);
        }
        let parent = dict.get(b"Parent").ok()?;
        dict = doc.dereference(parent).ok()?.1.as_dict().ok()?;
    }
    None
}
