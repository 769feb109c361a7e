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
    "twins",
    "missus",
    "hubby",
    "teenager",
    "teenagers",
    "toddler",
    "stepson",
    "stepdaughter",
    "girls",
    "boys",
    "lads",
    "grandparents",
    "grandchildren",
    "guests",
];
/// Verbs by which "he" or "she" has a taste of their own.
const TASTE_VERBS: &[&str] = &[
    "wants", "likes", "loves", "prefers", "needs", "hates", "dislikes", "enjoys", "adores",
    "can't", "doesn't", "does", "finds", "keeps", "listens", "eats", "drinks", "watches",
];
/// Verbs by which someone named has a taste of their own ("Dad only listens to Classic FM");
/// not "does", "keeps" or "finds", which a thing does too ("Jazz does it for me").
const NAMED_TASTE: &[&str] = &[
    "wants", "likes", "loves", "prefers", "hates", "dislikes", "enjoys", "adores", "listens",
    "eats", "drinks", "watches",
];
/// Words of how often or how much between a subject and its verb ("Dad only listens to ...",
/// "She never eats ...").
const FREQUENCY: &[&str] = &[
    "also",
    "always",
    "usually",
    "really",
    "just",
    "only",
    "never",
    "still",
    "literally",
    "basically",
    "totally",
    "absolutely",
    "normally",
    "mostly",
];
/// Verbs by which someone else's opinion is reported ("Jenny reckons the new Aldi is cheaper").
const OPINION_VERBS: &[&str] = &[
    "reckons", "thinks", "says", "said", "swears", "insists", "believes", "claims",
];
/// Third persons that are no one in the car ("It keeps the cabin cool", "That does it").
const NOT_PEOPLE: &[&str] = &[
    "it", "this", "that", "what", "which", "who", "there", "here",
];
/// What only a person is, said of someone after "is" or "are" ("Jess is vegan", "They're
/// obsessed with the Bluey soundtrack"): a diet, an allergy, a passion. "Jazz is my
/// favourite" says what the speaker likes, not what jazz is.
const PERSON_STATES: &[&str] = &[
    "vegan",
    "vegetarian",
    "veggie",
    "pescatarian",
    "allergic",
    "intolerant",
    "coeliac",
    "celiac",
    "diabetic",
    "lactose",
    "gluten-free",
    "dairy-free",
    "halal",
    "kosher",
    "obsessed",
    "into",
    "addicted",
    "fan",
    "fans",
];
/// What a person is only with what it is about ("mad about", "keen on"): "Italian is crazy
/// good" says nothing of a person.
const PERSON_STATES_OF: &[(&str, &[&str])] = &[
    ("crazy", &["about"]),
    ("mad", &["about", "on", "for"]),
    ("keen", &["on"]),
    ("fond", &["of"]),
    ("hooked", &["on"]),
];
/// Words between "is" or "are" and what the person is ("She's a really big fan", "They're
/// both strictly vegetarian").
const DEGREE: &[&str] = &[
    "a",
    "really",
    "so",
    "totally",
    "completely",
    "absolutely",
    "strictly",
    "very",
    "big",
    "huge",
    "massive",
    "such",
    "all",
    "both",
    "still",
    "now",
    "properly",
    "super",
    "quite",
    "pretty",
    "severely",
    "deathly",
    "seriously",
    "always",
    "also",
    "just",
];
/// Verbs by which "they" have a taste of their own ("They love that station"); after "can't",
/// "won't" or "don't" only a verb of eating or bearing ("They won't eat fish"), since "They
/// don't take cards" is said of a shop.
const THEIR_TASTE: &[&str] = &[
    "want", "like", "love", "prefer", "need", "hate", "dislike", "enjoy", "adore", "listen",
];
const BEARING: &[&str] = &["eat", "stand", "drink", "touch", "tolerate", "handle"];

/// What opens a noun phrase naming one of [`OTHERS`].
const DETERMINERS: &[&str] = &["my", "our", "the", "his", "her", "their"];

