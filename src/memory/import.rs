//! Storing preferences as they are, without extraction or maintenance (import, evaluation).

use super::{lock, Memory, MemoryError, NewPreference};
use crate::pref::{HistoryEntry, Millis, Operation, Preference, Status, UserId};
use crate::store::Change;
impl Memory {
    /// Stores preferences as they are (no extraction, no maintenance), each as a new
    /// preference recorded in history as an import. Returns them in the order given.
    pub fn import(
        &self,
        user: &UserId,
        prefs: Vec<NewPreference>,
    ) -> Result<Vec<Preference>, MemoryError> {
        self.import_as(
            user,
            prefs
                .into_iter()
                .map(|n| (n, Status::Active, 1.0))
                .collect(),
        )
    }

    /// [`Memory::import`] keeping each preference's status and confidence (an export's pending
    /// preferences stay pending).
    pub fn import_as(
        &self,
        user: &UserId,
        prefs: Vec<(NewPreference, Status, f32)>,
    ) -> Result<Vec<Preference>, MemoryError> {
        let _w = lock(&self.write);
        let now = Millis::now();
        let ids = self.store.allocate_ids(prefs.len())?;
        let stored: Vec<Preference> = prefs
            .into_iter()
            .zip(ids)
            .map(|((n, status, confidence), id)| Preference {
                id,
                user: user.clone(),
                detail: n.detail,
                attribute: n.attribute,
                sentences: n.sentences,
                status,
                confidence: confidence.clamp(0.0, 1.0),
                created: now,
                updated: now,
                last_recalled: None,
                replaces: None,
                condition: n.condition,
                last_written: now,
            })
            .collect();
        let mut changes = Vec::new();
        for p in &stored {
            changes.push(Change::Put(p.clone()));
            changes.push(Change::History(
                user.clone(),
                HistoryEntry {
                    time: now,
                    op: Operation::Import,
                    category: self.schema.detail(p.detail).key.clone(),
                    before: None,
                    after: Some(p.clone()),
                    sentence: None,
                },
            ));
        }
        self.commit(changes, &stored, &[])?;
        Ok(stored)
    }
}
