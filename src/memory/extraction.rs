//! Running extraction on the models: the gate and the embedder choose what to ask
//! (`extract::offers`), the LLM answers one question per sentence (scored in one forward pass
//! when the values are named, decoded under the grammar otherwise, remembered by prompt), and
//! the answer is parsed back into schema types.

use std::time::Instant;

mod context;
mod explain;
mod lasting;
mod places;
mod refusal;
mod rows;
mod said;
mod stand_in;

use super::counters::Counters;
use super::extract::{self, Candidate, Extracted};
use super::{confidence, correction, lock, typed, values, MemoryError, Models};
use crate::conversation::Conversation;
use crate::llm::Request;
use crate::schema::{DetailId, DetailSet, ValueKind};
use places::Turns;
use said::Said;

pub use explain::SentenceView;
pub use lasting::LastingTrack;
/// The result of extraction on one conversation.
#[derive(Debug, Clone)]
pub struct Extraction {
    /// The categories the embedder offered, best first.
    pub offered: Vec<Candidate>,
    /// Per user sentence, the preference gate's probability that it states a lasting
    /// preference (only sentences at or above the gate's threshold offer).
    pub gate: Vec<f32>,
    pub items: Vec<Extracted>,
    /// The LLM's raw answer (empty when nothing was offered and the model was not asked).
    pub answer: String,
    /// Tokens the LLM decoded for the answer (0 when it was scored in one pass, cached, or not
    /// asked): with the prompt, what llama.cpp's raw cost is measured on.
    pub decoded_tokens: usize,
    pub ms: f64,
}

/// Most answers kept in [`Models`]' answer cache.
const ANSWER_CACHE: usize = 256;

/// Per user sentence of a conversation: the gate's probability, whether it passes, and its
/// similarity to every detail category ([`Models::offer_inputs`]).
pub type OfferInputs = (Vec<f32>, Vec<bool>, Vec<Vec<f32>>);

impl Models {
    /// Extracts preferences from a conversation within the allowed categories. Stores nothing.
    pub fn extract(
        &self,
        conversation: &Conversation,
        allowed: &DetailSet,
    ) -> Result<Extraction, MemoryError> {
        self.extract_excluding(conversation, allowed, None, &[])
    }

