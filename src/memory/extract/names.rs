//! Settings said by their names (`extraction.names_first`): a sentence that names a setting
//! plainly puts it first among its close categories.

use crate::memory::values::singular;
use crate::schema::Schema;

/// The words of a category or sentence for [`spoken_names`]: lower case, letters and digits,
/// a plural `s` dropped.
fn name_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(singular)
        .collect()
}

/// The categories whose names `sentence` says most specifically, if it says one specifically
/// enough: each detail's name words are weighted by how rare they are among the schema's detail
/// names (`ln(details / names holding the word)`, so "ventilation" counts and "seat" or "level"
/// hardly do; the quantity a vehicle call sets, its value argument such as "degree", is no
/// name word); a detail's weight in the sentence is the sum over its name words the sentence
/// holds, counted only when one of them is specific (held by at most four names). The details
/// of the highest weight are returned. A user who names the setting ("turn on the seat ventilation and
/// set it to level 3") has said what it is about more plainly than any embedding can: MiniLM
/// placed that sentence nearer the seat heating level. Indices into `schema.details()`.
pub fn spoken_names(schema: &Schema, sentence: &str) -> Vec<usize> {
    /// A word is specific when at most this many detail names hold it.
    const SPECIFIC: usize = 4;
    let names: Vec<Vec<String>> = schema
        .details()
        .iter()
        .map(|d| {
            // The quantity a call sets ("degree", "speed", "level") names no device: "keep
            // the AC at 21 degrees" is no window's "open degree".
            let quantity = d.call.as_ref().map(|c| name_words(&c.argument));
            let mut w = name_words(&d.name);
            w.retain(|x| !quantity.as_ref().is_some_and(|q| q.contains(x)));
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
    let said = name_words(sentence);
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

/// Puts the categories a sentence names ([`spoken_names`]) first in its row when the embedder
/// finds them within `margin` of its best: each rises just above the row's best, keeping their
/// own order. (The name decides between close neighbours; a name word said in passing, "82 is
/// too *low*", does not pull a far category, the low beam, to the top.)
pub fn names_first(schema: &Schema, row: &mut [f32], sentence: &str, margin: f32) {
    let named = spoken_names(schema, sentence);
    if named.is_empty() {
        return;
    }
    let top = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for i in named {
        if row[i].is_finite() && row[i] >= top - margin {
            row[i] = top + 0.01 * (1.0 + row[i]);
        }
    }
}
