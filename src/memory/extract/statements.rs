//! The statements of a conversation: its user sentences, except that a sentence giving a
//! setting a number without saying which setting ("Level 8 is good.", "Set it to 8.", "there,
//! 43 is a bit better.") stays with the sentence before it in the same turn, which says what
//! the number is for ("I like the steering wheel warm in the mornings.", "Let me just adjust
//! the foot support..."). Alone, such a sentence is placed by the company its number keeps:
//! MiniLM put "Level 2 is enough." (after "I meant just a little warmth.") nearest the massage
//! level, and "there, 43 is a bit better." nearest the navigation volume. Read together, the
//! two are one statement and one piece of evidence, in the speaker's words as said.
//!
//! The same holds the other way round: a sentence that states a habit without a number or a
//! setting of its own ("That's my sweet spot for driving.") stays with the sentence before it
//! when that one gives a number ("By the way, I need the seat backrest at 73 degrees
//! exactly."), so the evidence says the value is a habit (`memory::usual`).
//!
//! And in any schema, a sentence that refers back by a personal pronoun in its first clause
//! (or by one anywhere, when it states a habit) or opens with "That's", naming nothing itself
//! ("I always have it on high, my back's not what it was.", "It's where we do the weekly
//! shop."), stays with the sentence before it in its turn ("Oh, and the seat heater on high.",
//! "Stop at the Lidl on the way back."): alone, MiniLM cannot tell what "it" is, and the
//! sentence before alone is a request. Read together they are one
//! statement, and the gate judges the whole of it, request and remark alike. It joins even
//! where it says its category's word ("InstaVolt please. That's the network I normally use.":
//! alone, MiniLM read "network" as a news network), when the sentence before is a short answer
//! or pick or names the same setting, and unless it opens by adding something ("And knock the
//! fan down, I like it barely ticking over." after "Put 6 Music on": a second preference;
//! until stop 73 a sentence naming any setting stood alone). A sentence about someone else
//! that turns to the speaker's own with "but I" is two statements, each whose it is ("My
//! husband swears by Sam's Club, | but I do all my grocery shopping at H-E-B."). (Until stop 48
//! only a sentence that states a habit by a word of `memory::usual` joined so: measured in
//! docs/results.md, "A sentence that points back, read with the one before it".) Two
//! sentences that each give a number stay apart ("82 is too low. Let me bump it up to 84.":
//! the correction rule takes the later one), and a sentence that cannot say a preference of
//! the speaker's stays alone ("She loves them.", "Is it open?", "Remind me about it later.":
//! `extract::speakers_own`), where the checks that keep it out of the memory read it; joined,
//! they would read only the sentence before it.
//!
//! So does a sentence that names nothing after a name said alone, as an answer or a pick
//! ("Fleetwood Mac. Nobody comes close for me, never have.", "The Esso. That's where I fill
//! up."): the name alone states nothing and the sentence after it says nothing of what it is
//! about; read together they are one statement, naming its value (any schema).
//!
//! The number rules join only in a schema with integer settings (CarMem's has none), and a
//! sentence before that holds a number of its own is a statement of its own
//! ("82 is too low. Let me bump it up to 84.": the correction rule, `memory::correction`,
//! takes the later one). A sentence that names its setting by a word few settings share
//! ("ventilation") stands alone; one that names it only by words many share ("Set the seat
//! heating to 3.") is joined, which costs nothing: the sentence before adds words, not a
//! setting. So is one whose words name the settings of several devices alike: "Set
//! brightness to 8." is the HUD's, the overhead screen's or the panel's, and "Huh, the HUD is
//! too dim." before it says which (alone, MiniLM put it nearest the centre display).

use super::spans::{article, value_word};
use crate::conversation::{sentence_spans, Conversation, Role};
use crate::memory::{typed, values};
use crate::schema::{Detail, Schema, ValueKind};

/// One integer setting per distinct range: enough to ask whether a sentence names a number
/// any integer setting can hold.
fn ranges(schema: &Schema) -> Vec<&Detail> {
    let mut out: Vec<&Detail> = Vec::new();
    for d in schema.details() {
        if d.kind == ValueKind::Integer && !out.iter().any(|o| o.range == d.range) {
            out.push(d);
        }
    }
    out
}

