//! "Back to my usual": a person's habitual value of a setting beside the value set last. A
//! value said with a habit ("I usually keep the ambient light white", "The mirror is usually
//! at 69, but I hurt my back") outlasts a momentary one set after it ("Let me just nudge it to
//! 75"); a request for the usual setting asks for the habit, not the moment. The newest value
//! still supersedes for every other request. A request that names a month ("my jamming volume
//! from March") asks for the value said then ([`said_in`]).

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

/// The unconditional values of `detail` in a person's history (oldest first), each with the
/// sentence that said it, if kept.
fn unconditional(
    history: &[HistoryEntry],
    detail: DetailId,
) -> impl DoubleEndedIterator<Item = (&str, Option<&str>)> {
    history.iter().filter_map(move |e| {
        let after = e.after.as_ref()?;
        (after.detail == detail && after.condition.is_none())
            .then_some((after.attribute.as_str(), e.sentence.as_deref()))
    })
}

/// The newest unconditional value of `detail` in a person's history (oldest first) whose
/// sentence states a habit ([`HABIT`]), if any.
pub fn habitual(history: &[HistoryEntry], detail: DetailId) -> Option<&str> {
    unconditional(history, detail)
        .filter(|(_, sentence)| sentence.is_some_and(|s| says(s, HABIT)))
        .map(|(value, _)| value)
        .next_back()
}

/// When a person asks for their usual value of a number setting and said no habit, the
/// newest unconditional value short of the setting's ends, where the newest value is at one
/// of them: a maximum or a minimum is what a moment asks for ("It was a heatwave, so set seat
/// ventilation to max"), and "back to my normal ventilation" asks for what was set before it
/// (speed 2). `None` where the newest value is not at an end, or no earlier one is short of
/// both.
pub fn short_of_ends(
    history: &[HistoryEntry],
    detail: DetailId,
    (min, max): (i64, i64),
) -> Option<&str> {
    let values: Vec<&str> = unconditional(history, detail).map(|(v, _)| v).collect();
    let at_end = |v: &str| v.trim().parse::<i64>().is_ok_and(|n| n <= min || n >= max);
    if !values.last().is_some_and(|v| at_end(v)) {
        return None;
    }
    values.into_iter().rev().find(|v| !at_end(v))
}

/// Months by name, as a request refers to a time ("my jamming volume from March").
const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The number (1-12) of a month said by its name, any case ("April" is 4).
pub fn month_number(name: &str) -> Option<u32> {
    MONTHS
        .iter()
        .position(|n| n.eq_ignore_ascii_case(name))
        .map(|i| i as u32 + 1)
}

/// The month (1-12), and the day when one follows it ("the April 1 setting"), that a request
/// names: a capitalised month name ("May" only after in/from/since/of/on/last or before a
/// day, since "may" is also a verb).
pub fn named_month(text: &str) -> Option<(u32, Option<u32>)> {
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().enumerate().find_map(|(i, w)| {
        if !w.starts_with(char::is_uppercase) {
            return None;
        }
        let m = month_number(w)?;
        let day = words
            .get(i + 1)
            .and_then(|d| d.parse::<u32>().ok())
            .filter(|d| (1..=31).contains(d));
        let before = i.checked_sub(1).map(|j| words[j].to_lowercase());
        let dated = matches!(
            before.as_deref(),
            Some("in" | "from" | "since" | "of" | "on" | "last")
        );
        (m != 5 || dated || day.is_some()).then_some((m, day))
    })
}

/// The newest value of `detail` in a person's history (oldest first) that was said in the
/// month, and on the day if one is given, that a request names ([`named_month`]): "back to my
/// jamming volume from March" is the volume said in March, not the one said since. An
/// unconditional value said then comes first; else one said for a situation ("25 so we can
/// jam"), since the month, not the situation, is what the request names.
pub fn said_in(
    history: &[HistoryEntry],
    detail: DetailId,
    (month, day): (u32, Option<u32>),
) -> Option<&str> {
    let then = |conditional: bool| {
        history
            .iter()
            .filter_map(|e| {
                let after = e.after.as_ref()?;
                let (m, d) = crate::rfc3339::month_day(e.time);
                (after.detail == detail
                    && after.condition.is_some() == conditional
                    && m == month
                    && day.is_none_or(|x| x == d))
                .then_some(after.attribute.as_str())
            })
            .next_back()
    };
    then(false).or_else(|| then(true))
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

    #[test]
    fn a_request_names_a_month_and_a_day() {
        assert_eq!(
            named_month("Let's go back to my jamming volume from March."),
            Some((3, None))
        );
        assert_eq!(
            named_month("Set the wheel heat to double the April 1 setting."),
            Some((4, Some(1)))
        );
        assert_eq!(named_month("Restore what I had in May."), Some((5, None)));
        assert_eq!(named_month("May I have the usual volume?"), None);
        assert_eq!(named_month("I march on."), None);
    }
}
