//! The crate's one error type.

use thiserror::Error;

/// Everything that can go wrong while loading, recognising or analysing an image.
///
/// Bad input is always one of these, never a panic.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum OcrError {
    /// A requested language has no `.traineddata` installed.
    #[error("language {requested:?} is not installed; installed: {}", installed.join(", "))]
    LanguageNotInstalled {
        /// The language asked for.
        requested: String,
        /// The languages found in the tessdata directory.
        installed: Vec<String>,
    },
    /// A language name that is not a Tesseract language code.
    #[error("{0:?} is not a language code")]
    InvalidLanguage(String),
    /// Tesseract refused to start with these languages.
    #[error("Tesseract could not be initialised with {languages}")]
    EngineInit {
        /// The `+`-joined languages.
        languages: String,
    },
    /// The image is wider than allowed.
    #[error("image is {width} pixels wide; the limit is {max}")]
    ImageTooWide {
        /// Declared width.
        width: u32,
        /// The limit.
        max: u32,
    },
    /// The image has more pixels than allowed (checked on the header, before decoding).
    #[error("image has {pixels} pixels ({width}x{height}); the limit is {max}")]
    ImageTooLarge {
        /// Declared width.
        width: u32,
        /// Declared height.
        height: u32,
        /// width × height.
        pixels: u64,
        /// The limit.
        max: u64,
    },
    /// The decoded picture would take more memory than the decode budget (checked on the
    /// header, before decoding: a picture with 16 bits per channel takes twice the bytes).
    #[error("image of {width}x{height} pixels decodes to {bytes} bytes; the limit is {max}")]
    DecodeTooLarge {
        /// Width as stored.
        width: u32,
        /// Height as stored.
        height: u32,
        /// Bytes the decoded pixels take.
        bytes: u64,
        /// The limit.
        max: u64,
    },
    /// The mime type is not one of the supported image types.
    #[error("unsupported image type {0:?}; supported: image/png, image/jpeg, image/webp")]
    UnsupportedMime(String),
    /// The bytes are not the declared image type.
    #[error("declared {declared} but the bytes are {detected}")]
    MimeMismatch {
        /// The declared mime type.
        declared: &'static str,
        /// What the bytes are (a mime type, or "unknown").
        detected: &'static str,
    },
    /// The image could not be decoded.
    #[error("image could not be decoded: {0}")]
    Decode(String),
    /// A raw pixel buffer whose length does not match its dimensions.
    #[error("pixel buffer holds {actual} bytes, {width}x{height} needs {expected}")]
    BufferSize {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
        /// Bytes needed.
        expected: usize,
        /// Bytes given.
        actual: usize,
    },
    /// Tesseract failed on a page.
    #[error("recognition failed: {0}")]
    Recognition(String),
    /// The PP-OCR models could not be loaded or run.
    #[error(transparent)]
    PpOcr(#[from] pp_ocr::PpOcrError),
    /// The caller cancelled the work before this page was started.
    #[error("recognition cancelled")]
    Cancelled,
    /// Not a single word or code was found: a failure, never a paid empty answer.
    #[error("nothing was recognised: no text and no code on any page")]
    EmptyRecognition,
}
