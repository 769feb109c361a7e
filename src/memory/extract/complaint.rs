//! A complaint about how things are right now: "ugh, these lights are way too bright", "Seat's
//! way too hot". It says what the driver wants changed at this moment, and a setting read from
//! it ("Low") is a one-off request of the moment, not the driver's standing level: "I always
//! find the airflow a bit too strong" and "It's too bright for me at night" say a lasting one.

use super::spans::words;

/// Words between a verb of state and "too" that only say how much ("way too", "a bit too").
const DEGREE: &[&str] = &[
    "way", "far", "a", "bit", "little", "lot", "really", "so", "just", "much", "slightly",
    "rather", "getting", "kind", "of", "kinda", "sorta", "bloody", "damn",
];

/// Verbs that say how something is now ("the lights are too bright", "it feels too cold").
const STATE: &[&str] = &[
    "is", "are", "am", "feels", "feel", "seems", "looks", "sounds", "getting", "gone",
];

/// Words by which a complaint says it holds beyond this moment, or for the speaker's taste:
/// a habit ("always", "every time", "whenever"), or what the speaker finds or likes.
const LASTING: &[&str] = &[
    "always",
    "usually",
    "normally",
    "generally",
    "typically",
    "never",
    "ever",
    "every",
    "whenever",
    "find",
    "like",
    "love",
    "prefer",
    "hate",
    "stand",
    "liking",
    "taste",
];

/// Whether `statement` complains that something is too much of something right now: a verb of
/// state ([`STATE`], or a word ending in "'s" / "'re": "it's", "seat's") then "too", perhaps
/// with a word of degree between ([`DEGREE`]), and nothing that says the complaint holds
/// beyond the moment or for the speaker ([`LASTING`], "for me").
pub fn complains_of_now(statement: &str) -> bool {
    let w = words(statement);
    let at = |i: usize| w.get(i).map_or("", String::as_str);
    let lasting = w.iter().any(|x| LASTING.contains(&x.as_str()))
        || (0..w.len()).any(|i| at(i) == "for" && matches!(at(i + 1), "me" | "us" | "my"));
    if lasting {
        return false;
    }
    let states = |x: &str| STATE.contains(&x) || x.ends_with("'s") || x.ends_with("'re");
    (0..w.len()).filter(|&i| at(i) == "too").any(|i| {
        let mut j = i;
        while j > 0 && DEGREE.contains(&at(j - 1)) {
            j -= 1;
        }
        j > 0 && states(at(j - 1)) && !at(i + 1).is_empty()
    })
}

#[cfg(test)]
mod tests {
    use super::complains_of_now;

    #[test]
    fn a_complaint_about_now_is_told_from_a_lasting_one() {
        for now in [
            "ugh, these lights are way too bright, I've got a banging headache",
            "Seat's way too hot, I've been sitting on it ten minutes and I'm cooking. Kill it.",
            "It's too cold in here.",
            "The fan is a bit too loud.",
            "This feels far too warm, turn it down.",
            "The screen's getting too bright.",
        ] {
            assert!(complains_of_now(now), "{now}");
        }
        for lasting in [
            "I always find the airflow a bit too strong, even when it's on the lowest.",
            "It always gets too warm for my liking, keep the climate lower.",
            "The screen is too bright for me at night.",
            "I hate it when the lights are too bright.",
            "Make sure it's a deep green, not too bright, just the way I like it.",
            "Turn it down, please.",
            "I'd like it cooler too.",
            "Jazz is my thing too.",
        ] {
            assert!(!complains_of_now(lasting), "{lasting}");
        }
    }
}
