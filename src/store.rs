//! The store: redb, the source of truth for everything Glovebox remembers. Only this module
//! knows the on-disk encoding; see "On-disk layout" below.
//!
//! On-disk layout (format version [`STORE_FORMAT_VERSION`]):
//! * `meta`: `&str → u64`: `format_version`, `next_id` (never reused), `next_seq` (history).
//! * `prefs`: `u64 id → JSON record` (the detail category by its stable key, never by index).
//! * `by_user`: `(user, detail key, id) → ()`: the per-user, per-category lookup.
//! * `optouts`: `(user, category key) → ()`.
//! * `history`: `(user, seq) → JSON record` of one change.
//!
//! Every [`Store::apply`] is one durable write transaction: all of it or none of it.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use serde::{Deserialize, Serialize};

use crate::pref::{HistoryEntry, Millis, Operation, Preference, PreferenceId, Status, UserId};
use crate::schema::{DetailId, Schema};

/// The on-disk format this build reads and writes.
pub const STORE_FORMAT_VERSION: u64 = 1;

const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const PREFS: TableDefinition<u64, &[u8]> = TableDefinition::new("prefs");
const BY_USER: TableDefinition<(&str, &str, u64), ()> = TableDefinition::new("by_user");
const OPTOUTS: TableDefinition<(&str, &str), ()> = TableDefinition::new("optouts");
const HISTORY: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("history");

/// Sorts after every key made of `[a-z0-9_]` (category keys).
const KEY_MAX: &str = "~";

/// Errors of the store; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("store {path} was written by a newer Glovebox (format {found}; this build reads format {supported}): upgrade Glovebox, nothing was changed")]
    NewerFormat {
        path: PathBuf,
        found: u64,
        supported: u64,
    },
    #[error("store {path} is damaged or not a Glovebox store: {message}; it was left untouched")]
    Corrupt { path: PathBuf, message: String },
    #[error("store {path} is already open in another process (is `glovebox serve` running on this data directory?)")]
    Busy { path: PathBuf },
    #[error("store {path}: {message}")]
    Db { path: PathBuf, message: String },
}

/// One change, applied with others in one transaction by [`Store::apply`].
#[derive(Debug, Clone)]
pub enum Change {
    /// Insert or replace a preference by id.
    Put(Preference),
    /// Remove a preference; a missing id is not an error.
    Delete(PreferenceId),
    /// Append to a user's history.
    History(UserId, HistoryEntry),
    OptOut(UserId, String),
    OptIn(UserId, String),
    /// Remove a user's whole history.
    ClearHistory(UserId),
    /// Remove the user's history entries that hold any of these preferences (before or after).
    ScrubHistory(UserId, Vec<PreferenceId>),
}

#[derive(Serialize, Deserialize)]
struct PrefRecord {
    id: u64,
    user: String,
    detail: String,
    attribute: String,
    sentences: Vec<String>,
    pending: bool,
    confidence: f32,
    created: u64,
    updated: u64,
    last_recalled: Option<u64>,
    /// Added without a format change: records written before it read as `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replaces: Option<u64>,
}

#[derive(Serialize, Deserialize)]
struct HistRecord {
    time: u64,
    op: String,
    category: String,
    before: Option<PrefRecord>,
    after: Option<PrefRecord>,
    sentence: Option<String>,
}

/// The redb store of one data directory.
pub struct Store {
    db: Database,
    path: PathBuf,
    schema: Arc<Schema>,
}

impl Store {
    /// Opens the store, creating it (and recording the format version) if the file is new.
    pub fn open(path: &Path, schema: Arc<Schema>) -> Result<Store, StoreError> {
        let db = match Database::create(path) {
            Ok(db) => db,
            Err(redb::DatabaseError::DatabaseAlreadyOpen) => {
                return Err(StoreError::Busy {
                    path: path.to_path_buf(),
                })
            }
            Err(e) => {
                return Err(StoreError::Corrupt {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                })
            }
        };
        let store = Store {
            db,
            path: path.to_path_buf(),
            schema,
        };
        store.init()?;
        Ok(store)
    }

    fn err(&self, e: impl std::fmt::Display) -> StoreError {
        StoreError::Db {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    fn corrupt(&self, message: String) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            message,
        }
    }

