//! Remembering: extracting preferences from a conversation and maintaining each against what
//! the user has stored (decide with the schema, negation cues or the LLM; then the lifecycle's
//! changes, committed in one transaction).

use super::counters::Counters;
use super::extract::Extracted;
use super::{condition, lifecycle, lock, maintain, Extraction, Memory, MemoryError, Outcome};
use super::{typed, values};
use crate::conversation::{Conversation, Turn};
use crate::llm::Request;
use crate::pref::{Maintenance, Millis, Preference, UserId};
use crate::schema::{DetailSet, ValueKind};
use crate::store::{Change, StoreError};
impl Memory {
    /// Extracts preferences from a finished conversation and maintains each against the store,
    /// under the person who said it: each speaker's part ([`Conversation::parts`]; turns without
    /// a speaker are `user`'s) is extracted on its own, within that speaker's allowed
    /// categories, and each preference is maintained, oldest first, at the time its sentence
    /// was said.
    pub fn remember(
        &self,
        user: &UserId,
        conversation: &Conversation,
    ) -> Result<Vec<Outcome>, MemoryError> {
        self.remember_excluding(user, conversation, None)
    }

    /// [`Memory::remember`], leaving out the labelled examples that came from `exclude` (an
    /// evaluation measures each household without its own words among the examples).
    pub fn remember_excluding(
        &self,
        user: &UserId,
        conversation: &Conversation,
        exclude: Option<&str>,
    ) -> Result<Vec<Outcome>, MemoryError> {
        let mut out = Vec::new();
        for part in conversation.parts(user) {
            let allowed = self.allowed(&part.speaker)?;
            let held: Vec<_> = self
                .store
                .list(&part.speaker)?
                .into_iter()
                .map(|p| (p.detail, p.attribute))
                .collect();
            let extraction =
                self.models
                    .extract_excluding(&part.conversation, &allowed, exclude, &held)?;
            let mut items: Vec<_> = extraction
                .items
                .iter()
                .filter(|e| !self.answers_another(conversation, user, &part.speaker, e))
                .map(|e| (part.time_of(&e.sentence), e))
                .collect();
            items.sort_by_key(|(t, _)| *t);
            for (time, e) in items {
                match self.maintain_at(&part.speaker, e, time) {
                    Ok(o) => out.extend(o),
                    // Opted out while the extraction ran: the opt-out wins, nothing is stored.
                    Err(MemoryError::Store(StoreError::OptedOut { .. })) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(out)
    }

    /// Whether a speaker's preference is the other occupant's business, not the speaker's: it
    /// answers that occupant's turn ([`Conversation::answered`]) by repeating the value they
    /// named ([`Memory::echoes`]) or by giving one to what they asked for
    /// ([`Memory::carries_out`]).
    fn answers_another(
        &self,
        conversation: &Conversation,
        default: &UserId,
        speaker: &UserId,
        e: &Extracted,
    ) -> bool {
        conversation
            .answered(default, speaker, &e.sentence)
            .is_some_and(|turn| self.echoes(turn, e) || self.carries_out(turn, e))
    }

    /// Whether a speaker's preference repeats the value another occupant named in the turn it
    /// answers ("The ambient light needs to be white." "No problem, Patricia. I'll set it to
    /// white."): that is the other occupant's wish carried out, not the speaker's own, and
    /// another occupant's words never become someone's preference (the other's own sentence is
    /// theirs to store).
    fn echoes(&self, turn: &Turn, e: &Extracted) -> bool {
        let d = self.schema.detail(e.detail);
        match d.kind {
            ValueKind::Integer | ValueKind::Flag => typed::named(d, &turn.text)
                .iter()
                .any(|v| v.eq_ignore_ascii_case(&e.attribute)),
            ValueKind::Choice | ValueKind::Text => {
                let value = values::turned_down(&e.attribute).unwrap_or(&e.attribute);
                values::says_words(&turn.text, value)
            }
        }
    }

    /// Whether a speaker's value carries out what another occupant just asked of them: the
    /// turn it answers holds a request in a question's form ([`super::extract::requests`])
    /// that says a word of the value's setting ([`super::extract::says_its_device`]: "the
    /// airflow", "the time format") and names no value of it (`Models::names`): "Jack, could
    /// you change the airflow?" "Sure, I'll point the air at your feet." The value is then
    /// neither the speaker's preference (he chose it for her) nor the asker's (she named none,
    /// and another occupant's words never become someone else's preference): nothing is
    /// stored. (A request that names the value is the asker's own statement; the answer that
    /// repeats it is an echo, [`Memory::echoes`].)
    fn carries_out(&self, turn: &Turn, e: &Extracted) -> bool {
        crate::conversation::split_sentences(&turn.text)
            .iter()
            .any(|s| {
                super::extract::requests(s)
                    && super::extract::says_its_device(&self.schema, e.detail, s)
                    && !self.models.names(e.detail, s)
            })
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

    /// The user's stored preferences of a detail that hold under the same condition (or, for
    /// `None`, under none): what a new value of that detail is maintained against. A conditional
    /// value ("at night") and the unconditional one live side by side.
    pub fn in_slot(
        &self,
        user: &UserId,
        detail: crate::schema::DetailId,
        condition: Option<&str>,
    ) -> Result<Vec<Preference>, MemoryError> {
        let mut stored = self.store.in_category(user, detail)?;
        stored.retain(|p| condition::same(p.condition.as_deref(), condition));
        Ok(stored)
    }

    /// Decides what an incoming preference does to the user's stored ones in its category
    /// under the same condition ([`Memory::in_slot`]).
    pub fn decide(
        &self,
        user: &UserId,
        incoming: &Extracted,
    ) -> Result<(Maintenance, Vec<Preference>), MemoryError> {
        Counters::add(&self.models.counters().maintain, 1);
        let stored = self.in_slot(user, incoming.detail, incoming.condition.as_deref())?;
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
        let t0 = std::time::Instant::now();
        Counters::add(&self.models.counters().maintain_llm, 1);
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
        Counters::time(&self.models.counters().maintain_llm_us, t0);
        let op = options.parse(&text)?;
        Ok((op, stored))
    }

    /// Maintains one incoming preference against the store: reads what is stored in its
    /// category, decides ([`Memory::decide`]), and commits the lifecycle's changes
    /// ([`lifecycle::maintenance`]; its module doc has the rules by which an extraction below
    /// `extraction.confirm_below` is stored pending and never displaces a confirmed value).
    /// The write re-checks the user's opt-outs in its own transaction: if the category was
    /// opted out after the extraction began, nothing is stored and the error
    /// [`StoreError::OptedOut`] says so.
    pub fn maintain(&self, user: &UserId, incoming: &Extracted) -> Result<Outcome, MemoryError> {
        Ok(self
            .maintain_at(user, incoming, None)?
            .expect("a statement without a time is never older than what is stored"))
    }

    /// [`Memory::maintain`] for words said at `said` (`None`: now), which become the
    /// preference's times. A statement older than the stored value it would replace changes
    /// nothing (`None`): a later statement, ingested first, stands.
    pub fn maintain_at(
        &self,
        user: &UserId,
        incoming: &Extracted,
        said: Option<Millis>,
    ) -> Result<Option<Outcome>, MemoryError> {
        let _w = lock(&self.write);
        let (op, stored) = self.decide(user, incoming)?;
        let newest = stored.iter().map(|p| p.updated).max().unwrap_or_default();
        let now = match said {
            None => Millis::now(),
            Some(t) if t >= newest => t,
            // Older than what is stored: it replaces nothing; a repetition keeps the newer time.
            Some(_) if matches!(op, Maintenance::Update(_)) => return Ok(None),
            Some(_) if matches!(op, Maintenance::Pass(_)) => newest,
            Some(t) => t,
        };
        let cx = lifecycle::Context {
            schema: &self.schema,
            user,
            now,
            wrote: Millis::now(),
        };
        let new_id = match op {
            Maintenance::Pass(_) => None,
            _ => Some(self.store.allocate_ids(1)?[0]),
        };
        let confirm_below = self.config().extraction.confirm_below;
        let step = lifecycle::maintenance(cx, op, &stored, incoming, confirm_below, new_id);
        let guard = Change::UnlessOptedOut(user.clone(), self.schema.opt_out_keys(incoming.detail));
        let changes = std::iter::once(guard).chain(step.changes).collect();
        self.commit(changes, std::slice::from_ref(&step.written), &step.removed)?;
        Ok(Some(Outcome {
            user: user.clone(),
            extracted: incoming.clone(),
            op,
            preference: step.written,
            previous: step.before,
        }))
    }
}
