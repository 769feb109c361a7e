//! Whose preference a sentence states: "My wife loves Thai food" tells the car about someone
//! else, and what it says is not the speaker's preference (in a shared car it is not anyone's
//! to store from the speaker's words).

/// People a speaker talks about ("my wife", "the kids", "our son", "my mate"); a relative by
/// marriage is read without "-in-law".
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
    "mate",
    "mates",
    "pal",
    "buddy",
    "flatmate",
    "roommate",
    "housemate",
    "fiance",
    "fiancee",
    "fiancé",
    "fiancée",
    "stepdad",
    "stepmum",
    "stepmom",
    "nan",
    "gran",
    "granny",
    "grandad",
    "granddad",
    "grandson",
    "granddaughter",
    "grandkids",
    "coworker",
    "coworkers",
    "workmate",
    "in-laws",
];
/// Verbs by which "he" or "she" has a taste of their own.
const TASTE_VERBS: &[&str] = &[
    "wants", "likes", "loves", "prefers", "needs", "hates", "dislikes", "enjoys", "adores",
    "can't", "doesn't", "does", "finds", "keeps",
];
/// Verbs by which someone else's opinion is reported ("Jenny reckons the new Aldi is cheaper").
const OPINION_VERBS: &[&str] = &[
    "reckons", "thinks", "says", "said", "swears", "insists", "believes", "claims",
];
/// Third persons that are no one in the car ("It keeps the cabin cool", "That does it").
const NOT_PEOPLE: &[&str] = &[
    "it", "this", "that", "what", "which", "who", "there", "here",
];
/// What opens a noun phrase naming one of [`OTHERS`].
const DETERMINERS: &[&str] = &["my", "our", "the", "his", "her", "their"];

/// Whether the sentence's subject is someone other than the speaker: it opens (after "and",
/// "but", "so", "well", "oh") with "he" or "she" and a verb of taste, or with one of
/// [`OTHERS`] behind a determiner, or with their
/// possessive ("My wife loves Thai food", "The kids keep asking for Taylor Swift", "My
/// colleague's vegetarian") and the speaker is not part of it ("My wife and I love Thai food"
/// is the speaker's too), or with a name and a verb of taste or opinion in the third person
/// ("Jenny reckons the new Aldi is cheaper", "Tom loves that station").
pub fn about_someone_else(sentence: &str) -> bool {
    let words: Vec<String> = super::spans::token_words(sentence)
        .into_iter()
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
        return verb.is_some_and(|v| third_person_verb(v));
    }
    // "Jenny reckons ...", "Tom loves ...": a capitalised word that is no pronoun, then a verb
    // of taste or opinion in the third person singular, which neither "I" nor an imperative
    // takes.
    let raw: Vec<&str> = sentence.split_whitespace().collect();
    if let (Some(first), Some(verb)) = (raw.get(i), words.get(i + 1)) {
        let named = first.chars().next().is_some_and(char::is_uppercase)
            && first.chars().all(|c| c.is_alphabetic() || c == '-')
            && !NOT_PEOPLE.contains(&words[i].as_str())
            && !DETERMINERS.contains(&words[i].as_str())
            && words[i] != "i";
        // Not "does", "keeps", "finds": "Jazz does it for me", "Coffee keeps me awake".
        let taste = matches!(
            verb.as_str(),
            "wants" | "likes" | "loves" | "prefers" | "hates" | "dislikes" | "enjoys" | "adores"
        );
        if named && (taste || OPINION_VERBS.contains(&verb.as_str())) {
            return true;
        }
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
    // "My brother-in-law swears by Costco gas": a relative by marriage is one of the others.
    let bare = bare.strip_suffix("-in-law").unwrap_or(bare);
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

/// A verb of taste or opinion in the third person singular ("loves", "reckons").
fn third_person_verb(word: &str) -> bool {
    TASTE_VERBS.contains(&word) || OPINION_VERBS.contains(&word)
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
        assert!(about_someone_else(
            "Jenny reckons the new Aldi is cheaper than Tesco."
        ));
        assert!(about_someone_else("Tom loves that station."));
        assert!(about_someone_else("She says the seats are too hard."));
        // Relatives by marriage, friends by another word.
        assert!(about_someone_else("My sister-in-law won't eat meat."));
        assert!(about_someone_else("Our flatmate only drinks oat milk."));
        assert!(!about_someone_else("My mate and I always stop at Greggs."));
        assert!(!about_someone_else("Jazz is my favourite."));
        assert!(!about_someone_else("It keeps the cabin cool."));
        assert!(!about_someone_else("Jazz does it for me."));
        assert!(!about_someone_else("Play something Tom likes."));
        assert!(!about_someone_else("My wife and I love Thai food."));
        assert!(!about_someone_else("I love Thai food, my wife does too."));
        assert!(!about_someone_else("My favourite is Thai."));
        assert!(!about_someone_else(
            "Put on the kids' playlist, I like it too."
        ));
    }
}
