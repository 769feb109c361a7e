//! Issue 15 (6c): the parsers of the LLM's grammar-constrained answers (extraction's
//! `extract::parse` with `full_answer`, maintenance's `Options::parse`). Every string the
//! grammar the model is given allows (sampled from that grammar's text, `gbnf.rs`) parses back
//! to what it says; the values scored in one forward pass do too; any other string never
//! panics and never yields a category that was not offered or an operation not allowed.

use std::sync::OnceLock;

use glovebox::memory::extract::{self, Candidate, Extracted};
use glovebox::memory::maintain::Options;
use glovebox::memory::values::{self, NOT};
use glovebox::pref::{Maintenance, Millis, Preference, PreferenceId, Status, UserId};
use glovebox::schema::{Cardinality, Schema, ValueKind};
use proptest::prelude::*;

use crate::gbnf::Grammar;

fn schema() -> &'static Schema {
    static S: OnceLock<Schema> = OnceLock::new();
    S.get_or_init(Schema::embedded)
}

/// The words of the schema's known values, so that generated sentences name values.
fn value_words() -> &'static [String] {
    static W: OnceLock<Vec<String>> = OnceLock::new();
    W.get_or_init(|| {
        let mut w: Vec<String> = schema()
            .details()
            .iter()
            .flat_map(|d| d.attributes.iter())
            .flat_map(|a| a.split_whitespace().map(str::to_string))
            .collect();
        w.sort();
        w.dedup();
        w
    })
}

/// A user sentence: value words, function words, negation cues, numbers, odd characters.
fn sentence() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(value_words()).prop_map(|w| w.to_string()),
            2 => prop::sample::select(&["I", "like", "the", "at", "not", "don't", "no more", "never", "always", "please", "and", "it's"][..]).prop_map(str::to_string),
            2 => "[A-Za-z]{1,8}",
            1 => "[0-9]{1,2}",
            1 => "[A-Za-z]{0,3}[\"\\\\:&+'’-][A-Za-z]{0,3}",
            1 => "[éüß😀]{1,2}",
        ],
        1..10,
    )
    .prop_map(|w| format!("{}.", w.join(" ")))
}

/// Sentences and an offer of 1-3 distinct detail categories, each pointing at one sentence.
fn offer() -> impl Strategy<Value = (Vec<String>, Vec<Candidate>)> {
    let n = schema().details().len();
    (
        prop::collection::vec(sentence(), 1..4),
        prop::collection::btree_set(0..n, 1..=3),
        prop::collection::vec(any::<prop::sample::Index>(), 3),
    )
        .prop_map(|(sentences, details, at)| {
            let offered = details
                .into_iter()
                .zip(at)
                .map(|(d, at)| Candidate {
                    detail: schema().details()[d].id,
                    score: 0.5,
                    sentence: at.index(sentences.len()),
                })
                .collect();
            (sentences, offered)
        })
}

/// Checks that `items` is what the answer's lines say: each line's category (one offered),
/// its value (as written, or the schema's spelling of it, `Schema::canonical_attribute`; `not`
/// kept), its evidence sentence
/// and confidence; repeated lines once; a line whose value only names its category, nothing.
fn check_says(
    answer: &str,
    items: &[Extracted],
    offered: &[Candidate],
    sentences: &[String],
    conf: &[f32],
) -> Result<(), TestCaseError> {
    let s = schema();
    let lines: Vec<&str> = answer
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines == ["none"] {
        prop_assert!(items.is_empty());
        return Ok(());
    }
    prop_assert_eq!(lines.last(), Some(&"end"));
    let mut seen: Vec<usize> = Vec::new();
    for (i, line) in lines[..lines.len() - 1].iter().enumerate() {
        let (key, value) = line.split_once(": ").expect("key: value");
        let cand = offered
            .iter()
            .find(|c| s.detail(c.detail).key == key)
            .expect("the grammar writes only offered keys");
        let d = s.detail(cand.detail);
        let value = value.trim();
        let (not, rest) = match value.get(..NOT.len()) {
            Some(p) if p.eq_ignore_ascii_case(NOT) && value.len() > NOT.len() => {
                (NOT, value[NOT.len()..].trim())
            }
            _ => ("", value),
        };
        // A value of the user's words that only says what the category is ("gas station"
        // for Preferred Gas Station) is no value: `extract::parse` drops it.
        if s.canonical_attribute(d.id, rest).is_none()
            && d.kind == ValueKind::Text
            && values::names_only_its_category(s, d.id, rest)
        {
            prop_assert!(
                items.iter().all(|e| e.detail != cand.detail
                    || e.sentence != sentences[cand.sentence]
                    || !e.attribute.eq_ignore_ascii_case(rest)),
                "line {:?} only names its category and is stored: {:?}",
                line,
                items
            );
            continue;
        }
        // A known value is kept exactly; the user's words are kept, or spelled as the known
        // value they name.
        let said = if d.attributes.iter().any(|k| k == value) {
            value.to_string() // a known value, even one that starts with "not "
        } else {
            format!("{not}{}", s.canonical_attribute(d.id, rest).unwrap_or(rest))
        };
        let at = items
            .iter()
            .position(|e| e.detail == cand.detail && e.attribute == said);
        prop_assert!(
            at.is_some(),
            "line {:?} ({:?}) is not in {:?}",
            line,
            said,
            items
        );
        let at = at.unwrap();
        let e = &items[at];
        prop_assert_eq!(&e.sentence, &sentences[cand.sentence]);
        if !seen.contains(&at) {
            // The first line that says it gives the confidence, in order of first mention.
            prop_assert_eq!(at, seen.len(), "items in the order first said");
            prop_assert_eq!(e.confidence, conf.get(i).copied().unwrap_or(0.0));
            seen.push(at);
        }
    }
    prop_assert_eq!(seen.len(), items.len(), "no item the answer did not say");
    Ok(())
}

