//! One CarMem user through the protocol, phase by phase: in-schema and out-of-schema
//! extraction, storing what was extracted, the maintenance questions, retrieval. Each phase adds
//! to the [`Tally`] and writes its scored items to the rows file.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use indicatif::ProgressBar;
use serde_json::{json, Value};

use super::{Entry, EvalError, EvalUser, Tally};
use crate::config::Config;
use crate::conversation::Conversation;
use crate::embed::cosine;
use crate::eval::cases::fold;
use crate::eval::metrics::levels;
use crate::eval::relevance::Query;
use crate::memory::{Extracted, Extraction, Memory, MemoryError, Models, NewPreference};
use crate::pref::{Maintenance, Preference, UserId};
use crate::schema::{Cardinality, DetailId, DetailSet, Schema};

/// Where scored items go: one JSON line each, when a rows file was asked for.
pub(super) struct Rows<'a>(pub Option<&'a mut dyn Write>);

impl Rows<'_> {
    fn write(&mut self, row: Value) -> Result<(), EvalError> {
        if let Some(w) = self.0.as_mut() {
            writeln!(w, "{row}").map_err(EvalError::Write)?;
        }
        Ok(())
    }
}

/// Runs one user through the whole protocol, adding to the tally.
pub(super) fn run_user(
    models: &Arc<Models>,
    cfg: &Config,
    (index, user, unrelated): (usize, &EvalUser, &[&String]),
    only_retrieval: bool,
    tally: &mut Tally,
    rows: &mut Rows<'_>,
    pb: &ProgressBar,
) -> Result<(), EvalError> {
    let schema = models.schema().clone();
    let mut run = UserRun {
        models,
        index,
        k: cfg.recall.k,
        uid: UserId::new(format!("eval-{}", user.id)).map_err(MemoryError::from)?,
        all: schema.all_details(),
        schema,
        user,
        tally,
        rows,
        pb,
    };
    let dir = tempfile::tempdir().map_err(EvalError::Write)?;
    let evidence = if only_retrieval {
        // The fast path: each truth preference's evidence is the user's labelled example.
        run.labelled_evidence()?
    } else {
        let mem = Memory::open_with(&dir.path().join("extracted"), models.clone())?;

        // 1. In-schema extraction; 2. out-of-schema: the truth's subcategory opted out.
        let extractions = run.in_schema()?;
        run.out_of_schema()?;
        tracing::debug!("extraction done");
        // 3. Store what was extracted, as `remember` would.
        for x in extractions.iter().flatten() {
            for item in &x.items {
                mem.maintain(&run.uid, item)?;
            }
        }
        // 4. Maintenance questions on perfectly extracted entries.
        for (e, x) in user.entries.iter().zip(&extractions) {
            let perfect = x
                .as_ref()
                .is_some_and(|x| x.items.len() == 1 && x.items[0].detail == e.detail);
            if perfect {
                run.maintenance(&mem, e)?;
            }
            pb.inc(1);
        }
        tracing::debug!("maintenance done");
        user.entries
            .iter()
            .zip(&extractions)
            .map(|(e, x)| evidence_of(e, x))
            .collect()
    };
    // 5. Retrieval over the user's ground-truth preferences.
    let rmem = Memory::open_with(&dir.path().join("truth"), models.clone())?;
    run.retrieval(&rmem, &evidence, unrelated)?;
    pb.inc(1);
    Ok(())
}

/// One user's run: what every phase needs.
struct UserRun<'a, 'w> {
    models: &'a Arc<Models>,
    /// The user's place in the run (folds of the relevance gate are drawn by it).
    index: usize,
    /// Recall's k.
    k: usize,
    schema: Arc<Schema>,
    user: &'a EvalUser,
    uid: UserId,
    all: DetailSet,
    tally: &'a mut Tally,
    rows: &'a mut Rows<'w>,
    pb: &'a ProgressBar,
}

impl UserRun<'_, '_> {
    /// For `--only-retrieval`: per entry, the user's labelled example sentence of the entry's
    /// category (`config/examples.jsonl`, made from the same split), standing in for the
    /// evidence sentence extraction would have found.
    fn labelled_evidence(&mut self) -> Result<Vec<Option<String>>, EvalError> {
        let examples = crate::memory::extract::parse_examples(
            &self.schema,
            crate::memory::extract::DEFAULT_EXAMPLES,
        )
        .map_err(|problem| EvalError::Data {
            path: "(built-in config/examples.jsonl)".into(),
            line: 0,
            problem,
        })?;
        let out = self
            .user
            .entries
            .iter()
            .map(|e| {
                examples
                    .iter()
                    .find(|(d, x)| *d == e.detail && x.source.as_deref() == Some(&*self.user.id))
                    .map(|(_, x)| x.sentence.clone())
            })
            .collect();
        self.pb.inc(3 * self.user.entries.len() as u64);
        Ok(out)
    }

