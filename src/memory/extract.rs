//! Extraction: from a finished conversation to zero or more preferences in the schema.
//!
//! Each component does what it is good at. The embedder scores every user sentence against
//! every detail category of the *whole* schema and shortlists the allowed categories that the
//! user's sentences are about (a sentence whose best category the user opted out of offers
//! nothing), each with the user sentence that matches it best: that sentence is the evidence
//! stored, so evidence is always the user's own words. The LLM then reads the conversation and
//! writes the preferences under a grammar generated from the shortlist: a category key among the
//! offered ones and a value (one of the category's known values or a few of the user's words),
//! or `none`. The answer is parsed back into schema types and checked again.
//!
//! **Invariant:** a category outside the allowed set can never be produced: it is absent from
//! the grammar and rejected again by [`parse`].

use super::offer::OfferModel;
use super::values::{self, named_values, NOT};
use crate::schema::{DetailId, DetailSet, Schema, ValueKind};

mod command;
mod complaint;
mod held;
mod mood;
mod names;
mod occasion;
mod prompt;
mod prototypes;
mod referents;
mod spans;
mod statements;
mod subject;
mod titles;

pub use command::{beside_commands, commands};
pub use complaint::complains_of_now;
pub use held::{held_value_first, Held};
pub use mood::{asks, for_the_moment, looks_back, only_now, reminds, requests, supposes};
use names::names_another;
pub use names::{
    just_above, name_words, names_before_lists, names_first, names_one_device,
    said_of_another_thing, said_value_first, says_its_device, spoken_names,
};
pub use occasion::{beside_the_occasion, tells_an_occasion};
pub use prompt::{prompt, prompt_prefix};
pub use prototypes::{
    lines_in_schema, name_texts, parse_examples, placed_in_their_own, prototype_texts, says_name,
    sentence_scores, statement_texts, Example, Heard, Prototype, DEFAULT_EXAMPLES,
};
pub use referents::value_reach;
use referents::{as_pointed_to, referents};
pub use spans::{proper_names, said_as_place, said_names, spans};
pub use statements::{said_of_the_one_before, statements, user_turns, Statements};
pub use subject::{about_someone_else, for_someone_else};
pub use titles::without_credits_said;

/// Whether a statement can say a lasting preference of its speaker at all, whatever the gate
/// makes of it: it is neither about someone else ("My wife loves Thai food":
/// [`about_someone_else`]) nor asked for someone else ("Heated seat on for him too":
/// [`for_someone_else`]), and it neither asks about a supposed situation ("What if I put
/// premium in?": [`supposes`]) or for an answer ("Is there a good Thai place near the
/// theatre?": [`asks`]) nor limits its wish to the moment ("Make the lights red, just for
/// tonight": [`only_now`]) nor asks to be reminded ("Remind me to grab milk from Aldi":
/// [`reminds`]) nor tells only a past habit ("I used to listen to a lot of punk":
/// [`looks_back`]) or one past occasion ("I bought groceries at Aldi on the way home
/// yesterday": [`tells_an_occasion`]).
pub fn speakers_own(s: &str) -> bool {
    !about_someone_else(s)
        && !for_someone_else(s)
        && !supposes(s)
        && !asks(s)
        && !only_now(s)
        && !reminds(s)
        && !looks_back(s)
        && !tells_an_occasion(s)
}

/// A preference read out of a conversation, not yet maintained against the store.
#[derive(Debug, Clone, PartialEq)]
pub struct Extracted {
    pub detail: DetailId,
    pub attribute: String,
    /// The user's own sentence that reveals it.
    pub sentence: String,
    /// The model's probability of this line among the answers the grammar allowed, in [0, 1]
    /// (defined in `memory::confidence`).
    pub confidence: f32,
    /// The situation in which alone it holds, in the user's words from the sentence
    /// (`memory::condition`); `None`: always.
    pub condition: Option<String>,
    /// Said as a one-off request, not a lasting preference (`extraction.hold_one_off`): stored
    /// pending until said again later or confirmed.
    pub one_off: bool,
}

