//! "Back to my usual": a person's habitual value of a setting beside the value set last. A
//! value said with a habit ("I usually keep the ambient light white", "The mirror is usually
//! at 69, but I hurt my back") outlasts a momentary one set after it ("Let me just nudge it to
//! 75"); a request for the usual setting asks for the habit, not the moment. The newest value
//! still supersedes for every other request.

use crate::memory::values::says_words;
use crate::pref::HistoryEntry;
use crate::schema::DetailId;

/// Words by which a request asks for the person's usual setting.
const ASKS_USUAL: &[&str] = &[
    "usual", "usually", "normal", "normally", "standard", "default", "regular", "always",
];
/// Words and phrases by which a sentence states a habit rather than a moment.
const HABIT: &[&str] = &[
    "usually",
    "usual",
    "always",
    "normally",
    "typically",
    "generally",
    "sweet spot",
    "my standard",
    "my default",
    "prefer",
    "favorite",
    "favourite",
];

/// Whether the text says one of the phrases, whole words in a row, case folded.
fn says(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| says_words(text, p))
}

/// Whether a request asks for the person's usual setting ("back to my normal ventilation
/// setting", "my standard temperature").
pub fn asks_usual(request: &str) -> bool {
    says(request, ASKS_USUAL)
}

/// Whether a sentence states a habit ([`HABIT`]): "The mirror is usually at 69".
pub fn states_habit(sentence: &str) -> bool {
    says(sentence, HABIT)
}

/// The newest unconditional value of `detail` in a person's history (oldest first) whose
/// sentence states a habit ([`HABIT`]), if any.
pub fn habitual(history: &[HistoryEntry], detail: DetailId) -> Option<&str> {
    history
        .iter()
        .filter_map(|e| {
            let after = e.after.as_ref()?;
            let sentence = e.sentence.as_deref()?;
            (after.detail == detail && after.condition.is_none() && says(sentence, HABIT))
                .then_some(after.attribute.as_str())
        })
        .next_back()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_for_the_usual_and_a_habit_are_read() {
        assert!(asks_usual("Back to my normal ventilation setting."));
        assert!(asks_usual("Set the AC to my standard temperature."));
        assert!(!asks_usual("Set the AC to 22."));
        assert!(says("I usually keep the ambient light white.", HABIT));
        assert!(says("That's my sweet spot.", HABIT));
        assert!(!says("Let me just nudge it to 75.", HABIT));
        assert!(!says("It's a sweet song.", HABIT));
    }
}