    /// Extraction from each conversation with every category allowed.
    fn in_schema(&mut self) -> Result<Vec<Option<Extraction>>, EvalError> {
        let schema = self.schema.clone();
        let mut extractions = Vec::new();
        for e in &self.user.entries {
            let (x, ms) =
                extract_or_invalid(self.models, &e.conversation, &self.all, &self.user.id)?;
            self.tally.extract_ms.push(ms);
            let predicted: Vec<DetailId> = x
                .iter()
                .flat_map(|x| x.items.iter().map(|i| i.detail))
                .collect();
            for (acc, c) in self
                .tally
                .in_levels
                .iter_mut()
                .zip(levels(&schema, e.detail, &predicted))
            {
                acc.add(c);
            }
            self.tally.in_counts.add(predicted.len());
            self.tally.valid += u32::from(x.is_some());
            self.confusions(e.detail, &predicted);
            if let Some(x) = &x {
                for i in &x.items {
                    self.tally
                        .confidences
                        .push((i.confidence, i.detail == e.detail));
                    self.tally.extracted += 1;
                    self.tally.held += u32::from(i.one_off);
                    if i.detail == e.detail {
                        self.tally.right_held += u32::from(i.one_off);
                        self.tally.valued += 1;
                        self.tally.value_right +=
                            u32::from(fold(&i.attribute) == fold(&e.attribute));
                    }
                }
            }
            self.tally.confirm.in_schema.push((
                e.detail,
                x.iter()
                    .flat_map(|x| x.items.iter().map(|i| (i.detail, i.confidence)))
                    .collect(),
            ));
            self.rows.write(json!({
                "kind": "extraction", "user": self.user.id, "conversation": e.id,
                "expected": {"category": schema.detail(e.detail).name, "attribute": e.attribute},
                "got": items_json(&schema, &x),
                "offered": x.as_ref().map(|x| x.offered.iter().map(|c| json!([schema.detail(c.detail).key, c.score])).collect::<Vec<_>>()),
                "answer": x.as_ref().map(|x| x.answer.clone()),
                "gate": x.as_ref().map(|x| x.gate.clone()),
                "ms": ms,
            }))?;
            extractions.push(x);
            self.pb.inc(1);
        }
        Ok(extractions)
    }

    /// Counts what the truth was taken for, when it was missed.
    fn confusions(&mut self, truth: DetailId, predicted: &[DetailId]) {
        if predicted.contains(&truth) {
            return;
        }
        let truth = self.schema.detail(truth).name.clone();
        if predicted.is_empty() {
            *self
                .tally
                .confusions
                .entry((truth.clone(), "(nothing)".into()))
                .or_default() += 1;
        }
        for p in predicted {
            *self
                .tally
                .confusions
                .entry((truth.clone(), self.schema.detail(*p).name.clone()))
                .or_default() += 1;
        }
    }

    /// Extraction from each conversation with the truth's subcategory opted out.
    fn out_of_schema(&mut self) -> Result<(), EvalError> {
        let schema = self.schema.clone();
        for e in &self.user.entries {
            let mut allowed = self.all.clone();
            for d in &schema.sub(schema.detail(e.detail).sub).details {
                allowed.remove(*d);
            }
            // Not timed: an identical prompt to the in-schema one is answered from the cache.
            let (x, _) = extract_or_invalid(self.models, &e.conversation, &allowed, &self.user.id)?;
            let n = x.as_ref().map_or(0, |x| x.items.len());
            self.tally.out_counts.add(n);
            self.tally.confirm.out_of_schema.push(
                x.iter()
                    .flat_map(|x| x.items.iter().map(|i| i.confidence))
                    .collect(),
            );
            self.rows.write(json!({
                "kind": "out_of_schema", "user": self.user.id, "conversation": e.id,
                "expected": "nothing", "removed_sub": schema.sub(schema.detail(e.detail).sub).name,
                "got": items_json(&schema, &x),
            }))?;
            self.pb.inc(1);
        }
        Ok(())
    }

