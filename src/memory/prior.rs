//! The subcategory prior of recall: which subcategory an utterance to the assistant is about.
//!
//! Recall requests are short and vague ("Navigate to the nearest coffee shop", "Play something I
//! like"); the preference they should bring back is named in none of their words, but requests
//! about one subcategory resemble each other. Each subcategory is represented by the centroid of
//! labelled requests about it (`config/queries.jsonl`, from the development split), and an
//! utterance gets a probability per subcategory: a softmax over its cosine to each centroid,
//! scaled by `recall.sub_sharpness`. Recall ranks a preference by its cosine similarity to the
//! utterance plus `recall.sub_prior` times the log of its subcategory's probability (floored at
//! [`FLOOR`], so a confident prior reorders but never hides a close match entirely).
//!
//! Like the extraction examples, each labelled request remembers the user it came from, so that
//! the evaluation can leave a user's own requests out while it measures that user.

use std::borrow::Cow;

use crate::embed::{cosine, normalize};
use crate::schema::SubId;

/// Added to a probability before its logarithm: the largest penalty is `ln(FLOOR)` (≈ -6.9).
pub const FLOOR: f32 = 1e-3;

/// The labelled requests shipped in the binary: one per conversation of the CarMem development
/// split (`scripts/make-queries`).
pub const DEFAULT_QUERIES: &str = include_str!("../../config/queries.jsonl");

/// One labelled request, embedded.
#[derive(Debug, Clone)]
pub struct LabelledRequest {
    pub sub: SubId,
    pub vector: Vec<f32>,
    pub source: Option<String>,
}

/// Subcategory centroids of labelled requests.
#[derive(Debug, Clone)]
pub struct SubPrior {
    subs: usize,
    requests: Vec<LabelledRequest>,
    /// The centroids over every request (`None` for a subcategory without requests).
    all: Vec<Option<Vec<f32>>>,
}

impl SubPrior {
    /// `subs` is the number of subcategories in the schema.
    pub fn new(subs: usize, requests: Vec<LabelledRequest>) -> SubPrior {
        let all = centroids(subs, &requests, None);
        SubPrior {
            subs,
            requests,
            all,
        }
    }

    /// Per subcategory (by [`SubId::index`]), `ln(P(sub | utterance) + FLOOR)`, leaving out the
    /// requests that came from `exclude`. A subcategory without requests gets the mean logit of
    /// the others (no evidence either way).
    pub fn log_probs(&self, query: &[f32], sharpness: f32, exclude: Option<&str>) -> Vec<f32> {
        let cents: Cow<'_, [Option<Vec<f32>>]> = match exclude {
            None => Cow::Borrowed(&self.all),
            Some(_) => Cow::Owned(centroids(self.subs, &self.requests, exclude)),
        };
        let logits: Vec<Option<f32>> = cents
            .iter()
            .map(|c| c.as_ref().map(|c| sharpness * cosine(query, c)))
            .collect();
        let known: Vec<f32> = logits.iter().flatten().copied().collect();
        if known.is_empty() {
            return vec![0.0; self.subs];
        }
        let mean = known.iter().sum::<f32>() / known.len() as f32;
        let logits: Vec<f32> = logits.into_iter().map(|l| l.unwrap_or(mean)).collect();
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exp: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
        let sum: f32 = exp.iter().sum();
        exp.iter().map(|e| (e / sum + FLOOR).ln()).collect()
    }

    /// Per subcategory (by [`SubId::index`]), the utterance's highest cosine to one labelled
    /// request about it, leaving out the requests from `exclude`; `None` for a subcategory
    /// without requests. Unlike [`log_probs`](Self::log_probs), which only says which
    /// subcategory an utterance is likeliest about, this says how much it resembles a request
    /// about that subcategory at all (recall's relevance uses it).
    pub fn nearest(&self, query: &[f32], exclude: Option<&str>) -> Vec<Option<f32>> {
        let mut best: Vec<Option<f32>> = vec![None; self.subs];
        for r in &self.requests {
            if exclude.is_some() && r.source.as_deref() == exclude {
                continue;
            }
            let c = cosine(query, &r.vector);
            let b = &mut best[r.sub.index()];
            if b.is_none_or(|b| c > b) {
                *b = Some(c);
            }
        }
        best
    }
}