/// Whether the sentence's subject is someone other than the speaker: it opens (after "and",
/// "but", "so", "well", "oh") with "he" or "she" and a verb of taste, or with one of
/// [`OTHERS`] behind a determiner, or with their
/// possessive ("My wife loves Thai food", "The kids keep asking for Taylor Swift", "My
/// colleague's vegetarian") and the speaker is not part of it ("My wife and I love Thai food"
/// is the speaker's too), or with a name and a verb of taste or opinion in the third person
/// ("Jenny reckons the new Aldi is cheaper", "Tom loves that station"; a word of how often or
/// where the person is from may come between: "Dad only listens to Classic FM", "Mike from
/// work swears by Ampol"); or a later clause is about someone else and the speaker is in no
/// part of the sentence ("Put Radio Mirchi on, Dad wants his old Bollywood songs").
pub fn about_someone_else(sentence: &str) -> bool {
    let words = super::spans::words(sentence);
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
        let verb = words[i + 1..]
            .iter()
            .find(|w| !FREQUENCY.contains(&w.as_str()));
        return verb.is_some_and(|v| third_person_verb(v));
    }
    // "She's mad about Italian food", "He's vegetarian"; not "She's my favourite artist".
    if words
        .get(i)
        .is_some_and(|w| matches!(w.as_str(), "he's" | "she's"))
    {
        return is_a_person_state(&words[i + 1..]);
    }
    // "They love that station", "They're obsessed with the Bluey soundtrack"; not "They're my
    // favourite band", where "they" is what the speaker likes, nor "They don't take cards".
    match words.get(i).map(String::as_str) {
        Some("they're") => return is_a_person_state(&words[i + 1..]),
        Some("they") => {
            let rest = skip_frequency(skip_degree(&words[i + 1..]));
            return match rest.first().map(String::as_str) {
                Some("are" | "were") => is_a_person_state(&rest[1..]),
                Some("can't" | "won't" | "don't" | "cannot") => {
                    rest.get(1).is_some_and(|v| BEARING.contains(&v.as_str()))
                }
                Some(v) => THEIR_TASTE.contains(&v),
                None => false,
            };
        }
        _ => {}
    }
    // "Jenny reckons ...", "Tom loves ...": a capitalised word that is no pronoun, then a verb
    // of taste or opinion in the third person singular, which neither "I" nor an imperative
    // takes.
    // As written, one for each of `words`.
    let raw = super::spans::raw_words(sentence);
    let after_name = words
        .get(i + 1..)
        .map(|w| skip_frequency(skip_where_from(w)))
        .unwrap_or_default();
    if let (Some(first), Some(verb)) = (raw.get(i), after_name.first()) {
        let named = person_name(first);
        // Not "does", "keeps", "finds" alone: "Jazz does it for me", "Coffee keeps me awake";
        // but "keeps" doing something is someone's ("Tom keeps banging on about Lidl").
        let taste = NAMED_TASTE.contains(&verb.as_str())
            || verb == "keeps" && after_name.get(1).is_some_and(|w| w.ends_with("ing"));
        if named && (taste || OPINION_VERBS.contains(&verb.as_str())) {
            return true;
        }
        // "Jess is vegan", "Priya can't eat gluten": what only a person is, or can't bear.
        let person = named
            && match verb.as_str() {
                "is" => is_a_person_state(&words[i + 2..]),
                "can't" | "won't" | "doesn't" | "cannot" => words
                    .get(i + 2)
                    .is_some_and(|v| BEARING.contains(&v.as_str())),
                _ => false,
            };
        if person {
            return true;
        }
    }
    // "Sam's allergic to nuts": a name and "'s", then what only a person is.
    if let Some(first) = raw.get(i) {
        let t = first.trim_end_matches(|c: char| !c.is_alphanumeric());
        let name = crate::memory::values::without_s(t);
        let named = name.is_some_and(person_name);
        if named && is_a_person_state(&words[i + 1..]) {
            return true;
        }
    }
    others_at(&words, i) || later_clause_about_someone_else(sentence, &words)
}