/// The conversation's user statements in order (see the module doc): what extraction reads in
/// place of [`Conversation::user_sentences`]. Each is the speaker's text as said, so it is
/// found again in its turn.
pub fn statements(schema: &Schema, conversation: &Conversation, join_back: bool) -> Vec<String> {
    let integers = ranges(schema);
    let number = |s: &str| integers.iter().any(|d| !typed::named(d, s).is_empty());
    let mut out = Vec::new();
    for t in conversation.turns().iter().filter(|t| t.role == Role::User) {
        let text = t.text.as_str();
        let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
        let sentences = sentence_spans(text).into_iter().flat_map(|r| {
            // "My husband swears by Sam's Club, but I shop at H-E-B": two statements, the
            // other person's and the speaker's.
            match turns_to_own(&text[r.clone()]) {
                Some(at) => {
                    let own = text[r.start..r.start + at].trim_end().len();
                    vec![(r.start..r.start + own, false), (r.start + at..r.end, true)]
                }
                None => vec![(r, false)],
            }
        });
        for (r, turned) in sentences {
            let s = &text[r.clone()];
            // A clause turned to the speaker's own stays apart from the other person's.
            let joins = !turned
                && spans.last().is_some_and(|prev| {
                    let prev = &text[prev.clone()];
                    // Named by no word, or only by words the settings of several devices share
                    // alike ("Set brightness to 8.": the HUD's, the overhead screen's, ...).
                    let unnamed = !super::names_one_device(schema, s);
                    // "Level 8 is good." after "I like the steering wheel warm."
                    let number_for_prev = number(s) && !has_digit(prev) && !number(prev);
                    // "That's my sweet spot for driving." after "I need the backrest at 73."
                    // A question states no habit ("Why do these seats always go overboard?"
                    // after "Lowering it to 20—much better.").
                    let habit =
                        crate::memory::usual::states_habit(s) && !s.trim_end().ends_with('?');
                    let habit_of_prev = number(prev) && !has_digit(s) && habit;
                    // "I always have it on high." after "Oh, and the seat heater on high.": a
                    // sentence that points back says what the sentence before it is about, unless
                    // both give a number; "Nobody comes close for me." after "Fleetwood Mac.": a
                    // name said alone states nothing, what follows it is said of it. Either names
                    // nothing itself (any schema).
                    // Not a sentence that cannot say a preference of the speaker's ("She loves
                    // them.", "Is it open?"): joined, its sentence before would hide that.
                    let numeric = |t: &str| number(t) || has_digit(t);
                    let points_back = (habit && refers_to_prev(s))
                        || (join_back
                            && refers_to_prev(first_clause(s))
                            && !(numeric(s) && numeric(prev)));
                    let said_of_prev = (points_back || name_alone(prev, conversation))
                        && super::proper_names(s).is_empty()
                        && super::speakers_own(s);
                    // A remark said of the sentence before it joins it even where it names its
                    // category, when that sentence is a short answer or pick ("InstaVolt
                    // please. That's the network I normally use.") or names the same setting;
                    // not a remark that opens by adding something ("And knock the fan down, I
                    // like it barely ticking over." after "Put 6 Music on" is a second
                    // preference), nor one after a longer request ("Later, play something by
                    // The Cure. They've been my favourite band since school.": read together,
                    // "play something by" made it a song).
                    let answered = || short(prev) || same_setting(schema, prev, s);
                    (unnamed && (number_for_prev || habit_of_prev))
                        || (said_of_prev && (unnamed || (!adds(s) && answered())))
                });
            match spans.last_mut() {
                Some(prev) if joins => prev.end = r.end,
                _ => spans.push(r),
            }
        }
        out.extend(spans.into_iter().map(|r| text[r].to_string()));
    }
    out
}