/// A category offered to the LLM, with the embedder's evidence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub detail: DetailId,
    /// Cosine similarity of the best matching user sentence.
    pub score: f32,
    /// Index of that sentence among the user sentences.
    pub sentence: usize,
}

/// Why an LLM answer could not be read (the grammar should make this impossible).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unreadable extraction answer {answer:?}: {problem}")]
pub struct ParseError {
    pub answer: String,
    pub problem: String,
}

/// How sentences become offers ([`offers`]).
#[derive(Debug, Clone, Copy)]
pub struct Offering<'a> {
    /// A category needs a sentence at least this similar.
    pub min_similarity: f32,
    /// Within one sentence, the categories within this of its best may be offered too; with
    /// no model, a sentence offers only within this of the conversation's strongest sentence.
    pub margin: f32,
    /// Categories one sentence offers at most.
    pub per_sentence: usize,
    /// Offers of one conversation at most.
    pub max: usize,
    /// The learned offer decision ([`crate::memory::offer`]); `None`: the margin rule.
    pub model: Option<&'a OfferModel>,
    /// Which passing sentences may be the conversation's strongest (`None`: every one). A
    /// sentence whose best category needs a value it does not name ("The navigation voice is
    /// too quiet.") can store nothing there, and sets no bar for the sentence that does ("Let
    /// me just crank this up to 90"); it still offers when it clears the bar of the others.
    pub leads: Option<&'a [bool]>,
    /// The sentences that set the bar of the conversation's strongest (`None`: the passing
    /// ones). The lasting track's offers are held to the bar of every sentence either track
    /// passes: a request the first track takes for the conversation's preference still stands
    /// above a weaker sentence about another category.
    pub rivals: Option<&'a [bool]>,
    /// The sentences the rows score (the model reads whether one names a value its best
    /// category lists, [`crate::memory::offer::names_listed`]); a row past its end has none.
    pub sentences: &'a [String],
}

/// The offers of a gated extraction, best first: every user sentence that passes the
/// preference gate (`passes[s]`, with the gate's probability `gate[s]`,
/// [`crate::memory::gate`]) and whose best category over the whole schema is allowed and at
/// least `min_similarity` is a candidate. With an offer model, a candidate offers when the
/// model finds it likely enough to state a preference of that category (its probability at or
/// above the model's threshold); without one, when its best is within `margin` of the best of
/// any passing sentence. A sentence that offers, offers its allowed categories within `margin`
/// of its own best (at most `per_sentence` of them); a category offered by several sentences
/// keeps the one that matches it best. At most `max` offers, the likeliest (or, with no
/// model, the most similar) first.
///
/// A sentence whose best category is opted out offers nothing (not its nearest allowed
/// neighbour), and a sentence that states no lasting preference offers nothing at all: that is
/// what keeps requests, questions and small talk out of the memory.
pub fn offers(
    schema: &Schema,
    scores: &[Vec<f32>],
    (gate, passes): (&[f32], &[bool]),
    allowed: &DetailSet,
    how: &Offering,
) -> Vec<Candidate> {
    // Per detail: the best offer and the key it is ranked by.
    let mut best: Vec<Option<(Candidate, f32)>> = vec![None; schema.details().len()];
    let passing = |si: usize| passes.get(si).copied().unwrap_or(false);
    // With no model, a sentence offers only when it is about as clearly about a category as
    // the conversation's strongest (within `margin`), so that when the strongest is about an
    // opted-out category, a weaker sentence cannot smuggle in its nearest allowed neighbour;
    // the model reads the same distance as one of its features.
    let bar = how.rivals.unwrap_or(passes);
    let leading: Vec<bool> = match how.leads {
        Some(l) => bar
            .iter()
            .zip(l.iter().chain(std::iter::repeat(&true)))
            .map(|(&p, &l)| p && l)
            .collect(),
        None => bar.to_vec(),
    };
    let conv_top = match strongest(scores, &leading) {
        t if t.is_finite() => t,
        _ => strongest(scores, bar),
    };
    for (si, row) in scores.iter().enumerate() {
        if !passing(si) {
            continue;
        }
        let Some((top_d, top)) = best_category(row) else {
            continue;
        };
        if !allowed.contains(schema.details()[top_d].id) || top < how.min_similarity {
            continue;
        }
        let rank = match how.model {
            None if top < conv_top - how.margin => continue,
            None => top,
            Some(m) => {
                let g = gate.get(si).copied().unwrap_or(0.0);
                let said = how.sentences.get(si).map_or("", String::as_str);
                let Some(f) = super::offer::features(schema, row, g, conv_top, said) else {
                    continue;
                };
                let p = m.probability(&f);
                if p < m.threshold {
                    continue;
                }
                p
            }
        };
        let mut mine: Vec<(usize, f32)> = row
            .iter()
            .enumerate()
            .filter(|&(di, &s)| {
                s >= how.min_similarity
                    && s >= top - how.margin
                    && allowed.contains(schema.details()[di].id)
            })
            .map(|(di, &s)| (di, s))
            .collect();
        mine.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (di, s) in mine.into_iter().take(how.per_sentence.max(1)) {
            if best[di].is_none_or(|(b, _)| s > b.score) {
                let c = Candidate {
                    detail: schema.details()[di].id,
                    score: s,
                    sentence: si,
                };
                best[di] = Some((c, rank));
            }
        }
    }
    let mut out: Vec<(Candidate, f32)> = best.into_iter().flatten().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.score.total_cmp(&a.0.score)));
    out.truncate(how.max);
    out.into_iter().map(|(c, _)| c).collect()
}