/// Whether a clause after a comma, a semicolon or "and" is about someone else while the
/// speaker is in no part of the sentence ("Put Radio Mirchi on, Dad wants his old Bollywood
/// songs", "It's my wife's birthday and she's mad about Italian food"; not
/// "I love Thai food, my wife does too", "We love buffets, the kids can pick whatever they
/// want", "... need a café for me, the kids have to eat").
fn later_clause_about_someone_else(sentence: &str, words: &[String]) -> bool {
    const SPEAKER: &[&str] = &[
        "me",
        "myself",
        "we",
        "we're",
        "we've",
        "we'd",
        "we'll",
        "us",
        "ourselves",
    ];
    let speaker = |w: &String| FIRST_PERSON.contains(&w.as_str()) || SPEAKER.contains(&w.as_str());
    if words.iter().any(speaker) {
        return false;
    }
    let mut clauses = sentence.split([',', ';']).flat_map(|c| c.split(" and "));
    clauses.next();
    clauses.any(|c| !c.trim().is_empty() && about_someone_else(c))
}

/// Whether the words at `k` name others, not the speaker: a determiner and one of [`OTHERS`]
/// (possessive or not; "My brother-in-law swears by Costco gas": a relative by marriage is one
/// of the others), not followed by "and I" / "and me" ("My wife and I", "my son and me": the
/// speaker is in it).
fn others_at(words: &[String], k: usize) -> bool {
    let at = |k: usize| words.get(k).map_or("", String::as_str);
    let noun = at(k + 1);
    let bare = noun
        .strip_suffix("'s")
        .or_else(|| noun.strip_suffix('\''))
        .unwrap_or(noun);
    let bare = bare.strip_suffix("-in-law").unwrap_or(bare);
    let with_me = at(k + 2) == "and" && matches!(at(k + 3), "i" | "me" | "myself");
    // "A friend keeps telling me to give it a go", "A mate of mine swears by Ampol": behind
    // "a", only someone the speaker knows (not "A family restaurant", "A kids' menu").
    let known = matches!(at(k), "a" | "an") && ACQUAINTANCES.contains(&bare);
    (DETERMINERS.contains(&at(k)) && OTHERS.contains(&bare) || known) && !with_me
}

/// Of [`OTHERS`], those said behind "a" as someone the speaker knows ("a friend", "a
/// colleague").
const ACQUAINTANCES: &[&str] = &[
    "friend",
    "colleague",
    "coworker",
    "workmate",
    "mate",
    "neighbour",
    "neighbor",
    "buddy",
    "pal",
    "cousin",
    "flatmate",
    "roommate",
    "housemate",
];

/// Words by which a speaker says something of their own: "I love ...", "I'm ...", "I'd ...".
const FIRST_PERSON: &[&str] = &["i", "i'm", "i've", "i'd", "i'll", "im"];

/// Whether the sentence asks for something for someone else and says nothing of the speaker's
/// own: it has "for him", "for her" closing its clause (or before "as well", "too", "please",
/// "also"), or "for" one of [`OTHERS`] behind a determiner ("for the kids", "for my wife's
/// side"; not "for my wife and me"), and no first-person subject ([`FIRST_PERSON`]). "Can you
/// switch them to pink for her?" and "Seat heater on for him as well" set something for a
/// passenger: neither tells the car what the speaker likes, nor whose taste it is. "I keep it
/// at 20 for the kids" is said of the speaker's own habit and is left to the gate.
pub fn for_someone_else(sentence: &str) -> bool {
    // As written, one for each of `words`.
    let raw = super::spans::raw_words(sentence);
    let words: Vec<String> = raw.iter().map(|w| super::spans::token_word(w)).collect();
    if words.iter().any(|w| FIRST_PERSON.contains(&w.as_str())) {
        return false;
    }
    let at = |k: usize| words.get(k).map_or("", String::as_str);
    // The word at `k` closes its clause: the last word, or one followed by a mark.
    let closes = |k: usize| {
        k + 1 == raw.len()
            || raw[k]
                .chars()
                .last()
                .is_some_and(|c| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}')
    };
    (0..words.len()).filter(|&k| at(k) == "for").any(|k| {
        let pronoun = at(k + 1) == "him"
            || at(k + 1) == "her"
                && (closes(k + 1) || matches!(at(k + 2), "as" | "too" | "please" | "also"));
        pronoun || others_at(&words, k + 1)
    })
}

