//! A name no category lists, read as one it does (`extraction.stand_ins`, on by default since stop 76). The
//! schema's real `names` ("Tesco", "Lidl", "BBC Radio 2") place a sentence that says one as
//! surely as a catalogue value, and the gate reads a sentence with a known name more surely
//! than one with a name it has never seen: "I do all my grocery shopping at Lidl." is stored,
//! "... at H-E-B." was not, though both say the same. No list holds every shop a driver uses.
//! So where a statement says a name that no category lists or holds, the statement is read
//! once more with that name masked ("I do all my grocery shopping at something."): where the
//! category those other words speak of is also the statement's best as said, and lists names,
//! the preference gate and the category scores read the statement with that category's first
//! listed name in the unknown one's place (the *stand-in*). The value is still read from the
//! words the user said, and the lasting gate (one-off or lasting) reads the statement as said.
//!
//! Each guard was measured (docs/results.md, stop 75): a stand-in chosen from the statement
//! as said confirmed whatever category an unknown name drew it to (a trip to Newark Airport
//! stored as a radio station); one chosen from the masked reading alone made shops of places
//! ("Find us somewhere to eat near Leeds" stored `Leeds` as a fast-food chain); the lasting
//! gate reading the stand-in took requests for lasting ("Switch over to BBC Radio 5 Live, I
//! want to catch the score from the Arsenal game"). And a place or a person is never stood in
//! for ([`Gazetteer`]): masked, "this station keeps cutting out now we're past Galway" speaks
//! of a radio station, and "Tom and Dominic are brilliant" of a show, but neither name is one
//! (docs/results.md, stop 76). Nothing here is fitted: it is a reading, for any schema with
//! names, and the gazetteer is public knowledge of names.

use std::borrow::Cow;
use std::time::Instant;

use super::super::counters::Counters;
use super::super::{extract, MemoryError, Models};
use crate::gazetteer::Gazetteer;
use crate::schema::Schema;

/// What the preference gate and the category scores read of a conversation's statements:
/// each as said, or with its unknown names replaced by a stand-in ([`stand_in`]), with its
/// embedding and the gate's pooling; borrowed as said unless some statement has a stand-in.
pub(super) struct GateReading<'a> {
    texts: Cow<'a, [String]>,
    vecs: Cow<'a, [Vec<f32>]>,
    taps: Cow<'a, [Vec<f32>]>,
}

impl GateReading<'_> {
    pub fn parts(&self) -> (&[String], &[Vec<f32>], &[Vec<f32>]) {
        (&self.texts, &self.vecs, &self.taps)
    }
}

