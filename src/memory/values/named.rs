//! Which of a category's known values a sentence names ([`named_values`]), and which it says in
//! full ([`wholly_named`]).

use super::scale::{own_number_bounded, own_number_said, too_much};
use super::{digits, number, stems};
use crate::schema::{DetailId, Schema};

/// The category's known values that the user's own words name: those sharing the largest
/// share (at least half) of their words with the user's sentences ("Set it to 25 degrees
/// Celsius" names "25 degree Celcius", not "21 degree Celcius"). Empty when none is named.
pub fn named_values<'a>(
    schema: &'a Schema,
    detail: DetailId,
    sentences: &[String],
) -> Vec<&'a str> {
    named_with_share(schema, detail, sentences, |_| true).0
}

/// [`named_values`] among the values `keep` accepts: with the value a sentence turns down set
/// aside, the one it names besides ("We get our veg from the farm shop, not the supermarket"
/// names Supermarket in full and Local Markets/Farms by two of its three words).
pub fn named_values_among<'a>(
    schema: &'a Schema,
    detail: DetailId,
    sentences: &[String],
    keep: impl Fn(&str) -> bool,
) -> Vec<&'a str> {
    named_with_share(schema, detail, sentences, keep).0
}

/// The named values ([`named_values`]) when the user's words hold every word of them ("an
/// entertainment podcast" names Entertainment in full; "the radio" names half of "RhythmRise
/// Radio", and "covered parking" half of "Indifferent to Covered Parking").
pub fn wholly_named<'a>(
    schema: &'a Schema,
    detail: DetailId,
    sentences: &[String],
) -> Vec<&'a str> {
    // "Yes, add it" answers the assistant; it names no value "Yes".
    let sentences: Vec<String> = sentences.iter().map(|s| unanswered(s)).collect();
    let sentences = sentences.as_slice();
    let (named, share) = named_with_share(schema, detail, sentences, |_| true);
    if share >= 1.0 - 1e-6 {
        return named;
    }
    // A catalogue's note in brackets ("Melody Raven (Pop)") is not what a user says: a value
    // whose name before it, of two words or more, is said in full is named in full.
    let said = said_stems(schema, detail, sentences);
    named
        .into_iter()
        .filter(|v| {
            let name = stems(v.split('(').next().unwrap_or(v));
            name.len() >= 2 && name.iter().all(|w| said.contains(w))
        })
        .collect()
}

/// Whether `text` is, ignoring case, a known value of some detail of the schema ("AC" of a
/// type of charging).
pub fn known_anywhere(schema: &Schema, text: &str) -> bool {
    let text = text.trim();
    schema
        .details()
        .iter()
        .any(|d| d.attributes.iter().any(|a| a.eq_ignore_ascii_case(text)))
}

/// A sentence without the answer word it opens with ("Yes, add it" → "add it"; "No, the
/// other one" → "the other one").
fn unanswered(sentence: &str) -> String {
    let t = sentence.trim_start();
    let end = t.find(|c: char| !c.is_alphabetic()).unwrap_or(t.len());
    let first = t[..end].to_lowercase();
    if matches!(
        first.as_str(),
        "yes" | "yeah" | "yep" | "no" | "nope" | "nah"
    ) {
        t[end..]
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .to_string()
    } else {
        sentence.to_string()
    }
}

/// The word stems of the user's sentences that can name a value of `detail`.
fn said_stems(
    schema: &Schema,
    detail: DetailId,
    sentences: &[String],
) -> std::collections::HashSet<String> {
    let mut said: std::collections::HashSet<String> =
        sentences.iter().flat_map(|s| stems(&digits(s))).collect();
    // An adverb or a participle names the value it is formed from ("play it sequentially"
    // names sequential, "shuffled" and "shuffling" shuffle, "muted" mute, "looping" loop).
    let forms: Vec<String> = said.iter().flat_map(|w| word_bases(w)).collect();
    said.extend(forms);
    // A comparative names its adjective's value ("cooler tones" names Cool, "the cheapest"
    // Cheap), except for a vehicle setting, where it asks for a step from the current value
    // ("a touch higher" is no `high`; `memory::step`).
    if schema.detail(detail).call.is_none() {
        let bases: Vec<String> = said
            .iter()
            .filter_map(|w| {
                let base = w.strip_suffix("est").or_else(|| w.strip_suffix("er"))?;
                (base.len() >= 3).then(|| base.to_string())
            })
            .collect();
        said.extend(bases);
    }
    said
}