fn centroids(
    subs: usize,
    requests: &[LabelledRequest],
    exclude: Option<&str>,
) -> Vec<Option<Vec<f32>>> {
    let mut sums: Vec<Option<Vec<f32>>> = vec![None; subs];
    for r in requests {
        if exclude.is_some() && r.source.as_deref() == exclude {
            continue;
        }
        let sum = sums[r.sub.index()].get_or_insert_with(|| vec![0.0; r.vector.len()]);
        for (s, v) in sum.iter_mut().zip(&r.vector) {
            *s += v;
        }
    }
    for c in sums.iter_mut().flatten() {
        normalize(c);
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;

    fn req(schema: &Schema, sub: usize, v: [f32; 2], source: &str) -> LabelledRequest {
        let mut vector = v.to_vec();
        normalize(&mut vector);
        LabelledRequest {
            sub: schema.subs()[sub].id,
            vector,
            source: Some(source.into()),
        }
    }

    #[test]
    fn the_nearest_centroid_is_the_likeliest_and_probabilities_sum_to_one() {
        let schema = Schema::embedded();
        let n = schema.subs().len();
        let prior = SubPrior::new(
            n,
            vec![
                req(&schema, 0, [1.0, 0.0], "a"),
                req(&schema, 0, [0.9, 0.1], "b"),
                req(&schema, 1, [0.0, 1.0], "a"),
            ],
        );
        let lp = prior.log_probs(&[1.0, 0.0], 20.0, None);
        assert_eq!(lp.len(), n);
        let best = (0..n).max_by(|&a, &b| lp[a].total_cmp(&lp[b])).unwrap();
        assert_eq!(best, 0);
        let total: f32 = lp.iter().map(|l| l.exp() - FLOOR).sum();
        assert!((total - 1.0).abs() < 1e-4, "{total}");
        // Subcategories without requests share the mean logit: all equal, below the best.
        assert!(lp[2..].windows(2).all(|w| (w[0] - w[1]).abs() < 1e-6));
        assert!(lp[2] < lp[0]);
    }

    #[test]
    fn nearest_is_the_closest_request_of_each_subcategory() {
        let schema = Schema::embedded();
        let n = schema.subs().len();
        let prior = SubPrior::new(
            n,
            vec![
                req(&schema, 0, [1.0, 0.0], "a"),
                req(&schema, 0, [0.0, 1.0], "b"),
                req(&schema, 1, [0.6, 0.8], "a"),
            ],
        );
        let near = prior.nearest(&[0.0, 1.0], None);
        assert_eq!(near.len(), n);
        assert!((near[0].unwrap() - 1.0).abs() < 1e-5);
        assert!((near[1].unwrap() - 0.8).abs() < 1e-5);
        assert_eq!(near[2], None);
        // Without user b's request, sub 0's nearest is user a's.
        assert!(prior.nearest(&[0.0, 1.0], Some("b"))[0].unwrap().abs() < 1e-5);
    }

    #[test]
    fn excluding_a_source_leaves_its_requests_out() {
        let schema = Schema::embedded();
        let n = schema.subs().len();
        let prior = SubPrior::new(
            n,
            vec![
                req(&schema, 0, [1.0, 0.0], "a"),
                req(&schema, 1, [0.8, 0.2], "b"),
                req(&schema, 2, [0.0, 1.0], "b"),
            ],
        );
        // With user a's request, sub 0 wins; without it, sub 0 has no evidence (the mean logit)
        // and sub 1 wins.
        let with = prior.log_probs(&[1.0, 0.0], 20.0, None);
        assert!(with[0] > with[1]);
        let without = prior.log_probs(&[1.0, 0.0], 20.0, Some("a"));
        assert!(without[1] > without[0]);
    }
}
