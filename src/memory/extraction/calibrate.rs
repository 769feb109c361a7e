//! A closed detail's value the user did not name, chosen by the LLM with its bias for the
//! values' order taken out (`extraction.calibrate_choices`).
//!
//! When a sentence names none of a choice detail's values ("I always prefer it bright inside"
//! for Low / Medium / High), the model scores them all and mostly picks the first listed
//! (Low, Face, News, Fast food, Vegetarian, AC), whatever was said. Contextual calibration
//! (Zhao et al., "Calibrate Before Use", ICML 2021) measures the model's preference among the
//! options on a content-free input ("N/A" in the sentence's place) and divides it out: each
//! value is scored by P(value | sentence) / P(value | N/A). Nothing is fitted; the prior is
//! one forward pass per detail, kept for the process. Whether a value is stored at all is
//! not calibrated: `none` stays the model's own answer, and only which value is re-chosen.

use super::super::extract::Candidate;
use super::super::{lock, MemoryError, Models};
use crate::llm::{Choice, Llm, Request};

/// What stands for the sentence in the content-free prompt.
const CONTENT_FREE: &str = "N/A";

impl Models {
    /// The model's choice among `options` (`" none"` first, then the detail's values) for
    /// `request`, its one offer `offered`, calibrated against the content-free prior; `None`
    /// when the options' first tokens do not differ (the answer is decoded then).
    pub(super) fn calibrated_choice(
        &self,
        llm: &Llm,
        request: Request,
        offered: &Candidate,
        options: &[String],
    ) -> Result<Option<Choice>, MemoryError> {
        let Some(c) = llm.choose(request, options.to_vec())? else {
            return Ok(None);
        };
        if c.index == 0 {
            return Ok(Some(c));
        }
        let prior = self.choice_prior(llm, offered, options)?;
        Ok(Some(recalibrate(c, &prior)))
    }

    /// P(option | content-free sentence) for `offered`'s detail, asked once per detail.
    fn choice_prior(
        &self,
        llm: &Llm,
        offered: &Candidate,
        options: &[String],
    ) -> Result<Vec<f32>, MemoryError> {
        if let Some(p) = lock(&self.choice_priors).get(&offered.detail) {
            return Ok(p.clone());
        }
        let blank = Candidate {
            sentence: 0,
            ..*offered
        };
        let request = self.extraction_request(&[CONTENT_FREE.to_string()], &[blank]);
        let probs = llm
            .choose(request, options.to_vec())?
            .map_or_else(|| vec![1.0; options.len()], |c| c.probs);
        lock(&self.choice_priors).insert(offered.detail, probs.clone());
        Ok(probs)
    }
}

/// `c` (a value, not `none`) re-chosen among the values by P(option) / prior(option); its
/// probabilities become the calibrated ones, normalised over every option.
fn recalibrate(c: Choice, prior: &[f32]) -> Choice {
    let scaled: Vec<f32> = c
        .probs
        .iter()
        .zip(prior)
        .map(|(p, q)| p / q.max(1e-6))
        .collect();
    let z: f32 = scaled.iter().sum();
    let probs: Vec<f32> = scaled.iter().map(|s| s / z).collect();
    let index = (1..probs.len())
        .max_by(|&a, &b| probs[a].total_cmp(&probs[b]))
        .unwrap_or(c.index);
    Choice { index, probs, ..c }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(index: usize, probs: Vec<f32>) -> Choice {
        Choice {
            index,
            probs,
            prompt_tokens: 0,
            prompt_ms: 0.0,
        }
    }

    #[test]
    fn the_first_value_favoured_by_order_alone_loses_to_the_one_the_sentence_raised() {
        // none, Low, Medium, High: Low wins raw, but the content-free prompt gives Low as much
        // on its own; High rose sixfold with the sentence.
        let c = recalibrate(choice(1, vec![0.1, 0.5, 0.1, 0.3]), &[0.1, 0.8, 0.05, 0.05]);
        assert_eq!(c.index, 3);
        assert!((c.probs.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn none_is_never_chosen_by_calibration() {
        let c = recalibrate(choice(1, vec![0.4, 0.45, 0.15]), &[0.01, 0.5, 0.49]);
        assert_ne!(c.index, 0);
    }

    #[test]
    fn a_flat_prior_keeps_the_models_choice() {
        let c = recalibrate(choice(2, vec![0.1, 0.2, 0.7]), &[1.0, 1.0, 1.0]);
        assert_eq!(c.index, 2);
    }
}