    /// [`Models::extract`], leaving out the labelled examples that came from `exclude` (the
    /// evaluation measures each user without that user's own examples).
    ///
    /// The gate decides which user sentences state a lasting preference at all; each of those
    /// offers its best categories (`extract::offers`), and the LLM writes the value of each
    /// sentence's offer from that sentence, one question per sentence, so every preference
    /// carries its own evidence. A conversation no sentence of which passes the gate costs one
    /// embedder pass and no LLM call.
    ///
    /// `held` are the speaker's stored values: a sentence that names one of them and no setting
    /// ("82 is too low") speaks of the setting holding it ([`extract::held_value_first`]).
    pub fn extract_excluding(
        &self,
        conversation: &Conversation,
        allowed: &DetailSet,
        exclude: Option<&str>,
        held: &extract::Held,
    ) -> Result<Extraction, MemoryError> {
        let t0 = Instant::now();
        let sentences = extract::Statements::of(
            conversation,
            extract::statements(&self.schema, conversation, self.cfg.extraction.join_back),
        );
        let protos = self.prototypes()?;
        let te = Instant::now();
        let (vecs, taps) = self.embed_sentences(&sentences)?;
        Counters::time(&self.counters.embed_us, te);
        Counters::add(&self.counters.sentences, sentences.len() as u64);
        let lasting = self.read_lasting((&sentences, &vecs, &taps))?;
        // What the lasting track offers too (`extraction.lasting_offers`); without it, it only
        // tells which offers are one-off requests.
        let offering = lasting
            .as_ref()
            .filter(|_| self.cfg.extraction.lasting_offers);
        let (gate, passes, scores) = self.judge(
            conversation,
            (&sentences, &vecs, &taps),
            &protos,
            exclude,
            (held, offering),
        )?;
        Counters::add(
            &self.counters.gated,
            passes.iter().filter(|&&p| p).count() as u64,
        );
        let leads = self.leads(&scores, &passes, &sentences);
        let x = &self.cfg.extraction;
        let how = extract::Offering {
            min_similarity: x.min_similarity,
            margin: x.margin,
            per_sentence: x.shortlist,
            max: x.max_preferences,
            model: self.offer.as_ref(),
            leads: Some(&leads),
            rivals: None,
            sentences: &sentences,
        };
        let offered = extract::offers(&self.schema, &scores, (&gate, &passes), allowed, &how);
        let offered =
            self.with_lasting_offers((offered, &passes), offering, &scores, allowed, &how);
        // A sentence either track passes can give evidence.
        let passes = lasting::either(&passes, offering);
        // A setting named first and given its value after ("I overcorrected the seat. 82 is
        // too low. Let me bump it up to 84.") moves to the sentence that names the value; then
        // a detail whose value must be named to be stored, and whose value the evidence does
        // not name, has nothing to store: no question is asked.
        let offered = self.follow_corrections(offered, &sentences, &scores, &passes);
        let offered = self.evidence_that_names(offered, &sentences, &scores, &passes);
        let offered: Vec<Candidate> = offered
            .into_iter()
            .filter(|c| !self.nothing_named(c.detail, &sentences[c.sentence]))
            .collect();
        let mut out = Extraction {
            offered: offered.clone(),
            gate,
            items: Vec::new(),
            answer: String::new(),
            decoded_tokens: 0,
            ms: 0.0,
        };
        let turns = Turns::of(conversation);
        for group in extract::by_sentence(&offered) {
            Counters::add(&self.counters.groups, 1);
            let (answer, conf, decoded) = self.answer(&sentences, &group, &turns)?;
            let full = extract::full_answer(&self.schema, &group, &answer);
            let items = extract::parse(&self.schema, &full, &group, &sentences, &conf)?;
            let items = self.not_where_they_are(items, &turns)?;
            let s = group[0].sentence;
            for mut item in self.read_polarity(items, (&vecs[s], &taps[s]))? {
                let at = (&sentences[..], s);
                item.one_off = self.one_off(&item, at, lasting.as_ref());
                let dup = out
                    .items
                    .iter()
                    .any(|e| e.detail == item.detail && e.attribute == item.attribute);
                if !dup && out.items.len() < x.max_preferences {
                    out.items.push(item);
                }
            }
            out.answer.push_str(&full);
            out.decoded_tokens += decoded;
        }
        out.ms = t0.elapsed().as_secs_f64() * 1e3;
        Ok(out)
    }

    /// What extraction reads of a conversation's embedded statements (each with the pooling
    /// the gate reads beside its embedding, see [`Models::embed_tapped`]): the gate's probability
    /// of each, whether it passes ([`lasting::gated`]), and its row of category scores, read
    /// with the question put to it ([`Models::read_in_context`]) and settled by what it says
    /// and what the speaker holds (`held`; [`Models::settle_rows`]; also the rows of the
    /// sentences only the lasting track passes when it offers, [`lasting`]).
    fn judge(
        &self,
        conversation: &Conversation,
        (sentences, vecs, taps): (&[String], &[Vec<f32>], &[Vec<f32>]),
        protos: &[extract::Prototype],
        exclude: Option<&str>,
        (held, lasting): (&extract::Held, Option<&lasting::Lasting>),
    ) -> Result<OfferInputs, MemoryError> {
        // What the gate and the scores read: a name no category lists, in a statement about a
        // category of names, reads as one it lists (`stand_in`).
        let read = self.gate_reading((sentences, vecs, taps), protos, exclude)?;
        let (gate, passes) = lasting::gated(&self.gate, read.parts());
        let (texts, read_vecs, _) = read.parts();
        let mut scores = extract::sentence_scores(&self.schema, protos, read_vecs, texts, exclude);
        self.read_in_context(conversation, sentences, protos, &mut scores, exclude)?;
        // The rows of the sentences the lasting track offers from are settled too.
        self.settle_rows(
            &mut scores,
            &lasting::either(&passes, lasting),
            sentences,
            held,
        );
        Ok((gate, passes, scores))
    }