/// Where a sentence about someone else ([`super::about_someone_else`]) turns to the speaker's
/// own with "but" and a first-person subject: the byte offset of that "but" ("My husband
/// swears by Sam's Club, but I do all my grocery shopping at H-E-B", "My daughter likes them
/// bright for reading, but I like it low"), else `None`. Read whole, the sentence is someone else's
/// and the speaker's own preference in it is lost; read apart, each clause is whose it is.
fn turns_to_own(s: &str) -> Option<usize> {
    const FIRST_PERSON: &[&str] = &["i", "i'm", "i've", "i'd", "i'll", "im", "me", "my"];
    const BY_THE_WAY: &[&str] = &["honestly", "personally", "me", "myself", "for", "then"];
    let lower = s.to_lowercase();
    let mut from = 0;
    while let Some(k) = lower[from..].find("but ").map(|k| from + k) {
        from = k + 4;
        let word_start = k == 0 || !lower[..k].ends_with(|c: char| c.is_alphanumeric());
        if !word_start || k == 0 {
            continue;
        }
        let after = super::spans::words(&s[k + 4..]);
        let own = after
            .iter()
            .find(|w| !BY_THE_WAY.contains(&w.as_str()))
            .is_some_and(|w| FIRST_PERSON.contains(&w.as_str()));
        let before = s[..k].trim_end_matches(|c: char| c == ',' || c == ';' || c.is_whitespace());
        if own && super::about_someone_else(before) {
            return Some(k);
        }
    }
    None
}

/// Whether a sentence is a short answer or pick: five words or fewer ("InstaVolt please.",
/// "Turn that fan down.", "Something science-y.").
fn short(s: &str) -> bool {
    super::spans::words(s).len() <= 5
}

/// Whether two sentences name one setting alike ([`super::spoken_names`]).
fn same_setting(schema: &Schema, a: &str, b: &str) -> bool {
    let theirs = super::spoken_names(schema, a);
    super::spoken_names(schema, b)
        .iter()
        .any(|d| theirs.contains(d))
}

/// Whether a sentence opens by adding something to what was said ("And ...", "Oh, and ...",
/// "Also ...", "Plus ...").
fn adds(s: &str) -> bool {
    let words: Vec<String> = s
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .take(2)
        .map(str::to_lowercase)
        .collect();
    let first = match words.as_slice() {
        [oh, next, ..] if oh == "oh" => next,
        [first, ..] => first,
        [] => return false,
    };
    matches!(first.as_str(), "and" | "also" | "plus")
}

/// A conversation's statements ([`statements`]) with, for each that opens its user turn, the
/// assistant turn just before it: what a remark opening a turn may point back to ("That's my
/// song." after "Now playing Mr. Brightside.", `referents`). Read as the statements' texts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Statements {
    texts: Vec<String>,
    before: Vec<Option<String>>,
}

impl Statements {
    /// `texts`, the statements of `conversation` in order, each found in its user turn as
    /// said, with the assistant turn before each that opens its turn.
    pub fn of(conversation: &Conversation, texts: Vec<String>) -> Statements {
        let turns = conversation.turns();
        let mut last = None;
        let before = user_turns(conversation, &texts)
            .into_iter()
            .map(|found| {
                let found = found?;
                let opens = last != Some(found);
                last = Some(found);
                let prev = &turns[found.checked_sub(1)?];
                (opens && prev.role == Role::Assistant).then(|| super::as_pointed_to(&prev.text))
            })
            .collect();
        Statements { texts, before }
    }

    /// For each statement, the assistant turn just before it when it opens its turn.
    pub fn before(&self) -> &[Option<String>] {
        &self.before
    }
}

/// The index in `conversation`'s turns of the user turn each of `statements` (in order) is
/// found in as said, each searched from the turn of the one before; `None` for one not found.
pub fn user_turns(conversation: &Conversation, statements: &[String]) -> Vec<Option<usize>> {
    let turns = conversation.turns();
    let mut at = 0usize;
    statements
        .iter()
        .map(|s| {
            let found = (at..turns.len())
                .find(|&i| turns[i].role == Role::User && turns[i].text.contains(s.as_str()))?;
            at = found;
            Some(found)
        })
        .collect()
}

/// Statements known without their conversation: no assistant turn before any.
impl From<Vec<String>> for Statements {
    fn from(texts: Vec<String>) -> Statements {
        Statements {
            texts,
            before: Vec::new(),
        }
    }
}

impl std::ops::Deref for Statements {
    type Target = [String];
    fn deref(&self) -> &[String] {
        &self.texts
    }
}

