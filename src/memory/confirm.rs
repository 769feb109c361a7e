//! Confirming and rejecting a pending preference (one stored below `extraction.confirm_below`).

use super::{lock, Memory, MemoryError};
use crate::pref::{HistoryEntry, Millis, Operation, Preference, PreferenceId, Status, UserId};
use crate::schema::Cardinality;
use crate::store::Change;
impl Memory {
    /// The preferences that confirming `pending` replaces: in a single-value category every
    /// other preference of the category (they contradict the confirmed value); in a multi-value
    /// category the one its uncertain update named, if it is still stored.
    pub(super) fn replaced_on_confirm(
        &self,
        pending: &Preference,
        stored: &[Preference],
    ) -> Vec<Preference> {
        let single = self.schema.detail(pending.detail).cardinality == Cardinality::Single;
        stored
            .iter()
            .filter(|p| p.id != pending.id && (single || Some(p.id) == pending.replaces))
            .cloned()
            .collect()
    }

    /// Deletes `replaced`, recording each as updated to `by`.
    pub(super) fn replace_changes(
        &self,
        user: &UserId,
        replaced: &[Preference],
        by: &Preference,
        now: Millis,
    ) -> Vec<Change> {
        let mut changes = Vec::new();
        for r in replaced {
            changes.push(Change::Delete(r.id));
            changes.push(Change::History(
                user.clone(),
                HistoryEntry {
                    time: now,
                    op: Operation::Update,
                    category: self.schema.detail(r.detail).key.clone(),
                    before: Some(r.clone()),
                    after: Some(by.clone()),
                    sentence: None,
                },
            ));
        }
        changes
    }

    /// The user's preference `id`, or `NotFound` (also when it belongs to someone else).
    pub(super) fn owned(&self, user: &UserId, id: PreferenceId) -> Result<Preference, MemoryError> {
        self.store
            .get(id)?
            .filter(|p| &p.user == user)
            .ok_or_else(|| MemoryError::NotFound {
                user: user.to_string(),
                id,
            })
    }

    pub(super) fn pending(
        &self,
        user: &UserId,
        id: PreferenceId,
    ) -> Result<Preference, MemoryError> {
        let p = self.owned(user, id)?;
        if p.status != Status::Pending {
            return Err(MemoryError::NotPending {
                user: user.to_string(),
                id,
            });
        }
        Ok(p)
    }

    /// The user confirms a pending preference: it becomes active (recalled from now on) and
    /// replaces what its uncertain update was to replace (see [`Memory::maintain`]). Recorded in
    /// history as a confirm. Returns the confirmed preference.
    pub fn confirm(&self, user: &UserId, id: PreferenceId) -> Result<Preference, MemoryError> {
        let _w = lock(&self.write);
        let before = self.pending(user, id)?;
        let stored = self.store.in_category(user, before.detail)?;
        let now = Millis::now();
        let mut after = before.clone();
        after.status = Status::Active;
        after.replaces = None;
        after.updated = now;
        let replaced = self.replaced_on_confirm(&before, &stored);
        let mut changes = vec![
            Change::Put(after.clone()),
            Change::History(
                user.clone(),
                HistoryEntry {
                    time: now,
                    op: Operation::Confirm,
                    category: self.schema.detail(before.detail).key.clone(),
                    before: Some(before.clone()),
                    after: Some(after.clone()),
                    sentence: None,
                },
            ),
        ];
        changes.extend(self.replace_changes(user, &replaced, &after, now));
        let mut removed = vec![before];
        removed.extend(replaced);
        self.commit(changes, std::slice::from_ref(&after), &removed)?;
        Ok(after)
    }

    /// The user rejects a pending preference: it is deleted like a forgotten one (its history
    /// is scrubbed; only "a reject happened in category C" is kept), and whatever it was to
    /// replace stays. Returns the rejected preference.
    pub fn reject(&self, user: &UserId, id: PreferenceId) -> Result<Preference, MemoryError> {
        let _w = lock(&self.write);
        let p = self.pending(user, id)?;
        self.delete(user, vec![p.clone()], Operation::Reject, Millis::now())?;
        Ok(p)
    }
}