/// Whether a word as written can be a person's name: capitalised, letters and hyphens only, and
/// no pronoun or other word of [`NOT_PEOPLE`], no determiner, not "I" ("Jenny", "Anne-Marie").
fn person_name(word: &str) -> bool {
    let lower = word.to_lowercase();
    word.chars().next().is_some_and(char::is_uppercase)
        && word.chars().all(|c| c.is_alphabetic() || c == '-')
        && !NOT_PEOPLE.contains(&lower.as_str())
        && !DETERMINERS.contains(&lower.as_str())
        && lower != "i"
}

/// Words past a short phrase saying where someone is from or sits, as "from", "at" or "in"
/// and one to three more words before a verb of taste or opinion ("Mike from work swears by
/// Ampol", "Priya at the office reckons ...", "Jacko in the back reckons ...", "Mum in the
/// passenger seat thinks ..."); else the words as they are.
fn skip_where_from(words: &[String]) -> &[String] {
    if !matches!(
        words.first().map(String::as_str),
        Some("from" | "at" | "in")
    ) {
        return words;
    }
    (2..=4)
        .find(|&n| {
            words.get(n).is_some_and(|v| {
                NAMED_TASTE.contains(&v.as_str()) || OPINION_VERBS.contains(&v.as_str())
            })
        })
        .map_or(words, |n| &words[n..])
}

/// Words past any of [`FREQUENCY`].
fn skip_frequency(words: &[String]) -> &[String] {
    skip_any(words, FREQUENCY)
}

/// Words past any of [`DEGREE`].
fn skip_degree(words: &[String]) -> &[String] {
    skip_any(words, DEGREE)
}

/// Words past any of `these`.
fn skip_any<'a>(words: &'a [String], these: &[&str]) -> &'a [String] {
    let n = words
        .iter()
        .take_while(|w| these.contains(&w.as_str()))
        .count();
    &words[n..]
}

/// Whether the words, past any of [`DEGREE`], open with what only a person is
/// ([`PERSON_STATES`]).
fn is_a_person_state(words: &[String]) -> bool {
    let rest = skip_degree(words);
    let Some(state) = rest.first().map(String::as_str) else {
        return false;
    };
    PERSON_STATES.contains(&state)
        || PERSON_STATES_OF
            .iter()
            .any(|(w, of)| *w == state && rest.get(1).is_some_and(|p| of.contains(&p.as_str())))
}

/// A verb of taste or opinion in the third person singular ("loves", "reckons").
fn third_person_verb(word: &str) -> bool {
    TASTE_VERBS.contains(&word) || OPINION_VERBS.contains(&word)
}

#[cfg(test)]
mod tests {
    use super::{about_someone_else, for_someone_else};