/// Whether a sentence writes a digit ("at 73", "Level 8").
fn has_digit(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_digit())
}

/// Whether the conversation (either speaker) says `word` capitalised where a sentence's start
/// does not force it, as a name ("There's a Waitrose and a Morrisons").
fn capitalised_inside(conversation: &Conversation, word: &str) -> bool {
    conversation.turns().iter().any(|t| {
        sentence_spans(&t.text).into_iter().any(|r| {
            t.text[r]
                .split_whitespace()
                .skip(1)
                .map(value_word)
                .any(|w| w == word)
        })
    })
}

/// Whether a sentence is a name said alone, as an answer or a pick ("Fleetwood Mac.", "The
/// Esso.", "Waitrose." when the conversation names Waitrose elsewhere): at most four words
/// besides a leading article, each capitalised or a number, one of them a name where its
/// capital is not the sentence's (here, or [`capitalised_inside`] the conversation). "Okay."
/// and "Thanks." are capitalised only as a sentence's first word, so they are no name.
fn name_alone(sentence: &str, conversation: &Conversation) -> bool {
    let words: Vec<&str> = sentence.split_whitespace().map(value_word).collect();
    let lead = usize::from(words.first().is_some_and(|w| article(&w.to_lowercase())));
    let name = &words[lead.min(words.len())..];
    let capital = |w: &&str| w.chars().next().is_some_and(char::is_uppercase);
    (1..=4).contains(&name.len())
        && name.iter().all(|w| capital(w) || values::number(w))
        && name
            .iter()
            .enumerate()
            .any(|(i, w)| capital(w) && (i + lead > 0 || capitalised_inside(conversation, w)))
}

/// Whether a sentence is a remark about the one before it: its first word points back, as
/// the remark's subject ("That's the temperature I always like in here." after "Set it to 22
/// degrees, please."), not as what a request acts on ("And turn it up a couple of notches.").
pub fn said_of_the_one_before(s: &str) -> bool {
    super::spans::token_words(s).first().is_some_and(|w| {
        matches!(
            w.as_str(),
            "that's" | "that" | "it's" | "it" | "this" | "they're" | "those"
        )
    })
}

/// Whether a sentence refers to the thing the sentence before it is about by a personal
/// pronoun ("I always have it on high", "I always want them warm") or opens with "That's"
/// ("That's what I always have, all year round"); not "those", "this", "there", nor a relative
/// "that" ("a soft blue that's easy on the eye").
fn refers_to_prev(s: &str) -> bool {
    let words = super::spans::token_words(s);
    words.first().is_some_and(|w| w == "that's")
        || words.iter().any(|w| {
            matches!(
                w.as_str(),
                "it" | "it's" | "them" | "they" | "they're" | "they've"
            )
        })
}

