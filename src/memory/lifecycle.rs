//! The preference lifecycle as pure functions: what is stored, what comes in and the policy
//! (`extraction.confirm_below`) → the store changes of one transaction, for pass, update,
//! append (and new), pending, confirm, and the deletions (forget, reject, expire). No model, no
//! store: `Memory` reads, decides, calls these and commits what they return.
//!
//! An extraction below `confirm_below` is uncertain, and the rules keep an uncertain value from
//! ever displacing a confirmed one:
//! * new or appended: stored pending;
//! * a pass on a pending preference: the repetition confirms it when the incoming extraction is
//!   itself certain (as a confirm would); otherwise it stays pending;
//! * an update of an active preference: the new value is stored pending *beside* it, noting
//!   which one it replaces; the old value stays active (and recalled) until the new one is
//!   confirmed, and stays for good if it is rejected;
//! * an update of a pending preference: the new value replaces it, pending if uncertain (and
//!   inherits what it was to replace), active if certain (and then also replaces that).
//!
//! A one-off request ([`Extracted::one_off`]: "Put on Radio 4, please.") is uncertain in the
//! same way, whatever its confidence: one request is no lasting preference yet, and must not
//! displace one. Its repetition said later (a certain extraction of the same value, at a later
//! time than the pending preference was written) confirms it: what a driver asks for again and
//! again is what they usually want. The same conversation remembered again does not.

use super::extract::Extracted;
use super::MAX_SENTENCES;
use crate::pref::{
    HistoryEntry, Maintenance, Millis, Operation, Preference, PreferenceId, Status, UserId,
};
use crate::schema::{Cardinality, Schema};
use crate::store::Change;

/// Whose store, and when: what every lifecycle step needs besides its own inputs.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    pub schema: &'a Schema,
    pub user: &'a UserId,
    /// When the words were said (or the operation happened): a preference's `updated`.
    pub now: Millis,
    /// Glovebox's clock at this write: a written preference's `last_written`.
    pub wrote: Millis,
}

/// What one lifecycle step does: the changes to apply in one transaction, and what the index
/// must follow.
#[derive(Debug, Clone)]
pub struct Step {
    pub changes: Vec<Change>,
    /// The preference written (to be embedded into the index).
    pub written: Preference,
    /// The stored preference the step acted on (passed, updated or confirmed), if any.
    pub before: Option<Preference>,
    /// Preferences that leave the store (and the index); `before` is among them when it was
    /// rewritten or replaced.
    pub removed: Vec<Preference>,
}

/// The changes of maintenance decision `op` on the incoming extraction, given the user's
/// `stored` preferences in its category. `new_id` is the id allocated for the new preference;
/// every decision but a pass needs one.
///
/// # Panics
/// When `op` names a preference not in `stored`, or `new_id` is missing where it is needed.
pub fn maintenance(
    cx: Context,
    op: Maintenance,
    stored: &[Preference],
    incoming: &Extracted,
    confirm_below: f32,
    new_id: Option<PreferenceId>,
) -> Step {
    let unsure = incoming.confidence < confirm_below;
    let uncertain = unsure || incoming.one_off;
    let find = |id: PreferenceId| stored.iter().find(|p| p.id == id).cloned();
    let stored_one = |id| find(id).expect("maintenance ids are among the stored");
    let new_id = || new_id.expect("an id is allocated for every decision but a pass");
    match op {
        Maintenance::New | Maintenance::Append => {
            let status = if uncertain {
                Status::Pending
            } else {
                Status::Active
            };
            let p = fresh(cx, incoming, new_id(), status, None);
            Step {
                changes: vec![
                    Change::Put(p.clone()),
                    history(cx, incoming, Operation::Append, None, &p),
                ],
                written: p,
                before: None,
                removed: Vec::new(),
            }
        }
        Maintenance::Pass(id) => {
            let before = stored_one(id);
            // A one-off request said again later confirms what the first one left pending.
            let confirms = !unsure && (!incoming.one_off || cx.now > before.updated);
            pass(cx, before, stored, incoming, confirms)
        }
        Maintenance::Update(id) => {
            let before = stored_one(id);
            update(cx, before, stored, incoming, uncertain, new_id())
        }
    }
}

/// A pass: the stored preference gains the sentence as evidence; a pending one is confirmed
/// when the incoming extraction `confirms` it.
fn pass(
    cx: Context,
    before: Preference,
    stored: &[Preference],
    incoming: &Extracted,
    confirms: bool,
) -> Step {
    let mut p = before.clone();
    if !p.sentences.contains(&incoming.sentence) {
        p.sentences.push(incoming.sentence.clone());
        if p.sentences.len() > MAX_SENTENCES {
            p.sentences.remove(0);
        }
    }
    p.updated = cx.now;
    p.last_written = cx.wrote;
    p.confidence = p.confidence.max(incoming.confidence);
    let mut changes = Vec::new();
    let mut removed = vec![before.clone()];
    if before.status == Status::Pending && confirms {
        p.status = Status::Active;
        p.replaces = None;
        let replaced = replaced_on_confirm(cx.schema, &before, stored);
        changes.extend(replace_changes(cx, &replaced, &p));
        removed.extend(replaced);
    }
    changes.insert(0, Change::Put(p.clone()));
    changes.insert(1, history(cx, incoming, Operation::Pass, Some(&before), &p));
    Step {
        changes,
        written: p,
        before: Some(before),
        removed,
    }
}