/// A sentence's best category over the whole schema (index and similarity).
pub fn best_category(row: &[f32]) -> Option<(usize, f32)> {
    row.iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, &s)| (i, s))
}

/// The best similarity of any sentence that passes the gate (the conversation's strongest
/// preference sentence); −∞ when none passes.
pub fn strongest(scores: &[Vec<f32>], passes: &[bool]) -> f32 {
    scores
        .iter()
        .zip(passes)
        .filter(|(_, &p)| p)
        .filter_map(|(row, _)| best_category(row).map(|t| t.1))
        .fold(f32::NEG_INFINITY, f32::max)
}

/// Offers grouped by the sentence that made them, in order of each group's best offer: each
/// group is one question to the LLM, so each preference is read from its own sentence.
pub fn by_sentence(offers: &[Candidate]) -> Vec<Vec<Candidate>> {
    let mut groups: Vec<Vec<Candidate>> = Vec::new();
    for c in offers {
        match groups.iter_mut().find(|g| g[0].sentence == c.sentence) {
            Some(g) => g.push(*c),
            None => groups.push(vec![*c]),
        }
    }
    groups
}

/// The model's answer in the general form (`none`, or lines then `end`), whatever the prompt
/// started for it.
pub fn full_answer(schema: &Schema, offered: &[Candidate], answer: &str) -> String {
    match offered {
        [_] if answer.trim() == "none" => "none\n".into(),
        [only] => format!("{}:{}end\n", schema.detail(only.detail).key, answer),
        _ => answer.to_string(),
    }
}

