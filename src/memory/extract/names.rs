//! Settings said by their names (`extraction.names_first`): a sentence that names a setting
//! plainly, by its own name or one of its `aliases`, puts it first among its close categories;
//! and a sentence that names a thing puts a category of names before a closed list that does
//! not hold it ([`names_before_lists`]).

use crate::memory::values::{self, singular};
use crate::schema::{Detail, DetailId, Schema, ValueKind};

/// The words of a category or sentence for [`spoken_names`]: lower case, letters and digits,
/// a plural `s` dropped.
pub fn name_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(singular)
        .collect()
}

/// The [`name_words`] a sentence says as names: a word after an adverb of degree is an
/// adjective ("82 is too low" names no low beam, "a bit high" no high beam).
fn said_name_words(sentence: &str) -> Vec<String> {
    const DEGREE: &[&str] = &[
        "too", "so", "very", "quite", "pretty", "really", "way", "bit", "little", "rather",
        "fairly", "slightly", "much",
    ];
    let w = name_words(sentence);
    (0..w.len())
        .filter(|&i| i == 0 || !DEGREE.contains(&w[i - 1].as_str()))
        .map(|i| w[i].clone())
        .collect()
}

/// The [`name_words`] of the quantity a detail's call sets (its value argument: "degree",
/// "brightness"); none for a detail without a call.
fn quantity_words(d: &Detail) -> Vec<String> {
    d.call
        .as_ref()
        .map(|c| name_words(&c.argument))
        .unwrap_or_default()
}

/// The name words of an alias, without the words that join a name and name nothing ("traffic
/// on the map" is named by "traffic" and "map", not by every "on" and "the").
fn alias_words(alias: &str) -> Vec<String> {
    const JOINING: &[&str] = &[
        "a", "an", "the", "on", "off", "of", "in", "to", "and", "or", "for", "with", "at", "when",
        "my", "up", "down",
    ];
    let mut w = name_words(alias);
    w.retain(|x| !JOINING.contains(&x.as_str()));
    w
}

/// Words with each two neighbours as one more word: "seat heating" is held by fewer setting
/// names than "seat" or "heating" alone (the steering wheel and the mirrors heat too), so the
/// two said together name the seat heating specifically.
fn with_pairs(words: Vec<String>) -> Vec<String> {
    let pairs: Vec<String> = words
        .windows(2)
        .map(|p| format!("{} {}", p[0], p[1]))
        .collect();
    let mut out = words;
    out.extend(pairs);
    out
}

/// The categories whose names `sentence` says most specifically, if it says one specifically
/// enough. A sentence that says one of a detail's other names whole (an alias of two words or
/// more, "seat height") names those details. Else each detail's name words are weighted by how
/// rare they are among the schema's detail names (`ln(details / names holding the word)`, so
/// "ventilation" counts and "seat" or "level" hardly do; the quantity a vehicle call sets, its
/// value argument such as "degree", is no name word); a detail's weight in the sentence is the
/// sum over its name words the sentence holds, counted only when one of them is specific (held
/// by at most four names). The details of the highest weight are returned. A user who names the
/// setting ("turn on the seat ventilation and set it to level 3") has said what it is about
/// more plainly than any embedding can: MiniLM placed that sentence nearer the seat heating
/// level. (An alias's words alone name nothing: "back" of "seat back angle" is said in "go back
/// to 25".) Indices into `schema.details()`.
pub fn spoken_names(schema: &Schema, sentence: &str) -> Vec<usize> {
    /// A word is specific when at most this many detail names hold it.
    const SPECIFIC: usize = 4;
    let said_words = said_name_words(sentence);
    let by_alias: Vec<usize> = (0..schema.details().len())
        .filter(|&i| alias_said(schema, i, &said_words))
        .collect();
    if !by_alias.is_empty() {
        return by_alias;
    }
    let names: Vec<Vec<String>> = schema
        .details()
        .iter()
        .map(|d| {
            // The quantity a call sets ("degree", "speed", "level") names no device: "keep
            // the AC at 21 degrees" is no window's "open degree". Said right after its
            // device's word it does: "the panel brightness" is the instrument panel's.
            let quantity = quantity_words(d);
            let full = name_words(&d.name);
            let mut w = full.clone();
            w.retain(|x| !quantity.contains(x));
            w = with_pairs(w);
            w.extend(with_pairs(full).into_iter().filter(|x| x.contains(' ')));
            w.sort();
            w.dedup();
            w
        })
        .collect();
    let n = names.len() as f32;
    let mut df: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for w in names.iter().flatten() {
        *df.entry(w.as_str()).or_default() += 1;
    }
    let said = with_pairs(said_words);
    let weight: Vec<f32> = names
        .iter()
        .map(|ws| {
            let held: Vec<&String> = ws.iter().filter(|w| said.contains(w)).collect();
            // Only a name the sentence says by a specific word counts ("ventilation", "leg"),
            // not one it meets through common words alone ("seat ... level").
            if !held.iter().any(|w| df[w.as_str()] <= SPECIFIC) {
                return 0.0;
            }
            held.iter().map(|w| (n / df[w.as_str()] as f32).ln()).sum()
        })
        .collect();
    let best = weight.iter().copied().fold(0.0f32, f32::max);
    if best <= 0.0 {
        return Vec::new();
    }
    (0..weight.len())
        .filter(|&i| weight[i] >= best - 1e-4)
        .collect()
}