/// An update: the new value under a new id, beside `before` (pending) or in its place.
fn update(
    cx: Context,
    before: Preference,
    stored: &[Preference],
    incoming: &Extracted,
    uncertain: bool,
    id: PreferenceId,
) -> Step {
    let new = |status, replaces| fresh(cx, incoming, id, status, replaces);
    let (p, removed) = match (before.status, uncertain) {
        // Uncertain news never displaces a confirmed value: wait beside it.
        (Status::Active, true) => (new(Status::Pending, Some(before.id)), vec![]),
        (Status::Active, false) => (new(Status::Active, None), vec![before.clone()]),
        (Status::Pending, true) => (new(Status::Pending, before.replaces), vec![before.clone()]),
        (Status::Pending, false) => {
            let mut removed = vec![before.clone()];
            removed.extend(
                before
                    .replaces
                    .and_then(|r| stored.iter().find(|p| p.id == r).cloned())
                    .filter(|r| r.status == Status::Active),
            );
            (new(Status::Active, None), removed)
        }
    };
    let mut changes: Vec<Change> = removed.iter().map(|r| Change::Delete(r.id)).collect();
    changes.push(Change::Put(p.clone()));
    changes.push(history(cx, incoming, Operation::Update, Some(&before), &p));
    for r in removed.iter().filter(|r| r.id != before.id) {
        changes.push(history(cx, incoming, Operation::Update, Some(r), &p));
    }
    Step {
        changes,
        written: p,
        before: Some(before),
        removed,
    }
}

/// The user confirms `pending`: it becomes active and replaces what its uncertain update was
/// to replace (every other preference of a single-value category).
pub fn confirmation(cx: Context, pending: Preference, stored: &[Preference]) -> Step {
    let mut after = pending.clone();
    after.status = Status::Active;
    after.replaces = None;
    after.updated = cx.now;
    after.last_written = cx.wrote;
    let replaced = replaced_on_confirm(cx.schema, &pending, stored);
    let mut changes = vec![
        Change::Put(after.clone()),
        Change::History(
            cx.user.clone(),
            HistoryEntry {
                time: cx.now,
                op: Operation::Confirm,
                category: cx.schema.detail(pending.detail).key.clone(),
                before: Some(pending.clone()),
                after: Some(after.clone()),
                sentence: None,
            },
        ),
    ];
    changes.extend(replace_changes(cx, &replaced, &after));
    let mut removed = vec![pending.clone()];
    removed.extend(replaced);
    Step {
        changes,
        written: after,
        before: Some(pending),
        removed,
    }
}

/// Deleting preferences (forget, reject, expire): they go, their earlier history entries are
/// scrubbed, and only "`op` happened in category C" is recorded, so what was deleted leaves
/// no trace.
pub fn deletion(cx: Context, prefs: &[Preference], op: Operation) -> Vec<Change> {
    let mut changes = vec![Change::ScrubHistory(
        cx.user.clone(),
        prefs.iter().map(|p| p.id).collect(),
    )];
    for p in prefs {
        changes.push(Change::Delete(p.id));
        changes.push(Change::History(
            cx.user.clone(),
            HistoryEntry {
                time: cx.now,
                op,
                category: cx.schema.detail(p.detail).key.clone(),
                before: None,
                after: None,
                sentence: None,
            },
        ));
    }
    changes
}

/// A new preference holding the incoming extraction.
fn fresh(
    cx: Context,
    incoming: &Extracted,
    id: PreferenceId,
    status: Status,
    replaces: Option<PreferenceId>,
) -> Preference {
    Preference {
        id,
        user: cx.user.clone(),
        detail: incoming.detail,
        attribute: incoming.attribute.clone(),
        sentences: vec![incoming.sentence.clone()],
        status,
        confidence: incoming.confidence,
        created: cx.now,
        updated: cx.now,
        last_recalled: None,
        replaces,
        condition: incoming.condition.clone(),
        last_written: cx.wrote,
    }
}

/// The history entry of a maintenance operation, with the incoming sentence.
fn history(
    cx: Context,
    incoming: &Extracted,
    op: Operation,
    before: Option<&Preference>,
    after: &Preference,
) -> Change {
    Change::History(
        cx.user.clone(),
        HistoryEntry {
            time: cx.now,
            op,
            category: cx.schema.detail(incoming.detail).key.clone(),
            before: before.cloned(),
            after: Some(after.clone()),
            sentence: Some(incoming.sentence.clone()),
        },
    )
}

/// The preferences that confirming `pending` replaces: in a single-value category every other
/// preference of the category (they contradict the confirmed value); in a multi-value category
/// the one its uncertain update named, if it is still stored.
fn replaced_on_confirm(
    schema: &Schema,
    pending: &Preference,
    stored: &[Preference],
) -> Vec<Preference> {
    let single = schema.detail(pending.detail).cardinality == Cardinality::Single;
    stored
        .iter()
        .filter(|p| p.id != pending.id && (single || Some(p.id) == pending.replaces))
        .cloned()
        .collect()
}

/// Deletes `replaced`, recording each as updated to `by`.
fn replace_changes(cx: Context, replaced: &[Preference], by: &Preference) -> Vec<Change> {
    let mut changes = Vec::new();
    for r in replaced {
        changes.push(Change::Delete(r.id));
        changes.push(Change::History(
            cx.user.clone(),
            HistoryEntry {
                time: cx.now,
                op: Operation::Update,
                category: cx.schema.detail(r.detail).key.clone(),
                before: Some(r.clone()),
                after: Some(by.clone()),
                sentence: None,
            },
        ));
    }
    changes
}

#[cfg(test)]
mod tests;
