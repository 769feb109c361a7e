//! Everything that deletes: forgetting, opting out (and back in), retention's expiry, and
//! compaction, which rewrites the files so that nothing deleted is left in them.

use super::index_state::pref_hash;
use super::{lifecycle, lock, retention, ForgetWhat, Memory, MemoryError};
use crate::pref::{HistoryEntry, Millis, Operation, Preference, UserId};
use crate::schema::CategoryRef;
use crate::store::Change;
impl Memory {
    /// Forgets preferences; returns those removed.
    pub fn forget(&self, user: &UserId, what: ForgetWhat) -> Result<Vec<Preference>, MemoryError> {
        let _w = lock(&self.write);
        let now = Millis::now();
        match what {
            ForgetWhat::All => {
                let prefs = self.store.list(user)?;
                self.store.forget_user(user)?;
                let mut st = lock(&self.index);
                for p in &prefs {
                    st.index.remove(p.id.0)?;
                    st.fingerprint ^= pref_hash(p);
                }
                self.save_index(&mut st)?;
                Ok(prefs)
            }
            ForgetWhat::One(id) => {
                let p = self.owned(user, id)?;
                self.delete(user, vec![p], Operation::Forget, now)
            }
            ForgetWhat::Category(r) => {
                let mut prefs = Vec::new();
                for d in self.schema.details_of(r) {
                    prefs.extend(self.store.in_category(user, d)?);
                }
                self.delete(user, prefs, Operation::Forget, now)
            }
        }
    }

    /// Deletes preferences, recording the operation in history without their contents: what
    /// was forgotten is not kept anywhere.
    pub(super) fn delete(
        &self,
        user: &UserId,
        prefs: Vec<Preference>,
        op: Operation,
        now: Millis,
    ) -> Result<Vec<Preference>, MemoryError> {
        let cx = lifecycle::Context {
            schema: &self.schema,
            user,
            now,
            wrote: now,
        };
        let changes = lifecycle::deletion(cx, &prefs, op);
        if !prefs.is_empty() {
            self.commit(changes, &[], &prefs)?;
        }
        Ok(prefs)
    }

    /// Opts a user out of a category: it can no longer be extracted, and what is stored in it
    /// is deleted now, in the same transaction as the opt-out (a crash leaves both or
    /// neither). Returns the deleted preferences.
    pub fn opt_out(
        &self,
        user: &UserId,
        category: CategoryRef,
    ) -> Result<Vec<Preference>, MemoryError> {
        let key = self.schema.ref_key(category).to_string();
        let _w = lock(&self.write);
        let now = Millis::now();
        let mut prefs = Vec::new();
        for d in self.schema.details_of(category) {
            prefs.extend(self.store.in_category(user, d)?);
        }
        let cx = lifecycle::Context {
            schema: &self.schema,
            user,
            now,
            wrote: now,
        };
        let mut changes = vec![
            Change::OptOut(user.clone(), key.clone()),
            Change::History(
                user.clone(),
                HistoryEntry {
                    time: now,
                    op: Operation::OptOut,
                    category: key,
                    before: None,
                    after: None,
                    sentence: None,
                },
            ),
        ];
        changes.extend(lifecycle::deletion(cx, &prefs, Operation::Forget));
        self.commit(changes, &[], &prefs)?;
        Ok(prefs)
    }

    /// Takes back an opt-out.
    pub fn opt_in(&self, user: &UserId, category: CategoryRef) -> Result<(), MemoryError> {
        let key = self.schema.ref_key(category).to_string();
        let _w = lock(&self.write);
        self.store.apply(vec![
            Change::OptIn(user.clone(), key.clone()),
            Change::History(
                user.clone(),
                HistoryEntry {
                    time: Millis::now(),
                    op: Operation::OptIn,
                    category: key,
                    before: None,
                    after: None,
                    sentence: None,
                },
            ),
        ])?;
        Ok(())
    }

    /// The user's opt-outs as category references.
    pub fn optouts(&self, user: &UserId) -> Result<Vec<CategoryRef>, MemoryError> {
        Ok(self
            .store
            .optouts(user)?
            .iter()
            .filter_map(|k| self.schema.resolve(k).ok())
            .collect())
    }

    // ---- retention ----

    /// Expires the preferences unused for `retention.expire_unused_days` at time `now` (see
    /// [`retention::last_used`]), like a forget: gone from store, index and history, with only
    /// "an expiry happened in category C" recorded. Does nothing when retention is off.
    /// Returns the expired preferences.
    pub fn expire_unused_at(&self, now: Millis) -> Result<Vec<Preference>, MemoryError> {
        let Some(days) = self.config().retention.expire_unused_days else {
            return Ok(Vec::new());
        };
        let _w = lock(&self.write);
        let mut by_user: std::collections::BTreeMap<UserId, Vec<Preference>> = Default::default();
        for p in self.store.all()? {
            if retention::is_expired(&p, now, days) {
                by_user.entry(p.user.clone()).or_default().push(p);
            }
        }
        let mut out = Vec::new();
        for (user, prefs) in by_user {
            out.extend(self.delete(&user, prefs, Operation::Expire, now)?);
        }
        Ok(out)
    }

    /// The housekeeping pass, run at open and once a day while serving: retention expiry now.
    /// Returns how many preferences expired.
    pub fn housekeeping(&self) -> Result<usize, MemoryError> {
        let n = self.expire_unused_at(Millis::now())?.len();
        if n > 0 {
            tracing::info!("housekeeping: {n} unused preference(s) expired");
        }
        Ok(n)
    }

    /// Rewrites the store and the index with only what is live, so that nothing deleted
    /// (forgotten preferences, history) is left in any file of the data directory.
    pub fn compact(&mut self) -> Result<(), MemoryError> {
        self.store.compact()?;
        // A fresh index file holds no removed vectors: rebuild it from the store.
        let (index_path, state_path) = self.index_paths();
        for p in [&state_path, &index_path] {
            let _ = std::fs::remove_file(p);
        }
        self.reconcile_index()?;
        Ok(())
    }
}