/// Escapes a literal for a GBNF string.
fn gbnf_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The grammar of an answer: `none`, or 1..=`max_prefs` lines over the offered categories
/// (each with its known values or a few free words), then `end`. With `none` false, one
/// offered category's answer is one of the values the user said ([`user_named`]); `none`
/// stays where the user said none.
pub fn grammar(
    schema: &Schema,
    offered: &[Candidate],
    sentences: &Statements,
    max_prefs: usize,
    none: bool,
) -> String {
    let mut g = String::new();
    if offered.is_empty() {
        g.push_str("root ::= \"none\\n\"\n");
        return g;
    }
    if let [only] = offered {
        // The prompt already wrote `key:`: the value, or ` none`.
        let values = value_alternatives(schema, only, sentences);
        let open = match none || !user_named(schema, only, sentences) {
            true => "\" none\\n\" | ",
            false => "",
        };
        g.push_str(&format!(
            "root ::= {open}\" \" ({}) \"\\n\"\n",
            values.join(" | ")
        ));
        g.push_str(FREE);
        return g;
    }
    g.push_str(&format!(
        "root ::= \"none\\n\" | item{{1,{}}} \"end\\n\"\n",
        max_prefs.max(1)
    ));
    let items: Vec<String> = (0..offered.len()).map(|i| format!("c{i}")).collect();
    g.push_str(&format!("item ::= {}\n", items.join(" | ")));
    for (i, c) in offered.iter().enumerate() {
        let d = schema.detail(c.detail);
        let values = value_alternatives(schema, c, sentences);
        g.push_str(&format!(
            "c{i} ::= {} \": \" ({}) \"\\n\"\n",
            gbnf_literal(&d.key),
            values.join(" | ")
        ));
    }
    g.push_str(FREE);
    g
}

/// The values the user named for an offered category ([`named_values`]) and the negation of
/// each one the evidence sentence turns down ([`values::turns_down`]): what the model chooses
/// among (with `none`) when the user named a known value. When the evidence sentence shrugs
/// ([`values::shrugs`]) and the category has a "does not matter" value, that value alone.
pub fn named_choices(schema: &Schema, offered: &Candidate, sentences: &[String]) -> Vec<String> {
    let d = schema.detail(offered.detail);
    if matches!(d.kind, ValueKind::Integer | ValueKind::Flag) {
        // A typed value is read from the evidence sentence alone (`memory::typed`).
        let sentence = sentences.get(offered.sentence).map_or("", String::as_str);
        return super::typed::named(d, sentence);
    }
    let evidence = sentences.get(offered.sentence).map_or("", String::as_str);
    // "I don't care if it's covered": the value that says it does not matter, when the
    // category has one, and only it: the shrug's own "don't" turns nothing down, and the
    // values it shrugs at ("covered") are what does not matter.
    let shrugged = values::shrugged_values(schema, offered.detail, evidence);
    if !shrugged.is_empty() {
        return shrugged.iter().map(|v| v.to_string()).collect();
    }
    let mut named = named_values(schema, offered.detail, sentences);
    // Without a shrug, a does-not-matter value named only by the category's own words
    // ("covered parking" of "Indifferent to Covered Parking" in "Covered parking every time")
    // is not what the words say: they name the thing, and the sentence takes a stance on it.
    let indifferent = values::indifferent_values(schema, offered.detail);
    if !indifferent.is_empty() {
        let whole = values::wholly_named(schema, offered.detail, sentences);
        named.retain(|v| !indifferent.contains(v) || whole.contains(v));
    }
    if names_another(schema, offered.detail, offered.sentence, sentences, &named) {
        return Vec::new();
    }
    // A known value of which the words say no more than half ("our store" of "GreenGroove
    // Stores") is not what a user means who says a name of their own in the evidence that
    // shares none of its words ("Wegmans"): that name is the value, copied from their words,
    // never the catalogue's neighbour. A name that is part of the value ("RhythmRise" of
    // "RhythmRise Radio") keeps it, and so does a value mostly said ("25 degrees Celsius" of
    // "25 degree Celcius", beside the name "Celsius").
    if d.kind == ValueKind::Text {
        let own: Vec<Vec<String>> = proper_names(evidence)
            .iter()
            .filter(|n| !values::known_anywhere(schema, n))
            .map(|n| values::stems(n))
            .collect();
        if !own.is_empty() {
            // The words said as said: not the share `named_values` ranks by, which counts a
            // value's aliases and word forms too ("recirculate" of `inside`).
            let said: Vec<String> = sentences.iter().flat_map(|s| values::stems(s)).collect();
            named.retain(|v| {
                let words = values::stems(v);
                let held = words.iter().filter(|w| said.contains(w)).count();
                2 * held > words.len() || own.iter().any(|n| n.iter().any(|w| words.contains(w)))
            });
        }
    }
    // What a negation can turn down: not a value that is itself an aversion, nor any value of
    // a category that is one (the negation states it); and in a single-value category, nothing
    // once the sentence names a value it does not turn down ("to my face and not the feet" is
    // Face).
    let turned: Vec<&&str> = named
        .iter()
        .filter(|v| values::refuses(schema, offered.detail, evidence, v))
        .collect();
    // A value the words turn down is not offered as liked: the 270M model, given both, chose
    // the value over its negation for 63 % of CarMem's dev questions that turn it down
    // (`glovebox eval polarity`), where the negation's scope says which.
    let mut out: Vec<String> = named
        .iter()
        .filter(|v| !turned.contains(v))
        .map(|v| v.to_string())
        .collect();
    let affirmed = named.len() > turned.len();
    let single = d.cardinality == crate::schema::Cardinality::Single;
    if single && d.kind == ValueKind::Choice && !affirmed && !turned.is_empty() {
        // A single-value choice whose value the user turns down and another they name: what
        // they have, not the negation of the one turned down. Not a free-text category:
        // "Stop setting HarmonyHaven 94.7 as my radio station" names half of "RhythmRise
        // Radio" by the category's own word, and turns a station down.
        let instead = values::named_instead(schema, offered.detail, (sentences, evidence), &named);
        if !instead.is_empty() {
            return instead;
        }
    }
    if !(single && affirmed) {
        out.extend(turned.iter().map(|v| format!("{NOT}{v}")));
    }
    out
}

