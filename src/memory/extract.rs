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

use crate::schema::{DetailId, DetailSet, Schema, ValueKind};

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

/// Texts that stand for a detail category when sentences are compared with it. Each detail
/// has several: its place in the hierarchy with its description, and one per known value.
pub fn prototype_texts(schema: &Schema) -> Vec<(DetailId, String)> {
    let mut out = Vec::new();
    for d in schema.details() {
        let sub = &schema.sub(d.sub).name;
        out.push((d.id, format!("{sub} > {}: {}", d.name, d.description)));
        for a in &d.attributes {
            out.push((d.id, format!("{sub} > {}: {a}", d.name)));
        }
    }
    out
}

/// A vector standing for a detail category: a schema text, or a labelled example sentence
/// (which remembers the user it came from, so an evaluation can leave that user's out).
#[derive(Debug, Clone)]
pub struct Prototype {
    pub detail: DetailId,
    pub vector: Vec<f32>,
    pub source: Option<String>,
}

/// One labelled example sentence (a line of `config/examples.jsonl`).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Example {
    pub category: String,
    pub sentence: String,
    #[serde(default)]
    pub source: Option<String>,
}

/// The examples shipped in the binary: one per conversation of the CarMem development split
/// (`scripts/make-examples`).
pub const DEFAULT_EXAMPLES: &str = include_str!("../../config/examples.jsonl");

/// Reads examples (JSON lines), checking every category against the schema.
pub fn parse_examples(schema: &Schema, text: &str) -> Result<Vec<(DetailId, Example)>, String> {
    let mut out = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let e: Example =
            serde_json::from_str(line).map_err(|e| format!("examples line {}: {e}", i + 1))?;
        let d = schema
            .detail_by_key(&e.category)
            .ok_or_else(|| format!("examples line {}: unknown category {:?}", i + 1, e.category))?;
        out.push((d, e));
    }
    Ok(out)
}

/// Per sentence, the similarity to every detail: `sims[s][d]` (max over the detail's
/// prototypes, leaving out examples from `exclude`).
pub fn sentence_scores(
    schema: &Schema,
    prototypes: &[Prototype],
    sentences: &[Vec<f32>],
    exclude: Option<&str>,
) -> Vec<Vec<f32>> {
    sentences
        .iter()
        .map(|s| {
            let mut row = vec![f32::NEG_INFINITY; schema.details().len()];
            for Prototype {
                detail: d,
                vector: p,
                source,
            } in prototypes
            {
                if exclude.is_some() && source.as_deref() == exclude {
                    continue;
                }
                let c = crate::embed::cosine(s, p);
                let slot = &mut row[d.index()];
                if c > *slot {
                    *slot = c;
                }
            }
            row
        })
        .collect()
}

/// The offers of a gated extraction, best first: every user sentence that passes the
/// preference gate (`passes[s]`, [`crate::memory::gate`]) and whose best category over the whole
/// schema is allowed, at least `min_similarity`, and within `margin` of the best of any passing
/// sentence, offers its allowed categories within `margin` of its own best (at most
/// `per_sentence` of them); a category offered by several sentences keeps
/// the one that matches it best. At most `max` offers.
///
/// A sentence whose best category is opted out offers nothing (not its nearest allowed
/// neighbour), and a sentence that states no lasting preference offers nothing at all: that is
/// what keeps requests, questions and small talk out of the memory.
pub fn offers(
    schema: &Schema,
    scores: &[Vec<f32>],
    passes: &[bool],
    allowed: &DetailSet,
    min_similarity: f32,
    margin: f32,
    per_sentence: usize,
    max: usize,
) -> Vec<Candidate> {
    let mut best: Vec<Option<Candidate>> = vec![None; schema.details().len()];
    let top_of = |row: &Vec<f32>| {
        row.iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, &s)| (i, s))
    };
    // The conversation's strongest preference sentence, over the whole schema: another
    // sentence offers only when it is about as clearly about a category (within `margin`), so
    // that when the strongest is about an opted-out category, a weaker sentence cannot smuggle
    // in its nearest allowed neighbour, and passing remarks around a preference stay out.
    let conv_top = scores
        .iter()
        .enumerate()
        .filter(|(si, _)| passes.get(*si).copied().unwrap_or(false))
        .filter_map(|(_, row)| top_of(row).map(|t| t.1))
        .fold(f32::NEG_INFINITY, f32::max);
    for (si, row) in scores.iter().enumerate() {
        if !passes.get(si).copied().unwrap_or(false) {
            continue;
        }
        let Some((top_d, top)) = top_of(row) else {
            continue;
        };
        if !allowed.contains(schema.details()[top_d].id)
            || top < min_similarity
            || top < conv_top - margin
        {
            continue;
        }
        let mut mine: Vec<(usize, f32)> = row
            .iter()
            .enumerate()
            .filter(|&(di, &s)| {
                s >= min_similarity
                    && s >= top - margin
                    && allowed.contains(schema.details()[di].id)
            })
            .map(|(di, &s)| (di, s))
            .collect();
        mine.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (di, s) in mine.into_iter().take(per_sentence.max(1)) {
            if best[di].is_none_or(|b| s > b.score) {
                best[di] = Some(Candidate {
                    detail: schema.details()[di].id,
                    score: s,
                    sentence: si,
                });
            }
        }
    }
    let mut out: Vec<Candidate> = best.into_iter().flatten().collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out.truncate(max);
    out
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