    /// Moves an offer of a category with known values, whose evidence names none of them in
    /// full, to the last other passing sentence that is most about the same category and does
    /// name one in full ("start a podcast for me" ... "make sure it's an entertainment podcast,
    /// that's all I ever listen to": the second matched the category a little less, and only it
    /// says the value). A vehicle setting whose value is a name of the user's (a destination, a
    /// station) moves the same way to a sentence that says a name ("My meeting location
    /// changed. I'm going to the High Court in the suburbs instead."). A sentence that already
    /// gives another offer keeps it.
    fn evidence_that_names(
        &self,
        mut offered: Vec<Candidate>,
        sentences: &[String],
        scores: &[Vec<f32>],
        passes: &[bool],
    ) -> Vec<Candidate> {
        let schema = &self.schema;
        let taken: Vec<usize> = offered.iter().map(|c| c.sentence).collect();
        for c in offered.iter_mut() {
            let d = schema.detail(c.detail);
            let a_name = d.takes_a_name();
            let whole = |i: usize| match a_name {
                // A place's name only where it is said as where one goes.
                true => extract::proper_names(&sentences[i])
                    .iter()
                    .any(|n| !d.place || extract::said_as_place(&sentences[i], n)),
                false => {
                    !values::wholly_named(schema, c.detail, std::slice::from_ref(&sentences[i]))
                        .is_empty()
                }
            };
            let listed = !d.attributes.is_empty() && !self.must_name(c.detail);
            if !(a_name || listed) || whole(c.sentence) {
                continue;
            }
            let better = (0..sentences.len()).rev().find(|&i| {
                passes.get(i).copied().unwrap_or(false)
                    && !taken.contains(&i)
                    && extract::best_category(&scores[i])
                        .is_some_and(|(k, _)| schema.details()[k].id == c.detail)
                    && whole(i)
            });
            if let Some(i) = better {
                c.score = scores[i][c.detail.index()];
                c.sentence = i;
            }
        }
        offered
    }

    /// Moves each typed offer to the speaker's last correction of it in the conversation
    /// ([`correction::follow`]): "set the ventilation to 3" ... "lower it to 2" stores 2.
    fn follow_corrections(
        &self,
        offered: Vec<Candidate>,
        sentences: &[String],
        scores: &[Vec<f32>],
        passes: &[bool],
    ) -> Vec<Candidate> {
        let schema = &self.schema;
        let info: Vec<correction::Sentence> = scores
            .iter()
            .zip(passes)
            .zip(sentences)
            .map(|((row, &passes), sentence)| correction::Sentence {
                passes,
                refers_back: correction::refers_back(sentence),
                habit: super::usual::states_habit(sentence),
                top: row
                    .iter()
                    .enumerate()
                    .max_by(|a, b| a.1.total_cmp(b.1))
                    .map(|(i, _)| schema.details()[i].id),
            })
            .collect();
        // A vehicle setting's colour is read like its choices: "Actually, green makes me look
        // sickly. Change ambient light to cyan." ends on cyan.
        let typed = |d| {
            let d = schema.detail(d);
            match d.kind {
                ValueKind::Integer | ValueKind::Flag => true,
                ValueKind::Choice => d.call.is_some(),
                ValueKind::Text => d.has_example_values(),
            }
        };
        // A switch is corrected by its own state, or by a number of a setting of its device
        // in a sentence that says it corrects ("open the window a bit" ... "I meant just a
        // crack, like 10 percent"; not "That song was number 3 in the charts", which the gate
        // passes).
        let sets = |d: DetailId, i: usize| {
            let s = &sentences[i];
            if self.corrects(d, s) {
                return Some(d);
            }
            if !correction::says_correction(s) {
                return None;
            }
            typed::device_settings(schema, d)
                .into_iter()
                .find(|&x| schema.detail(x).kind == ValueKind::Integer && self.corrects(x, s))
        };
        correction::follow(offered, &info, typed, sets)
    }

    /// Whether a later sentence names a value of `d` that corrects the setting
    /// ([`Models::follow_corrections`]): a value of its type, and no other setting by its name.
    fn corrects(&self, d: DetailId, sentence: &str) -> bool {
        let detail = self.schema.detail(d);
        // A sentence that names another setting by its name ("Raise the cushion extension
        // to 50." after "My legs are tired.") sets that one, not this.
        let spoken = extract::spoken_names(&self.schema, sentence);
        if !spoken.is_empty() && !spoken.contains(&d.index()) {
            return false;
        }
        match detail.kind {
            ValueKind::Integer | ValueKind::Flag => !typed::named(detail, sentence).is_empty(),
            // A colour corrects only where the setting or its device is said with it ("Change
            // ambient light to cyan", "just keep the blue light"), as it names one
            // ([`Models::names`]): a colour word alone names no light ("well, there's always
            // neon orange").
            ValueKind::Text if spoken.is_empty() => {
                detail.has_example_values() && self.names(d, sentence)
            }
            _ => !values::named_values(&self.schema, d, &[sentence.to_string()]).is_empty(),
        }
    }

