//! The history table: one JSON record per change, keyed `(user, seq)`; reading a user's
//! history, appending to it, and scrubbing what a deletion must take with it.

use std::collections::BTreeSet;

use redb::{ReadableDatabase, ReadableTable};
use serde::{Deserialize, Serialize};

use super::{PrefRecord, Store, StoreError, Tables, HISTORY};
use crate::pref::{HistoryEntry, Millis, Operation, PreferenceId, UserId};

#[derive(Serialize, Deserialize)]
pub(super) struct HistRecord {
    time: u64,
    op: String,
    category: String,
    before: Option<PrefRecord>,
    after: Option<PrefRecord>,
    sentence: Option<String>,
}

impl HistRecord {
    /// The ids of the preferences this entry holds (before and after).
    fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        [&self.before, &self.after]
            .into_iter()
            .flatten()
            .map(|p| p.id)
    }
}

impl Store {
    /// The user's history, oldest first.
    pub fn history(&self, user: &UserId) -> Result<Vec<HistoryEntry>, StoreError> {
        let r = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = r.open_table(HISTORY).map_err(|e| self.err(e))?;
        let u = user.as_str();
        let mut out = Vec::new();
        for item in t
            .range((u, 0u64)..=(u, u64::MAX))
            .map_err(|e| self.err(e))?
        {
            let (_, v) = item.map_err(|e| self.err(e))?;
            let h: HistRecord = serde_json::from_slice(v.value())
                .map_err(|e| self.corrupt(format!("unreadable history record: {e}")))?;
            out.push(HistoryEntry {
                time: Millis(h.time),
                op: Operation::parse(&h.op)
                    .ok_or_else(|| self.corrupt(format!("unknown history operation {:?}", h.op)))?,
                category: h.category,
                before: h.before.map(|r| self.decode(r)).transpose()?,
                after: h.after.map(|r| self.decode(r)).transpose()?,
                sentence: h.sentence,
            });
        }
        Ok(out)
    }

    /// Removes every history entry of `user` that holds a value of the deleted preferences
    /// `ids` or of their lineage: a deleted preference's predecessors that it superseded (and
    /// that are not stored any more) are followed through the entries that link them, so an
    /// older value ("22 degrees" before the update to 19) goes with the one that replaced it.
    /// A predecessor that is still stored keeps its own entries; an entry linking it to a
    /// deleted one goes, since it holds the deleted value.
    pub(super) fn scrub_history(
        &self,
        t: &mut Tables<'_>,
        user: &UserId,
        ids: &[PreferenceId],
    ) -> Result<(), StoreError> {
        let u = user.as_str();
        let mut links: Vec<Vec<u64>> = Vec::new();
        for item in t
            .history
            .range((u, 0u64)..=(u, u64::MAX))
            .map_err(|e| self.err(e))?
        {
            let (_, v) = item.map_err(|e| self.err(e))?;
            if let Ok(h) = serde_json::from_slice::<HistRecord>(v.value()) {
                links.push(h.ids().collect());
            }
        }
        let mut gone: BTreeSet<u64> = ids.iter().map(|i| i.0).collect();
        loop {
            let reached: BTreeSet<u64> = links
                .iter()
                .filter(|l| l.iter().any(|i| gone.contains(i)))
                .flatten()
                .copied()
                .filter(|i| !gone.contains(i))
                .collect();
            let mut grew = false;
            for i in reached {
                if t.prefs.get(i).map_err(|e| self.err(e))?.is_none() {
                    gone.insert(i);
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let holds = |b: &[u8]| {
            serde_json::from_slice::<HistRecord>(b)
                .is_ok_and(|h| h.ids().any(|i| gone.contains(&i)))
        };
        t.history
            .retain_in((u, 0u64)..=(u, u64::MAX), |_, v| !holds(v))
            .map_err(|e| self.err(e))
    }

    /// Appends one history entry under the next sequence number.
    pub(super) fn append_history(
        &self,
        t: &mut Tables<'_>,
        user: &UserId,
        h: HistoryEntry,
    ) -> Result<(), StoreError> {
        let seq = t
            .meta
            .get("next_seq")
            .map_err(|e| self.err(e))?
            .map(|v| v.value())
            .unwrap_or(1);
        t.meta
            .insert("next_seq", seq + 1)
            .map_err(|e| self.err(e))?;
        let rec = HistRecord {
            time: h.time.0,
            op: h.op.as_str().to_string(),
            category: h.category,
            before: h.before.as_ref().map(|p| self.encode(p)),
            after: h.after.as_ref().map(|p| self.encode(p)),
            sentence: h.sentence,
        };
        let bytes = serde_json::to_vec(&rec).expect("records serialise");
        t.history
            .insert((user.as_str(), seq), bytes.as_slice())
            .map_err(|e| self.err(e))?;
        Ok(())
    }
}
