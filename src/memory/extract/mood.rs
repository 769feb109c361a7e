//! What a sentence does besides stating: "If we drove to Italy this summer, would I need a
//! vignette?" supposes a situation and asks about it; it states no preference, however close its
//! words come to one ("What if I put premium in instead of regular?" is no fuel preference).
//! Nor does a wish its speaker limits to the moment ("Make the lights red, just for tonight").

use super::spans::{token_word, words};

/// Words that open a supposition: "if", "what if", "suppose", "supposing", "imagine", "say" (not
/// "say," as a call for attention: "Say, could you put on some jazz?").
const SUPPOSING: &[&str] = &["if", "suppose", "supposing", "imagine", "say"];

/// Whether the sentence is a question about a supposed situation: it ends with a question mark
/// and opens (after "and", "but", "so", "or") with a supposition ([`SUPPOSING`], "what if",
/// "hypothetically", "theoretically", "in theory").
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
    // "Hypothetically, if I ...?", "In theory, could I ...?": said of a supposed case.
    if matches!(opener.as_str(), "hypothetically" | "theoretically")
        || opener == "in" && words.get(i + 1).is_some_and(|w| bare(w) == "theory")
    {
        return true;
    }
    if opener == "what" {
        return words.get(i + 1).is_some_and(|w| bare(w) == "if");
    }
    // "Say," / "Imagine," call for attention; "Say I wanted to ..." supposes.
    SUPPOSING.contains(&opener.as_str()) && !first.ends_with(',')
}

/// Openings by which a question asks for something to be done ("Could you set the seat massage
/// to level 2?"), not for an answer.
const ASKING_FOR: &[&[&str]] = &[
    &["can", "you"],
    &["could", "you"],
    &["would", "you"],
    &["can", "we"],
    &["could", "we"],
    &["mind", "if"],
    &["do", "you", "mind"],
    &["would", "you", "mind"],
];
/// Verbs after which such an opening asks for an answer after all ("Can you tell me ...",
/// "Would you be open to ...", "Would you prefer ...").
const ANSWERING: &[&str] = &[
    "be", "tell", "explain", "believe", "imagine", "prefer", "like",
];

/// Whether a question is a request: its last clause (after a comma or a dash: "Jack, could
/// you change the airflow?", "Hey John, mind if I mute the navigation voice?") opens, after
/// "and", "but", "so", "please", "actually", "hey", with a request ([`ASKING_FOR`]) whose
/// next word is no verb of answering ([`ANSWERING`]). A driver asks a car politely; "Is 84
/// the optimal setting?" asks for an answer and sets nothing.
pub fn requests(sentence: &str) -> bool {
    let s = sentence.trim();
    if !s.ends_with('?') {
        return false;
    }
    let last = s.rsplit([',', '—', '–', ';']).next().unwrap_or(s);
    let words: Vec<String> = last
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let mut i = 0;
    while words.get(i).is_some_and(|w| {
        matches!(
            w.as_str(),
            "and" | "but" | "so" | "please" | "actually" | "hey"
        )
    }) {
        i += 1;
    }
    opens_request(&words[i.min(words.len())..])
}

/// How many words the request in a question's form that `words` open with takes
/// ([`ASKING_FOR`], the first listed that matches: "can you"), 0 when they open with none.
pub(super) fn asking_for(words: &[String]) -> usize {
    ASKING_FOR
        .iter()
        .find(|p| words.get(..p.len()).is_some_and(|w| w == **p))
        .map_or(0, |p| p.len())
}

/// Whether words open a request ([`asking_for`]) whose next word is no verb of answering
/// ([`ANSWERING`]).
fn opens_request(words: &[String]) -> bool {
    let n = asking_for(words);
    n > 0
        && words
            .get(n)
            .is_some_and(|next| !ANSWERING.contains(&next.as_str()))
}

/// Auxiliaries and modals, which open a question when put before its subject ("Is there ...",
/// "Can I ...", "Does it ...").
#[rustfmt::skip]
const AUXILIARIES: &[&str] = &[
    "is", "are", "am", "was", "were", "isn't", "aren't", "wasn't",
    "do", "does", "did", "don't", "doesn't", "didn't",
    "can", "could", "can't", "couldn't", "will", "would", "won't", "wouldn't",
    "shall", "should", "shouldn't", "may", "might", "must",
    "have", "has", "had", "haven't", "hasn't",
];