    /// Checks (or, on a new file, records) the format version and creates the tables.
    fn init(&self) -> Result<(), StoreError> {
        let r = self.db.begin_read().map_err(|e| self.err(e))?;
        let found = match r.open_table(META) {
            Ok(t) => t
                .get("format_version")
                .map_err(|e| self.err(e))?
                .map(|v| v.value()),
            Err(redb::TableError::TableDoesNotExist(_)) => None,
            Err(e) => return Err(self.corrupt(e.to_string())),
        };
        drop(r);
        match found {
            Some(v) if v > STORE_FORMAT_VERSION => {
                return Err(StoreError::NewerFormat {
                    path: self.path.clone(),
                    found: v,
                    supported: STORE_FORMAT_VERSION,
                })
            }
            Some(_) => return Ok(()),
            None => {}
        }
        let w = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut meta = w
                .open_table(META)
                .map_err(|e| self.corrupt(e.to_string()))?;
            if meta.len().map_err(|e| self.err(e))? > 0 {
                return Err(self.corrupt("the meta table has no format version".into()));
            }
            meta.insert("format_version", STORE_FORMAT_VERSION)
                .map_err(|e| self.err(e))?;
            meta.insert("next_id", 1).map_err(|e| self.err(e))?;
            meta.insert("next_seq", 1).map_err(|e| self.err(e))?;
            w.open_table(PREFS)
                .map_err(|e| self.corrupt(e.to_string()))?;
            w.open_table(BY_USER)
                .map_err(|e| self.corrupt(e.to_string()))?;
            w.open_table(OPTOUTS)
                .map_err(|e| self.corrupt(e.to_string()))?;
            w.open_table(HISTORY)
                .map_err(|e| self.corrupt(e.to_string()))?;
        }
        w.commit().map_err(|e| self.err(e))
    }

    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn encode(&self, p: &Preference) -> PrefRecord {
        PrefRecord {
            id: p.id.0,
            user: p.user.as_str().to_string(),
            detail: self.schema.detail(p.detail).key.clone(),
            attribute: p.attribute.clone(),
            sentences: p.sentences.clone(),
            pending: p.status == Status::Pending,
            confidence: p.confidence,
            created: p.created.0,
            updated: p.updated.0,
            last_recalled: p.last_recalled.map(|m| m.0),
            replaces: p.replaces.map(|r| r.0),
        }
    }

    fn decode(&self, r: PrefRecord) -> Result<Preference, StoreError> {
        let detail: DetailId = self.schema.detail_by_key(&r.detail).ok_or_else(|| {
            self.corrupt(format!(
                "preference {} names unknown category key {:?}",
                r.id, r.detail
            ))
        })?;
        Ok(Preference {
            id: PreferenceId(r.id),
            user: UserId::new(r.user).map_err(|e| self.corrupt(e.to_string()))?,
            detail,
            attribute: r.attribute,
            sentences: r.sentences,
            status: if r.pending {
                Status::Pending
            } else {
                Status::Active
            },
            confidence: r.confidence,
            created: Millis(r.created),
            updated: Millis(r.updated),
            last_recalled: r.last_recalled.map(Millis),
            replaces: r.replaces.map(PreferenceId),
        })
    }

    fn decode_bytes(&self, b: &[u8]) -> Result<Preference, StoreError> {
        let r: PrefRecord = serde_json::from_slice(b)
            .map_err(|e| self.corrupt(format!("unreadable preference record: {e}")))?;
        self.decode(r)
    }

    fn get_in(
        &self,
        t: &impl ReadableTable<u64, &'static [u8]>,
        id: u64,
    ) -> Result<Option<Preference>, StoreError> {
        match t.get(id).map_err(|e| self.err(e))? {
            Some(v) => Ok(Some(self.decode_bytes(v.value())?)),
            None => Ok(None),
        }
    }

    pub fn get(&self, id: PreferenceId) -> Result<Option<Preference>, StoreError> {
        let r = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = r.open_table(PREFS).map_err(|e| self.err(e))?;
        self.get_in(&t, id.0)
    }

    fn ids_in(&self, user: &UserId, from: &str, to: &str) -> Result<Vec<Preference>, StoreError> {
        let r = self.db.begin_read().map_err(|e| self.err(e))?;
        let idx = r.open_table(BY_USER).map_err(|e| self.err(e))?;
        let prefs = r.open_table(PREFS).map_err(|e| self.err(e))?;
        let u = user.as_str();
        let mut out = Vec::new();
        for item in idx
            .range((u, from, 0u64)..=(u, to, u64::MAX))
            .map_err(|e| self.err(e))?
        {
            let (k, _) = item.map_err(|e| self.err(e))?;
            let id = k.value().2;
            let p = self.get_in(&prefs, id)?.ok_or_else(|| {
                self.corrupt(format!("lookup names preference {id}, which is missing"))
            })?;
            out.push(p);
        }
        Ok(out)
    }

    /// The user's preferences in one detail category (any status), ordered by id.
    pub fn in_category(
        &self,
        user: &UserId,
        detail: DetailId,
    ) -> Result<Vec<Preference>, StoreError> {
        let key = self.schema.detail(detail).key.clone();
        self.ids_in(user, &key, &key)
    }

    /// The ids of all of a user's preferences (any status), read from the per-user lookup
    /// alone: no record is decoded, which keeps recall's cost flat in the number stored.
    pub fn ids_of(&self, user: &UserId) -> Result<HashSet<u64>, StoreError> {
        let r = self.db.begin_read().map_err(|e| self.err(e))?;
        let idx = r.open_table(BY_USER).map_err(|e| self.err(e))?;
        let u = user.as_str();
        let mut out = HashSet::new();
        for item in idx
            .range((u, "", 0u64)..=(u, KEY_MAX, u64::MAX))
            .map_err(|e| self.err(e))?
        {
            out.insert(item.map_err(|e| self.err(e))?.0.value().2);
        }
        Ok(out)
    }

    /// Several preferences by id in one read transaction, in the order given (`None` for an id
    /// not stored).
    pub fn get_many(&self, ids: &[u64]) -> Result<Vec<Option<Preference>>, StoreError> {
        let r = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = r.open_table(PREFS).map_err(|e| self.err(e))?;
        ids.iter().map(|&id| self.get_in(&t, id)).collect()
    }

    /// All of a user's preferences, ordered by category key, then id.
    pub fn list(&self, user: &UserId) -> Result<Vec<Preference>, StoreError> {
        self.ids_in(user, "", KEY_MAX)
    }

    /// Every preference of every user.
    pub fn all(&self) -> Result<Vec<Preference>, StoreError> {
        let r = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = r.open_table(PREFS).map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for item in t.iter().map_err(|e| self.err(e))? {
            let (_, v) = item.map_err(|e| self.err(e))?;
            out.push(self.decode_bytes(v.value())?);
        }
        Ok(out)
    }

    pub fn ids(&self) -> Result<BTreeSet<PreferenceId>, StoreError> {
        let r = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = r.open_table(PREFS).map_err(|e| self.err(e))?;
        let mut out = BTreeSet::new();
        for item in t.iter().map_err(|e| self.err(e))? {
            out.insert(PreferenceId(item.map_err(|e| self.err(e))?.0.value()));
        }
        Ok(out)
    }

    /// Users with at least one preference.
    pub fn users(&self) -> Result<Vec<UserId>, StoreError> {
        let r = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = r.open_table(BY_USER).map_err(|e| self.err(e))?;
        let mut out: Vec<UserId> = Vec::new();
        for item in t.iter().map_err(|e| self.err(e))? {
            let (k, _) = item.map_err(|e| self.err(e))?;
            let u = k.value().0;
            if out.last().is_none_or(|l| l.as_str() != u) {
                out.push(UserId::new(u).map_err(|e| self.corrupt(e.to_string()))?);
            }
        }
        Ok(out)
    }

    /// The user's opted-out category keys, sorted.
    pub fn optouts(&self, user: &UserId) -> Result<Vec<String>, StoreError> {
        let r = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = r.open_table(OPTOUTS).map_err(|e| self.err(e))?;
        let u = user.as_str();
        let mut out = Vec::new();
        for item in t.range((u, "")..=(u, KEY_MAX)).map_err(|e| self.err(e))? {
            out.push(item.map_err(|e| self.err(e))?.0.value().1.to_string());
        }
        Ok(out)
    }

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

    /// Allocates `n` fresh preference ids (durable; never reused, even after deletes).
    pub fn allocate_ids(&self, n: usize) -> Result<Vec<PreferenceId>, StoreError> {
        let w = self.db.begin_write().map_err(|e| self.err(e))?;
        let first = {
            let mut meta = w.open_table(META).map_err(|e| self.err(e))?;
            let first = meta
                .get("next_id")
                .map_err(|e| self.err(e))?
                .map(|v| v.value())
                .unwrap_or(1);
            meta.insert("next_id", first + n as u64)
                .map_err(|e| self.err(e))?;
            first
        };
        w.commit().map_err(|e| self.err(e))?;
        Ok((first..first + n as u64).map(PreferenceId).collect())
    }

    /// Applies changes in one durable write transaction: all or nothing.
    pub fn apply(&self, changes: Vec<Change>) -> Result<(), StoreError> {
        if changes.is_empty() {
            return Ok(());
        }
        let w = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut prefs = w.open_table(PREFS).map_err(|e| self.err(e))?;
            let mut idx = w.open_table(BY_USER).map_err(|e| self.err(e))?;
            let mut opt = w.open_table(OPTOUTS).map_err(|e| self.err(e))?;
            let mut hist = w.open_table(HISTORY).map_err(|e| self.err(e))?;
            let mut meta = w.open_table(META).map_err(|e| self.err(e))?;
            let remove_lookup = |prefs: &redb::Table<u64, &[u8]>,
                                 idx: &mut redb::Table<(&str, &str, u64), ()>,
                                 id: u64|
             -> Result<(), StoreError> {
                let old = match prefs.get(id).map_err(|e| self.err(e))? {
                    Some(v) => serde_json::from_slice::<PrefRecord>(v.value()).ok(),
                    None => None,
                };
                if let Some(o) = old {
                    idx.remove((o.user.as_str(), o.detail.as_str(), o.id))
                        .map_err(|e| self.err(e))?;
                }
                Ok(())
            };
            for c in changes {
                match c {
                    Change::Put(p) => {
                        remove_lookup(&prefs, &mut idx, p.id.0)?;
                        let rec = self.encode(&p);
                        let bytes = serde_json::to_vec(&rec).expect("records serialise");
                        prefs
                            .insert(p.id.0, bytes.as_slice())
                            .map_err(|e| self.err(e))?;
                        idx.insert((rec.user.as_str(), rec.detail.as_str(), rec.id), ())
                            .map_err(|e| self.err(e))?;
                    }
                    Change::Delete(id) => {
                        remove_lookup(&prefs, &mut idx, id.0)?;
                        prefs.remove(id.0).map_err(|e| self.err(e))?;
                    }
                    Change::History(user, h) => {
                        let seq = meta
                            .get("next_seq")
                            .map_err(|e| self.err(e))?
                            .map(|v| v.value())
                            .unwrap_or(1);
                        meta.insert("next_seq", seq + 1).map_err(|e| self.err(e))?;
                        let rec = HistRecord {
                            time: h.time.0,
                            op: h.op.as_str().to_string(),
                            category: h.category,
                            before: h.before.as_ref().map(|p| self.encode(p)),
                            after: h.after.as_ref().map(|p| self.encode(p)),
                            sentence: h.sentence,
                        };
                        let bytes = serde_json::to_vec(&rec).expect("records serialise");
                        hist.insert((user.as_str(), seq), bytes.as_slice())
                            .map_err(|e| self.err(e))?;
                    }
                    Change::OptOut(user, key) => {
                        opt.insert((user.as_str(), key.as_str()), ())
                            .map_err(|e| self.err(e))?;
                    }
                    Change::OptIn(user, key) => {
                        opt.remove((user.as_str(), key.as_str()))
                            .map_err(|e| self.err(e))?;
                    }
                    Change::ScrubHistory(user, ids) => {
                        let u = user.as_str();
                        let ids: BTreeSet<u64> = ids.iter().map(|i| i.0).collect();
                        let holds = |b: &[u8]| {
                            serde_json::from_slice::<HistRecord>(b).is_ok_and(|h| {
                                [&h.before, &h.after]
                                    .into_iter()
                                    .flatten()
                                    .any(|p| ids.contains(&p.id))
                            })
                        };
                        hist.retain_in((u, 0u64)..=(u, u64::MAX), |_, v| !holds(v))
                            .map_err(|e| self.err(e))?;
                    }
                    Change::ClearHistory(user) => {
                        let u = user.as_str();
                        hist.retain_in((u, 0u64)..=(u, u64::MAX), |_, _| false)
                            .map_err(|e| self.err(e))?;
                    }
                }
            }
        }
        w.commit().map_err(|e| self.err(e))
    }

    /// Deletes everything about a user (preferences, lookup rows, opt-outs, history) in one
    /// transaction; returns the deleted preference ids.
    pub fn forget_user(&self, user: &UserId) -> Result<Vec<PreferenceId>, StoreError> {
        let ids: Vec<PreferenceId> = self.list(user)?.iter().map(|p| p.id).collect();
        let mut changes: Vec<Change> = ids.iter().map(|id| Change::Delete(*id)).collect();
        changes.push(Change::ClearHistory(user.clone()));
        for key in self.optouts(user)? {
            changes.push(Change::OptIn(user.clone(), key));
        }
        self.apply(changes)?;
        Ok(ids)
    }

    /// Rewrites the file with only the live data and atomically replaces it. redb reuses freed
    /// pages but does not scrub them, so bytes of deleted preferences can stay in the file until
    /// this runs; after it, nothing deleted is left in the store file.
    pub fn compact(&mut self) -> Result<(), StoreError> {
        let mut tmp = self.path.as_os_str().to_owned();
        tmp.push(".compact");
        let tmp = PathBuf::from(tmp);
        let _ = std::fs::remove_file(&tmp);
        {
            let fresh = Database::create(&tmp).map_err(|e| self.err(e))?;
            let r = self.db.begin_read().map_err(|e| self.err(e))?;
            let w = fresh.begin_write().map_err(|e| self.err(e))?;
            copy(&r, &w, META).map_err(|e| self.err(e))?;
            copy(&r, &w, PREFS).map_err(|e| self.err(e))?;
            copy(&r, &w, BY_USER).map_err(|e| self.err(e))?;
            copy(&r, &w, OPTOUTS).map_err(|e| self.err(e))?;
            copy(&r, &w, HISTORY).map_err(|e| self.err(e))?;
            w.commit().map_err(|e| self.err(e))?;
        }
        std::fs::rename(&tmp, &self.path).map_err(|e| self.err(e))?;
        self.db = Database::create(&self.path).map_err(|e| self.err(e))?;
        Ok(())
    }
}