const INSTRUCTIONS: &str = "\
You are the long-term memory of an in-car voice assistant. Read a finished conversation and \
write down the lasting preferences the user reveals about themselves, using only the offered \
categories. You are shown the user's own sentences (S1, S2, ...); what the assistant said or \
suggested is never the user's preference and is left out. A one-off request is not a preference \
unless the user says it is what they like, want, need or usually do.
Write one line per preference: `category: value`, then `end`. \
Copy the value from the user's own words: the name, number or thing they said. A value \
the user turns down is written `not <value>`. If the user reveals no lasting preference in the \
offered categories, write `none`.
";

const EXAMPLES: &str = "\
Example.
Conversation:
S1: It's a bit chilly in here.
S2: I always like the cabin at 21 degrees.
Offered categories: preferred_temperature
Preferences:
preferred_temperature: 21 degrees
end

Example.
Conversation:
S1: Can you tell me how long the drive to the airport takes?
S2: Sure, why not.
Offered categories: favorite_genres
Preferences:
none

Example.
Conversation:
S1: Please stop playing jazz, I'm not into it anymore.
Offered categories: favorite_genres
Preferences:
favorite_genres: not jazz
end

Example.
Conversation:
S1: We normally fill up at Repsol, their coffee is decent.
Offered categories: preferred_gas_station
Preferences:
preferred_gas_station: Repsol
end

Example.
Conversation:
S1: Find me somewhere to eat.
S2: Yes, I'm vegetarian, so please only show places with vegetarian dishes.
S3: And I'll pay by card.
Offered categories: dietary_preferences, preferred_payment_method
Preferences:
dietary_preferences: vegetarian
preferred_payment_method: card
end
";

/// The shared, KV-cached part of every extraction prompt: instructions, the whole schema and
/// worked examples. It does not depend on the user, so opted-out categories are removed from
/// the grammar (and the offered list), not from here.
pub fn prompt_prefix(schema: &Schema) -> String {
    let mut p = String::from(INSTRUCTIONS);
    p.push_str("\nCategories (key: meaning):\n");
    for d in schema.details() {
        p.push_str(&format!("{}: {}\n", d.key, d.description));
    }
    p.push('\n');
    p.push_str(EXAMPLES);
    p.push('\n');
    p
}