fn stored(id: u64, attribute: &str, sentence: &str) -> Preference {
    Preference {
        id: PreferenceId(id),
        user: UserId::new("u").unwrap(),
        detail: schema().details()[0].id,
        attribute: attribute.into(),
        sentences: vec![sentence.into()],
        status: Status::Active,
        confidence: 1.0,
        created: Millis(0),
        updated: Millis(0),
        last_recalled: None,
        replaces: None,
        condition: None,
        last_written: Millis(0),
    }
}

/// Stored preferences of one category (distinct ids), an incoming value and its sentence.
fn maintenance_case() -> impl Strategy<Value = (Cardinality, Vec<Preference>, String, String)> {
    let value = prop_oneof![
        prop::sample::select(
            &["Rock", "rock", "Jazz", "not Jazz", "not rock", "Pop", " jazz "][..]
        )
        .prop_map(str::to_string),
        "[A-Za-z ]{1,8}",
    ];
    let said = prop::sample::select(&["I like it.", "No more jazz.", "Rock on.", "Play pop."][..]);
    (
        prop_oneof![Just(Cardinality::Single), Just(Cardinality::Multiple)],
        prop::collection::btree_map(1u64..1_000_000, (value.clone(), said.clone()), 1..5),
        value,
        said,
    )
        .prop_map(|(card, stored_prefs, attribute, sentence)| {
            let st = stored_prefs
                .into_iter()
                .map(|(id, (a, s))| stored(id, &a, s))
                .collect();
            (card, st, attribute, sentence.to_string())
        })
}

fn allowed(o: &Options, m: Maintenance) -> bool {
    match m {
        Maintenance::Pass(id) => o.pass.contains(&id),
        Maintenance::Update(id) => o.update.contains(&id),
        Maintenance::Append => o.append,
        Maintenance::New => false,
    }
}

