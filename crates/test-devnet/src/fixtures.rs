//! Helpers for the committed fixtures, shared by the docs-server tests and bench and the soak.

/// `pdf` with a comment after its end: the same document as another file (another SHA-256, so
/// another answer-cache and plan-cache key), which makes the server do the work again. PDF
/// readers skip a comment after `%%EOF`.
pub fn unseen_copy(pdf: &[u8], tag: &str) -> Vec<u8> {
    const OPEN: &[u8] = b"\n% ";
    let mut bytes = Vec::with_capacity(pdf.len() + OPEN.len() + tag.len() + 1);
    bytes.extend_from_slice(pdf);
    bytes.extend_from_slice(OPEN);
    // A line break in the tag would end the comment and leave the rest as PDF syntax.
    bytes.extend(
        tag.bytes()
            .map(|b| if b == b'\n' || b == b'\r' { b' ' } else { b }),
    );
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tag_stays_one_comment_line() {
        let copy = unseen_copy(b"%PDF-1.4\n%%EOF", "a\nb");
        assert_eq!(copy, b"%PDF-1.4\n%%EOF\n% a b\n");
        assert_ne!(unseen_copy(b"x", "1"), unseen_copy(b"x", "2"));
    }
}
