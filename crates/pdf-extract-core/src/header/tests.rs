//! Header extraction on hand-built pages.
