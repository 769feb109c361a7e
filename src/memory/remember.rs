//! Remembering: extracting preferences from a conversation and maintaining each against what
//! the user has stored (decide with the schema, negation cues or the LLM; then the lifecycle's
//! changes, committed in one transaction).

use super::extract::Extracted;
use super::{lock, maintain, Extraction, Memory, MemoryError, Outcome, MAX_SENTENCES};
use crate::conversation::Conversation;
use crate::llm::Request;
use crate::pref::{
    HistoryEntry, Maintenance, Millis, Operation, Preference, PreferenceId, Status, UserId,
};
use crate::schema::DetailSet;
use crate::store::Change;
impl Memory {
    /// Extracts preferences from a finished conversation and maintains each against the store.
    pub fn remember(
        &self,
        user: &UserId,
        conversation: &Conversation,
    ) -> Result<Vec<Outcome>, MemoryError> {
        let allowed = self.allowed(user)?;
        let extraction = self.extract(conversation, &allowed)?;
        extraction
            .items
            .iter()
            .map(|e| self.maintain(user, e))
            .collect()
    }

    /// The details a user allows: the schema minus their opt-outs.
    pub fn allowed(&self, user: &UserId) -> Result<DetailSet, MemoryError> {
        let mut allowed = self.schema.all_details();
        for key in self.store.optouts(user)? {
            if let Ok(r) = self.schema.resolve(&key) {
                for d in self.schema.details_of(r) {
                    allowed.remove(d);
                }
            }
        }
        Ok(allowed)
    }

    /// Extracts preferences from a conversation within the allowed categories. Stores nothing.
    pub fn extract(
        &self,
        conversation: &Conversation,
        allowed: &DetailSet,
    ) -> Result<Extraction, MemoryError> {
        self.models.extract(conversation, allowed)
    }

    /// Decides what an incoming preference does to the user's stored ones in its category.
    pub fn decide(
        &self,
        user: &UserId,
        incoming: &Extracted,
    ) -> Result<(Maintenance, Vec<Preference>), MemoryError> {
        let stored = self.store.in_category(user, incoming.detail)?;
        if stored.is_empty() {
            return Ok((Maintenance::New, stored));
        }
        let detail = self.schema.detail(incoming.detail);
        let options = maintain::Options::new(
            detail.cardinality,
            &stored,
            &incoming.attribute,
            &incoming.sentence,
        );
        if let Some(op) = options.forced() {
            return Ok((op, stored));
        }
        if let Some(op) = options.by_negation(&incoming.sentence) {
            return Ok((op, stored));
        }
        let llm = self.load_llm()?;
        let request = Request {
            prefix: self.models.maintain_prefix.clone(),
            prompt: maintain::prompt(detail, &stored, &incoming.attribute, &incoming.sentence),
            grammar: options.grammar(),
        };
        // Answers that differ in their first token are scored in one forward pass.
        let answers = options.answers();
        let text = match llm.choose(request.clone(), answers.clone())? {
            Some(c) => answers[c.index].clone(),
            None => llm.complete(request)?.text,
        };
        let op = options.parse(&text)?;
        Ok((op, stored))
    }