    /// The LLM's answer for one sentence's offer, with each line's confidence and the tokens
    /// decoded: from the answer cache, by scoring the named values in one forward pass, or by
    /// decoding under the grammar.
    fn answer(
        &self,
        sentences: &extract::Statements,
        offered: &[Candidate],
        turns: &Turns,
    ) -> Result<(String, Vec<f32>, usize), MemoryError> {
        let request = self.extraction_request(sentences, offered);
        let key = (request.prompt.clone(), request.grammar.clone());
        if let Some((text, conf)) = lock(&self.answers).get(&key).cloned() {
            Counters::add(&self.counters.groups_without_llm, 1);
            return Ok((text, conf, 0));
        }
        let said = match offered {
            [only] => self.said_values(only, sentences, turns)?,
            _ => Said::Ask,
        };
        if let Said::One(v) = &said {
            Counters::add(&self.counters.groups_without_llm, 1);
            return Ok((format!(" {v}\n"), vec![1.0], 0));
        }
        tracing::debug!(
            details = ?offered.iter().map(|c| self.schema.detail(c.detail).key.as_str()).collect::<Vec<_>>(),
            sentence = %sentences[offered[0].sentence],
            prompt_chars = request.prompt.len(),
            "extraction asks the LLM"
        );
        let llm = self.load_llm()?;
        let tl = Instant::now();
        Counters::add(&self.counters.extract_llm, 1);
        // One offered category whose value the user named: the answer is `none` or one of
        // those values, and one forward pass scores them (no decoding steps). Several values
        // the user said are scored without `none` ([`Said::Several`]), and so are the values
        // the user named when `llm_none` is off.
        let (named, with_none) = match (said, offered) {
            (Said::Several(v), _) => (v, false),
            (_, [only]) => (
                extract::scored_choices(&self.schema, only, sentences),
                self.cfg.extraction.llm_none || !extract::user_named(&self.schema, only, sentences),
            ),
            _ => (Vec::new(), true),
        };
        let mut options = if with_none {
            vec![" none".to_string()]
        } else {
            Vec::new()
        };
        options.extend(named.iter().map(|v| format!(" {v}")));
        let choice = if named.is_empty() {
            None
        } else {
            llm.choose(request.clone(), options.clone())?
        };
        let (text, conf, decoded) = match choice {
            Some(c) => {
                let conf = if with_none && c.index == 0 {
                    Vec::new()
                } else {
                    vec![confidence::of_choice(&c.probs, c.index)]
                };
                (format!("{}\n", options[c.index]), conf, 0)
            }
            None => {
                let completion = llm.complete(request)?;
                tracing::debug!(
                    prompt_tokens = completion.prompt_tokens,
                    prompt_ms = completion.prompt_ms,
                    decode_ms = completion.decode_ms,
                    tokens = completion.steps.len(),
                    prefix_evaluated = completion.prefix_evaluated,
                    "extraction answer {:?}",
                    completion.text
                );
                let conf = confidence::of_decoded_lines(&completion.steps);
                let n = completion.steps.len();
                (completion.text, conf, n)
            }
        };
        Counters::time(&self.counters.extract_llm_us, tl);
        let mut answers = lock(&self.answers);
        if answers.len() >= ANSWER_CACHE {
            answers.clear();
        }
        answers.insert(key, (text.clone(), conf.clone()));
        Ok((text, conf, decoded))
    }

    /// Whether a detail's value must be named in a sentence to be stored from it and is not: a typed detail (integer, flag), or a vehicle setting whose values the schema
    /// lists (a choice detail with a vehicle call, or its text with example values, a colour).
    /// Asking the model then can only yield `none` or a value the sentence did not say (on
    /// VehicleMemBench the 270M model answered `12h` for the time format of "It always takes
    /// longer than expected." and `contrast` for the ambient colour of "I like that
    /// contrast."). CarMem's details (no call) and free text without examples still ask.
    fn nothing_named(&self, detail: DetailId, sentence: &str) -> bool {
        self.must_name(detail) && !self.names(detail, sentence)
    }