/// Question words.
#[rustfmt::skip]
const QUESTION_WORDS: &[&str] = &[
    "what", "what's", "which", "where", "where's", "when", "when's", "who", "who's", "whose",
    "whom", "why", "how", "how's",
];

/// Words a speaker opens a sentence with before what it does ("Okay, is there ...", "And
/// which one ...").
const OPENERS: &[&str] = &[
    "and", "but", "so", "or", "oh", "ok", "okay", "also", "then", "well", "hey", "um", "uh",
    "actually", "yes", "yeah", "no", "right", "alright", "great", "perfect", "thanks", "hmm",
    "now", "sorry", "please", "just",
];

/// Whether the sentence is a question that asks for an answer: it ends with a question mark,
/// its first clause opens (after [`OPENERS`] and a name called by, "Jack, ...") with an
/// auxiliary before its subject ([`AUXILIARIES`]) or a question word ([`QUESTION_WORDS`];
/// "when" and "where" only before an auxiliary), as in "Is there a good Thai place near the
/// theatre?", "Can I pay by card there?", "Which one takes cash?", and it is no request in a
/// question's form ([`requests`]: "Could you set 21?"; nor, in its first clause, "Can you make
/// sure ..., as I don't like it?", "Is there a way to ...", "Would it be possible to ..."). It
/// asks what is so; it states nothing the speaker likes. A sentence that states first and asks
/// after ("I love sushi, is there a place nearby?") opens with its statement and is no such
/// question.
pub fn asks(sentence: &str) -> bool {
    let s = sentence.trim().replace('\u{2019}', "'");
    if !s.ends_with('?') || requests(&s) {
        return false;
    }
    let words: Vec<&str> = s.split_whitespace().collect();
    let mut i = 0;
    while let Some(w) = words.get(i) {
        let b = token_word(w);
        // An opener, or a name called by before a comma ("Jack, is it far?").
        let called = i == 0
            && w.ends_with(',')
            && w.chars().next().is_some_and(char::is_uppercase)
            && !AUXILIARIES.contains(&b.as_str())
            && !QUESTION_WORDS.contains(&b.as_str());
        if OPENERS.contains(&b.as_str()) || called {
            i += 1;
        } else {
            break;
        }
    }
    let from: Vec<String> = words[i.min(words.len())..]
        .iter()
        .map(|w| token_word(w))
        .collect();
    let at = |k: usize| from.get(k).map_or("", String::as_str);
    // A request in the first clause ("Can you make sure the seat never gets hot, as I don't
    // like it?"), or one put as a question of what is possible ("Is there a way to avoid
    // tolls?", "Would it be possible to keep the fan low?").
    let request = opens_request(&from)
        || (matches!(at(0), "is" | "would" | "will")
            && at(1) == "it"
            && matches!(at(2), "possible" | "be"))
        || (at(0) == "is" && at(1) == "there" && matches!(at(2), "a" | "any") && at(3) == "way");
    // "When" and "where" also open a clause that states ("When I'm driving at night, ...?"):
    // they ask only before an auxiliary ("When does it open?").
    let opens = match at(0) {
        "when" | "where" => AUXILIARIES.contains(&at(1)),
        w => AUXILIARIES.contains(&w) || QUESTION_WORDS.contains(&w),
    };
    !request && opens
}

/// Whether the sentence asks to be reminded: it opens (after [`OPENERS`] and a request's
/// opening, "Can you ...") with "remind me" or "remind us", "set (me) a reminder",
/// "add a reminder" or "don't let me forget". What a reminder holds is a task for later, not
/// what the speaker likes, however close its words come to a preference ("Remind me to pick up
/// oat milk from Aldi" is no supermarket of theirs); "Old school country is the best, remind me
/// of that" states first.
pub fn reminds(sentence: &str) -> bool {
    let words = words(sentence);
    let mut i = words
        .iter()
        .take_while(|w| OPENERS.contains(&w.as_str()))
        .count();
    i += asking_for(&words[i..]);
    let at = |k: usize| words.get(i + k).map_or("", String::as_str);
    let me = |w: &str| matches!(w, "me" | "us");
    // Not "make a note": "Make a note that I'm vegetarian" asks the car to remember.
    let reminder = |k: usize| at(k) == "a" && at(k + 1) == "reminder";
    (at(0) == "remind" && me(at(1)))
        || (matches!(at(0), "set" | "add" | "make" | "create")
            && (reminder(1) || me(at(1)) && reminder(2)))
        || (matches!(at(0), "don't" | "dont") && at(1) == "let" && me(at(2)) && at(3) == "forget")
        || when_then_remind(&words[i..])
}

