//! Maintenance (CarMem §3.2): an incoming preference against what the user already has in the
//! same detail category. Nothing stored → a new preference, without asking the model. Otherwise
//! the LLM answers under a grammar `pass <id>`, `update <id>` or `append`, where the ids are
//! restricted to the preferences shown and `append` exists only for multi-valued categories.
//! When the schema leaves only `pass` or `update` of the same value, the question is whether the
//! new sentence negates the stored value or restates it; the 270M model answered `update` on
//! almost every restatement, so a negation cue in the sentence ([`negates`]) decides that case
//! without the model.

use super::values::{self, negates};
use crate::pref::{Maintenance, Preference, PreferenceId};
use crate::schema::{Cardinality, Detail};

/// Why a maintenance answer could not be read (the grammar should make this impossible).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unreadable maintenance answer {answer:?}: {problem}")]
pub struct ParseError {
    pub answer: String,
    pub problem: String,
}

const INSTRUCTIONS: &str = "\
You keep the memory of an in-car voice assistant up to date. The user just revealed a \
preference (New). Compare it with the user's stored preferences of the same category and \
answer with exactly one of:
pass <id>: New says the same as stored preference <id>; keep the stored one.
update <id>: New changes, contradicts or negates stored preference <id>; replace it.
append: New is one more value beside the stored ones and contradicts none of them (only where the category holds several values).
";

const EXAMPLES: &str = "\
Example.
Category: favorite_cuisine (holds several values)
Stored:
[4] Italian
New: Italian: \"Let's get some Italian again tonight.\"
Answer: pass 4

Example.
Category: preferred_temperature (holds one value)
Stored:
[7] 20 degree Celcius
New: 23 degree Celcius: \"Make it 23 degrees, that's how I like it now.\"
Answer: update 7

Example.
Category: favorite_genres (holds several values)
Stored:
[2] Rock
New: Jazz: \"I also enjoy jazz a lot.\"
Answer: append

Example.
Category: dietary_preferences (holds several values)
Stored:
[9] Vegan
[11] Nut Allergies
New: Vegan: \"I don't eat vegan anymore, show me all restaurants.\"
Answer: update 9
";

/// The shared, KV-cached part of every maintenance prompt.
pub fn prompt_prefix() -> String {
    format!("{INSTRUCTIONS}\n{EXAMPLES}\n")
}

fn quote(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('"', "'")
}

/// The request's own prompt: the category, the stored preferences and the new one.
pub fn prompt(detail: &Detail, stored: &[Preference], attribute: &str, sentence: &str) -> String {
    let holds = match detail.cardinality {
        Cardinality::Single => "holds one value",
        Cardinality::Multiple => "holds several values",
    };
    // Stored preferences are shown by value only: every prompt token costs time (~10 ms here),
    // and the new sentence is what the decision turns on.
    let mut p = format!("Example.\nCategory: {} ({holds})\nStored:\n", detail.key);
    for s in stored {
        p.push_str(&format!("[{}] {}\n", s.id, quote(&s.attribute)));
    }
    p.push_str(&format!(
        "New: {}: \"{}\"\nAnswer:",
        quote(attribute),
        quote(sentence)
    ));
    p
}

/// The operations the grammar offers for one incoming preference. The schema and the values
/// narrow them before the model is asked: a stored preference with the same value can be
/// confirmed (`pass`) or negated (`update`); a different value in a single-value category can
/// only replace the stored one; in a multi-value category it is either one more value
/// (`append`) or replaces one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub pass: Vec<PreferenceId>,
    pub update: Vec<PreferenceId>,
    pub append: bool,
}

impl Options {
    pub fn new(
        cardinality: Cardinality,
        stored: &[Preference],
        attribute: &str,
        sentence: &str,
    ) -> Options {
        let same: Vec<PreferenceId> = stored
            .iter()
            .filter(|p| p.attribute.trim().eq_ignore_ascii_case(attribute.trim()))
            .map(|p| p.id)
            .collect();
        // The very sentence already stored as evidence is not news: it confirms, nothing else.
        if let Some(p) = stored.iter().find(|p| {
            same.contains(&p.id) && p.sentences.iter().any(|s| s.trim() == sentence.trim())
        }) {
            return Options {
                pass: vec![p.id],
                update: Vec::new(),
                append: false,
            };
        }
        // `not X` against a stored `X` (or `X` against a stored `not X`): the user changed their
        // mind about that value, which replaces it.
        if let Some(p) = stored
            .iter()
            .find(|p| values::negation_of(&p.attribute, attribute))
        {
            return Options {
                pass: Vec::new(),
                update: vec![p.id],
                append: false,
            };
        }
        if !same.is_empty() {
            return Options {
                pass: same.clone(),
                update: same,
                append: false,
            };
        }
        Options {
            pass: Vec::new(),
            update: stored.iter().map(|p| p.id).collect(),
            append: cardinality == Cardinality::Multiple,
        }
    }

    /// The decision when there is only one possible answer.
    pub fn forced(&self) -> Option<Maintenance> {
        match (self.pass.as_slice(), self.update.as_slice(), self.append) {
            ([], [id], false) => Some(Maintenance::Update(*id)),
            ([], [], true) => Some(Maintenance::Append),
            ([id], [], false) => Some(Maintenance::Pass(*id)),
            _ => None,
        }
    }

    /// The decision between `pass` and `update` of the same single stored value, by the
    /// negation cue of the new sentence; `None` when the options are anything else.
    pub fn by_negation(&self, sentence: &str) -> Option<Maintenance> {
        match (self.pass.as_slice(), self.update.as_slice(), self.append) {
            ([p], [u], false) if p == u => Some(if negates(sentence) {
                Maintenance::Update(*u)
            } else {
                Maintenance::Pass(*p)
            }),
            _ => None,
        }
    }