/// Copies one table between transactions.
fn copy<K: redb::Key + 'static, V: redb::Value + 'static>(
    r: &redb::ReadTransaction,
    w: &redb::WriteTransaction,
    def: TableDefinition<K, V>,
) -> Result<(), redb::Error> {
    let src = r.open_table(def)?;
    let mut dst = w.open_table(def)?;
    for item in src.iter()? {
        let (k, v) = item?;
        dst.insert(k.value(), v.value())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pref(id: u64, user: &str, key: &str, attr: &str) -> Preference {
        let s = Schema::embedded();
        Preference {
            id: PreferenceId(id),
            user: UserId::new(user).unwrap(),
            detail: s.detail_by_key(key).unwrap(),
            attribute: attr.into(),
            sentences: vec![format!("I like {attr}.")],
            status: Status::Active,
            confidence: 0.9,
            created: Millis(1),
            updated: Millis(2),
            last_recalled: None,
            replaces: None,
        }
    }

    fn open(dir: &Path) -> Store {
        Store::open(&dir.join("s.redb"), Arc::new(Schema::embedded())).unwrap()
    }

    #[test]
    fn round_trip_order_isolation_and_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let s = open(dir.path());
        let ann = UserId::new("ann").unwrap();
        let bob = UserId::new("bob").unwrap();
        s.apply(vec![
            Change::Put(pref(3, "ann", "favorite_genres", "Jazz")),
            Change::Put(pref(1, "ann", "favorite_genres", "Rock")),
            Change::Put(pref(2, "ann", "preferred_temperature", "22 degree Celcius")),
            Change::Put(pref(4, "bob", "favorite_genres", "Pop")),
        ])
        .unwrap();
        let genres = s.schema().detail_by_key("favorite_genres").unwrap();
        let g: Vec<u64> = s
            .in_category(&ann, genres)
            .unwrap()
            .iter()
            .map(|p| p.id.0)
            .collect();
        assert_eq!(g, vec![1, 3]);
        assert_eq!(s.list(&ann).unwrap().len(), 3);
        assert_eq!(s.list(&bob).unwrap().len(), 1);
        assert_eq!(
            s.get(PreferenceId(2)).unwrap().unwrap(),
            pref(2, "ann", "preferred_temperature", "22 degree Celcius")
        );
        // Replacing moves the lookup row with the category.
        s.apply(vec![Change::Put(pref(
            3,
            "ann",
            "favorite_cuisine",
            "Italian",
        ))])
        .unwrap();
        assert_eq!(s.in_category(&ann, genres).unwrap().len(), 1);
        s.apply(vec![
            Change::Delete(PreferenceId(1)),
            Change::Delete(PreferenceId(99)),
        ])
        .unwrap();
        drop(s);
        let s = open(dir.path());
        assert_eq!(
            s.ids().unwrap(),
            BTreeSet::from([PreferenceId(2), PreferenceId(3), PreferenceId(4)])
        );
        assert_eq!(s.users().unwrap(), vec![ann, bob]);
    }

    #[test]
    fn ids_are_never_reused() {
        let dir = tempfile::tempdir().unwrap();
        let s = open(dir.path());
        let a = s.allocate_ids(2).unwrap();
        s.apply(vec![Change::Put(pref(
            a[1].0,
            "ann",
            "favorite_genres",
            "Jazz",
        ))])
        .unwrap();
        s.apply(vec![Change::Delete(a[1])]).unwrap();
        drop(s);
        let s = open(dir.path());
        let b = s.allocate_ids(1).unwrap();
        assert!(b[0] > a[1]);
    }

    #[test]
    fn garbage_and_newer_files_are_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.redb");
        let garbage = vec![0x5au8; 8192];
        std::fs::write(&path, &garbage).unwrap();
        let e = Store::open(&path, Arc::new(Schema::embedded()))
            .err()
            .unwrap();
        assert!(matches!(e, StoreError::Corrupt { .. }), "{e}");
        assert!(e.to_string().contains("g.redb"));
        assert_eq!(std::fs::read(&path).unwrap(), garbage);

        let s = open(dir.path());
        let w = s.db.begin_write().unwrap();
        w.open_table(META)
            .unwrap()
            .insert("format_version", 99)
            .unwrap();
        w.commit().unwrap();
        drop(s);
        let e = Store::open(&dir.path().join("s.redb"), Arc::new(Schema::embedded()))
            .err()
            .unwrap();
        assert!(
            matches!(e, StoreError::NewerFormat { found: 99, .. }),
            "{e}"
        );
    }

    #[test]
    fn history_and_optouts_round_trip_and_forget_user_is_complete() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = open(dir.path());
        let ann = UserId::new("ann").unwrap();
        let bob = UserId::new("bob").unwrap();
        let secret = "Zanzibar-Quokka-Jazz";
        let p = pref(1, "ann", "favorite_genres", secret);
        let h = HistoryEntry {
            time: Millis(5),
            op: Operation::Update,
            category: "favorite_genres".into(),
            before: Some(pref(7, "ann", "favorite_genres", "Rock")),
            after: Some(p.clone()),
            sentence: Some(format!("I love {secret}.")),
        };
        s.apply(vec![
            Change::Put(p),
            Change::History(ann.clone(), h.clone()),
            Change::OptOut(ann.clone(), "music".into()),
            Change::Put(pref(2, "bob", "favorite_genres", "Pop")),
            Change::OptOut(bob.clone(), "parking".into()),
        ])
        .unwrap();
        assert_eq!(s.history(&ann).unwrap(), vec![h]);
        assert_eq!(s.optouts(&ann).unwrap(), vec!["music".to_string()]);
        assert_eq!(s.forget_user(&ann).unwrap(), vec![PreferenceId(1)]);
        assert!(s.list(&ann).unwrap().is_empty());
        assert!(s.history(&ann).unwrap().is_empty());
        assert!(s.optouts(&ann).unwrap().is_empty());
        assert_eq!(s.list(&bob).unwrap().len(), 1);
        assert_eq!(s.optouts(&bob).unwrap(), vec!["parking".to_string()]);
        s.compact().unwrap();
        let bytes = std::fs::read(dir.path().join("s.redb")).unwrap();
        assert!(!bytes.windows(secret.len()).any(|w| w == secret.as_bytes()));
        assert_eq!(s.list(&bob).unwrap().len(), 1);
        drop(s);
        assert_eq!(open(dir.path()).list(&bob).unwrap().len(), 1);
    }
}
