//! The extraction prompt: the KV-cached prefix (instructions, the schema's categories with
//! their meanings, worked examples) and each request's own part (the user's sentences and the
//! offer).

use super::Candidate;
use crate::memory::values::{named_values, stems};
use crate::schema::Schema;

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
    if EXAMPLE_KEYS
        .iter()
        .all(|k| schema.detail_by_key(k).is_some())
    {
        p.push_str(EXAMPLES);
    } else {
        p.push_str(&schema_examples(schema));
    }
    p.push('\n');
    p
}

/// The categories [`EXAMPLES`] use: the worked examples are shown only with a schema that has
/// them all (CarMem's), else [`schema_examples`] are.
const EXAMPLE_KEYS: &[&str] = &[
    "preferred_temperature",
    "favorite_genres",
    "preferred_gas_station",
    "dietary_preferences",
    "preferred_payment_method",
];

/// Worked examples made from any schema's own categories: a stated value for the first detail
/// with a known value (or a range), and a request that is no preference (`none`).
fn schema_examples(schema: &Schema) -> String {
    let mut out = String::new();
    let stated = schema.details().iter().find_map(|d| {
        let value = match (d.range, d.attributes.first()) {
            (Some((lo, hi)), _) => ((lo + hi) / 2).to_string(),
            (None, Some(a)) => a.clone(),
            (None, None) => return None,
        };
        Some((d, value))
    });
    if let Some((d, value)) = stated {
        let what = d.name.to_lowercase();
        out.push_str(&format!(
            "Example.\nConversation:\nS1: I always like the {what} at {value}.\nOffered categories: {key}\nPreferences:\n{key}: {value}\nend\n\n\
             Example.\nConversation:\nS1: What is the {what} right now?\nOffered categories: {key}\nPreferences:\nnone\n",
            key = d.key
        ));
    }
    out
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
        if d.kind.is_closed() && named_values(schema, c.detail, sentences).is_empty() {
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
