//! What extraction reads of a conversation, for the harnesses: per statement the gates'
//! probabilities, the offer decision's and the best categories (`glovebox eval explain`), and
//! the inputs the offer decision is fitted on (`glovebox eval offers`).

use super::super::{condition, extract, offer, MemoryError, Models};
use super::OfferInputs;
use crate::conversation::Conversation;

/// One user sentence as extraction sees it ([`Models::explain`]).
#[derive(Debug, Clone)]
pub struct SentenceView {
    pub sentence: String,
    /// The preference gate's probability.
    pub gate: f32,
    pub passes: bool,
    /// The best categories and their similarity, best first.
    pub best: Vec<(crate::schema::DetailId, f32)>,
    /// The offer decision's probability that it states a preference of its best category
    /// (`memory::offer`; it offers at or above the model's threshold): `None` when it does not
    /// pass the gate or under `offers = "margin"`.
    pub offer: Option<f32>,
    /// The condition a preference from it would hold under (`memory::condition`).
    pub condition: Option<String>,
    /// The one-off gate's probability that it states a lasting preference (below its
    /// threshold, a preference from it is held pending): `None` when the lasting track is off.
    pub lasting: Option<f32>,
    /// For a statement that opens with a request to the car, the one-off gate's probability
    /// of what it says beside its requests (below its threshold, held pending too).
    pub beside: Option<f32>,
    /// The lasting track's offer decision's probability that it states a preference of its
    /// best category (`extraction.lasting_offers`; read beside the strongest sentence either
    /// track passes): `None` when the one-off gate does not pass it or the track does not offer.
    pub lasting_offer: Option<f32>,
    /// The refusal model's probability that it turns down what it names
    /// (`memory::extraction::refusal`): `None` when `extraction.refuse_by_model` is off.
    pub refusal: Option<f32>,
}

/// Statements with their embeddings and the gate's pooling of each.
type Embedded = (Vec<String>, Vec<Vec<f32>>, Vec<Vec<f32>>);

