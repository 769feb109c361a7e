//! Whose preference a sentence states: "My wife loves Thai food" tells the car about someone
//! else, and what it says is not the speaker's preference (in a shared car it is not anyone's
//! to store from the speaker's words).

/// People a speaker talks about ("my wife", "the kids", "our son").
const OTHERS: &[&str] = &[
    "wife",
    "husband",
    "partner",
    "son",
    "sons",
    "daughter",
    "daughters",
    "kid",
    "kids",
    "child",
    "children",
    "baby",
    "mom",
    "mum",
    "mother",
    "dad",
    "father",
    "parents",
    "brother",
    "sister",
    "grandma",
    "grandpa",
    "grandmother",
    "grandfather",
    "girlfriend",
    "boyfriend",
    "friend",
    "friends",
    "colleague",
    "colleagues",
    "boss",
    "neighbour",
    "neighbor",
    "family",
    "aunt",
    "uncle",
    "niece",
    "nephew",
    "cousin",
    "passenger",
    "passengers",
];
/// Verbs by which "he" or "she" has a taste of their own.
const TASTE_VERBS: &[&str] = &[
    "wants", "likes", "loves", "prefers", "needs", "hates", "dislikes", "enjoys", "adores",
    "can't", "doesn't", "does", "finds", "keeps",
];
/// What opens a noun phrase naming one of [`OTHERS`].
const DETERMINERS: &[&str] = &["my", "our", "the", "his", "her", "their"];

/// Whether the sentence's subject is someone other than the speaker: it opens (after "and",
/// "but", "so", "well", "oh") with "he" or "she" and a verb of taste, or with one of
/// [`OTHERS`] behind a determiner, or with their
/// possessive ("My wife loves Thai food", "The kids keep asking for Taylor Swift", "My
/// colleague's vegetarian") and the speaker is not part of it ("My wife and I love Thai food"
/// is the speaker's too).
pub fn about_someone_else(sentence: &str) -> bool {
    let words: Vec<String> = sentence
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}')
                .to_lowercase()
                .replace('\u{2019}', "'")
        })
        .filter(|w| !w.is_empty())
        .collect();
    let mut i = 0;
    while words
        .get(i)
        .is_some_and(|w| matches!(w.as_str(), "and" | "but" | "so" | "well" | "oh" | "also"))
    {
        i += 1;
    }
    // "She also wants the HUD at 10", "He likes it warm"; not "She's my favourite artist",
    // where "she" is what the speaker likes.
    if words
        .get(i)
        .is_some_and(|w| matches!(w.as_str(), "he" | "she"))
    {
        let verb = words[i + 1..].iter().find(|w| {
            !matches!(
                w.as_str(),
                "also" | "always" | "usually" | "really" | "just"
            )
        });
        return verb.is_some_and(|v| TASTE_VERBS.contains(&v.as_str()));
    }
    if !words
        .get(i)
        .is_some_and(|w| DETERMINERS.contains(&w.as_str()))
    {
        return false;
    }
    let Some(noun) = words.get(i + 1) else {
        return false;
    };
    let bare = noun
        .strip_suffix("'s")
        .or_else(|| noun.strip_suffix('\''))
        .unwrap_or(noun);
    if !OTHERS.contains(&bare) {
        return false;
    }
    // "My wife and I", "my son and me": the speaker is in it.
    let with_me = words.get(i + 2).is_some_and(|w| w == "and")
        && words
            .get(i + 3)
            .is_some_and(|w| matches!(w.as_str(), "i" | "me" | "myself"));
    !with_me
}

#[cfg(test)]
mod tests {
    use super::about_someone_else;

    #[test]
    fn someone_elses_preference_is_not_the_speakers() {
        assert!(about_someone_else("My wife loves Thai food."));
        assert!(about_someone_else("The kids keep asking for Taylor Swift."));
        assert!(about_someone_else("My colleague's vegetarian."));
        assert!(about_someone_else("And my son wants his rap playlist on."));
        assert!(about_someone_else(
            "She also wants the HUD brightness at 10 during daytime."
        ));
        assert!(!about_someone_else("My wife and I love Thai food."));
        assert!(!about_someone_else("I love Thai food, my wife does too."));
        assert!(!about_someone_else("My favourite is Thai."));
        assert!(!about_someone_else(
            "Put on the kids' playlist, I like it too."
        ));
    }
}
