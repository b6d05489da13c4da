//! (being written by the tables helper; this temporary signature only lets the lead compile the
//! document composition — replace the whole file)

/// Temporary: finds nothing.
pub fn find_tables(_page: &doc_model::Page) -> Vec<doc_model::Table> {
    Vec::new()
}