    /// Every answer the options allow, as the model would write it.
    pub fn answers(&self) -> Vec<String> {
        let mut out: Vec<String> = self.pass.iter().map(|id| format!(" pass {id}")).collect();
        out.extend(self.update.iter().map(|id| format!(" update {id}")));
        if self.append {
            out.push(" append".into());
        }
        out
    }

    /// The grammar of an answer.
    pub fn grammar(&self) -> String {
        let ids = |v: &[PreferenceId]| {
            v.iter()
                .map(|id| format!("\"{id}\""))
                .collect::<Vec<_>>()
                .join(" | ")
        };
        let mut alts = Vec::new();
        if !self.pass.is_empty() {
            alts.push(format!("\" pass \" ({})", ids(&self.pass)));
        }
        if !self.update.is_empty() {
            alts.push(format!("\" update \" ({})", ids(&self.update)));
        }
        if self.append {
            alts.push("\" append\"".to_string());
        }
        format!("root ::= ({}) \"\\n\"\n", alts.join(" | "))
    }

    /// Reads an answer back, checking it is one of the offered operations.
    pub fn parse(&self, answer: &str) -> Result<Maintenance, ParseError> {
        let err = |problem: &str| ParseError {
            answer: answer.to_string(),
            problem: problem.to_string(),
        };
        let a = answer.trim();
        if a == "append" {
            return if self.append {
                Ok(Maintenance::Append)
            } else {
                Err(err("append was not offered"))
            };
        }
        let (op, id) = a
            .split_once(' ')
            .ok_or_else(|| err("expected `pass <id>`, `update <id>` or `append`"))?;
        let id = id
            .parse::<u64>()
            .map(PreferenceId)
            .map_err(|_| err("bad id"))?;
        match op {
            "pass" if self.pass.contains(&id) => Ok(Maintenance::Pass(id)),
            "update" if self.update.contains(&id) => Ok(Maintenance::Update(id)),
            _ => Err(err("that operation on that id was not offered")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pref::{Millis, Status, UserId};
    use crate::schema::Schema;

    fn stored(id: u64, attribute: &str) -> Preference {
        let s = Schema::embedded();
        Preference {
            id: PreferenceId(id),
            user: UserId::new("u").unwrap(),
            detail: s.detail_by_key("favorite_genres").unwrap(),
            attribute: attribute.into(),
            sentences: vec!["I like it.".into()],
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

    #[test]
    fn a_turned_down_value_replaces_the_stored_one() {
        let st = [stored(3, "Rock"), stored(12, "Jazz")];
        let not = Options::new(Cardinality::Multiple, &st, "not Jazz", "No more jazz.");
        assert_eq!(not.forced(), Some(Maintenance::Update(PreferenceId(12))));
        let back = [stored(5, "not Rock")];
        let again = Options::new(Cardinality::Multiple, &back, "rock", "I like rock again.");
        assert_eq!(again.forced(), Some(Maintenance::Update(PreferenceId(5))));
    }

    #[test]
    fn options_follow_values_and_cardinality() {
        let st = [stored(3, "Rock"), stored(12, "Jazz")];
        let same = Options::new(Cardinality::Multiple, &st, "jazz", "Jazz again.");
        assert_eq!(same.pass, vec![PreferenceId(12)]);
        assert_eq!(same.update, vec![PreferenceId(12)]);
        assert!(!same.append);
        assert_eq!(same.forced(), None);
        let other = Options::new(Cardinality::Multiple, &st, "Pop", "Pop.");
        assert!(other.pass.is_empty() && other.append);
        assert_eq!(other.update.len(), 2);
        let single = Options::new(Cardinality::Single, &st[..1], "Pop", "Pop.");
        assert_eq!(single.forced(), Some(Maintenance::Update(PreferenceId(3))));
        let repeated = Options::new(Cardinality::Multiple, &st, "Rock", "I like it.");
        assert_eq!(repeated.forced(), Some(Maintenance::Pass(PreferenceId(3))));
    }

    #[test]
    fn negation_cues_decide_pass_or_update_of_the_same_value() {
        let st = [stored(3, "Rock"), stored(12, "Jazz")];
        let same = Options::new(Cardinality::Multiple, &st, "Rock", "Rock on.");
        assert_eq!(
            same.by_negation("Play rock."),
            Some(Maintenance::Pass(PreferenceId(3)))
        );
        assert_eq!(
            same.by_negation("No more rock, please."),
            Some(Maintenance::Update(PreferenceId(3)))
        );
        let other = Options::new(Cardinality::Multiple, &st, "Pop", "Pop.");
        assert_eq!(other.by_negation("No pop."), None);
    }

    #[test]
    fn grammar_and_parse_accept_only_the_offer() {
        let st = [stored(3, "Rock")];
        let o = Options::new(Cardinality::Multiple, &st, "Rock", "Rock on.");
        let g = o.grammar();
        assert!(g.contains("\" pass \" (\"3\")"), "{g}");
        assert!(!g.contains("append"));
        assert_eq!(o.parse(" pass 3\n"), Ok(Maintenance::Pass(PreferenceId(3))));
        assert_eq!(
            o.parse(" update 3\n"),
            Ok(Maintenance::Update(PreferenceId(3)))
        );
        assert!(o.parse(" append\n").is_err());
        assert!(o.parse(" pass 4\n").is_err());
        let m = Options::new(Cardinality::Multiple, &st, "Jazz", "Jazz.");
        assert_eq!(m.parse(" append\n"), Ok(Maintenance::Append));
        assert!(m.parse(" pass 3\n").is_err());
    }
}