/// An answer-like string: lines of any schema key (offered or not) and values, `none`, `end`,
/// blank lines and noise.
fn answer_like() -> impl Strategy<Value = String> {
    let keys: Vec<String> = schema().details().iter().map(|d| d.key.clone()).collect();
    let line = prop_oneof![
        4 => (prop::sample::select(keys), prop_oneof![Just(": ".to_string()), "[: ]{0,3}"], "\\PC{0,20}")
            .prop_map(|(k, sep, v)| format!("{k}{sep}{v}")),
        1 => prop::sample::select(&["none", "end", "", " ", "not ", ": ", "NOT x"][..]).prop_map(str::to_string),
        1 => "\\PC{0,30}",
    ];
    prop::collection::vec(line, 0..6).prop_map(|l| l.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_answer_the_extraction_grammar_allows_parses_to_what_it_says(
        (sentences, offered) in offer(),
        max_prefs in 1usize..=3,
        tape in prop::collection::vec(any::<u32>(), 0..64),
        conf in prop::collection::vec(0.0f32..=1.0, 0..4),
    ) {
        let s = schema();
        let grammar = extract::grammar(s, &offered, &sentences.clone().into(), max_prefs, true);
        let decoded = Grammar::parse(&grammar).sample(&tape);
        let answer = extract::full_answer(s, &offered, &decoded);
        let items = extract::parse(s, &answer, &offered, &sentences, &conf);
        prop_assert!(items.is_ok(), "the grammar allowed {:?}, the parser refused it: {:?}\n{}", decoded, items, grammar);
        check_says(&answer, &items.unwrap(), &offered, &sentences, &conf)?;
    }

    #[test]
    fn every_value_scored_in_one_pass_parses_to_itself(
        (sentences, offered) in offer(),
        conf in 0.0f32..=1.0,
    ) {
        let s = schema();
        let only = &offered[..1];
        let mut options = vec![" none".to_string()];
        options.extend(extract::scored_choices(s, &only[0], &sentences).iter().map(|v| format!(" {v}")));
        for option in options {
            let answer = extract::full_answer(s, only, &format!("{option}\n"));
            let items = extract::parse(s, &answer, only, &sentences, &[conf]).unwrap();
            if option == " none" {
                prop_assert!(items.is_empty());
            } else {
                prop_assert_eq!(items.len(), 1);
                prop_assert_eq!(&items[0].attribute, option.trim());
                prop_assert_eq!(items[0].detail, only[0].detail);
                prop_assert_eq!(items[0].confidence, conf);
            }
        }
    }

    #[test]
    fn any_answer_stays_within_the_offer_or_is_refused(
        (mut sentences, offered) in offer(),
        answer in answer_like(),
        drop_sentences in any::<bool>(),
        conf in prop::collection::vec(any::<f32>(), 0..4),
    ) {
        let s = schema();
        if drop_sentences {
            sentences.clear(); // offers pointing at sentences that are not there
        }
        let _ = extract::full_answer(s, &offered, &answer);
        match extract::parse(s, &answer, &offered, &sentences, &conf) {
            Ok(items) => {
                for e in &items {
                    prop_assert!(offered.iter().any(|c| c.detail == e.detail), "{:?} was not offered", e);
                    prop_assert!(!e.attribute.trim().is_empty());
                    prop_assert!(sentences.contains(&e.sentence));
                }
            }
            Err(e) => {
                prop_assert_eq!(&e.answer, &answer);
                prop_assert!(!e.problem.is_empty());
            }
        }
    }

    #[test]
    fn every_maintenance_answer_the_grammar_allows_parses_to_its_operation(
        (card, st, attribute, sentence) in maintenance_case(),
        tape in prop::collection::vec(any::<u32>(), 0..8),
    ) {
        let o = Options::new(card, &st, &attribute, &sentence);
        let answer = Grammar::parse(&o.grammar()).sample(&tape);
        let m = o.parse(&answer);
        prop_assert!(m.is_ok(), "grammar allowed {:?}, parser refused: {:?}", answer, m);
        let m = m.unwrap();
        let words: Vec<&str> = answer.split_whitespace().collect();
        let said = match words.as_slice() {
            ["pass", id] => Maintenance::Pass(PreferenceId(id.parse().unwrap())),
            ["update", id] => Maintenance::Update(PreferenceId(id.parse().unwrap())),
            ["append"] => Maintenance::Append,
            other => panic!("the grammar wrote {other:?}"),
        };
        prop_assert_eq!(m, said);
        prop_assert!(allowed(&o, m));
        for a in o.answers() {
            prop_assert!(allowed(&o, o.parse(&a).unwrap()), "{}", a);
        }
    }

    #[test]
    fn any_maintenance_answer_is_an_allowed_operation_or_refused(
        (card, st, attribute, sentence) in maintenance_case(),
        answer in prop_oneof![
            "\\PC{0,24}",
            ("(pass|update|append|PASS) ?", "[0-9]{0,7}|-1| |x").prop_map(|(a, b)| format!("{a}{b}")),
        ],
    ) {
        let o = Options::new(card, &st, &attribute, &sentence);
        match o.parse(&answer) {
            Ok(m) => prop_assert!(allowed(&o, m), "{:?} from {:?} not in {:?}", m, answer, o),
            Err(e) => prop_assert_eq!(e.answer, answer),
        }
    }
}

/// Found by `every_value_scored_in_one_pass_parses_to_itself`: a known value that starts with
/// "not " was read as that value turned down ("not not relevant (closest with low cost)").
#[test]
fn a_known_value_that_starts_with_not_is_that_value() {
    let s = schema();
    let d = s
        .details()
        .iter()
        .find(|d| d.attributes.iter().any(|a| a.starts_with(NOT)))
        .expect("the schema has such a value");
    let value = d.attributes.iter().find(|a| a.starts_with(NOT)).unwrap();
    let offered = [Candidate {
        detail: d.id,
        score: 0.5,
        sentence: 0,
    }];
    let answer = format!("{}: {value}\nend\n", d.key);
    let got = extract::parse(s, &answer, &offered, &["It is fine.".into()], &[1.0]).unwrap();
    assert_eq!(got[0].attribute, *value);
}