/// Replaces line breaks so that a turn stays on its line of the prompt.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The request's own prompt: the user's sentences, numbered, and the offer. With one offered
/// category the answer's line is started for the model (`key:`), so it only writes the value
/// (or `none`): forced tokens cost a decoding step each.
pub fn prompt(schema: &Schema, sentences: &[String], offered: &[Candidate]) -> String {
    let mut p = String::from("Example.\nConversation:\n");
    // Every prompt token costs time: with one offered category, only the sentence that matched
    // it and those naming one of its values are shown.
    let shown: Vec<&String> = match offered {
        [only] => {
            let named = named_values(schema, only.detail, sentences);
            let value_words: std::collections::HashSet<String> =
                named.iter().flat_map(|v| stems(v)).collect();
            sentences
                .iter()
                .enumerate()
                .filter(|(i, s)| {
                    *i == only.sentence || stems(s).iter().any(|w| value_words.contains(w))
                })
                .map(|(_, s)| s)
                .collect()
        }
        _ => sentences.iter().collect(),
    };
    for (i, s) in shown.iter().enumerate() {
        p.push_str(&format!("S{}: {}\n", i + 1, one_line(s)));
    }
    let keys: Vec<&str> = offered
        .iter()
        .map(|c| schema.detail(c.detail).key.as_str())
        .collect();
    p.push_str(&format!("Offered categories: {}\n", keys.join(", ")));
    for c in offered {
        let d = schema.detail(c.detail);
        // A choice among known values the user did not name: the model needs to see them.
        if d.kind == ValueKind::Choice && named_values(schema, c.detail, sentences).is_empty() {
            p.push_str(&format!(
                "Values of {}: {}\n",
                d.key,
                d.attributes.join(", ")
            ));
        }
    }
    p.push_str("Preferences:\n");
    if let [only] = offered {
        p.push_str(&format!("{}:", schema.detail(only.detail).key));
    }
    p
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
/// (each with its known values or a few free words), then `end`.
pub fn grammar(
    schema: &Schema,
    offered: &[Candidate],
    sentences: &[String],
    max_prefs: usize,
) -> String {
    let mut g = String::new();
    if offered.is_empty() {
        g.push_str("root ::= \"none\\n\"\n");
        return g;
    }
    if let [only] = offered {
        // The prompt already wrote `key:`: the value, or ` none`.
        let values = value_alternatives(schema, only, sentences);
        g.push_str(&format!(
            "root ::= \" none\\n\" | \" \" ({}) \"\\n\"\n",
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

/// Lower-case word stems (a trailing plural `s` dropped) of a text, for matching values.
fn stems(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let w = w.to_lowercase();
            match w.strip_suffix('s') {
                Some(stem) if stem.len() >= 3 => stem.to_string(),
                _ => w,
            }
        })
        .collect()
}

/// The category's known values that the user's own words name: those sharing the largest
/// share (at least half) of their words with the user's sentences ("Set it to 25 degrees
/// Celsius" names "25 degree Celcius", not "21 degree Celcius"). Empty when none is named.
pub fn named_values<'a>(
    schema: &'a Schema,
    detail: DetailId,
    sentences: &[String],
) -> Vec<&'a str> {
    let said: std::collections::HashSet<String> = sentences.iter().flat_map(|s| stems(s)).collect();
    let mut best = 0.5f32;
    let mut out = Vec::new();
    for a in &schema.detail(detail).attributes {
        let words = stems(a);
        if words.is_empty() {
            continue;
        }
        let share = words.iter().filter(|w| said.contains(*w)).count() as f32 / words.len() as f32;
        if share > best + 1e-6 {
            best = share;
            out.clear();
        }
        if (share - best).abs() <= 1e-6 {
            out.push(a.as_str());
        }
    }
    out
}

/// How a value the user turns down is written: `not <value>` ("Avoid health podcasts from now
/// on" → `favorite_podcast_genres: not Health`). Maintenance reads it as the negation of the
/// stored value ([`negation_of`]).
pub const NOT: &str = "not ";

/// The values the user named for an offered category ([`named_values`]) and, when the evidence
/// sentence turns something down ([`crate::memory::maintain::negates`]), each one's negation:
/// what the model chooses among (with `none`) when the user named a known value.
pub fn named_choices(schema: &Schema, offered: &Candidate, sentences: &[String]) -> Vec<String> {
    let named = named_values(schema, offered.detail, sentences);
    let mut out: Vec<String> = named.iter().map(|v| v.to_string()).collect();
    if sentences
        .get(offered.sentence)
        .is_some_and(|s| crate::memory::maintain::negates(s))
    {
        out.extend(named.iter().map(|v| format!("{NOT}{v}")));
    }
    out
}

/// What the model chooses among (with `none`) in one forward pass for one offered category:
/// the values the user named ([`named_choices`]), else a choice detail's known values; empty
/// when the value is to be copied from the user's words (decoded under the grammar).
pub fn scored_choices(schema: &Schema, offered: &Candidate, sentences: &[String]) -> Vec<String> {
    let named = named_choices(schema, offered, sentences);
    let d = schema.detail(offered.detail);
    if named.is_empty() && d.kind == ValueKind::Choice {
        return d.attributes.clone();
    }
    named
}

/// Whether one attribute is the other turned down (`not X` against `X`, either way round,
/// ignoring case).
pub fn negation_of(a: &str, b: &str) -> bool {
    let strip = |x: &str| {
        let x = x.trim();
        x.get(..NOT.len())
            .filter(|p| p.eq_ignore_ascii_case(NOT))
            .map(|_| x[NOT.len()..].trim().to_string())
    };
    match (strip(a), strip(b)) {
        (Some(x), None) => x.eq_ignore_ascii_case(b.trim()),
        (None, Some(y)) => y.eq_ignore_ascii_case(a.trim()),
        _ => false,
    }
}

/// What the grammar offers as a category's value: the user's named choices
/// ([`named_choices`]), if any; otherwise, for a [`ValueKind::Choice`] detail, its known values;
/// otherwise the user's own words, copied from the evidence
/// sentence ([`spans`]), turned down (`not <words>`) when the sentence negates. Never a
/// catalogue value the user did not name: a catalogue neighbour of what was said is a false
/// memory.
fn value_alternatives(schema: &Schema, offered: &Candidate, sentences: &[String]) -> Vec<String> {
    let named = named_choices(schema, offered, sentences);
    if !named.is_empty() {
        return named.iter().map(|a| gbnf_literal(a)).collect();
    }
    let detail = schema.detail(offered.detail);
    if detail.kind == ValueKind::Choice && !detail.attributes.is_empty() {
        return detail.attributes.iter().map(|a| gbnf_literal(a)).collect();
    }
    let sentence = sentences.get(offered.sentence).map_or("", String::as_str);
    let words = spans(sentence);
    if words.is_empty() {
        return vec!["free".into()];
    }
    let mut out: Vec<String> = words.iter().map(|w| gbnf_literal(w)).collect();
    if crate::memory::maintain::negates(sentence) {
        out.extend(words.iter().map(|w| gbnf_literal(&format!("{NOT}{w}"))));
    }
    out
}

/// Words that neither start nor end a value: a value is a name, a number or a thing
/// ("Lidl", "BBC Radio 2", "22 degrees"), not "at Lidl" or "Lidl and".
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "to", "at", "in", "on", "of", "for", "by", "with", "from", "and", "or",
    "but", "i", "i'm", "im", "me", "my", "we", "our", "us", "you", "your", "it", "it's", "its",
    "is", "are", "am", "was", "be", "do", "does", "that", "this", "these", "those", "there",
    "please", "so", "just", "really", "always", "usually", "like", "love", "prefer", "want",
    "when", "if", "as", "than", "then", "up", "down", "some", "any", "all", "can", "could",
    "would", "will", "should", "set", "put", "play", "find", "make", "get", "go", "one", "not",
    "no", "don't", "never", "every", "very", "much", "more", "most", "have", "has",
];

