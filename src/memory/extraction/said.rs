//! Which values the user's words settle without a question to the model, for one offered
//! category ([`Models::said_values`]).

use super::super::extract::{self, Candidate};
use super::super::{typed, values, MemoryError, Models};
use super::places::Turns;
use crate::schema::ValueKind;

/// What the user's words settle of an offered category's value.
pub(super) enum Said {
    /// One value: stored without a question.
    One(String),
    /// Several values the user said: the model picks among them, without `none`.
    Several(Vec<String>),
    /// Nothing settled: the model is asked, `none` among its answers.
    Ask,
}

impl Models {
    /// What the user's words settle of `only`'s value. A typed detail (integer, flag) whose one value the sentence names: the gate already
    /// judged the sentence a preference and there is no other value to weigh, so the model
    /// is not asked (the 270M model often answers `none` to a bare small number). The same
    /// holds for a vehicle setting's enum (a choice detail with a vehicle call), or its free
    /// text with example values (a colour), whose one value the sentence names and does not
    /// turn down (a negation elsewhere, "switch to outside", is no refusal of it). Any other
    /// category with known values skips the model only when the sentence says every word of
    /// one ("make sure it's an entertainment podcast" is Entertainment; the 270M model scored
    /// `none` above it): half the words ("the radio" of "RhythmRise Radio") still ask, and the
    /// model's `none` keeps the catalogue neighbour out. And a shrug at a category
    /// with one does-not-matter value has that value (the 270M model scores `none` above
    /// "Indifferent to Covered Parking" for "I'm indifferent to covered parking").
    pub(super) fn said_values(
        &self,
        only: &Candidate,
        sentences: &extract::Statements,
        turns: &Turns,
    ) -> Result<Said, MemoryError> {
        let d = self.schema.detail(only.detail);
        let evidence = &sentences[only.sentence];
        let shrugged = values::shrugged_values(&self.schema, only.detail, evidence);
        let named: Vec<String> = match d.kind {
            _ if !shrugged.is_empty() => shrugged.iter().map(|v| v.to_string()).collect(),
            ValueKind::Integer => typed::named(d, evidence),
            // Said, or, for a vehicle switch whose device a statement of liking names without
            // its state, on ([`Models::switch_states`]).
            ValueKind::Flag => self.switch_states(only.detail, evidence),
            ValueKind::Choice | ValueKind::Text if !d.attributes.is_empty() => {
                let one = std::slice::from_ref(evidence);
                let named = if d.call.is_some() {
                    values::named_values(&self.schema, only.detail, one)
                } else {
                    values::wholly_named(&self.schema, only.detail, one)
                };
                let named: Vec<String> = named.iter().map(|v| v.to_string()).collect();
                // Read as the model's choices read it ([`values::refuses`]): in an aversion a
                // negation names the value ("I never take toll roads" avoids Toll roads).
                let (turned, kept): (Vec<String>, Vec<String>) = named
                    .into_iter()
                    .partition(|v| values::refuses(&self.schema, only.detail, evidence, v));
                match (turned.is_empty(), kept.is_empty()) {
                    (true, _) => kept,
                    // Beside one it turns down, the value the sentence says and does not ("I
                    // hate it on my face, I always have it on my feet" is Feet; given Feet
                    // alone, the 270M model answered `none`). Not a vehicle setting's.
                    (false, false) if d.call.is_none() => kept,
                    // Only one it turns down ("not the green"): the model weighs its negation.
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        };
        // A stance the sentence turns down by the words that name it, naming no value ("I
        // don't need handicapped parking anymore"): its other value, or `not Yes`
        // ([`values::stance_turned_down`]; the 270M model answered Yes to every CarMem dev
        // question that does so for this stance).
        let named = match named.is_empty() && d.call.is_none() {
            true => values::stance_turned_down(&self.schema, only.detail, evidence)
                .map_or(named, |v| vec![v]),
            false => named,
        };
        // A category whose one stance is its only value besides "does not matter" (covered
        // parking: Yes): a sentence the gate and the offer decision found stating a
        // preference in it, that names nothing, neither shrugs nor negates, takes that
        // stance ("Find me a covered parking spot, I prefer to keep the car out of the
        // sun"; the 270M model answered `none`).
        let named = match values::only_stance(&self.schema, only.detail) {
            Some(v)
                if named.is_empty()
                    && d.kind == ValueKind::Choice
                    && d.call.is_none()
                    && !values::negates(evidence) =>
            {
                vec![v.to_string()]
            }
            _ => named,
        };
        // A category of names (free text) whose value the user's words give by a name
        // ("BBC Radio 2 is about the only station I ever listen to"; "They're my
        // all-time favourite band" after "play something from Fleetwood Mac"), naming no
        // known value and turning the name down nowhere: the name is the value, as a known
        // value said in full is (the 270M model answered `none` to both). The same holds for a
        // vehicle setting whose value is a name ("I'm going to the High Court in the suburbs
        // instead" is a destination; the model answered `none`).
        let named = if named.is_empty()
            && d.kind == ValueKind::Text
            && !d.has_example_values()
            && extract::named_choices(&self.schema, only, sentences).is_empty()
        {
            // Not a known value of another category ("make sure it's an AC charging
            // station" offered to the charging network: AC is a type of charging).
            // A place's name only where it is said as where one goes ("to the airport"; not
            // "I'll call City Hospital": `extract::said_as_place`).
            let as_place = |n: &String| {
                sentences[..=only.sentence]
                    .iter()
                    .any(|s| extract::said_as_place(s, n))
            };
            // A real name the schema lists for the category, said in the evidence ("Esso's
            // the only place I buy fuel, I've got the Nectar card for it"), is the name,
            // as the schema spells it, before any other ([`extract::says_name`]); the longest
            // of those said ("BBC Radio 2", not also "Radio 2").
            let heard = extract::Heard::of(evidence);
            let listed: Vec<String> = d.names.iter().filter(|n| heard.says(n)).cloned().collect();
            let listed: Vec<String> = listed
                .iter()
                .filter(|n| !listed.iter().any(|m| m != *n && extract::says_name(m, n)))
                .cloned()
                .collect();
            // A town said as where someone is names nothing the driver likes: the sentences are
            // read with such names in lower case, so a sentence that names only a town points
            // back as one naming nothing does ("the only news I've trusted since I was a kid in
            // Kingston" after "Give me the headlines from CBC News").
            let said = match listed.is_empty() {
                true => {
                    let (texts, before) = self.places_unnamed(only.detail, sentences, turns)?;
                    extract::said_names(&texts, only.sentence, &before)
                }
                false => listed,
            };
            // Not a name said only in a story of one past occasion beside the habit ("Last
            // week I tried Classic FM for a change but I always end up back on Radio 2").
            let mut said = extract::beside_the_occasion(evidence, &said);
            extract::without_credits_said(
                d,
                (sentences, only.sentence, sentences.before()),
                &mut said,
            );
            let names: Vec<String> = said
                .into_iter()
                .filter(|n| !values::known_anywhere(&self.schema, n))
                .filter(|n| !d.place || as_place(n))
                .collect();
            // A name turned down is no value of the user's ("the High Court instead of the
            // District Court"). Nor is a town said as where someone is ("around Harrogate").
            let (refused, names): (Vec<String>, Vec<String>) = names
                .into_iter()
                .partition(|n| values::turns_down_name(evidence, n));
            let names = self.not_said_where(only.detail, names, turns)?;
            // One name turned down and nothing else named, in a category that likes what it
            // names: the name turned down is the value ("I can't stand Walmart." is `not
            // Walmart`; the 270M model, asked, answered `none`). Not a vehicle setting's
            // (a destination "instead of" another is the other's), nor an aversion's.
            let lone = names.is_empty()
                && d.call.is_none()
                && matches!(refused.as_slice(), [n] if !values::in_aversion(d, n));
            match lone {
                true => self
                    .not_said_where(only.detail, refused, turns)?
                    .into_iter()
                    .map(|n| format!("{}{n}", values::NOT))
                    .collect(),
                false => names,
            }
        } else {
            named
        };
        // Several known values said in full ("podcasts that focus on entertainment, like
        // ... showbiz news": Entertainment and News): the user said each of them, so the
        // model only picks which one the sentence is about. `none` is not among its
        // answers: whether the sentence states a preference was the gate's and the offer
        // decision's call (the 270M model scored `none` first for that sentence). Of
        // several, the one said with a word of the category's own name is the value ("My
        // favourite band is Queen, I love Bohemian Rhapsody"; the 270M model picked the song
        // for the band).
        Ok(match named.as_slice() {
            [v] => Said::One(v.clone()),
            [_, _, ..]
                if d.call.is_none()
                    && shrugged.is_empty()
                    && matches!(d.kind, ValueKind::Choice | ValueKind::Text) =>
            {
                match values::named_with_its_category(&self.schema, only.detail, evidence, &named) {
                    Some(v) => Said::One(v),
                    None => Said::Several(named),
                }
            }
            _ => Said::Ask,
        })
    }
}