/// Whether a sentence that opens with a clause of when ("When I get to Whole Foods, ...",
/// "Next time I'm near a No Frills ...", "After I eat, ...", "Once we're home ...") then asks
/// to be reminded ("remind me to ...", not "remind me of ..."): the task waits for the moment
/// the first clause names.
fn when_then_remind(words: &[String]) -> bool {
    let at = |k: usize| words.get(k).map_or("", String::as_str);
    let when = matches!(
        at(0),
        "when" | "whenever" | "once" | "after" | "before" | "while"
    ) || at(0) == "next" && at(1) == "time"
        || at(0) == "as" && at(1) == "soon" && at(2) == "as";
    when && (1..words.len())
        .any(|k| at(k) == "remind" && matches!(at(k + 1), "me" | "us") && at(k + 2) != "of")
}

/// Whether the sentence tells only what its speaker did once: "I used to listen to a lot of
/// punk as a teenager" (or "we", with "always", "really", "often" between; not "never", which
/// sets the present against the past), with no word that
/// brings it to now ("now", "nowadays", "these days", "still", "anymore", "any more", "no
/// longer", "since") and no "but" turning to another clause. A past habit is no preference;
/// "I used to love jazz but now ..." and "I used to eat meat, not anymore" say what is, and
/// "I'm used to paying by card" is a habit of now.
pub fn looks_back(sentence: &str) -> bool {
    let words = words(sentence);
    let at = |k: usize| words.get(k).map_or("", String::as_str);
    const NOW: &[&str] = &[
        "now",
        "nowadays",
        "these",
        "still",
        "anymore",
        "any",
        "longer",
        "since",
        "but",
        "currently",
        "today",
    ];
    if words.iter().any(|w| NOW.contains(&w.as_str())) {
        return false;
    }
    (0..words.len())
        .filter(|&i| matches!(at(i), "i" | "we"))
        .any(|i| {
            let between = words[i + 1..]
                .iter()
                .take_while(|w| matches!(w.as_str(), "always" | "really" | "often" | "all"))
                .count();
            at(i + 1 + between) == "used" && at(i + 2 + between) == "to"
        })
}

/// Occasions "this" and "for this" limit a wish to: a trip ("just for this drive", "for this
/// trip") and a part of today ("this evening").
const TRIPS: &[&str] = &["trip", "drive", "ride", "journey"];
const PARTS_OF_DAY: &[&str] = &["morning", "afternoon", "evening"];

/// Whether the sentence limits what it asks to this moment: "just for tonight", "just for this
/// drive", "only this time" (or "this time" closing a clause), "just this once", or "for a
/// sec" / "for a minute" closing a clause ("Switch over to BBC Radio 2 for a sec, I want the
/// travel news"; not "I can't be offline even for a minute", nor "for a second opinion"). A
/// lasting preference is not said with an end date; a time of day said as a condition ("at
/// night", "in the mornings") is no limit.
pub fn only_now(sentence: &str) -> bool {
    let lower = sentence.to_lowercase().replace('\u{2019}', "'");
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let bare = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string();
    let b: Vec<String> = words.iter().map(|w| bare(w)).collect();
    let at = |i: usize| b.get(i).map_or("", String::as_str);
    const OCCASIONS: &[&str] = &["now", "today", "tonight", "once"];
    // "this drive", "this morning", "this time", "this once"
    let this =
        |w: &str| TRIPS.contains(&w) || PARTS_OF_DAY.contains(&w) || matches!(w, "time" | "once");
    for i in 0..b.len() {
        // "just for tonight", "only for today", "just for this drive"
        if matches!(at(i), "just" | "only")
            && at(i + 1) == "for"
            && (OCCASIONS.contains(&at(i + 2)) || at(i + 2) == "this" && this(at(i + 3)))
        {
            return true;
        }
        // "just this once", "only this time", "this one time"
        if matches!(at(i), "just" | "only") && at(i + 1) == "this" && this(at(i + 2)) {
            return true;
        }
        if at(i) == "this" && at(i + 1) == "one" && at(i + 2) == "time" {
            return true;
        }
        // "Skip the toll road this time, ...": "this time" closing its clause; not a time
        // of day ("around this time", "at this time", "by this time").
        if at(i) == "this"
            && at(i + 1) == "time"
            && (i + 2 == b.len() || words[i + 1].ends_with(|c: char| !c.is_alphanumeric()))
            && !matches!(
                at(i.wrapping_sub(1)),
                "around" | "at" | "by" | "about" | "until"
            )
        {
            return true;
        }
        // "for a sec" closing its clause, not after "even"
        if at(i) == "for"
            && at(i + 1) == "a"
            && matches!(at(i + 2), "sec" | "second" | "moment" | "minute")
            && (i == 0 || at(i - 1) != "even")
        {
            let closes = words[i + 2]
                .chars()
                .last()
                .is_some_and(|c| !c.is_alphanumeric())
                || i + 3 == b.len();
            if closes {
                return true;
            }
        }
    }
    false
}