    /// Which sentences may set the bar the others offer against ([`extract::Offering::leads`]):
    /// those whose best category is one they could store, not one whose value they would have
    /// to name and which neither they nor a later correction name ([`Models::nothing_named`],
    /// [`Models::corrects`]): "The navigation voice is too quiet." names no voice mode, and
    /// sets no bar for "Let me just crank this up to 90"; "I find the overhead screen too
    /// bright" is followed by "I dimmed it down to the minimum level 1" and leads.
    fn leads(&self, scores: &[Vec<f32>], passes: &[bool], sentences: &[String]) -> Vec<bool> {
        let follows = |i: usize| {
            passes.get(i).copied().unwrap_or(false) || correction::refers_back(&sentences[i])
        };
        (0..scores.len())
            .map(|i| {
                extract::best_category(&scores[i]).is_none_or(|(k, _)| {
                    let d = self.schema.details()[k].id;
                    !self.nothing_named(d, &sentences[i])
                        || (i + 1..sentences.len())
                            .any(|j| follows(j) && self.corrects(d, &sentences[j]))
                })
            })
            .collect()
    }

    /// Whether a detail's value must be named in the evidence to be stored: typed details
    /// (integer, flag) and a vehicle setting's listed values.
    fn must_name(&self, detail: DetailId) -> bool {
        let d = self.schema.detail(detail);
        match d.kind {
            ValueKind::Integer | ValueKind::Flag => true,
            ValueKind::Choice | ValueKind::Text => d.call.is_some() && !d.attributes.is_empty(),
        }
    }

    /// Whether `sentence` names a value of `detail` (see [`Models::must_name`]); a colour only
    /// where the sentence also says what it is the colour of ([`extract::says_its_device`]),
    /// and says the colour of something besides another thing ([`extract::said_of_another_thing`]).
    pub(super) fn names(&self, detail: DetailId, sentence: &str) -> bool {
        let d = self.schema.detail(detail);
        match d.kind {
            ValueKind::Integer => !typed::named(d, sentence).is_empty(),
            ValueKind::Flag => !self.switch_states(detail, sentence).is_empty(),
            _ if d.has_example_values() => {
                // A colour said of its device, and not only of some other thing ("a white
                // wall").
                values::named_values(&self.schema, detail, &[sentence.to_string()])
                    .iter()
                    .any(|v| !extract::said_of_another_thing(&self.schema, detail, v, sentence))
                    && extract::says_its_device(&self.schema, detail, sentence)
            }
            _ => !values::named_values(&self.schema, detail, &[sentence.to_string()]).is_empty(),
        }
    }

    /// The states a sentence gives a switch: those it says ([`typed::named`]), else the state
    /// a statement of liking puts a vehicle switch in without saying it ([`typed::stance`]):
    /// on, unless the sentence names a value of another setting of the switch's device ("I
    /// like the heated steering wheel at 8" is the heating level, which implies the switch).
    pub(super) fn switch_states(&self, detail: DetailId, sentence: &str) -> Vec<String> {
        let d = self.schema.detail(detail);
        let said = typed::named(d, sentence);
        if !said.is_empty() || d.call.is_none() {
            return said;
        }
        let others_named = || {
            typed::device_settings(&self.schema, detail)
                .into_iter()
                .any(|s| self.names(s, sentence))
        };
        match typed::stance(d, sentence) {
            Some(state) if !others_named() => vec![state.to_string()],
            _ => Vec::new(),
        }
    }

    /// The LLM request that extraction makes for these user sentences and offered categories:
    /// the cached instructions as prefix, the sentences and the started answer as prompt, and
    /// the grammar of what may follow.
    pub fn extraction_request(
        &self,
        sentences: &extract::Statements,
        offered: &[Candidate],
    ) -> Request {
        Request {
            prefix: self.extract_prefix.clone(),
            prompt: extract::prompt(&self.schema, sentences, offered),
            grammar: extract::grammar(
                &self.schema,
                offered,
                sentences,
                self.cfg.extraction.max_preferences,
                self.cfg.extraction.llm_none,
            ),
        }
    }

    /// Forgets the remembered extraction answers, so that the next extraction of a
    /// conversation asks the LLM again (benches measure the model, not the cache).
    pub fn clear_answer_cache(&self) {
        lock(&self.answers).clear();
    }
}
