//! Confirming and rejecting a pending preference (one stored below `extraction.confirm_below`).

use super::{lifecycle, lock, Memory, MemoryError};
use crate::pref::{Millis, Operation, Preference, PreferenceId, Status, UserId};
impl Memory {
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
        let stored = self.in_slot(user, before.detail, before.condition.as_deref())?;
        let now = Millis::now();
        let cx = lifecycle::Context {
            schema: &self.schema,
            user,
            now,
            wrote: now,
        };
        let step = lifecycle::confirmation(cx, before, &stored);
        self.commit(
            step.changes,
            std::slice::from_ref(&step.written),
            &step.removed,
        )?;
        Ok(step.written)
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