impl Models {
    /// What the preference gate and the category scores read of the embedded `statements`
    /// ([`GateReading`]): only statements with unknown names are embedded again, masked
    /// ([`MASK`]), and those given a stand-in ([`stood_in`]) once more (the time in the embedder's
    /// `embed_us`).
    pub(super) fn gate_reading<'a>(
        &self,
        (sentences, vecs, taps): (&'a [String], &'a [Vec<f32>], &'a [Vec<f32>]),
        protos: &[extract::Prototype],
        exclude: Option<&str>,
    ) -> Result<GateReading<'a>, MemoryError> {
        let mut read = GateReading {
            texts: Cow::Borrowed(sentences),
            vecs: Cow::Borrowed(vecs),
            taps: Cow::Borrowed(taps),
        };
        if self.gazetteer.is_none() {
            return Ok(read);
        }
        // Which category the words around the names speak of: each statement with unknown
        // names is read once more with them masked. The gazetteer is read only where a
        // statement says a name no category lists.
        let unknown: Vec<(usize, Vec<String>)> = sentences
            .iter()
            .map(|s| unknown(&self.schema, s))
            .enumerate()
            .filter(|(_, n)| !n.is_empty())
            .collect();
        if unknown.is_empty() {
            return Ok(read);
        }
        let Some(gazetteer) = self.gazetteer().transpose()? else {
            return Ok(read);
        };
        let masked: Vec<(usize, Vec<String>, String)> = unknown
            .into_iter()
            .map(|(i, n)| (i, no_place_or_person(&gazetteer, n)))
            .filter_map(|(i, n)| replaced(&sentences[i], &n, MASK).map(|m| (i, n, m)))
            .collect();
        if masked.is_empty() {
            return Ok(read);
        }
        let texts: Vec<String> = masked.iter().map(|(_, _, m)| m.clone()).collect();
        let te = Instant::now();
        let (mv, _) = self.embed_sentences(&texts)?;
        Counters::time(&self.counters.embed_us, te);
        let rows = extract::sentence_scores(&self.schema, protos, &mv, &texts, exclude);
        // As said, the same category must be the best: a name the embedder does not know
        // pulls a sentence to a category of names only where its other words speak of it.
        let said: Vec<String> = masked.iter().map(|(i, ..)| sentences[*i].clone()).collect();
        let said_vecs: Vec<Vec<f32>> = masked.iter().map(|(i, ..)| vecs[*i].clone()).collect();
        let as_said = extract::sentence_scores(&self.schema, protos, &said_vecs, &said, exclude);
        let changed: Vec<(usize, String)> = masked
            .iter()
            .zip(rows.iter().zip(&as_said))
            .filter(|(_, (row, said))| best(row) == best(said))
            .filter_map(|((i, names, _), (row, _))| {
                stood_in(&self.schema, &sentences[*i], names, row).map(|t| (*i, t))
            })
            .collect();
        if changed.is_empty() {
            return Ok(read);
        }
        let texts: Vec<String> = changed.iter().map(|(_, t)| t.clone()).collect();
        let te = Instant::now();
        let (cv, ct) = self.embed_sentences(&texts)?;
        Counters::time(&self.counters.embed_us, te);
        let (rt, rv, rp) = (read.texts.to_mut(), read.vecs.to_mut(), read.taps.to_mut());
        for (((i, t), v), p) in changed.into_iter().zip(cv).zip(ct) {
            rt[i] = t;
            rv[i] = v;
            rp[i] = p;
        }
        Ok(read)
    }
}

/// `sentence` with every name it says that no category lists or holds and that is not a
/// place's or a person's replaced by the first listed name of the best category of `row` (the
/// similarity to every detail of the sentence read with those names masked: what its other
/// words speak of), when that category lists names; `None` when there is nothing to replace.
/// "I do all my grocery shopping at H-E-B." reads "I do all my grocery shopping at Tesco.";
/// "Find us somewhere to eat near Leeds." reads as said. (`Models::gate_reading` reads each
/// statement's names once and calls [`stood_in`]; this is its reading of one statement, for
/// the tests.)
#[cfg(test)]
fn stand_in(schema: &Schema, gazetteer: &Gazetteer, sentence: &str, row: &[f32]) -> Option<String> {
    let names = no_place_or_person(gazetteer, unknown(schema, sentence));
    stood_in(schema, sentence, &names, row)
}

/// `sentence` with `names` (those [`stand_in`] replaces) replaced by the first listed name of
/// the best category of `row`, when that category lists names.
fn stood_in(schema: &Schema, sentence: &str, names: &[String], row: &[f32]) -> Option<String> {
    let listed = schema.details()[best(row)?].names.first()?;
    replaced(sentence, names, listed)
}

/// What an unknown name is masked by ("I do all my grocery shopping at something."): the
/// masked statement says what its other words speak of.
const MASK: &str = "something";

/// `names` without those the gazetteer knows as a place's or a person's. A place ("Leeds",
/// "Joburg", "the M25") is where a trip goes, and a person ("Tom", "Paul Kelly") who presents
/// a show or plays a gig: neither is a brand a category lists, and read as one, the sentence is
/// read as a preference for something it does not name.
fn no_place_or_person(gazetteer: &Gazetteer, names: Vec<String>) -> Vec<String> {
    names
        .into_iter()
        .filter(|n| !gazetteer.is_place(n) && !gazetteer.is_person(n))
        .collect()
}