/// What the model chooses among (with `none`) in one forward pass for one offered category:
/// the values the user named ([`named_choices`]), else a choice detail's known values; empty
/// when the value is to be copied from the user's words (decoded under the grammar).
pub fn scored_choices(schema: &Schema, offered: &Candidate, sentences: &[String]) -> Vec<String> {
    let named = named_choices(schema, offered, sentences);
    let d = schema.detail(offered.detail);
    if named.is_empty() && d.kind.is_closed() {
        return d.attributes.clone();
    }
    named
}

/// Whether one category's value is what the user said: values their words name (a catalogue
/// name in full), or their own words; not a list's value they name none of (the model would
/// pick a catalogue value), nor nothing to store.
pub fn user_named(schema: &Schema, offered: &Candidate, sentences: &Statements) -> bool {
    let d = schema.detail(offered.detail);
    let named = named_choices(schema, offered, sentences);
    if !named.is_empty() {
        // A name said only in part ("the radio" of "RhythmRise Radio") is not the user's.
        let whole = values::wholly_named(schema, offered.detail, sentences);
        return d.kind != ValueKind::Text || named.iter().all(|v| whole.contains(&v.as_str()));
    }
    !(d.kind.is_closed() || d.kind == ValueKind::Integer)
        && spans::copy_words(schema, offered, sentences).is_some_and(|w| !w.is_empty())
}

/// What the grammar offers as a category's value: the user's named choices
/// ([`named_choices`]), if any; otherwise, for a [`ValueKind::Choice`] detail, its known values;
/// otherwise the user's own words, copied from the evidence
/// sentence ([`spans`]), turned down (`not <words>`) when the sentence turns them down. Never a
/// catalogue value the user did not name: a catalogue neighbour of what was said is a false
/// memory.
fn value_alternatives(schema: &Schema, offered: &Candidate, sentences: &Statements) -> Vec<String> {
    let named = named_choices(schema, offered, sentences);
    if !named.is_empty() {
        return named.iter().map(|a| gbnf_literal(a)).collect();
    }
    let detail = schema.detail(offered.detail);
    if detail.kind.is_closed() && !detail.attributes.is_empty() {
        return detail.attributes.iter().map(|a| gbnf_literal(a)).collect();
    }
    if detail.kind == ValueKind::Integer {
        // No number in range in the user's words: nothing to store but `none`.
        return vec![gbnf_literal("none")];
    }
    let sentence = sentences.get(offered.sentence).map_or("", String::as_str);
    let Some(words) = spans::copy_words(schema, offered, sentences) else {
        return vec![gbnf_literal("none")];
    };
    if words.is_empty() {
        return vec!["free".into()];
    }
    // Words the sentence turns down are offered turned down only (see [`named_choices`]).
    words
        .iter()
        .map(|w| match values::turns_down(sentence, w) {
            true => gbnf_literal(&format!("{NOT}{w}")),
            false => gbnf_literal(w),
        })
        .collect()
}