/// Longest value copied from a sentence, in words.
const MAX_SPAN_WORDS: usize = 5;

/// The runs of the sentence's words a value can be: 1 to 5 consecutive words, punctuation
/// trimmed, neither starting nor ending with a function word; longest first within a start
/// position, in sentence order.
pub fn spans(sentence: &str) -> Vec<String> {
    let words: Vec<&str> = sentence
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '&' || c == '+')))
        .collect();
    let function = |w: &str| {
        let lower = w.to_lowercase().replace('\u{2019}', "'");
        w.is_empty() || FUNCTION_WORDS.contains(&lower.as_str())
    };
    let mut out: Vec<String> = Vec::new();
    for i in 0..words.len() {
        if function(words[i]) {
            continue;
        }
        for j in (i..words.len().min(i + MAX_SPAN_WORDS)).rev() {
            if function(words[j]) || words[i..=j].iter().any(|w| w.is_empty()) {
                continue;
            }
            let span = words[i..=j].join(" ");
            if span.len() <= 48 && !out.contains(&span) {
                out.push(span);
            }
        }
    }
    out
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
                let (not, value) = match value.get(..NOT.len()) {
                    Some(p) if p.eq_ignore_ascii_case(NOT) && value.len() > NOT.len() => {
                        (NOT, value[NOT.len()..].trim())
                    }
                    _ => ("", value),
                };
                let attribute = format!(
                    "{not}{}",
                    schema
                        .canonical_attribute(cand.detail, value)
                        .unwrap_or(value)
                );
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
mod tests {
    use super::*;

    fn cand(schema: &Schema, key: &str, sentence: usize) -> Candidate {
        Candidate {
            detail: schema.detail_by_key(key).unwrap(),
            score: 0.5,
            sentence,
        }
    }

