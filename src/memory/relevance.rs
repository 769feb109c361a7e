//! Recall's relevance decision: does this stored preference matter for this utterance at all?
//!
//! Recall ranks by a key (cosine plus a log prior) that is neither bounded nor comparable across
//! utterances, so no integrator can threshold it. The relevance model turns what recall already
//! computes for a preference into a calibrated probability: logistic regression on five
//! features, four about the preference (the cosine of utterance and preference, the log prior of
//! the preference's subcategory, the preference's distance in score below the best-ranked one,
//! the utterance's cosine to the nearest labelled request about the preference's subcategory)
//! and one about the utterance alone: the log-odds that it is a request a stored preference can
//! serve at all (a logistic regression on its embedding, fitted on requests that needed a
//! preference against questions that did not, the weather and the calendar). Recall returns only
//! preferences at or above `recall.min_relevance` (default: the model file's threshold), so an
//! utterance no stored preference serves returns nothing.
//!
//! The weights come from `glovebox eval carmem --write-relevance` (fitted on the development
//! users; the evaluation reports the decision leave-users-out) and ship as
//! `config/relevance.json`.

use serde::{Deserialize, Serialize};

use super::gate::sigmoid;

/// The relevance file format tag.
pub const FORMAT: &str = "glovebox-relevance v2";

/// The model shipped in the binary (`config/relevance.json`).
pub const DEFAULT_RELEVANCE: &str = include_str!("../../config/relevance.json");

/// Number of features (see [`features`]).
pub const FEATURES: usize = 5;

/// What the relevance of one preference to one utterance is computed from: the cosine of
/// utterance and preference, the log prior of the preference's subcategory, the preference's
/// score minus the best score, the utterance's cosine to the nearest labelled request about the
/// preference's subcategory, and the utterance's need log-odds ([`Relevance::need`]).
pub fn features(cosine: f32, log_prior: f32, gap: f32, request: f32, need: f32) -> [f32; FEATURES] {
    [cosine, log_prior, gap, request, need]
}

/// The need log-odds are clipped to this magnitude (a far-out utterance does not dominate).
pub const NEED_CLIP: f32 = 8.0;

/// A fitted relevance model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Relevance {
    pub format: String,
    /// Preferences below this probability are not returned.
    pub threshold: f32,
    /// Nor are those below this share of the best candidate's probability for the same
    /// utterance (0: no relative floor): when one stored preference is clearly what the
    /// utterance needs, a far less likely neighbour is not put into the assistant's prompt.
    #[serde(default)]
    pub relative: f32,
    pub weights: Vec<f32>,
    pub bias: f32,
    /// The need model: logistic regression on the utterance's embedding (empty: no need
    /// feature, 0 for every utterance).
    #[serde(default)]
    pub need_weights: Vec<f32>,
    #[serde(default)]
    pub need_bias: f32,
    /// How it was fitted and measured, for people.
    #[serde(default)]
    pub about: serde_json::Value,
}

/// Why a relevance file cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("relevance model {path}: {problem}")]
pub struct RelevanceError {
    pub path: String,
    pub problem: String,
}

impl Relevance {
    /// Reads a model from its JSON text; `path` names it in errors.
    pub fn parse(text: &str, path: &str) -> Result<Relevance, RelevanceError> {
        let bad = |problem: String| RelevanceError {
            path: path.to_string(),
            problem,
        };
        let r: Relevance = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if r.format != FORMAT {
            return Err(bad(format!(
                "format is {:?}, expected {FORMAT:?}",
                r.format
            )));
        }
        if r.weights.len() != FEATURES {
            return Err(bad(format!(
                "has {} weights, expected {FEATURES}",
                r.weights.len()
            )));
        }
        if !(0.0..=1.0).contains(&r.threshold)
            || !(0.0..1.0).contains(&r.relative)
            || !r.bias.is_finite()
            || !r.need_bias.is_finite()
            || r.weights
                .iter()
                .chain(&r.need_weights)
                .any(|w| !w.is_finite())
        {
            return Err(bad(
                "threshold must be within [0, 1], relative within [0, 1) and weights finite".into(),
            ));
        }
        Ok(r)
    }

    /// The built-in model.
    pub fn embedded() -> Relevance {
        Relevance::parse(DEFAULT_RELEVANCE, "(built-in config/relevance.json)")
            .expect("the shipped relevance model is valid (tested)")
    }

