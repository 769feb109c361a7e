//! What a sentence does besides stating: "If we drove to Italy this summer, would I need a
//! vignette?" supposes a situation and asks about it; it states no preference, however close its
//! words come to one ("What if I put premium in instead of regular?" is no fuel preference).

/// Words that open a supposition: "if", "what if", "suppose", "supposing", "imagine", "say" (not
/// "say," as a call for attention: "Say, could you put on some jazz?").
const SUPPOSING: &[&str] = &["if", "suppose", "supposing", "imagine", "say"];

/// Whether the sentence is a question about a supposed situation: it ends with a question mark
/// and opens (after "and", "but", "so", "or") with a supposition ([`SUPPOSING`], or "what if").
pub fn supposes(sentence: &str) -> bool {
    let s = sentence.trim();
    if !s.ends_with('?') {
        return false;
    }
    let words: Vec<&str> = s.split_whitespace().collect();
    let bare = |w: &str| {
        w.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    };
    let mut i = 0;
    while words
        .get(i)
        .is_some_and(|w| matches!(bare(w).as_str(), "and" | "but" | "so" | "or"))
    {
        i += 1;
    }
    let Some(first) = words.get(i) else {
        return false;
    };
    let opener = bare(first);
    if opener == "what" {
        return words.get(i + 1).is_some_and(|w| bare(w) == "if");
    }
    // "Say," / "Imagine," call for attention; "Say I wanted to ..." supposes.
    SUPPOSING.contains(&opener.as_str()) && !first.ends_with(',')
}

#[cfg(test)]
mod tests {
    use super::supposes;

    #[test]
    fn a_question_about_a_supposed_situation_states_nothing() {
        assert!(supposes(
            "If we drove to Italy this summer, would I need a vignette for Switzerland?"
        ));
        assert!(supposes("What if I put premium in instead of regular?"));
        assert!(supposes(
            "And suppose it rains, will the roof close by itself?"
        ));
        // A condition stated, not asked about, is a conditional preference.
        assert!(!supposes("If it's above 25 degrees, I want the AC on."));
        // A call for attention opens a request.
        assert!(!supposes("Say, could you put on some jazz?"));
        assert!(!supposes("Can you find me an Italian restaurant nearby?"));
        assert!(!supposes("What if"));
    }
}
