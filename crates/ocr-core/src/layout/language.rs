//! The language of a block, decided from its text (see the module documentation of
//! [`crate::layout`]).

const GERMAN_WORDS: &[&str] = &[
    "der", "die", "das", "und", "ist", "nicht", "mit", "von", "den", "zu", "im", "des", "auf",
    "für", "ein", "eine", "einer", "einen", "dem", "sich", "auch", "als", "wird", "werden", "sind",
    "bei", "nach", "oder", "aus", "wie", "über", "seit", "zur", "zum", "vom", "ohne", "durch",
    "dass", "noch", "nur", "wir", "sie", "ich", "wurde", "wurden", "hat", "haben", "mehr", "alle",
    "unter", "gegen", "bis", "sehr", "kein", "keine", "ab", "jahr",
];
const ENGLISH_WORDS: &[&str] = &[
    "the", "and", "of", "to", "is", "are", "for", "with", "on", "that", "by", "this", "as", "be",
    "was", "were", "from", "at", "it", "or", "has", "have", "which", "not", "we", "you", "they",
    "their", "been", "will", "can", "all", "more", "into", "than", "its", "our", "your", "per",
    "each", "new", "last", "year", "how", "what", "when", "there", "these", "those",
];

/// The block's language among `languages` (see the module documentation), `None` without
/// evidence.
pub fn detect_language(text: &str, languages: &[String]) -> Option<String> {
    match languages {
        [] => return None,
        [only] => return Some(only.clone()),
        _ => {}
    }
    let mut german = 0u32;
    let mut english = 0u32;
    for raw in text.split_whitespace() {
        let word = raw
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        if word.is_empty() {
            continue;
        }
        if GERMAN_WORDS.contains(&word.as_str()) {
            german += 2;
        }
        if ENGLISH_WORDS.contains(&word.as_str()) {
            english += 2;
        }
        if word.contains(['ä', 'ö', 'ü', 'ß']) {
            german += 1;
        }
        if word.contains("sch")
            || word.ends_with("ung")
            || word.ends_with("ungen")
            || word.ends_with("keit")
            || word.ends_with("heit")
            || word.ends_with("lich")
            || word.ends_with("isse")
        {
            german += 1;
        }
        if word.starts_with("th")
            || word.starts_with("wh")
            || word.ends_with("tion")
            || word.ends_with("ing")
            || word.ends_with("ness")
            || word.ends_with("ly")
        {
            english += 1;
        }
    }
    let wants = |code: &str| languages.iter().any(|l| l == code);
    let pick = |code: &str| wants(code).then(|| code.to_owned());
    match german.cmp(&english) {
        std::cmp::Ordering::Greater => pick("deu"),
        std::cmp::Ordering::Less => pick("eng"),
        std::cmp::Ordering::Equal => None,
    }
}