/// Whether a sentence names the setting(s) of one device ([`spoken_names`] all of one
/// subcategory): "the HUD brightness", "the seat ventilation" (its switch and its speed); not
/// "Set brightness to 8.", which the HUD, the overhead screen and the panel share alike, nor
/// a sentence that names no setting.
pub fn names_one_device(schema: &Schema, sentence: &str) -> bool {
    let named = spoken_names(schema, sentence);
    let device = |i: &usize| schema.details()[*i].sub;
    named
        .first()
        .is_some_and(|f| named.iter().all(|i| device(i) == device(f)))
}

/// Whether a sentence says a word of what a setting belongs to: its subcategory's name, its
/// own name or one of its aliases, without the quantity its call sets ("color", "colour").
/// A colour word alone is said of everything ("I like green tea", "a soft moss green in my
/// living room", "the canopy makes everything glow green"); a light's or a panel's colour is
/// said with the light or the panel ("Hm, green light.", "I can't see the gauges").
pub fn says_its_device(schema: &Schema, detail: DetailId, sentence: &str) -> bool {
    let d = schema.detail(detail);
    let fold = |w: String| {
        if w == "colour" {
            "color".to_string()
        } else {
            w
        }
    };
    let quantity: Vec<String> = quantity_words(d).into_iter().map(fold).collect();
    let said: Vec<String> = name_words(sentence).into_iter().map(fold).collect();
    own_words(schema, d)
        .into_iter()
        .map(fold)
        .filter(|w| !quantity.contains(w))
        .any(|w| said.contains(&w))
}

/// The [`name_words`] of a setting's own names and its device's: its subcategory's name, its
/// name, and its aliases' [`alias_words`].
fn own_words(schema: &Schema, d: &Detail) -> Vec<String> {
    name_words(&schema.sub(d.sub).name)
        .into_iter()
        .chain(name_words(&d.name))
        .chain(d.aliases.iter().flat_map(|a| alias_words(a)))
        .collect()
}

/// Whether a sentence says `value` (a colour) only of some other thing: wherever it says it,
/// the value does not open its clause and comes right before a word that is neither a
/// function word, nor a word of the setting's names or its device's, nor a word for a colour
/// itself ("against a white wall", "subtle blue undertones", "those Blue Zone cafés"). Not:
/// "the ambient light to blue", "a deep blue colour", "white ambient light", "Blue helps me
/// focus" (the colour is what the clause is about), "orange to match the panel".
pub fn said_of_another_thing(
    schema: &Schema,
    detail: DetailId,
    value: &str,
    sentence: &str,
) -> bool {
    /// Words for a colour itself.
    const COLOUR_NOUNS: &[&str] = &[
        "color", "colour", "hue", "tone", "shade", "tint", "glow", "one", "mode", "setting",
    ];
    /// Closed-class words a colour meets beyond [`super::spans::FUNCTION_WORDS`]: joining
    /// words, adverbs of time, and the verbs a colour is the subject of ("the blue helps").
    const NOT_A_THING: &[&str] = &[
        "because", "while", "during", "after", "before", "until", "unless", "though", "although",
        "instead", "again", "now", "today", "tonight", "tomorrow", "anyway", "enough", "either",
        "right", "thanks", "feels", "looks", "seems", "helps", "makes", "works", "keeps", "suits",
        "fits",
    ];
    let own = own_words(schema, schema.detail(detail));
    let value = value.to_lowercase();
    let raw: Vec<&str> = sentence.split_whitespace().collect();
    let words = super::spans::token_words(sentence);
    let opens_clause = |i: usize| {
        i == 0
            || raw[i - 1].ends_with([',', '.', ';', ':', '!', '?', '\u{2014}', '\u{2013}'])
            || matches!(
                words[i - 1].as_str(),
                "and" | "but" | "so" | "because" | "or"
            )
    };
    let mut said = false;
    for (i, w) in words.iter().enumerate() {
        if *w != value {
            continue;
        }
        said = true;
        let closes = raw[i].ends_with(|c: char| !c.is_alphanumeric());
        let modifies = !opens_clause(i)
            && !closes
            && words.get(i + 1).is_some_and(|next| {
                !next.is_empty()
                    && next.chars().all(char::is_alphabetic)
                    && !super::spans::FUNCTION_WORDS.contains(&next.as_str())
                    && !COLOUR_NOUNS.contains(&next.as_str())
                    && !NOT_A_THING.contains(&next.as_str())
                    && !own.contains(&singular(next))
            });
        if !modifies {
            return false;
        }
    }
    said
}