/// A sentence up to its first mark between clauses: where a sentence that is said of the one
/// before it says so ("It's the only one I use, ..."); a pronoun in a later clause is said of
/// that clause's own subject ("I'm gluten-free though, so check they have options").
fn first_clause(s: &str) -> &str {
    let end = s
        .find([',', ';', ':', '\u{2014}', '\u{2013}'])
        .into_iter()
        .chain(s.find(" - "))
        .min()
        .unwrap_or(s.len());
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conversation(turns: &[&str]) -> Conversation {
        let turns: Vec<serde_json::Value> = turns
            .iter()
            .map(|t| serde_json::json!({"role": "user", "text": t}))
            .collect();
        Conversation::from_json(&serde_json::Value::Array(turns).to_string()).unwrap()
    }

    #[test]
    fn a_number_without_its_setting_stays_with_the_sentence_that_says_it() {
        let s = crate::schema::vehicle_for_tests();
        let c = conversation(&[
            "I like the steering wheel warm in the mornings. Level 8 is good.",
            "Let me just adjust the foot support... there, 43 is a bit better.",
        ]);
        assert_eq!(
            statements(&s, &c, true),
            [
                "I like the steering wheel warm in the mornings. Level 8 is good.",
                "Let me just adjust the foot support... there, 43 is a bit better.",
            ]
        );
    }

    #[test]
    fn a_number_for_a_word_several_settings_share_stays_with_the_sentence_that_says_which() {
        let s = crate::schema::vehicle_for_tests();
        let c = conversation(&[
            "Huh, the HUD is too dim. Set brightness to 8.",
            "It's so stuffy today. Set the seat ventilation to 3.",
        ]);
        // "brightness" is the HUD's, the overhead screen's and the panels' alike; "seat
        // ventilation" names one device (its switch and its speed).
        assert_eq!(
            statements(&s, &c, true),
            [
                "Huh, the HUD is too dim. Set brightness to 8.",
                "It's so stuffy today.",
                "Set the seat ventilation to 3.",
            ]
        );
    }

    #[test]
    fn a_habit_said_of_a_number_stays_with_the_sentence_that_gives_it() {
        let s = crate::schema::vehicle_for_tests();
        let c = conversation(&[
            "By the way, I need the seat backrest at 73 degrees exactly. That's my sweet spot for driving.",
            "It's loud in here. I always hate that.",
            "Lowering it to 20, much better. Why do these seats always go overboard?",
        ]);
        // The second turn's habit follows no number: it stands alone. A question states no
        // habit: it stands alone too (joined, the statement would be a question).
        assert_eq!(
            statements(&s, &c, true),
            [
                "By the way, I need the seat backrest at 73 degrees exactly. That's my sweet spot for driving.",
                "It's loud in here.",
                "I always hate that.",
                "Lowering it to 20, much better.",
                "Why do these seats always go overboard?",
            ]
        );
    }

    #[test]
    fn a_sentence_that_points_back_stays_with_the_sentence_it_is_about() {
        // Any schema: CarMem's has no integer setting.
        let s = crate::schema::Schema::embedded();
        let c = conversation(&[
            "Oh, and the seat heater on high. I always have it on high, my back's not what it was.",
            "And 20 degrees. That's what I always have, all year round.",
            "I'd like a cool light. I prefer a soft blue that's easy on the eye.",
            "Find me parking. I prefer those with a roof.",
            // Not a habit word in it: the gate judges the pair.
            "Stop at the Lidl on the way back. It's where we do the weekly shop.",
            "Put the radio on. Mia says it's too loud.",
            "Find me a charger. Is it open all night?",
            "Chinese is my comfort food. I'm coeliac though, so check they have options.",
        ]);
        assert_eq!(
            statements(&s, &c, true),
            [
                "Oh, and the seat heater on high. I always have it on high, my back's not what it was.",
                "And 20 degrees. That's what I always have, all year round.",
                // A relative "that" and "those" point at nothing said before.
                "I'd like a cool light.",
                "I prefer a soft blue that's easy on the eye.",
                "Find me parking.",
                "I prefer those with a roof.",
                "Stop at the Lidl on the way back. It's where we do the weekly shop.",
                // Said of someone else, or a question: it cannot say the speaker's preference,
                // and stays where the checks for that read it.
                "Put the radio on.",
                "Mia says it's too loud.",
                "Find me a charger.",
                "Is it open all night?",
                // Its pronoun is in a later clause, said of that clause's own subject.
                "Chinese is my comfort food.",
                "I'm coeliac though, so check they have options.",
            ]
        );
    }

    #[test]
    fn a_remark_that_names_its_category_stays_with_what_it_is_said_of_unless_it_adds() {
        let s = crate::schema::Schema::embedded();
        let c = conversation(&[
            "InstaVolt please. That's the network I normally use, I've got the app.",
            "Seat heater on full, please. I always have it cranked right up.",
            "Put Radio 2 on, please. And knock the fan down, I like it barely ticking over.",
            "I always park under cover. Oh, and it needs cameras, I never leave it unwatched.",
        ]);
        assert_eq!(
            statements(&s, &c, true),
            [
                "InstaVolt please. That's the network I normally use, I've got the app.",
                "Seat heater on full, please. I always have it cranked right up.",
                // Opening with "and", the remark adds a second thing: it stands alone.
                "Put Radio 2 on, please.",
                "And knock the fan down, I like it barely ticking over.",
                "I always park under cover.",
                "Oh, and it needs cameras, I never leave it unwatched.",
            ]
        );
        assert!(adds("Also, keep it low.") && adds("Plus it's cheaper."));
        assert!(!adds("Andy's is my place.") && !adds("Oh, it's my song.") && !adds(""));
    }

    #[test]
    fn a_sentence_about_someone_else_that_turns_to_the_speaker_is_two_statements() {
        let s = crate::schema::Schema::embedded();
        let c = conversation(&[
            "My husband swears by Sam's Club, but I do all my grocery shopping at H-E-B.",
            "My daughter likes them bright for reading, but honestly I like it low.",
            // The speaker is in it from the start, or the turn is to someone else's.
            "My wife and I love Thai, but I can't do it every week.",
            "I like jazz, but my son wants rap.",
            "My wife loves Thai food, but she can't take the heat.",
        ]);
        assert_eq!(
            statements(&s, &c, true),
            [
                "My husband swears by Sam's Club,",
                "but I do all my grocery shopping at H-E-B.",
                "My daughter likes them bright for reading,",
                "but honestly I like it low.",
                "My wife and I love Thai, but I can't do it every week.",
                "I like jazz, but my son wants rap.",
                "My wife loves Thai food, but she can't take the heat.",
            ]
        );
    }

    #[test]
    fn what_follows_a_name_said_alone_is_said_of_it() {
        let s = crate::schema::Schema::embedded();
        let c = Conversation::from_json(
            &serde_json::json!([
                {"role": "user", "text": "Play Dreams."},
                {"role": "assistant", "text": "By Fleetwood Mac or by The Cranberries?"},
                {"role": "user", "text": "Fleetwood Mac. Nobody comes close for me."},
                {"role": "assistant", "text": "There's a Waitrose and a Morrisons on your way."},
                {"role": "user", "text": "Waitrose. I get everything there. Okay. Thanks. Also find me parking."},
                {"role": "user", "text": "The Esso. Then play Radio X."},
            ])
            .to_string(),
        )
        .unwrap();
        assert_eq!(
            statements(&s, &c, true),
            [
                "Play Dreams.",
                "Fleetwood Mac. Nobody comes close for me.",
                "Waitrose. I get everything there.",
                // Capitalised only where a sentence starts: no name, nothing joined.
                "Okay.",
                "Thanks.",
                "Also find me parking.",
                // The sentence after names a thing of its own.
                "The Esso.",
                "Then play Radio X.",
            ]
        );
    }

    #[test]
    fn sentences_that_say_their_own_setting_or_number_stand_alone() {
        let s = crate::schema::vehicle_for_tests();
        // The second names its setting; the first of the next turn already has a number; a
        // sentence in another turn is never joined.
        let c = conversation(&[
            "It's freezing today. Set the seat ventilation to 3.",
            "82 is too low. Let me bump it up to 84.",
            "Set it to 8.",
        ]);
        assert_eq!(
            statements(&s, &c, true),
            [
                "It's freezing today.",
                "Set the seat ventilation to 3.",
                "82 is too low.",
                "Let me bump it up to 84.",
                "Set it to 8.",
            ]
        );
    }

    #[test]
    fn a_schema_without_integer_settings_reads_plain_sentences() {
        let s = Schema::embedded();
        let c = conversation(&["I always fill up at Shell. Usually 40 litres."]);
        assert_eq!(statements(&s, &c, true), c.user_sentences());
    }

    #[test]
    fn a_statement_opening_its_turn_knows_the_assistant_turn_before_it() {
        let c = Conversation::from_json(
            &serde_json::json!([
                {"role": "user", "text": "Put something on."},
                {"role": "assistant", "text": "Now playing Mr. Brightside."},
                {"role": "user", "text": "Tune. That's my song."},
                {"role": "user", "text": "And the fan down."},
            ])
            .to_string(),
        )
        .unwrap();
        let said = Statements::of(&c, c.user_sentences());
        assert_eq!(said.len(), 4);
        assert_eq!(
            said.before(),
            [
                None,
                Some("Now playing Mr. Brightside.".to_string()),
                // Not the turn's first statement; a turn after the user's own.
                None,
                None,
            ]
        );
        assert!(Statements::from(c.user_sentences()).before().is_empty());
    }
}