    /// The three maintenance questions of a perfectly extracted entry.
    fn maintenance(&mut self, mem: &Memory, e: &Entry) -> Result<(), EvalError> {
        let incoming = |attribute: &str, sentence: &str| Extracted {
            detail: e.detail,
            attribute: attribute.to_string(),
            sentence: sentence.to_string(),
            confidence: 1.0,
            condition: None,
            one_off: false,
        };
        self.decide(mem, e, "equal", Some(incoming(&e.attribute, &e.equal)), "")?;
        let neg = Conversation::from_utterance(&e.negate).map_err(MemoryError::from)?;
        let (nx, _) = extract_or_invalid(self.models, &neg, &self.all, &self.user.id)?;
        let neg_item = nx.and_then(|x| x.items.into_iter().find(|i| i.detail == e.detail));
        self.decide(
            mem,
            e,
            "negate",
            neg_item,
            "nothing extracted in the category",
        )?;
        let different = incoming(&e.different_attribute, &e.different);
        self.decide(mem, e, "different", Some(different), "")
    }

    /// One maintenance question: what the runtime decides for `inc` (nothing extracted counts
    /// as `pass`), scored against what the question expects.
    fn decide(
        &mut self,
        mem: &Memory,
        e: &Entry,
        kind: &str,
        inc: Option<Extracted>,
        note: &str,
    ) -> Result<(), EvalError> {
        let multi = self.schema.detail(e.detail).cardinality == Cardinality::Multiple;
        let (op, got) = match &inc {
            Some(i) => {
                let t = Instant::now();
                let (op, _) = mem.decide(&self.uid, i)?;
                self.tally.maintain_ms.push(t.elapsed().as_secs_f64() * 1e3);
                (op, op_name(op).to_string())
            }
            None => (
                Maintenance::Pass(crate::pref::PreferenceId(0)),
                format!("pass ({note})"),
            ),
        };
        let counts = if multi {
            &mut self.tally.maint_mp
        } else {
            &mut self.tally.maint_mnp
        };
        let c = match kind {
            "equal" => &mut counts.equal,
            "negate" => &mut counts.negate,
            _ => &mut counts.different,
        };
        c.add(op);
        let expected = match kind {
            "equal" => "pass",
            "negate" => "update",
            _ if multi => "append",
            _ => "update",
        };
        self.rows.write(json!({
            "kind": "maintenance", "question": kind, "user": self.user.id, "conversation": e.id,
            "values": if multi { "multiple" } else { "single" },
            "input": inc.as_ref().map(|i| json!({"attribute": i.attribute, "sentence": i.sentence})),
            "expected": expected, "got": got,
        }))
    }

    /// Stores the user's ground-truth preferences and asks each conversation's next question,
    /// ranked by the runtime and by the sentences alone.
    fn retrieval(
        &mut self,
        rmem: &Memory,
        evidence: &[Option<String>],
        unrelated: &[&String],
    ) -> Result<(), EvalError> {
        let news: Vec<NewPreference> = self
            .user
            .entries
            .iter()
            .zip(evidence)
            .map(|(e, x)| truth_preference(e, x.as_deref()))
            .collect();
        let stored = rmem.import(&self.uid, news)?;
        let sentence_vecs = self
            .models
            .embed(stored.iter().map(|p| p.sentences.join(" ")).collect())?;
        for (i, e) in self.user.entries.iter().enumerate() {
            self.retrieve(rmem, &stored, &sentence_vecs, i, e)?;
        }
        self.unrelated(rmem, stored.len(), unrelated)
    }

    /// Utterances that no stored preference serves, ranked for the relevance gate.
    fn unrelated(
        &mut self,
        rmem: &Memory,
        stored: usize,
        unrelated: &[&String],
    ) -> Result<(), EvalError> {
        if unrelated.is_empty() {
            return Ok(());
        }
        let schema = self.schema.clone();
        let vecs = self
            .models
            .embed(unrelated.iter().map(|u| u.to_string()).collect())?;
        for (u, q) in unrelated.iter().zip(vecs) {
            let hits = rmem.rank(&self.uid, &q, stored, Some(&self.user.id))?;
            self.tally
                .relevance
                .push(Query::new(self.index, false, q, &hits, |_| (false, false)));
            self.rows.write(json!({
                "kind": "unrelated", "user": self.user.id, "query": u,
                "got": hits.iter().take(3).map(|h| json!([schema.detail(h.preference.detail).name, h.preference.attribute, h.score, h.relevance])).collect::<Vec<_>>(),
                "features": hits.iter().map(|h| json!([schema.detail(h.preference.detail).name, h.features])).collect::<Vec<_>>(),
            }))?;
        }
        Ok(())
    }