/// Whether the sentence's words (`said`, [`name_words`]) hold every word of one of the detail's
/// aliases of two words or more.
fn alias_said(schema: &Schema, detail: usize, said: &[String]) -> bool {
    schema.details()[detail].aliases.iter().any(|a| {
        let words = alias_words(a);
        words.len() >= 2 && words.iter().all(|w| said.contains(w))
    })
}

/// Whether a sentence (`said`: its [`name_words`]) says every word of the detail's own name, beyond its subcategory's name
/// and the quantity its call sets, when that is two words or more ("Raise the *cushion
/// extension* to 50" says all of Seat Cushion Extension that tells it from the other seat
/// settings; "map" alone is all of Navigation Map View's and no more its name than the
/// instrument panel's map theme), or one of its aliases ([`alias_said`]: "My usual *seat
/// height* of 87").
fn said_in_full(schema: &Schema, detail: usize, said: &[String]) -> bool {
    let d = &schema.details()[detail];
    let sub = name_words(&schema.sub(d.sub).name);
    let quantity = quantity_words(d);
    let own: Vec<String> = name_words(&d.name)
        .into_iter()
        .filter(|w| !sub.contains(w) && !quantity.contains(w))
        .collect();
    (own.len() >= 2 && own.iter().all(|w| said.contains(w))) || alias_said(schema, detail, said)
}

/// The score that puts a category with `score` just above a row's best (`top`): of several
/// raised above the same best, the higher-scored stays ahead.
pub fn just_above(top: f32, score: f32) -> f32 {
    top + 0.01 * (1.0 + score)
}

/// Puts the categories a sentence names ([`spoken_names`]) first in its row when the embedder
/// finds them within `margin` of its best, or when the sentence says the name in full
/// ([`said_in_full`]): each rises just above the row's best, keeping their own order. (The name
/// decides between close neighbours; a name word said in passing does not pull a far category
/// to the top.)
pub fn names_first(schema: &Schema, row: &mut [f32], sentence: &str, margin: f32) {
    let named = spoken_names(schema, sentence);
    if named.is_empty() {
        return;
    }
    let top = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let said = said_name_words(sentence);
    for i in named {
        let near = row[i] >= top - margin || said_in_full(schema, i, &said);
        if row[i].is_finite() && near {
            row[i] = just_above(top, row[i]);
        }
    }
}

/// When a sentence names a thing (a proper name of its own, or of the sentence it points back
/// to: "Then take me to Lidl. I do all my grocery shopping there anyway."), a category whose
/// values are names wins over a closed list beside it that holds none of what was said: if the
/// row's best is a `choice` detail none of whose values the sentence names, the best free-text
/// detail of the same subcategory within `margin` of it trades places with it (Preferred
/// Supermarket Chains over Local Markets or Supermarket; Favorite Podcast Shows over Favorite
/// Podcast Genres for "Put on Radiolab"). A closed list that the sentence does name a value of
/// keeps its place ("SuperSave Supermarket, always" names Supermarket).
pub fn names_before_lists(
    schema: &Schema,
    row: &mut [f32],
    sentences: &[String],
    at: usize,
    margin: f32,
) {
    let Some(sentence) = sentences.get(at) else {
        return;
    };
    let named_thing = !super::proper_names(sentence).is_empty()
        || super::referents(sentences, at, &[])
            .iter()
            .any(|s| !super::proper_names(s).is_empty());
    let Some((best, top)) = super::best_category(row) else {
        return;
    };
    let details = schema.details();
    let b = &details[best];
    if !named_thing
        || b.kind != ValueKind::Choice
        || b.call.is_some()
        || !values::named_values(schema, b.id, std::slice::from_ref(sentence)).is_empty()
    {
        return;
    }
    swap_with_sibling(schema, row, (best, top), margin, |k| {
        details[k].kind == ValueKind::Text
    });
}