    #[test]
    fn grammar_offers_only_the_shortlist() {
        let s = Schema::embedded();
        let offered = [cand(&s, "preferred_temperature", 0)];
        let said22 = ["I always want 22 degrees.".to_string()];
        let g = grammar(&s, &offered, &said22, 2);
        assert!(g.contains("\"22 degree Celcius\""));
        assert!(!g.contains("favorite_genres"));
        assert!(g.starts_with("root ::= \" none\\n\" | \" \" ("), "{g}");
        let two = [offered[0], cand(&s, "fan_speed_preferences", 0)];
        let g2 = grammar(&s, &two, &said22, 2);
        assert!(g2.contains("item{1,2}") && g2.contains("\"preferred_temperature\""));
        assert!(g2.contains("\"fan_speed_preferences\"") && !g2.contains("favorite_genres"));
        assert_eq!(grammar(&s, &[], &[], 2), "root ::= \"none\\n\"\n");
        let said = ["Set it to 25 degrees Celsius, please.".to_string()];
        let g = grammar(&s, &offered, &said, 2);
        assert!(
            g.contains("\"25 degree Celcius\"") && !g.contains("\"21 degree Celcius\""),
            "{g}"
        );
    }

    #[test]
    fn answers_parse_into_schema_types() {
        let s = Schema::embedded();
        let offered = [
            cand(&s, "preferred_temperature", 1),
            cand(&s, "favorite_genres", 0),
        ];
        let sents = vec!["Hi.".to_string(), "Keep it at 22 please.".to_string()];
        let got = parse(
            &s,
            "preferred_temperature: 22 DEGREE celcius\nfavorite_genres: synthwave\nend\n",
            &offered,
            &sents,
            &[0.9, 0.4],
        )
        .unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].attribute, "22 degree Celcius");
        assert_eq!(got[0].sentence, "Keep it at 22 please.");
        assert_eq!(got[0].confidence, 0.9);
        assert_eq!(got[1].attribute, "synthwave");
        assert!(parse(&s, "none\n", &offered, &sents, &[])
            .unwrap()
            .is_empty());
    }

    #[test]
    fn values_the_user_names_are_found() {
        let s = Schema::embedded();
        let d = |k: &str| s.detail_by_key(k).unwrap();
        let say = |t: &str| vec![t.to_string()];
        assert_eq!(
            named_values(
                &s,
                d("preferred_temperature"),
                &say("Set it to 25 degrees Celsius.")
            ),
            vec!["25 degree Celcius"]
        );
        assert_eq!(
            named_values(
                &s,
                d("desired_price_range"),
                &say("I prefer the expensive side.")
            ),
            vec!["expensive"]
        );
        assert_eq!(
            named_values(
                &s,
                d("favorite_artists_bands"),
                &say("Play Wolfgang Amadeus Harmonix.")
            ),
            vec!["Wolfgang Amadeus Harmonix (Classical)"]
        );
        assert!(named_values(&s, d("favorite_genres"), &say("Play something nice.")).is_empty());
    }

    #[test]
    fn a_named_value_can_be_turned_down_only_when_the_sentence_negates() {
        let s = Schema::embedded();
        let say = |t: &str| vec![t.to_string()];
        let c = cand(&s, "favorite_genres", 0);
        assert_eq!(named_choices(&s, &c, &say("I love Jazz.")), vec!["Jazz"]);
        assert_eq!(
            named_choices(&s, &c, &say("Stop playing jazz, please.")),
            vec!["Jazz", "not Jazz"]
        );
        let g = grammar(&s, &[c], &say("No more jazz."), 2);
        assert!(g.contains("\"not Jazz\""), "{g}");
        let got = parse(
            &s,
            "favorite_genres: NOT jazz\nend\n",
            &[c],
            &say("No more jazz."),
            &[0.9],
        )
        .unwrap();
        assert_eq!(got[0].attribute, "not Jazz");
        assert!(negation_of("not Jazz", "jazz") && negation_of("Jazz", "Not Jazz"));
        assert!(!negation_of("Jazz", "Jazz") && !negation_of("not Jazz", "not Jazz"));
        assert!(!negation_of("nothing", "hing"));
    }

    #[test]
    fn a_single_offer_is_started_in_the_prompt() {
        let s = Schema::embedded();
        let offered = [cand(&s, "preferred_temperature", 0)];
        let p = prompt(&s, &["Keep it at 22.".to_string()], &offered);
        assert!(p.ends_with("Preferences:\npreferred_temperature:"), "{p}");
        assert_eq!(
            full_answer(&s, &offered, " 22 degree Celcius\n"),
            "preferred_temperature: 22 degree Celcius\nend\n"
        );
        assert_eq!(full_answer(&s, &offered, " none\n"), "none\n");
    }

    #[test]
    fn answers_outside_the_offer_are_rejected() {
        let s = Schema::embedded();
        let offered = [cand(&s, "preferred_temperature", 0)];
        let sents = vec!["Hi.".to_string()];
        let e = |a: &str| parse(&s, a, &offered, &sents, &[]).unwrap_err().problem;
        assert!(e("favorite_genres: Jazz\nend\n").contains("not offered"));
        assert!(e("preferred_temperature: 22\n").contains("expected"));
        assert!(e("preferred_temperature: \nend\n").contains("no `category: value`"));
    }

    #[test]
    fn only_gated_sentences_about_allowed_categories_offer() {
        let s = Schema::embedded();
        let n = s.details().len();
        let temp = s.detail_by_key("preferred_temperature").unwrap();
        let fan = s.detail_by_key("fan_speed_preferences").unwrap();
        let genres = s.detail_by_key("favorite_genres").unwrap();
        let mut row = vec![0.0f32; n];
        row[temp.index()] = 0.8;
        row[fan.index()] = 0.75;
        row[genres.index()] = 0.2;
        let all = s.all_details();
        let got = offers(&s, &[row.clone()], &[true], &all, 0.3, 0.1, 3, 3);
        assert_eq!(
            got.iter().map(|c| c.detail).collect::<Vec<_>>(),
            vec![temp, fan]
        );
        assert_eq!(
            offers(&s, &[row.clone()], &[true], &all, 0.3, 0.1, 1, 3).len(),
            1
        );
        // A sentence the gate holds back offers nothing, however close to a category.
        assert!(offers(&s, &[row.clone()], &[false], &all, 0.3, 0.1, 3, 3).is_empty());
        // Opting out of the best category silences the sentence entirely.
        let mut allowed = all.clone();
        allowed.remove(temp);
        assert!(offers(&s, &[row.clone()], &[true], &allowed, 0.3, 0.1, 3, 3).is_empty());
        // Two preference sentences offer one category each, each with its own sentence.
        let mut music = vec![0.0f32; n];
        music[genres.index()] = 0.6;
        let both = [row, music];
        let got = offers(&s, &both, &[true, true], &all, 0.3, 0.25, 1, 3);
        assert_eq!(
            got.iter()
                .map(|c| (c.detail, c.sentence))
                .collect::<Vec<_>>(),
            vec![(temp, 0), (genres, 1)]
        );
        assert_eq!(by_sentence(&got).len(), 2);
        // A sentence far less clearly about its category than the strongest one offers nothing.
        let got = offers(&s, &both, &[true, true], &all, 0.3, 0.1, 1, 3);
        assert_eq!(got.len(), 1);
        // When the strongest sentence is about an opted-out category, the weaker one stays
        // silent too (it cannot smuggle in a neighbour).
        let mut no_temp = all.clone();
        no_temp.remove(temp);
        no_temp.remove(fan);
        assert!(offers(&s, &both, &[true, true], &no_temp, 0.3, 0.1, 1, 3).is_empty());
    }

    #[test]
    fn values_are_copied_from_the_sentence() {
        let sp = spans("I do all my grocery shopping at Lidl.");
        assert!(sp.contains(&"Lidl".to_string()), "{sp:?}");
        assert!(
            !sp.iter()
                .any(|w| w.starts_with("at ") || w.ends_with(" at")),
            "{sp:?}"
        );
        let sp = spans("BBC Radio 2, the station I listen to every day");
        assert!(sp.contains(&"BBC Radio 2".to_string()), "{sp:?}");
        let s = Schema::embedded();
        let c = cand(&s, "preferred_supermarket_chains", 0);
        let g = grammar(
            &s,
            &[c],
            &["I do all my grocery shopping at Lidl.".to_string()],
            3,
        );
        assert!(g.contains("\"Lidl\""), "{g}");
        // No catalogue neighbour is offered for a value the user did not name.
        for a in &s.detail(c.detail).attributes {
            assert!(!g.contains(&format!("\"{a}\"")), "{a} in {g}");
        }
    }
}
