//! What a sentence answers: its similarity to each category, read with the question put to it
//! just before. A driver answers what was asked: "Always warm." (after "What colour
//! temperature do you like for the interior lights?") or "Focus on technology only." (after
//! "What kind of podcast?") names no category alone, and MiniLM, given only the sentence, puts
//! it near whatever shares its few words. With `extraction.context` = w, the score of a
//! sentence of a user turn that follows an assistant turn asking something is, for every
//! category, `(1 - w) × its own + w × that question's` (the questions: the assistant turn's
//! sentences that end in `?`). A turn after a statement ("Playing Radiohead.", "There are six
//! accessible bays.") is read alone: the driver may be changing the subject, and read with the
//! statement, "And I'm on Pod Point" took the radio's category. The gate still reads the
//! sentence alone: whether the driver states a preference is theirs to say, not the question's.

use super::super::extract::{self, Prototype};
use super::super::{MemoryError, Models};
use crate::conversation::{split_sentences, Conversation, Role};

impl Models {
    /// Reads each sentence's row (`scores`, one per statement) with the question put to it
    /// ([`question_before`]), at the configured weight; nothing at weight 0.
    pub(super) fn read_in_context(
        &self,
        conversation: &Conversation,
        sentences: &[String],
        prototypes: &[Prototype],
        scores: &mut [Vec<f32>],
        exclude: Option<&str>,
    ) -> Result<(), MemoryError> {
        let w = self.cfg.extraction.context;
        if w <= 0.0 {
            return Ok(());
        }
        let before = question_before(conversation, sentences);
        let mut texts: Vec<String> = before.iter().flatten().cloned().collect();
        texts.sort();
        texts.dedup();
        let (vecs, _) = self.embed_sentences(&texts)?;
        let rows = extract::sentence_scores(&self.schema, prototypes, &vecs, &texts, exclude);
        let ctx: Vec<Option<Vec<f32>>> = before
            .iter()
            .map(|b| {
                let i = texts.binary_search(b.as_ref()?).ok()?;
                rows.get(i).cloned()
            })
            .collect();
        blend(scores, &ctx, w);
        Ok(())
    }
}

/// For each statement (in order, each found in its user turn as said), the questions of the
/// turn before its turn when that is the assistant's: its sentences that end in `?`, joined.
/// `None` when the turn before asks nothing, is the user's, or there is none, and for a
/// statement not found.
pub(crate) fn question_before(
    conversation: &Conversation,
    statements: &[String],
) -> Vec<Option<String>> {
    let turns = conversation.turns();
    extract::user_turns(conversation, statements)
        .into_iter()
        .map(|found| {
            let before = &turns[found?.checked_sub(1)?];
            if before.role != Role::Assistant {
                return None;
            }
            let asked: Vec<String> = split_sentences(&before.text)
                .into_iter()
                .filter(|q| q.trim_end().ends_with('?'))
                .collect();
            (!asked.is_empty()).then(|| asked.join(" "))
        })
        .collect()
}

/// Blends each row with its context's row: `row[d] = (1 - w) row[d] + w ctx[d]` where both are
/// finite (a category a sentence cannot hold stays out). Rows without context stay as they are.
pub(crate) fn blend(rows: &mut [Vec<f32>], contexts: &[Option<Vec<f32>>], w: f32) {
    for (row, ctx) in rows.iter_mut().zip(contexts) {
        let Some(ctx) = ctx else { continue };
        for (r, &c) in row.iter_mut().zip(ctx) {
            if r.is_finite() && c.is_finite() {
                *r = (1.0 - w) * *r + w * c;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_statement_reads_the_question_put_to_its_turn() {
        let c = Conversation::from_json(
            r#"[{"USER":"Adjust the fan. It is stuffy."},
                {"ASSISTANT":"Sure. Which fan speed would you like?"},
                {"USER":"Always medium."},
                {"ASSISTANT":"Fan set to medium."},
                {"USER":"And play some jazz."}]"#,
        )
        .unwrap();
        let s: Vec<String> = [
            "Adjust the fan.",
            "It is stuffy.",
            "Always medium.",
            "And play some jazz.",
            "not said",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            question_before(&c, &s),
            vec![
                None,
                None,
                Some("Which fan speed would you like?".to_string()),
                None,
                None
            ]
        );
    }

    #[test]
    fn blending_keeps_categories_a_sentence_cannot_hold_out() {
        let mut rows = vec![vec![0.2, f32::NEG_INFINITY, 0.6], vec![0.5, 0.5, 0.5]];
        let ctx = vec![Some(vec![0.6, 0.9, f32::NEG_INFINITY]), None];
        blend(&mut rows, &ctx, 0.25);
        assert!((rows[0][0] - 0.3).abs() < 1e-6);
        assert_eq!(rows[0][1], f32::NEG_INFINITY);
        assert_eq!(rows[0][2], 0.6);
        assert_eq!(rows[1], vec![0.5, 0.5, 0.5]);
    }
}
