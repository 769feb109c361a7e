//! A value the user names and turns down in words the negation rule does not read, stored
//! turned down by the refusal model ([`Models::polarity_by_model`]).
//!
//! The negation rule (`values::turns_down`) reads a cue in the value's clause: "not jazz", "no
//! more jazz", "jazz isn't for me". A driver also turns a value down in words no cue list
//! holds ("Italian food has lost its appeal lately, find me something different"); extraction then
//! stored the value as liked. The refusal model reads the evidence sentence as the gate
//! does (its embedding, the pooling after the gate's layer, its words: the embedder pass
//! extraction already ran, when it reads the gate's layer) and
//! gives the probability that it turns down what it names; it was fitted on CarMem's
//! maintenance questions, which say a value again or turn it down (`eval polarity --fit`,
//! cross-validated by user), with the sentences of CarMem's extraction conversations that
//! reveal a value as liked beside them (without those, the model read 9 % of them as
//! refusals). Its threshold is strict: a liked value stored turned down is a false memory too.

use super::super::extract::{proper_names, value_reach, Extracted};
use super::super::gate::Gate;
use super::super::{values, MemoryError, Models};
use crate::schema::ValueKind;

impl Models {
    /// `items`, the preferences one evidence sentence gave (`read`: its vector and pooling),
    /// with the refusal model's reading of the value when it gave one
    /// ([`Models::polarity_by_model`]).
    pub(super) fn read_polarity(
        &self,
        mut items: Vec<Extracted>,
        read: (&[f32], &[f32]),
    ) -> Result<Vec<Extracted>, MemoryError> {
        if let [item] = items.as_mut_slice() {
            if let Some(v) = self.polarity_by_model(item, read)? {
                item.attribute = v;
            }
        }
        Ok(items)
    }

    /// The value to store instead of `item`'s, the one preference its evidence sentence gave,
    /// by the refusal model (`read`: the sentence's vector and pooling): a value the user
    /// names, liked, where no negation cue turns it down, that the model reads the sentence as
    /// turning down at its threshold, stored turned down (`not <value>`). Only a value of the
    /// user's words (said in the sentence, and no other known value or name said beside it, so
    /// that what the sentence turns down can only be it) of a category that likes (not an
    /// aversion, whose negation states it, nor a vehicle setting, nor a number or a switch).
    /// In a sentence of several clauses, the value's reach ([`value_reach`]) must read as turning
    /// it down too.
    pub(super) fn polarity_by_model(
        &self,
        item: &Extracted,
        (vec, tap): (&[f32], &[f32]),
    ) -> Result<Option<String>, MemoryError> {
        let Some(model) = self.refusal.as_ref() else {
            return Ok(None);
        };
        let d = self.schema.detail(item.detail);
        let (v, evidence) = (item.attribute.as_str(), item.sentence.as_str());
        let likes = matches!(d.kind, ValueKind::Choice | ValueKind::Text)
            && d.call.is_none()
            && !values::in_aversion(d, v);
        if !likes || values::turned_down(v).is_some() || !values::says_words(evidence, v) {
            return Ok(None);
        }
        let one = std::slice::from_ref(&item.sentence);
        let others_named = values::named_values(&self.schema, item.detail, one)
            .iter()
            .any(|n| !n.eq_ignore_ascii_case(v));
        let own = values::stems(v);
        let other_names = proper_names(evidence)
            .iter()
            .any(|n| values::stems(n).iter().any(|w| !own.contains(w)));
        // Praise in a negation's words ("Nothing beats Thai food for me") turns nothing down.
        let praised = values::idiom::praises(evidence);
        if others_named || other_names || praised || values::turns_down(evidence, v) {
            return Ok(None);
        }
        let p = self.refusal_probability(model, (vec, tap), evidence)?;
        if !model.passes(p) {
            return Ok(None);
        }
        // What the other clauses turn down is theirs ("I'm vegetarian, so don't go suggesting
        // steakhouses"): the value's own reach is read again on its own.
        if let Some(reach) = value_reach(evidence, v) {
            if !model.passes(self.refusal_probability_again(model, &reach)?) {
                return Ok(None);
            }
        }
        Ok(Some(format!("{}{v}", values::NOT)))
    }

    /// The refusal model's probability for `sentence`, from extraction's embedder pass
    /// (`read`: its vector and the pooling after the preference gate's layer) when the model
    /// reads the gate's layer, else embedded again (under the vehicle gate, which reads none).
    pub(super) fn refusal_probability(
        &self,
        model: &Gate,
        (vec, tap): (&[f32], &[f32]),
        sentence: &str,
    ) -> Result<f32, MemoryError> {
        if model.layer == self.gate.layer {
            return Ok(model.probability(vec, tap, sentence));
        }
        self.refusal_probability_again(model, sentence)
    }

    /// The refusal model's probability for `text`, embedded again for it.
    fn refusal_probability_again(&self, model: &Gate, text: &str) -> Result<f32, MemoryError> {
        let mut again = self.embed_tapped(vec![text.to_string()], model.layer)?;
        let (vec, tap) = again.pop().unwrap_or_default();
        Ok(model.probability(&vec, &tap, text))
    }
}