    /// One retrieval question: the rank of the entry's preference `stored[i]`.
    fn retrieve(
        &mut self,
        rmem: &Memory,
        stored: &[Preference],
        sentence_vecs: &[Vec<f32>],
        i: usize,
        e: &Entry,
    ) -> Result<(), EvalError> {
        let schema = self.schema.clone();
        let sub = schema.detail(e.detail).sub;
        let n = stored
            .iter()
            .filter(|p| schema.detail(p.detail).sub == sub)
            .count();
        let t = Instant::now();
        rmem.recall_excluding(&self.uid, &e.next_question, self.k, Some(&self.user.id))?;
        self.tally.recall_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let q = self
            .models
            .embed(vec![e.next_question.clone()])?
            .pop()
            .unwrap_or_default();
        // The ranking before the relevance gate: today's top-n metric, and the gate's data.
        let hits = rmem.rank(&self.uid, &q, stored.len(), Some(&self.user.id))?;
        let rank = hits.iter().position(|h| h.preference.id == stored[i].id);
        self.tally.enriched.add(rank, n);
        self.tally
            .relevance
            .push(Query::new(self.index, true, q.clone(), &hits, |r| {
                (
                    schema.detail(r.preference.detail).sub == sub,
                    r.preference.id == stored[i].id,
                )
            }));
        // Sentence-only baseline: the same preferences ranked by their sentences alone.
        let mut order: Vec<(usize, f32)> = sentence_vecs
            .iter()
            .enumerate()
            .map(|(j, v)| (j, cosine(&q, v)))
            .collect();
        order.sort_by(|a, b| b.1.total_cmp(&a.1));
        let srank = order.iter().position(|(j, _)| *j == i);
        self.tally.sentence_only.add(srank, n);
        self.rows.write(json!({
            "kind": "retrieval", "user": self.user.id, "conversation": e.id, "query": e.next_question,
            "expected": {"category": schema.detail(e.detail).name, "attribute": e.attribute}, "n": n,
            "rank_enriched": rank, "rank_sentence_only": srank,
            "got": hits.iter().take(n + 2).map(|h| json!([schema.detail(h.preference.detail).name, h.preference.attribute, h.score])).collect::<Vec<_>>(),
            "features": hits.iter().map(|h| h.features).collect::<Vec<_>>(),
            "relevant": hits.iter().map(|h| schema.detail(h.preference.detail).sub == sub).collect::<Vec<_>>(),
            "truth": hits.iter().map(|h| h.preference.id == stored[i].id).collect::<Vec<_>>(),
        }))
    }
}

/// The evidence sentence extraction found for an entry's right category, if it did.
fn evidence_of(e: &Entry, x: &Option<Extraction>) -> Option<String> {
    x.as_ref()
        .and_then(|x| x.items.iter().find(|i| i.detail == e.detail))
        .map(|i| i.sentence.clone())
}

/// An entry's ground-truth preference; its sentence is the evidence (see [`evidence_of`]),
/// else all the user's sentences of the conversation.
fn truth_preference(e: &Entry, evidence: Option<&str>) -> NewPreference {
    let sentences = match evidence {
        Some(s) => vec![s.to_string()],
        None => vec![e.conversation.user_sentences().join(" ")],
    };
    NewPreference {
        detail: e.detail,
        attribute: e.attribute.clone(),
        sentences,
        condition: None,
    }
}

fn extract_or_invalid(
    models: &Models,
    conv: &Conversation,
    allowed: &DetailSet,
    user: &str,
) -> Result<(Option<Extraction>, f64), EvalError> {
    let t = Instant::now();
    // The user's own labelled examples (when the examples come from this split) are left out.
    match models.extract_excluding(conv, allowed, Some(user), &[]) {
        Ok(x) => Ok((Some(x), t.elapsed().as_secs_f64() * 1e3)),
        // The grammar should make an unreadable answer impossible; count it, don't stop.
        Err(MemoryError::Extraction(e)) => {
            tracing::warn!("{e}");
            Ok((None, t.elapsed().as_secs_f64() * 1e3))
        }
        Err(e) => Err(e.into()),
    }
}

fn items_json(schema: &Schema, x: &Option<Extraction>) -> Value {
    match x {
        None => json!("invalid output"),
        Some(x) => json!(x
            .items
            .iter()
            .map(|i| json!({"category": schema.detail(i.detail).name, "attribute": i.attribute, "sentence": i.sentence, "confidence": i.confidence, "one_off": i.one_off}))
            .collect::<Vec<_>>()),
    }
}

fn op_name(op: Maintenance) -> &'static str {
    match op {
        Maintenance::Pass(_) => "pass",
        Maintenance::Update(_) => "update",
        Maintenance::Append | Maintenance::New => "append",
    }
}