/// Whether a clause says it holds for the present occasion only, in a way a request for now
/// says it and a preference does not: "for now", "for the moment", "for the time being",
/// "right now", "right about now", "for a bit", "today", "tonight", "this morning" (afternoon,
/// evening), "for the next ten minutes", "just till the windscreen clears", "for this trip"
/// (drive, journey, ride). "today or any other day" says always. Unlike [`only_now`], which
/// needs "just" or "only" and leaves the sentence able to say nothing lasting, such a clause
/// is a one-off request that extraction holds pending (`memory::extraction`'s lasting track):
/// CarMem counts "I could really go for some Mexican cuisine today" as a preference.
pub fn for_the_moment(clause: &str) -> bool {
    let b = words(clause);
    let at = |i: usize| b.get(i).map_or("", String::as_str);
    const SPANS: &[&str] = &["minutes", "minute", "hour", "hours", "mile", "miles", "bit"];
    (0..b.len()).any(|i| match at(i) {
        "today" | "tonight" => !(at(i + 1) == "or" && at(i + 2) == "any"),
        "now" => {
            matches!(at(i.wrapping_sub(1)), "for" | "right")
                || at(i.wrapping_sub(1)) == "about" && at(i.wrapping_sub(2)) == "right"
        }
        "this" => {
            PARTS_OF_DAY.contains(&at(i + 1))
                || at(i.wrapping_sub(1)) == "for" && TRIPS.contains(&at(i + 1))
        }
        "for" => {
            at(i + 1) == "a" && at(i + 2) == "bit"
                || at(i + 1) == "the"
                    && match at(i + 2) {
                        "moment" => true,
                        "time" => at(i + 3) == "being",
                        // "for the next ten minutes", "for the next bit"
                        "next" => SPANS.contains(&at(i + 3)) || SPANS.contains(&at(i + 4)),
                        _ => false,
                    }
        }
        "till" | "until" => matches!(at(i.wrapping_sub(1)), "just" | "only"),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::{asks, for_the_moment, looks_back, only_now, reminds, requests, supposes};

    #[test]
    fn a_past_habit_is_no_preference() {
        for r in [
            "I used to listen to a lot of punk as a teenager.",
            "We always used to stop at the Little Chef on the A1.",
        ] {
            assert!(looks_back(r), "{r}");
        }
        for r in [
            "I'm used to paying by card.",
            "I used to love jazz but now it's all podcasts.",
            "I used to eat meat, not anymore.",
            "I still listen to the punk I used to play.",
            "I've got used to the heated seat on high.",
            "I always stop at Greggs.",
            // Said to set the present against the past.
            "Funny, I never used to like country music.",
        ] {
            assert!(!looks_back(r), "{r}");
        }
    }

    #[test]
    fn a_reminder_holds_a_task_not_a_preference() {
        for r in [
            "Remind me to pick up oat milk from Aldi on the way back.",
            "Can you remind me to top up at the Esso before Friday?",
            "Oh, and set a reminder to book the vegan place for Saturday.",
            "Please set me a reminder for the dentist at four.",
            "Don't let me forget the charger cable.",
            "When I get to Whole Foods, remind me to grab some bread.",
            "Next time we pass a Shell remind us to check the tyres.",
            "After I eat, remind me to get gas, the tank is almost empty.",
        ] {
            assert!(reminds(r), "{r}");
        }
        for r in [
            "Old school country is the best, remind me of that.",
            "I always shop at Aldi, it reminds me of home.",
            "Set the temperature to 21.",
            "Let's go to the park first but remind me to use my card.",
            "Make a note that I'm vegetarian.",
            "When I'm tired, the music reminds me to keep going.",
            "When we drive to my mum's, it always reminds me of home.",
        ] {
            assert!(!reminds(r), "{r}");
        }
    }

    #[test]
    fn a_question_that_asks_for_something_to_be_done_is_a_request() {
        for q in [
            "Jack, could you change the airflow?",
            "Hey John, mind if I mute the navigation voice?",
            "Can you bump up the display?",
            "Actually, Patricia, do you mind switching it to that blue-green color?",
            "When I'm on a call, can you lower the nav volume to 10 so it doesn't interrupt?",
        ] {
            assert!(requests(q), "{q}");
        }
        for q in [
            "Is 84 the optimal setting?",
            "Can you tell me how long it takes?",
            "Would you be open to an interview?",
            "Would you prefer a feedback loop?",
            "Could you set the seat massage to level 2.",
            "What tech are they using for navigation?",
        ] {
            assert!(!requests(q), "{q}");
        }
    }

    #[test]
    fn a_wish_limited_to_the_moment_states_nothing_lasting() {
        assert!(only_now("Make the lights red, just for tonight."));
        assert!(only_now(
            "Switch over to BBC Radio 2 for a sec, I want to catch the travel news."
        ));
        assert!(only_now("Skip the motorway just this once."));
        assert!(only_now("Warmer please, only for this drive."));
        assert!(only_now("Blast the AC for a minute"));
        assert!(only_now(
            "Avoid the motorway this time, there's a crash near Leeds."
        ));
        assert!(only_now("let's skip the tolls this time"));
        assert!(!only_now("How busy is it usually around this time?"));
        assert!(!only_now(
            "This time of year I always want the seat heating on."
        ));
        assert!(!only_now(
            "I need a charging station with Wi-Fi, I can't be offline even for a minute."
        ));
        assert!(!only_now("Flag ambiguous cases for a second opinion."));
        assert!(!only_now("I like the lights dimmed at night."));
        assert!(!only_now("For now, find me a charger with a place to sit."));
        assert!(!only_now(
            "I always listen to jazz, just for the mood of it."
        ));
    }

    #[test]
    fn a_request_for_the_present_occasion_says_so() {
        for moment in [
            "Put BBC Radio 2 on for a bit",
            "Set it to 19 for now",
            "Make it 19 degrees for the next ten minutes",
            "I could murder a curry right now.",
            "I could really go for a maple dip from Tim Hortons right about now.",
            "Switch the ambient lights to pink for tonight",
            "I don't care which one today",
            "Keep the fan on three for the time being",
            "Whack the heating up to 24 just till the windscreen clears.",
            "Pick the scenic road for this trip",
            "I feel like sushi this evening.",
        ] {
            assert!(for_the_moment(moment), "{moment}");
        }
        for lasting in [
            "I don't want it, today or any other day",
            "We're vegetarian at home",
            "I always have the radio on at night",
            "Nowadays I only listen to podcasts.",
            "I've been into jazz for years now.",
            "This time of year I always want the seat heating on.",
            "I keep the heating on until I get home.",
            "Set it to 21, that's what I always like",
        ] {
            assert!(!for_the_moment(lasting), "{lasting}");
        }
    }

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
        assert!(supposes(
            "Hypothetically, if we went electric, where would I charge on the motorway?"
        ));
        assert!(supposes("In theory, could the car run on E10?"));
        assert!(!supposes(
            "In the mornings I want it at 19, can you remember that?"
        ));
    }

    #[test]
    fn a_question_that_asks_for_an_answer_states_nothing() {
        for q in [
            "Is there a good Thai place near the theatre?",
            "Can I pay by card there?",
            "Okay, which one takes cash?",
            "And does that place accept cash payments?",
            "Jack, is it far?",
            "When does the farmers' market open?",
            "What's the fastest way downtown?",
            "Can you tell me which chargers have a café?",
        ] {
            assert!(asks(q), "{q}");
        }
        for q in [
            // A request in a question's form.
            "Could you set the seat massage to level 2?",
            "Can we skip the toll road?",
            "Can you make sure my seat heater never gets hot, as I don't like it?",
            "Is there a way to avoid local markets when I shop?",
            "Would it be possible to keep the fan low?",
            // A statement first, a question after.
            "I love sushi, is there a place nearby?",
            "Hey, I'm allergic to seafood so can you find me a restaurant without it?",
            "Yes, but I prefer something upscale, maybe fine dining?",
            // No question.
            "Is that all I need to say.",
            "Any halal places around here?",
            "When it rains, I always want the wipers on auto?",
        ] {
            assert!(!asks(q), "{q}");
        }
    }
}
