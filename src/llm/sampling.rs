//! Greedy token choice under a grammar: the likeliest tokens are checked first, the whole
//! vocabulary only when none of them is allowed; and the probability of the chosen token among
//! the allowed ones (the extraction's confidence).

use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;

/// The likeliest token, without a grammar (the raw-cost reference).
#[cfg(feature = "harness")]
pub(super) fn argmax(logits: &[f32]) -> LlamaToken {
    let mut best = 0;
    for (i, &l) in logits.iter().enumerate() {
        if l > logits[best] {
            best = i;
        }
    }
    LlamaToken::new(best as i32)
}

/// The `k` highest logits, by one pass that keeps a small sorted buffer (no allocation the size
/// of the vocabulary).
pub(super) fn top_k(logits: &[f32], k: usize) -> Vec<(f32, u32)> {
    let mut top: Vec<(f32, u32)> = Vec::with_capacity(k + 1);
    for (i, &l) in logits.iter().enumerate() {
        if top.len() == k && l <= top[k - 1].0 {
            continue;
        }
        let at = top.partition_point(|&(x, _)| x >= l);
        top.insert(at, (l, i as u32));
        top.truncate(k);
    }
    top
}

/// The greedy token the grammar allows, and its probability among the allowed tokens.
pub(super) fn pick(
    logits: &[f32],
    grammar: &mut LlamaSampler,
    top: usize,
) -> Option<(LlamaToken, f32)> {
    let candidates = LlamaTokenDataArray::new(
        top_k(logits, top.max(1))
            .into_iter()
            .map(|(l, t)| LlamaTokenData::new(LlamaToken::new(t as i32), l, 0.0))
            .collect(),
        false,
    );
    best_allowed(candidates, grammar).or_else(|| {
        let all = LlamaTokenDataArray::new(
            logits
                .iter()
                .enumerate()
                .map(|(t, &l)| LlamaTokenData::new(LlamaToken::new(t as i32), l, 0.0))
                .collect(),
            false,
        );
        best_allowed(all, grammar)
    })
}

fn best_allowed(
    mut arr: LlamaTokenDataArray,
    grammar: &mut LlamaSampler,
) -> Option<(LlamaToken, f32)> {
    grammar.apply(&mut arr);
    let allowed: Vec<&LlamaTokenData> = arr.data.iter().filter(|d| d.logit().is_finite()).collect();
    let best = allowed
        .iter()
        .max_by(|a, b| a.logit().total_cmp(&b.logit()))?;
    let z: f32 = allowed
        .iter()
        .map(|d| (d.logit() - best.logit()).exp())
        .sum();
    Some((best.id(), 1.0 / z))
}

/// Whether the grammar accepts end-of-generation now, i.e. the answer is complete.
pub(super) fn grammar_complete(grammar: &mut LlamaSampler, eog: LlamaToken) -> bool {
    let mut arr = LlamaTokenDataArray::new(vec![LlamaTokenData::new(eog, 0.0, 0.0)], false);
    grammar.apply(&mut arr);
    arr.data[0].logit().is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_finds_the_largest_in_order() {
        let logits = [0.5, 3.0, -1.0, 2.0, 3.0, 0.0];
        let t = top_k(&logits, 3);
        assert_eq!(t, vec![(3.0, 1), (3.0, 4), (2.0, 3)]);
        assert_eq!(top_k(&logits, 10).len(), 6);
    }
}