/// The words an adverb (-ly) or a participle (-ing, -ed) is formed from, with and without a
/// silent e; nothing for other words. An adverb's base has at least four letters, a
/// participle's three ("muted" is mute; "red", "bed", "sing" are no forms).
fn word_bases(w: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(b) = w.strip_suffix("ly").filter(|b| b.len() >= 4) {
        out.push(b.to_string());
    }
    for end in ["ing", "ed"] {
        if let Some(b) = w.strip_suffix(end).filter(|b| b.len() >= 3) {
            out.push(b.to_string());
            out.push(format!("{b}e"));
        }
    }
    out
}

/// The named values among those `keep` accepts and the share of their words the user said.
fn named_with_share<'a>(
    schema: &'a Schema,
    detail: DetailId,
    sentences: &[String],
    keep: impl Fn(&str) -> bool,
) -> (Vec<&'a str>, f32) {
    let said = said_stems(schema, detail, sentences);
    let d = schema.detail(detail);
    let ladder = is_ladder(d);
    let generic = generic_words(d);
    // Highest share first, then most words said: "switched it to feet and window" names
    // `feet_window` (both words), not `feet` or `window` alone.
    let mut best = (0.5f32, 0usize);
    let mut out = Vec::new();
    for a in d.attributes.iter().filter(|a| keep(a)) {
        let words = stems(a);
        if words.is_empty() {
            continue;
        }
        let mut held = words.iter().filter(|w| said.contains(*w)).count();
        let mut share = held as f32 / words.len() as f32;
        // On a ladder of values a number said alone names its value ("set the heating to 21"
        // names "21 degree Celcius"): its other words are the same in every value. A value
        // said with more of its words ("25 degrees Celsius") is named as before.
        if ladder && 2 * held <= words.len() && words.iter().any(|w| number(w) && said.contains(w))
        {
            (share, held) = (1.0, words.len());
        }
        // Off a ladder, a number no other value holds, said with the value's own unit, names
        // that value ("no more than 10 minutes" names "less than 10 min (accepting possible
        // higher cost)", not its neighbour of 5 min); a number of something else ("10
        // dollars") does not (`scale.rs`).
        if !ladder && share < 1.0 - 1e-6 && own_number_said(d, a, sentences) {
            (share, held) = (1.0, words.len());
        }
        // A value alias the schema gives, said in full and not turned down, names the value
        // in full ("Switching to recirculate." names `inside`).
        let alias = alias_said(d, a, &said, sentences);
        if let Some(n) = alias {
            if share < 1.0 - 1e-6 || n > held {
                (share, held) = (1.0, n);
            }
        }
        // A catalogue name said only by its generic words ("the radio" of "RhythmRise Radio",
        // "charging" of "VoltRise Charging") is not named: the user said what kind of thing,
        // not which one.
        if alias.is_none() && only_generic(&words, &generic, &said) {
            continue;
        }
        if share < best.0 - 1e-6 || (share - best.0).abs() <= 1e-6 && held < best.1 {
            continue;
        }
        if share > best.0 + 1e-6 || held > best.1 {
            best = (share, held);
            out.clear();
        }
        out.push(a.as_str());
    }
    (out, best.0)
}

/// The words of a free-text detail's catalogue names that say what kind of thing a value is,
/// not which one: words of the detail's own name and description, or of two or more of the
/// names it knows, its values and the real names it lists ("radio", "FM", "charging",
/// "burger" of "BiteBox Burgers" and "Burger King"; "degree" of "21 degree Celcius"). Empty
/// for a detail whose values are chosen among (a level, a mode), whose words are the values
/// themselves.
fn generic_words(d: &crate::schema::Detail) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    if d.kind != crate::schema::ValueKind::Text {
        return out;
    }
    out.extend(stems(&d.name));
    out.extend(stems(&d.description));
    let mut seen = std::collections::HashSet::new();
    for a in d.attributes.iter().chain(&d.names) {
        let words: std::collections::HashSet<String> = stems(a).into_iter().collect();
        for w in words {
            if !seen.insert(w.clone()) {
                out.insert(w);
            }
        }
    }
    out
}