impl Models {
    /// What extraction sees in each user sentence: the gate's probability, whether it passes,
    /// the offer decision's probability, the one-off gate's, the `top` best categories with
    /// their scores and the condition (`glovebox eval explain` prints it). The conversation is read alone: no
    /// speaker's stored values ([`extract::held_value_first`] does not act).
    pub fn explain(
        &self,
        conversation: &Conversation,
        exclude: Option<&str>,
        top: usize,
    ) -> Result<Vec<SentenceView>, MemoryError> {
        let (sentences, vecs, taps) = self.embedded_statements(conversation)?;
        let (gates, passes, scores) =
            self.read_embedded(conversation, (&sentences, &vecs, &taps), exclude)?;
        let lasting = self.read_lasting((&sentences, &vecs, &taps))?;
        let conv_top = extract::strongest(&scores, &passes);
        let either_top =
            extract::strongest(&scores, &super::lasting::either(&passes, lasting.as_ref()));
        let refusal = match self.refusal.as_ref() {
            Some(m) => Some(
                (0..sentences.len())
                    .map(|i| self.refusal_probability(m, (&vecs[i], &taps[i]), &sentences[i]))
                    .collect::<Result<Vec<f32>, MemoryError>>()?,
            ),
            None => None,
        };
        Ok(sentences
            .into_iter()
            .zip(gates.into_iter().zip(passes).zip(scores))
            .enumerate()
            .map(|(i, (sentence, ((gate, passes), row)))| {
                // An offer decision's probability, read with a track's gate and bar.
                let read = |m: &offer::OfferModel, gate: f32, top: f32| {
                    offer::features(&self.schema, &row, gate, top, &sentence)
                        .map(|f| m.probability(&f))
                };
                let offer = self
                    .offer
                    .as_ref()
                    .filter(|_| passes)
                    .and_then(|m| read(m, gate, conv_top));
                let lasting_offer = self
                    .lasting
                    .as_ref()
                    .and_then(|t| t.offer.as_ref())
                    .zip(lasting.as_ref())
                    .filter(|(_, l)| l.passes[i])
                    .and_then(|(m, l)| read(m, l.gate[i], either_top));
                let mut best: Vec<(crate::schema::DetailId, f32)> = row
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| (self.schema.details()[i].id, s))
                    .collect();
                best.sort_by(|a, b| b.1.total_cmp(&a.1));
                best.truncate(top);
                SentenceView {
                    condition: condition::find(&sentence),
                    gate,
                    passes,
                    best,
                    offer,
                    lasting: lasting.as_ref().map(|l| l.gate[i]),
                    beside: lasting.as_ref().and_then(|l| l.beside[i]),
                    lasting_offer,
                    refusal: refusal.as_ref().map(|r| r[i]),
                    sentence,
                }
            })
            .collect())
    }

    /// What the offer decision reads for each user sentence of a conversation: the gate's
    /// probability, whether it passes, and its similarity to every detail category (the
    /// evaluation fits the offer model on these, so it reads what the runtime reads).
    pub fn offer_inputs(
        &self,
        conversation: &Conversation,
    ) -> Result<(Vec<String>, OfferInputs), MemoryError> {
        let (sentences, vecs, taps) = self.embedded_statements(conversation)?;
        let inputs = self.read_embedded(conversation, (&sentences, &vecs, &taps), None)?;
        Ok((sentences, inputs))
    }

    /// A conversation's user statements ([`extract::statements`]) with their embeddings and
    /// the pooling the gate reads beside them.
    fn embedded_statements(&self, conversation: &Conversation) -> Result<Embedded, MemoryError> {
        let sentences =
            extract::statements(&self.schema, conversation, self.cfg.extraction.join_back);
        let (vecs, taps) = self.embed_sentences(&sentences)?;
        Ok((sentences, vecs, taps))
    }

    /// What the offer decision reads of embedded statements ([`Models::offer_inputs`]),
    /// leaving out the labelled examples from `exclude`.
    fn read_embedded(
        &self,
        conversation: &Conversation,
        statements: (&[String], &[Vec<f32>], &[Vec<f32>]),
        exclude: Option<&str>,
    ) -> Result<OfferInputs, MemoryError> {
        let protos = self.prototypes()?;
        self.judge(conversation, statements, &protos, exclude, (&[], None))
    }

    /// The values extraction stores from one sentence offered one category, as it runs in
    /// [`Models::extract`] past the gate and the offer decision (the refusal model's reading
    /// too), and the choices the model was
    /// given (empty when it decodes the user's words): `glovebox eval polarity` measures on
    /// these whether a value the user turns down is stored turned down.
    pub fn value_of(
        &self,
        sentence: &str,
        detail: crate::schema::DetailId,
    ) -> Result<(Vec<String>, Vec<String>), MemoryError> {
        let sentences = extract::Statements::from(vec![sentence.to_string()]);
        let offered = [extract::Candidate {
            detail,
            score: 1.0,
            sentence: 0,
        }];
        let choices = extract::scored_choices(&self.schema, &offered[0], &sentences);
        let turns = super::Turns(vec![sentence]);
        let (answer, conf, _) = self.answer(&sentences, &offered, &turns)?;
        let full = extract::full_answer(&self.schema, &offered, &answer);
        let items = extract::parse(&self.schema, &full, &offered, &sentences, &conf)?;
        let items = self.not_where_they_are(items, &turns)?;
        // The sentence is embedded only for the refusal model, and only when it is on.
        let items = match self.refusal {
            Some(_) => {
                let (vecs, taps) = self.embed_sentences(&sentences)?;
                self.read_polarity(items, (&vecs[0], &taps[0]))?
            }
            None => items,
        };
        Ok((items.into_iter().map(|e| e.attribute).collect(), choices))
    }
}
