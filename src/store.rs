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

use crate::pref::{HistoryEntry, Millis, Preference, PreferenceId, Status, UserId};
use crate::schema::{DetailId, Schema};

/// The tables of one write transaction.
struct Tables<'t> {
    prefs: redb::Table<'t, u64, &'static [u8]>,
    by_user: redb::Table<'t, (&'static str, &'static str, u64), ()>,
    optouts: redb::Table<'t, (&'static str, &'static str), ()>,
    history: redb::Table<'t, (&'static str, u64), &'static [u8]>,
    meta: redb::Table<'t, &'static str, u64>,
}

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
    #[error("user {user} has opted out of category {category}: nothing was stored")]
    OptedOut { user: String, category: String },
}

/// One change, applied with others in one transaction by [`Store::apply`]. (A history entry
/// holds two preferences and is the largest variant; changes live only for one transaction,
/// so they are not boxed.)
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
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
    /// Abort the whole transaction with [`StoreError::OptedOut`] if the user has opted out of
    /// any of these category keys (a detail's own key and those of its sub and main category):
    /// put before a write of an extraction, it makes the opt-out check part of that write.
    UnlessOptedOut(UserId, Vec<String>),
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
    /// Added without a format change, like `replaces`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    condition: Option<String>,
    /// Added without a format change: records written before it read as `None`, and their
    /// `updated` stands in for it.
    #[serde(default)]
    last_written: Option<u64>,
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
            condition: p.condition.clone(),
            last_written: Some(p.last_written.0),
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
            condition: r.condition,
            last_written: Millis(r.last_written.unwrap_or(r.updated)),
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
            let mut t = Tables {
                prefs: w.open_table(PREFS).map_err(|e| self.err(e))?,
                by_user: w.open_table(BY_USER).map_err(|e| self.err(e))?,
                optouts: w.open_table(OPTOUTS).map_err(|e| self.err(e))?,
                history: w.open_table(HISTORY).map_err(|e| self.err(e))?,
                meta: w.open_table(META).map_err(|e| self.err(e))?,
            };
            for c in changes {
                self.apply_one(&mut t, c)?;
            }
        }
        w.commit().map_err(|e| self.err(e))
    }

    /// One change, inside [`Store::apply`]'s transaction.
    fn apply_one(&self, t: &mut Tables<'_>, c: Change) -> Result<(), StoreError> {
        match c {
            Change::Put(p) => {
                self.remove_lookup(t, p.id.0)?;
                let rec = self.encode(&p);
                let bytes = serde_json::to_vec(&rec).expect("records serialise");
                t.prefs
                    .insert(p.id.0, bytes.as_slice())
                    .map_err(|e| self.err(e))?;
                t.by_user
                    .insert((rec.user.as_str(), rec.detail.as_str(), rec.id), ())
                    .map_err(|e| self.err(e))?;
            }
            Change::Delete(id) => {
                self.remove_lookup(t, id.0)?;
                t.prefs.remove(id.0).map_err(|e| self.err(e))?;
            }
            Change::History(user, h) => self.append_history(t, &user, h)?,
            Change::OptOut(user, key) => {
                t.optouts
                    .insert((user.as_str(), key.as_str()), ())
                    .map_err(|e| self.err(e))?;
            }
            Change::OptIn(user, key) => {
                t.optouts
                    .remove((user.as_str(), key.as_str()))
                    .map_err(|e| self.err(e))?;
            }
            Change::ScrubHistory(user, ids) => self.scrub_history(t, &user, &ids)?,
            Change::UnlessOptedOut(user, keys) => {
                for key in keys {
                    let out = t
                        .optouts
                        .get((user.as_str(), key.as_str()))
                        .map_err(|e| self.err(e))?;
                    if out.is_some() {
                        return Err(StoreError::OptedOut {
                            user: user.as_str().to_string(),
                            category: key,
                        });
                    }
                }
            }
            Change::ClearHistory(user) => {
                let u = user.as_str();
                t.history
                    .retain_in((u, 0u64)..=(u, u64::MAX), |_, _| false)
                    .map_err(|e| self.err(e))?;
            }
        }
        Ok(())
    }

    /// Removes the lookup row of the stored preference `id`, if there is one.
    fn remove_lookup(&self, t: &mut Tables<'_>, id: u64) -> Result<(), StoreError> {
        let old = match t.prefs.get(id).map_err(|e| self.err(e))? {
            Some(v) => serde_json::from_slice::<PrefRecord>(v.value()).ok(),
            None => None,
        };
        if let Some(o) = old {
            t.by_user
                .remove((o.user.as_str(), o.detail.as_str(), o.id))
                .map_err(|e| self.err(e))?;
        }
        Ok(())
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

mod history;
#[cfg(test)]
mod tests;