    /// Maintains one incoming preference against the store and applies the decision.
    ///
    /// An extraction below `extraction.confirm_below` is uncertain, and the rules keep an
    /// uncertain value from ever displacing a confirmed one:
    /// * new or appended: stored pending;
    /// * a pass on a pending preference: the repetition confirms it when the incoming extraction
    ///   is itself certain (as [`Memory::confirm`] would); otherwise it stays pending;
    /// * an update of an active preference: the new value is stored pending *beside* it, noting
    ///   which one it replaces; the old value stays active (and recalled) until the new one is
    ///   confirmed, and stays for good if it is rejected;
    /// * an update of a pending preference: the new value replaces it, pending if uncertain (and
    ///   inherits what it was to replace), active if certain (and then also replaces that).
    pub fn maintain(&self, user: &UserId, incoming: &Extracted) -> Result<Outcome, MemoryError> {
        let _w = lock(&self.write);
        let (op, stored) = self.decide(user, incoming)?;
        let now = Millis::now();
        let uncertain = incoming.confidence < self.cfg.extraction.confirm_below;
        let fresh = |id: PreferenceId, status: Status, replaces: Option<PreferenceId>| Preference {
            id,
            user: user.clone(),
            detail: incoming.detail,
            attribute: incoming.attribute.clone(),
            sentences: vec![incoming.sentence.clone()],
            status,
            confidence: incoming.confidence,
            created: now,
            updated: now,
            last_recalled: None,
            replaces,
        };
        let status = if uncertain {
            Status::Pending
        } else {
            Status::Active
        };
        let history = |op, before: Option<&Preference>, after: &Preference| {
            Change::History(
                user.clone(),
                HistoryEntry {
                    time: now,
                    op,
                    category: self.schema.detail(incoming.detail).key.clone(),
                    before: before.cloned(),
                    after: Some(after.clone()),
                    sentence: Some(incoming.sentence.clone()),
                },
            )
        };
        let find = |id: PreferenceId| stored.iter().find(|p| p.id == id).cloned();
        let (after, previous, changes, removed) = match op {
            Maintenance::New | Maintenance::Append => {
                let p = fresh(self.store.allocate_ids(1)?[0], status, None);
                let changes = vec![Change::Put(p.clone()), history(Operation::Append, None, &p)];
                (p, None, changes, Vec::new())
            }
            Maintenance::Pass(id) => {
                let before = find(id).expect("maintenance ids are among the stored");
                let mut p = before.clone();
                if !p.sentences.contains(&incoming.sentence) {
                    p.sentences.push(incoming.sentence.clone());
                    if p.sentences.len() > MAX_SENTENCES {
                        p.sentences.remove(0);
                    }
                }
                p.updated = now;
                p.confidence = p.confidence.max(incoming.confidence);
                let mut changes = Vec::new();
                let mut removed = vec![before.clone()];
                if before.status == Status::Pending && !uncertain {
                    p.status = Status::Active;
                    p.replaces = None;
                    let replaced = self.replaced_on_confirm(&before, &stored);
                    changes.extend(self.replace_changes(user, &replaced, &p, now));
                    removed.extend(replaced);
                }
                changes.insert(0, Change::Put(p.clone()));
                changes.insert(1, history(Operation::Pass, Some(&before), &p));
                (p, Some(before), changes, removed)
            }
            Maintenance::Update(id) => {
                let before = find(id).expect("maintenance ids are among the stored");
                let id = self.store.allocate_ids(1)?[0];
                let (p, removed) = match (before.status, uncertain) {
                    // Uncertain news never displaces a confirmed value: wait beside it.
                    (Status::Active, true) => (fresh(id, Status::Pending, Some(before.id)), vec![]),
                    (Status::Active, false) => {
                        (fresh(id, Status::Active, None), vec![before.clone()])
                    }
                    (Status::Pending, true) => (
                        fresh(id, Status::Pending, before.replaces),
                        vec![before.clone()],
                    ),
                    (Status::Pending, false) => {
                        let mut removed = vec![before.clone()];
                        removed.extend(
                            before
                                .replaces
                                .and_then(|r| find(r))
                                .filter(|r| r.status == Status::Active),
                        );
                        (fresh(id, Status::Active, None), removed)
                    }
                };
                let mut changes: Vec<Change> =
                    removed.iter().map(|r| Change::Delete(r.id)).collect();
                changes.push(Change::Put(p.clone()));
                changes.push(history(Operation::Update, Some(&before), &p));
                for r in removed.iter().filter(|r| r.id != before.id) {
                    changes.push(history(Operation::Update, Some(r), &p));
                }
                (p, Some(before), changes, removed)
            }
        };
        self.commit(changes, std::slice::from_ref(&after), &removed)?;
        Ok(Outcome {
            extracted: incoming.clone(),
            op,
            preference: after,
            previous,
        })
    }
}
