//! The confidence of an extracted preference: how probable the model found the answer line it
//! gave, among the answers the grammar allowed. It decides whether a preference is stored
//! pending confirmation (`extraction.confirm_below`).
//!
//! Definition, the same for every extraction path, always in [0, 1]:
//! * **Decoded answers** (free decoding under the grammar): the product, over the tokens the model
//!   chose on the line (category and value), of each token's probability renormalised over the
//!   tokens the grammar allowed at that step ([`crate::llm::Step::prob`]; the allowed tokens are
//!   first looked for among the `llm.grammar_top_k` likeliest, so the renormalisation is over
//!   those when any of them is allowed). A token the grammar forces counts 1; the newline that
//!   ends the line counts (ending a free value there is a choice). This is the probability of
//!   the whole line under the grammar-constrained distribution.
//! * **Scored choices** (one forward pass over fixed alternatives, `none` or the values the
//!   user named): the softmax, over the alternatives' first tokens, of the chosen one
//!   ([`crate::llm::Choice::probs`]). With two alternatives a chosen value is at least 0.5.
//!
//! A cached answer carries the confidences computed when it was first made. A line without a
//! measured confidence counts as 0: uncertain, never as sure.

use crate::llm::Step;

/// Keeps a computed probability a probability: NaN becomes 0, anything else is clamped to [0, 1].
fn unit(p: f32) -> f32 {
    if p.is_nan() {
        0.0
    } else {
        p.clamp(0.0, 1.0)
    }
}

/// Confidence of each preference line of a decoded answer, in order (`none` and `end` lines
/// carry none).
pub fn of_decoded_lines(steps: &[Step]) -> Vec<f32> {
    let mut out = Vec::new();
    let mut line = String::new();
    let mut p = 1.0f32;
    for s in steps {
        // A token counts for the line its first character belongs to: that is where the model
        // chose it (the newline that ends a value is a choice too: the value could go on).
        p *= s.prob;
        for ch in s.piece.chars() {
            if ch == '\n' {
                let l = line.trim();
                if l != "end" && l != "none" && !l.is_empty() {
                    out.push(unit(p));
                }
                line.clear();
                p = 1.0;
            } else {
                line.push(ch);
            }
        }
    }
    out
}

/// Confidence of the alternative chosen by first-token scoring.
pub fn of_choice(probs: &[f32], chosen: usize) -> f32 {
    probs.get(chosen).copied().map_or(0.0, unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decoded_line_multiplies_its_choice_tokens() {
        let st = |p: &str, prob: f32| Step {
            piece: p.into(),
            prob,
        };
        let steps = [
            st("preferred", 0.5),
            st("_temperature", 1.0),
            st(": 2", 1.0),
            st("2 degree", 0.8),
            st(" Celcius", 0.1),
            st("\n", 1.0),
            st("favorite_genres: Jazz", 0.9),
            st("\n", 0.3),
            st("end\n", 0.9),
        ];
        let c = of_decoded_lines(&steps);
        assert_eq!(c.len(), 2);
        assert!((c[0] - 0.04).abs() < 1e-6, "{c:?}");
        assert!((c[1] - 0.27).abs() < 1e-6, "{c:?}");
        assert!(of_decoded_lines(&[st(" none\n", 0.7)]).is_empty());
    }

    #[test]
    fn confidences_stay_in_the_unit_interval() {
        assert_eq!(of_choice(&[0.2, 0.8], 1), 0.8);
        assert_eq!(of_choice(&[0.2, 0.8], 5), 0.0);
        assert_eq!(of_choice(&[f32::NAN], 0), 0.0);
        assert_eq!(of_choice(&[1.0000001], 0), 1.0);
        let odd = [Step {
            piece: "x: y\n".into(),
            prob: f32::NAN,
        }];
        assert_eq!(of_decoded_lines(&odd), vec![0.0]);
    }
}