/// When a sentence's best category names none of its known values in full and a category of
/// the same subcategory within `margin` of it has one said in full, that one trades places with
/// it: "HPC every time on long trips" is the charging type (HPC), not the charging network,
/// which it names nothing of. Vehicle settings have their own rule (`Models::prefer_named`).
pub fn said_value_first(schema: &Schema, row: &mut [f32], sentence: &str, margin: f32) {
    let Some((best, top)) = super::best_category(row) else {
        return;
    };
    let details = schema.details();
    let b = &details[best];
    let one = [sentence.to_string()];
    let says = |k: usize| !values::wholly_named(schema, details[k].id, &one).is_empty();
    // A category of names keeps a sentence that names a thing ("My favourite supermarket chain
    // is Aldi" is the chain Aldi, not Supermarket): the rule above, the other way round.
    let names_a_thing = b.kind == ValueKind::Text && !super::proper_names(sentence).is_empty();
    if b.call.is_some() || names_a_thing || says(best) {
        return;
    }
    swap_with_sibling(schema, row, (best, top), margin, says);
}

/// Trades the row's best category (`best`, scoring `top`) for the closest other category of the
/// same subcategory, outside vehicle settings, within `margin` of it, that `fits`.
fn swap_with_sibling(
    schema: &Schema,
    row: &mut [f32],
    (best, top): (usize, f32),
    margin: f32,
    fits: impl Fn(usize) -> bool,
) {
    let details = schema.details();
    let sibling = (0..row.len())
        .filter(|&k| {
            k != best
                && details[k].sub == details[best].sub
                && details[k].call.is_none()
                && row[k].is_finite()
                && row[k] >= top - margin
                && fits(k)
        })
        .max_by(|&x, &y| row[x].total_cmp(&row[y]));
    if let Some(k) = sibling {
        row.swap(best, k);
    }
}

/// Whether the user's words name something else than the free-text values they half name:
/// "BBC Radio 2 is about the only station I ever listen to" shares "Radio" with the catalogue's
/// "RhythmRise Radio", but the name said is another one, and the value is the user's
/// ("Values in the user's words": a catalogue neighbour is a false memory). A value said in
/// full, or a name that holds only words of the half-named values ("RhythmRise" of "RhythmRise
/// Radio"), keeps the catalogue.
pub(super) fn names_another(
    schema: &Schema,
    detail: DetailId,
    at: usize,
    sentences: &[String],
    named: &[&str],
) -> bool {
    let d = schema.detail(detail);
    if d.kind != ValueKind::Text || named.is_empty() {
        return false;
    }
    if !values::wholly_named(schema, detail, sentences).is_empty() {
        return false;
    }
    let said: std::collections::HashSet<String> =
        sentences.iter().flat_map(|s| values::stems(s)).collect();
    let names: Vec<Vec<String>> = super::said_names(sentences, at, &[])
        .iter()
        .map(|n| values::stems(n))
        .collect();
    // Every half-named value is explained by a name: the words of it that were said are all in
    // one name, which also has words of its own ("BBC Radio 2" for "RhythmRise Radio"; not
    // "Celsius" for "25 degree Celcius", whose said words are "25 degree").
    named.iter().all(|v| {
        let words = values::stems(v);
        let heard: Vec<&String> = words.iter().filter(|w| said.contains(*w)).collect();
        names
            .iter()
            .any(|n| heard.iter().all(|w| n.contains(w)) && n.iter().any(|w| !words.contains(w)))
    })
}

#[cfg(test)]
mod tests {
    use super::super::best_category;
    use super::*;

    #[test]
    fn a_named_thing_puts_a_category_of_names_before_a_closed_list() {
        let s = Schema::embedded();
        let idx = |k: &str| s.detail_by_key(k).unwrap().index();
        let (list, names) = (
            idx("preference_for_local_markets_farms_or_supermarket"),
            idx("preferred_supermarket_chains"),
        );
        let row = |a: f32, b: f32| {
            let mut r = vec![0.1; s.details().len()];
            r[list] = a;
            r[names] = b;
            r
        };
        let said = |t: &[&str]| t.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        // The sentence points back at a name: the chains come first.
        let aldi = said(&["Drop me at Aldi.", "I get all my groceries there."]);
        let mut r = row(0.55, 0.53);
        names_before_lists(&s, &mut r, &aldi, 1, 0.1);
        assert_eq!(best_category(&r).unwrap().0, names);
        // No name anywhere: the embedder's order stands.
        let plain = said(&["I get all my groceries at the market."]);
        let mut r = row(0.55, 0.53);
        names_before_lists(&s, &mut r, &plain, 0, 0.1);
        assert_eq!(best_category(&r).unwrap().0, list);
        // A value of the list said: the list keeps its place.
        let named = said(&["SuperSave Supermarket, always."]);
        let mut r = row(0.55, 0.53);
        names_before_lists(&s, &mut r, &named, 0, 0.1);
        assert_eq!(best_category(&r).unwrap().0, list);
        // Too far below the list: the embedder's order stands.
        let mut r = row(0.55, 0.40);
        names_before_lists(&s, &mut r, &aldi, 1, 0.1);
        assert_eq!(best_category(&r).unwrap().0, list);
    }