/// Whether the words said of a value (`words`, its stems) are its generic ones alone
/// ([`generic_words`]) while it has others, and at least half of its words: what would name
/// it by share ([`named_values`]).
fn only_generic(
    words: &[String],
    generic: &std::collections::HashSet<String>,
    said: &std::collections::HashSet<String>,
) -> bool {
    let own: Vec<&String> = words.iter().filter(|w| !generic.contains(*w)).collect();
    let held = words.iter().filter(|w| said.contains(*w)).count();
    !own.is_empty() && !own.iter().any(|w| said.contains(*w)) && held > 0 && 2 * held >= words.len()
}

/// The words by which the user's words say a catalogue value of a free-text detail, where
/// they are its generic words alone ("burger" of "BiteBox Burgers", "charging" of "VoltRise
/// Charging", "radio" of "RhythmRise Radio"); empty when no value is said so. Such words speak
/// of the kind of thing: only a name that says more than them ("BBC Radio 2", not "FM") is a
/// value to copy, not a description ("a classic burger").
pub fn generic_words_said(schema: &Schema, detail: DetailId, sentences: &[String]) -> Vec<String> {
    let d = schema.detail(detail);
    let generic = generic_words(d);
    if generic.is_empty() {
        return Vec::new();
    }
    let said = said_stems(schema, detail, sentences);
    let mut out: Vec<String> = Vec::new();
    for a in &d.attributes {
        let words = stems(a);
        if only_generic(&words, &generic, &said) {
            out.extend(words.into_iter().filter(|w| said.contains(w)));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Whether a category's values are a ladder: three or more, each one number and the same other
/// words ("18 degree Celcius" ... "25 degree Celcius"). Not a vehicle setting's (its numbers are
/// typed, `memory::typed`).
fn is_ladder(d: &crate::schema::Detail) -> bool {
    let rest = |a: &str| -> Option<Vec<String>> {
        let words = stems(a);
        let (numbers, rest): (Vec<String>, Vec<String>) =
            words.into_iter().partition(|w| number(w));
        (numbers.len() == 1 && !rest.is_empty()).then_some(rest)
    };
    let first = d.attributes.first().and_then(|a| rest(a));
    d.call.is_none()
        && d.attributes.len() >= 3
        && first.is_some()
        && d.attributes.iter().all(|a| rest(a) == first)
}

/// Whether `text` says a value alias of `value` ([`Detail::value_aliases`]) in full, not
/// turned down ("switch to recirculation" of `inside`).
///
/// [`Detail::value_aliases`]: crate::schema::Detail::value_aliases
pub fn says_alias(schema: &Schema, detail: DetailId, value: &str, text: &str) -> bool {
    let sentences = [text.to_string()];
    let said = said_stems(schema, detail, &sentences);
    alias_said(schema.detail(detail), value, &said, &sentences).is_some()
}

/// Whether the sentence turns `value` down ([`turns_down_known`]) where a negation can:
/// not in an aversion (the category or the value is one), where the negation is what names the
/// value ("I never take toll roads" avoids Toll roads; "a place that doesn't serve seafood" is
/// the allergy). Extraction's choices and its value step both read a refusal by it.
pub fn refuses(schema: &Schema, detail: DetailId, sentence: &str, value: &str) -> bool {
    !in_aversion(schema.detail(detail), value) && turns_down_known(schema, detail, sentence, value)
}

/// [`super::turns_down_value`], but not where the sentence says the value's own number as an
/// upper bound that a negation governs, in a choice category off a ladder: the negation refuses
/// what lies past the bound ("I can't walk more than five minutes" refuses no "less than 5
/// min": `scale.rs`).
pub fn turns_down_known(schema: &Schema, detail: DetailId, sentence: &str, value: &str) -> bool {
    let d = schema.detail(detail);
    // A ladder of temperatures is read as before ("never more than 22 degrees" refuses 22).
    super::turns_down_value(schema, detail, sentence, value)
        && !(d.kind == crate::schema::ValueKind::Choice
            && !is_ladder(d)
            && own_number_bounded(d, value, sentence))
}

/// Whether `value` of the detail `d` names an aversion, by the category or by itself
/// ([`super::aversive`]: "Avoidance of Specific Road Types", "Seafood Allergies"): a negation
/// near it states it rather than turning it down.
pub fn in_aversion(d: &crate::schema::Detail, value: &str) -> bool {
    super::aversive(&d.name) || super::aversive(value)
}

/// The most words of an alias of `value` ([`Detail::value_aliases`]) that the sentences say in
/// full (`said`: their stems) without turning it down ("don't recirculate" names nothing).
/// In an aversion ("Avoidance of Specific Road Types", "Dairy-Free") turning down is what
/// names it, as with the value's own words: "Avoid motorways" names Highways.
fn alias_said(
    d: &crate::schema::Detail,
    value: &str,
    said: &std::collections::HashSet<String>,
    sentences: &[String],
) -> Option<usize> {
    let (_, aliases) = d.value_aliases.iter().find(|(v, _)| v == value)?;
    let aversion = in_aversion(d, value);
    aliases
        .iter()
        .filter_map(|p| {
            let words = stems(p);
            let whole = !words.is_empty() && words.iter().all(|w| said.contains(w));
            let kept = aversion
                || !sentences
                    .iter()
                    .any(|s| super::turns_down(s, p) || too_much(s, p));
            (whole && kept).then_some(words.len())
        })
        .max()
}

/// The one of `names` (several the user said, for `detail`) said in a clause that also says a
/// word of the detail's own name that no category beside it has and no value of it holds ("My
/// favourite band is Queen, I love Bohemian Rhapsody" is Queen: "band" of Favorite
/// Artists/Bands, not of Favorite Songs), or `None` when no one such name is. A clause ends at
/// a mark or a clause break ("but"); a word of the name itself says nothing ("Radio" of "BBC
/// Radio 2").
pub fn named_with_its_category(
    schema: &Schema,
    detail: DetailId,
    sentence: &str,
    names: &[String],
) -> Option<String> {
    let d = schema.detail(detail);
    let others: Vec<String> = schema
        .sub(d.sub)
        .details
        .iter()
        .filter(|&&k| k != detail)
        .flat_map(|&k| stems(&schema.detail(k).name))
        .collect();
    // Nor a word of its values: "distance" of Priority for Shortest Time or Shortest Distance
    // names a value, not the category.
    let valued: Vec<String> = d.attributes.iter().flat_map(|a| stems(a)).collect();
    let own: Vec<String> = stems(&d.name)
        .into_iter()
        .filter(|w| {
            !others.contains(w) && !valued.contains(w) && !super::WEAK_WORDS.contains(&w.as_str())
        })
        .collect();
    let clauses: Vec<Vec<String>> = super::idiom::clauses(&super::folded(sentence))
        .into_iter()
        .map(|c| c.iter().flat_map(|w| stems(w)).collect())
        .collect();
    let mut with = names.iter().filter(|n| {
        let name = stems(n);
        !name.is_empty()
            && clauses.iter().any(|c| {
                c.windows(name.len()).any(|w| w == name)
                    && c.iter().any(|w| own.contains(w) && !name.contains(w))
            })
    });
    match (with.next(), with.next()) {
        (Some(n), None) => Some(n.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_adverb_or_a_participle_names_the_value_it_is_formed_from() {
        let vehicle = crate::schema::vehicle_for_tests();
        let said = |s: &str| vec![s.to_string()];
        let mode = vehicle.detail_by_key("music_play_mode").unwrap();
        assert_eq!(
            named_values(&vehicle, mode, &said("Play it sequentially.")),
            vec!["sequential"]
        );
        assert_eq!(
            named_values(&vehicle, mode, &said("I like my songs shuffled.")),
            vec!["shuffle"]
        );
        let voice = vehicle.detail_by_key("navigation_voice_mode").unwrap();
        assert_eq!(
            named_values(&vehicle, voice, &said("Keep the guidance muted.")),
            vec!["mute"]
        );
        // Words that only end like a form name nothing ("red", "bed", "sing").
        assert_eq!(word_bases("red"), Vec::<String>::new());
        assert_eq!(word_bases("sing"), Vec::<String>::new());
        assert!(named_values(&vehicle, mode, &said("I needed a break.")).is_empty());
    }

    #[test]
    fn a_value_alias_said_in_full_names_its_value() {
        let vehicle = crate::schema::vehicle_for_tests();
        let said = |s: &str| vec![s.to_string()];
        let air = vehicle
            .detail_by_key("air_conditioner_circulation")
            .unwrap();
        let named = |s: &str| named_values(&vehicle, air, &said(s));
        assert_eq!(
            named("That factory reeks. Switching to recirculate."),
            ["inside"]
        );
        assert_eq!(named("Put it on recirculation, please."), ["inside"]);
        assert_eq!(
            wholly_named(&vehicle, air, &said("Recirc mode, please.")),
            ["inside"]
        );
        // Turned down, it names nothing; the listed value's own word still names it.
        assert!(named("Don't recirculate, it gets stuffy.").is_empty());
        assert_eq!(named("Switch to outside air."), ["outside"]);
        assert!(says_alias(
            &vehicle,
            air,
            "inside",
            "Switch to recirculation now."
        ));
        assert!(!says_alias(&vehicle, air, "inside", "Never recirculation."));
        assert!(!says_alias(
            &vehicle,
            air,
            "outside",
            "Switch to recirculation now."
        ));
        let video = vehicle.detail_by_key("video_quality").unwrap();
        assert_eq!(
            named_values(&vehicle, video, &said("I only watch in full HD.")),
            ["1080p"]
        );
    }

    #[test]
    fn of_several_names_the_one_said_with_its_category_s_word() {
        let s = Schema::embedded();
        let names = |v: &[&str]| v.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let artists = s.detail_by_key("favorite_artists_bands").unwrap();
        let songs = s.detail_by_key("favorite_songs").unwrap();
        let t = "My favourite band is Queen, I love Bohemian Rhapsody.";
        let both = names(&["Queen", "Bohemian Rhapsody"]);
        assert_eq!(
            named_with_its_category(&s, artists, t, &both).as_deref(),
            Some("Queen")
        );
        // No clause says "song": the model picks.
        assert_eq!(named_with_its_category(&s, songs, t, &both), None);
        // Both said with it, or the word only in another clause: none.
        let t = "My favourite bands are Queen and Oasis.";
        let two = names(&["Queen", "Oasis"]);
        assert_eq!(named_with_its_category(&s, artists, t, &two), None);
        let t = "I listen to Queen a lot, but Oasis is my band.";
        assert_eq!(
            named_with_its_category(&s, artists, t, &two).as_deref(),
            Some("Oasis")
        );
        let t = "Queen, Oasis, they're the bands I grew up with.";
        assert_eq!(named_with_its_category(&s, artists, t, &two), None);
        // A word of the category's name that names a value says nothing of which.
        let priority = s
            .detail_by_key("priority_for_shortest_time_or_shortest_distance")
            .unwrap();
        let t = "Always prioritize the shortest time over distance.";
        let both = names(&["Shortest Time", "Shortest Distance"]);
        assert_eq!(named_with_its_category(&s, priority, t, &both), None);
    }

    #[test]
    fn an_alias_turned_down_names_the_value_of_an_aversion() {
        let s = Schema::embedded();
        let said = |t: &str| vec![t.to_string()];
        let roads = s.detail_by_key("avoidance_of_specific_road_types").unwrap();
        for t in [
            "Avoid motorways whenever you can, I always do.",
            "I hate motorways, I always go the A-road way.",
            "Keep me off the motorway.",
        ] {
            assert_eq!(named_values(&s, roads, &said(t)), ["Highways"], "{t}");
        }
    }
}