/// A few words of the user's own: no lists, no punctuation runs copied from the schema.
const FREE: &str = "free ::= [A-Za-z0-9] [A-Za-z0-9' .&-]{0,31}\n";

/// Reads an answer back into schema types, checking again everything the grammar promised:
/// offered category, non-empty value. The evidence is the user sentence that matched the
/// category best. Values equal to a known value (ignoring case) take the schema's spelling;
/// repeated lines count once. `line_confidence[i]` is the model's confidence in line `i`.
pub fn parse(
    schema: &Schema,
    answer: &str,
    offered: &[Candidate],
    sentences: &[String],
    line_confidence: &[f32],
) -> Result<Vec<Extracted>, ParseError> {
    let err = |problem: String| ParseError {
        answer: answer.to_string(),
        problem,
    };
    let mut out: Vec<Extracted> = Vec::new();
    let lines: Vec<&str> = answer
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match lines.as_slice() {
        ["none"] => Ok(out),
        [items @ .., "end"] if !items.is_empty() => {
            for (i, line) in items.iter().enumerate() {
                let (key, value) = line
                    .split_once(": ")
                    .ok_or_else(|| err(format!("line {line:?} has no `category: value`")))?;
                let cand = offered
                    .iter()
                    .find(|c| schema.detail(c.detail).key == key)
                    .ok_or_else(|| err(format!("category {key:?} was not offered")))?;
                let value = value.trim();
                if value.is_empty() {
                    return Err(err(format!("line {line:?} has an empty value")));
                }
                let sentence = sentences.get(cand.sentence).ok_or_else(|| {
                    err(format!("there is no user sentence {}", cand.sentence + 1))
                })?;
                // A turned-down value keeps its `not`; the value itself takes the schema's spelling.
                // A known value that starts with "not " ("not relevant (...)") is that value.
                let known = schema
                    .detail(cand.detail)
                    .attributes
                    .iter()
                    .any(|a| a.eq_ignore_ascii_case(value));
                let (not, value) = match value.get(..NOT.len()) {
                    Some(p) if !known && p.eq_ignore_ascii_case(NOT) && value.len() > NOT.len() => {
                        (NOT, value[NOT.len()..].trim())
                    }
                    _ => ("", value),
                };
                let canonical = schema.canonical_attribute(cand.detail, value);
                // A value of the user's words that only says what the category is ("gas
                // station" for Preferred Gas Station, "temperature") is no value.
                if canonical.is_none()
                    && schema.detail(cand.detail).kind == ValueKind::Text
                    && values::names_only_its_category(schema, cand.detail, value)
                {
                    continue;
                }
                // Of a choice of two, the one not turned down ("the market, not the
                // supermarket"): the model chose among the same values as before.
                let refused = canonical.filter(|_| !not.is_empty());
                let attribute =
                    match refused.and_then(|c| values::other_of_two(schema, cand.detail, c)) {
                        Some(other) => other,
                        None => format!("{not}{}", canonical.unwrap_or(value)),
                    };
                if out
                    .iter()
                    .any(|e| e.detail == cand.detail && e.attribute == attribute)
                {
                    continue;
                }
                out.push(Extracted {
                    detail: cand.detail,
                    attribute,
                    sentence: sentence.clone(),
                    // No measured confidence counts as uncertain (see `confidence`).
                    confidence: line_confidence.get(i).copied().unwrap_or(0.0),
                    condition: super::condition::find(sentence),
                    one_off: false,
                });
            }
            Ok(out)
        }
        _ => Err(err(
            "expected `none`, or preference lines followed by `end`".into(),
        )),
    }
}

#[cfg(test)]
mod choice_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod vehicle_tests;