    #[test]
    fn a_request_made_for_someone_else_is_not_the_speakers_preference() {
        for r in [
            "Could you turn the rear fan up for her?",
            "Heated seat on for him too.",
            "Stick some cartoons on for the kids.",
            "Can you put the massage on for my mum, she's got a bad back.",
            "Warm up the passenger side for my wife's sake.",
            "Put the lights on blue for her, please.",
        ] {
            assert!(for_someone_else(r), "{r}");
        }
        for r in [
            "I always keep it at 20 for the kids.",
            "Set it to 21 for my husband and me.",
            "Play something for her birthday party playlist vibe.",
            "Find a place for lunch.",
            "Put on the kids' playlist.",
            "Book a table for four.",
            "I'd go for her recommendation every time.",
        ] {
            assert!(!for_someone_else(r), "{r}");
        }
    }

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
        // Where the person sits may come between the name and the verb.
        assert!(about_someone_else(
            "Jacko in the back reckons Hungry Jack's beats Macca's any day."
        ));
        assert!(about_someone_else(
            "Mum in the passenger seat thinks it's too cold."
        ));
        assert!(!about_someone_else("Jazz in the evening is what I like."));
        // Someone the speaker knows, behind "a".
        assert!(about_someone_else(
            "A friend keeps telling me to give it a go."
        ));
        assert!(about_someone_else("A mate of mine swears by Ampol."));
        assert!(!about_someone_else("A family restaurant is what we like."));
        assert!(!about_someone_else("A friend and I always stop at Greggs."));
        // Those known behind "a" are of the others.
        assert!(super::ACQUAINTANCES
            .iter()
            .all(|w| super::OTHERS.contains(w)));
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
        // A name or "they" said to be what only a person is, or to have a taste.
        assert!(about_someone_else(
            "Priya is strictly vegetarian, so no steakhouses."
        ));
        assert!(about_someone_else("Sam's allergic to nuts."));
        // A dash on its own before the name is no word.
        assert!(about_someone_else("Oh - Marco loves that station."));
        assert!(about_someone_else("And - Sam's allergic to nuts."));
        assert!(about_someone_else("Marco can't eat gluten."));
        assert!(about_someone_else(
            "They're obsessed with that cartoon's theme tune."
        ));
        assert!(about_someone_else("They both love country music."));
        assert!(about_someone_else("And they won't eat anything spicy."));
        assert!(about_someone_else("The twins keep asking for McDonald's."));
        assert!(!about_someone_else("They're my favourite band."));
        assert!(!about_someone_else("They don't take cards there."));
        assert!(!about_someone_else("They do the best flat white in town."));
        assert!(!about_someone_else("Jazz is what I put on most days."));
        assert!(!about_someone_else("Shell's always cheaper round here."));
        assert!(!about_someone_else("Lidl is where we do the big shop."));
        assert!(!about_someone_else("I'm vegan."));
        assert!(!about_someone_else("Italian is crazy good."));
        assert!(about_someone_else("Dev is mad about cricket commentary."));
        // "he's" / "she's" and what only a person is; a clause after "and", speaker absent.
        assert!(!about_someone_else(
            "We're picking up my dad and he's really into jazz."
        ));
        assert!(about_someone_else(
            "It's my brother's stag do and he's mad about curry."
        ));
        assert!(!about_someone_else("She's my favourite singer."));
        assert!(!about_someone_else("I love jazz and she's into it too."));
        assert!(!about_someone_else("I'm a huge fan of Radio 4."));
        assert!(!about_someone_else("I love Thai food, my wife does too."));
        assert!(!about_someone_else("My favourite is Thai."));
        assert!(!about_someone_else(
            "Put on the kids' playlist, I like it too."
        ));
        // How often between a name and its verb; a name that keeps doing something; a later
        // clause about someone else when the speaker is in no part of the sentence; where the
        // person is from; more words for people.
        for r in [
            "Grandpa only listens to the cricket.",
            "She never eats anything spicy.",
            "They usually listen to Radio 1.",
            "Ana keeps asking for the Frozen songs.",
            "Stick the cartoons channel on, Leo loves it.",
            "Sofia from next door swears by Aldi.",
            "The girls in the back are mad on Bluey.",
        ] {
            assert!(about_someone_else(r), "{r}");
        }
        for r in [
            "Coffee keeps me awake.",
            "Heart only plays the hits.",
            "Put Heart on, I listen to it every day, Sam likes it too.",
            "Find a Tesco, the big one.",
            "Shell at the roundabout is the cheapest.",
            "We love a curry house, the kids can have something mild.",
            "Stops need a playground for me, the kids get restless.",
        ] {
            assert!(!about_someone_else(r), "{r}");
        }
    }
}