    #[test]
    fn a_value_said_in_full_picks_its_category_among_close_siblings() {
        let s = Schema::embedded();
        let idx = |k: &str| s.detail_by_key(k).unwrap().index();
        let swap = |best: &str, sibling: &str, gap: f32, sentence: &str| {
            let mut r = vec![0.1; s.details().len()];
            r[idx(best)] = 0.6;
            r[idx(sibling)] = 0.6 - gap;
            said_value_first(&s, &mut r, sentence, 0.1);
            best_category(&r).unwrap().0 == idx(sibling)
        };
        let (network, kind) = (
            "preferred_charging_network",
            "preferred_type_of_charging_while_traveling",
        );
        assert!(swap(network, kind, 0.05, "HPC every time on long trips."));
        // Too far below, or nothing said in full: the embedder's order stands.
        assert!(!swap(network, kind, 0.2, "HPC every time on long trips."));
        assert!(!swap(
            network,
            kind,
            0.05,
            "Fast charging every time on long trips."
        ));
        // A category of names keeps a sentence that names a thing.
        assert!(!swap(
            "preferred_supermarket_chains",
            "preference_for_local_markets_farms_or_supermarket",
            0.05,
            "My go-to supermarket is Aldi."
        ));
        // "Yes" answering the assistant names no value.
        assert!(!swap(
            "preferred_parking_type",
            "preference_for_covered_parking",
            0.05,
            "Yes, find me a spot."
        ));
    }

    #[test]
    fn a_value_named_in_part_gives_way_to_a_name_the_user_says() {
        let s = Schema::embedded();
        let choices = |key: &str, said: &str| {
            let c = super::super::Candidate {
                detail: s.detail_by_key(key).unwrap(),
                score: 0.5,
                sentence: 0,
            };
            super::super::named_choices(&s, &c, &[said.into()])
        };
        // "store" is half of "GreenGroove Stores", but the user named their own shop.
        let shop = "preferred_supermarket_chains";
        assert!(choices(shop, "Stop at Hy-Vee, that's our store.").is_empty());
        // Named in part and nothing else named, mostly said beside a capitalised word, or the
        // user's name part of it: the known value is what the words name.
        for (key, said, value) in [
            (
                shop,
                "We go to the GreenGroove store.",
                "GreenGroove Stores",
            ),
            (
                "preferred_temperature",
                "Keep it at 23 degrees Celsius, that's my number.",
                "23 degree Celcius",
            ),
            (
                "preferred_radio_station",
                "Put on RhythmRise, I love it.",
                "RhythmRise Radio",
            ),
        ] {
            assert_eq!(choices(key, said), vec![value], "{said}");
        }
    }

    #[test]
    fn a_single_value_turned_down_gives_way_to_the_one_named_beside_it() {
        let s = Schema::embedded();
        let key = "preference_for_local_markets_farms_or_supermarket";
        let choices = |said: &str| {
            let c = super::super::Candidate {
                detail: s.detail_by_key(key).unwrap(),
                score: 0.5,
                sentence: 0,
            };
            super::super::named_choices(&s, &c, &[said.into()])
        };
        // Supermarket is said in full and turned down; two of Local Markets/Farms' three
        // words are said and not turned down.
        assert_eq!(
            choices("For groceries it's the local market on Saturdays, never the supermarket."),
            ["Local Markets/Farms"]
        );
        // A free-text category keeps the negation: "radio" is half of "RhythmRise Radio", and
        // the user turns a station down, naming no other.
        let radio = super::super::Candidate {
            detail: s.detail_by_key("preferred_radio_station").unwrap(),
            score: 0.5,
            sentence: 0,
        };
        let said = ["I never want EchoWave FM on the radio again.".to_string()];
        assert!(super::super::named_choices(&s, &radio, &said).contains(&"not EchoWave FM".into()));
        // Nothing else named: the value turned down is offered, as before (the answer's
        // parse stores the other of two, `values::other_of_two`).
        assert_eq!(
            choices("I don't do the supermarket anymore."),
            ["not Supermarket"]
        );
    }
}