    /// Checks that the need model reads vectors of the embedder's dimension.
    pub fn check_dim(&self, dim: usize, path: &str) -> Result<(), RelevanceError> {
        if self.need_weights.is_empty() || self.need_weights.len() == dim {
            return Ok(());
        }
        Err(RelevanceError {
            path: path.to_string(),
            problem: format!(
                "its need model has {} weights, the embedder gives vectors of {dim}",
                self.need_weights.len()
            ),
        })
    }

    /// The log-odds, clipped to ±[`NEED_CLIP`], that the utterance with this embedding is a
    /// request a stored preference can serve (0 without a need model).
    pub fn need(&self, v: &[f32]) -> f32 {
        need_logit(&self.need_weights, self.need_bias, v)
    }

    /// The probability a candidate needs to be returned when the best candidate for the same
    /// utterance has probability `best`: the threshold, or the relative floor under `best`,
    /// whichever is higher.
    pub fn floor(&self, best: f32) -> f32 {
        self.threshold.max(self.relative * best)
    }

    /// The probability, in [0, 1], that a preference with these features matters.
    pub fn probability(&self, f: &[f32; FEATURES]) -> f32 {
        sigmoid(self.bias + self.weights.iter().zip(f).map(|(w, x)| w * x).sum::<f32>())
    }
}

/// [`Relevance::need`] for given weights (the evaluation's fold models use it too).
pub fn need_logit(weights: &[f32], bias: f32, v: &[f32]) -> f32 {
    if weights.is_empty() {
        return 0.0;
    }
    let z = bias + weights.iter().zip(v).map(|(w, x)| w * x).sum::<f32>();
    z.clamp(-NEED_CLIP, NEED_CLIP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_model_is_valid_and_monotone_in_cosine() {
        let r = Relevance::embedded();
        let lo = r.probability(&features(0.1, -3.0, -0.5, 0.2, -2.0));
        let hi = r.probability(&features(0.7, -0.1, 0.0, 0.7, 2.0));
        assert!((0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi));
        assert!(hi > lo, "{hi} <= {lo}");
    }

    #[test]
    fn bad_models_are_refused() {
        let e = Relevance::parse(
            r#"{"format":"x","threshold":0.5,"weights":[1,1,1,1,1],"bias":0}"#,
            "r",
        )
        .unwrap_err();
        assert!(e.to_string().contains("format"), "{e}");
        let text = format!(r#"{{"format":"{FORMAT}","threshold":0.5,"weights":[1],"bias":0}}"#);
        assert!(Relevance::parse(&text, "r").is_err());
        let text = format!(
            r#"{{"format":"{FORMAT}","threshold":0.5,"weights":[1,1,1,1,1],"bias":0,"need_weights":[1,2],"need_bias":0}}"#
        );
        let r = Relevance::parse(&text, "r").unwrap();
        let e = r.check_dim(384, "r").unwrap_err();
        assert!(e.to_string().contains("384"), "{e}");
    }

    #[test]
    fn the_floor_is_the_threshold_or_the_share_of_the_best() {
        let mut r = Relevance::embedded();
        r.threshold = 0.2;
        r.relative = 0.5;
        assert_eq!(r.floor(0.9), 0.45);
        assert_eq!(r.floor(0.3), 0.2);
        r.relative = 0.0;
        assert_eq!(r.floor(0.9), 0.2);
        let text = format!(
            r#"{{"format":"{FORMAT}","threshold":0.5,"relative":1.5,"weights":[1,1,1,1,1],"bias":0}}"#
        );
        let e = Relevance::parse(&text, "r").unwrap_err();
        assert!(e.to_string().contains("relative"), "{e}");
    }

    #[test]
    fn need_is_clipped_log_odds_and_zero_without_a_model() {
        assert_eq!(need_logit(&[], 3.0, &[1.0]), 0.0);
        assert!((need_logit(&[2.0, -1.0], 0.5, &[1.0, 1.0]) - 1.5).abs() < 1e-6);
        assert_eq!(need_logit(&[100.0], 0.0, &[1.0]), NEED_CLIP);
        assert_eq!(need_logit(&[100.0], 0.0, &[-1.0]), -NEED_CLIP);
    }
}