/// `sentence` with the first time it says each of `names` replaced by `by`; `None` when that
/// changes nothing.
fn replaced(sentence: &str, names: &[String], by: &str) -> Option<String> {
    let mut out = sentence.to_string();
    for n in names {
        out = out.replacen(n.as_str(), by, 1);
    }
    (out != sentence).then_some(out)
}

/// The names `sentence` says that no category lists or holds.
fn unknown(schema: &Schema, sentence: &str) -> Vec<String> {
    extract::proper_names(sentence)
        .into_iter()
        .filter(|n| n.chars().any(char::is_alphabetic) && !known(schema, n))
        .collect()
}

/// The index of the best finite score of `row`.
fn best(row: &[f32]) -> Option<usize> {
    row.iter()
        .enumerate()
        .filter(|(_, s)| s.is_finite())
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i)
}

/// Whether some category lists `name` among its names or holds it as a catalogue value.
fn known(schema: &Schema, name: &str) -> bool {
    schema.details().iter().any(|d| {
        d.names
            .iter()
            .chain(&d.attributes)
            .any(|k| k.eq_ignore_ascii_case(name))
    })
}

#[cfg(test)]
mod tests {
    use super::stand_in;
    use crate::gazetteer::Gazetteer;
    use crate::schema::Schema;

    fn row_best(schema: &Schema, key: &str) -> Vec<f32> {
        schema
            .details()
            .iter()
            .map(|d| if d.key == key { 0.6 } else { 0.1 })
            .collect()
    }

    #[test]
    fn an_unlisted_name_reads_as_its_best_categorys_first_listed_name() {
        let s = Schema::embedded();
        let row = row_best(&s, "preferred_supermarket_chains");
        let first = s
            .detail(s.detail_by_key("preferred_supermarket_chains").unwrap())
            .names[0]
            .clone();
        assert_eq!(
            stand_in(
                &s,
                &Gazetteer::default(),
                "I do all my grocery shopping at H-E-B.",
                &row
            )
            .as_deref(),
            Some(format!("I do all my grocery shopping at {first}.").as_str())
        );
    }

    #[test]
    fn a_listed_name_no_name_or_a_category_without_names_reads_as_said() {
        let s = Schema::embedded();
        let shops = row_best(&s, "preferred_supermarket_chains");
        let none = Gazetteer::default();
        assert_eq!(
            stand_in(&s, &none, "I do all my shopping at Lidl.", &shops),
            None
        );
        assert_eq!(
            stand_in(&s, &none, "I do all my shopping at the market.", &shops),
            None
        );
        let temp = row_best(&s, "preferred_temperature");
        assert_eq!(
            stand_in(&s, &none, "Keep it at 21 on the way to Wegmans.", &temp),
            None
        );
    }

    #[test]
    fn a_place_or_a_person_reads_as_said() {
        let s = Schema::embedded();
        let food = row_best(&s, "fast_food_preference");
        let known = Gazetteer::of(["Leeds"], ["Tom", "Dominic", "Paul"]);
        assert_eq!(
            stand_in(&s, &known, "Find us somewhere to eat near Leeds.", &food),
            None
        );
        assert_eq!(
            stand_in(&s, &known, "Any services on the M25 with food?", &food),
            None
        );
        let first = &s
            .detail(s.detail_by_key("fast_food_preference").unwrap())
            .names[0];
        assert_eq!(
            stand_in(&s, &known, "My usual is the Whataburger near Leeds.", &food).as_deref(),
            Some(format!("My usual is the {first} near Leeds.").as_str())
        );
        let shows = row_best(&s, "favorite_podcast_shows");
        for said in [
            "That's the one I never miss, Tom and Dominic are brilliant.",
            "Directions to the venue please, it's the Paul Kelly gig tonight.",
        ] {
            assert_eq!(stand_in(&s, &known, said, &shows), None, "{said}");
        }
    }
}
