//! Issue 15 (6d): export → import. At the format layer (no model, many cases): any export of
//! the real schema's categories reads back through `import_document` as the same preferences
//! and opt-outs. Through the real memory (redb and the index in temp dirs, the real embedder,
//! a few cases): a store built by imports, opt-outs, opt-ins, forgets, confirms and rejects,
//! exported and imported into a fresh data directory, lists and exports the same.

use std::sync::{Arc, OnceLock};

use glovebox::config::Config;
use glovebox::memory::export::Export;
use glovebox::memory::{Memory, Models, NewPreference};
use glovebox::ops::{self, wire, ForgetSpec, Reply, Request};
use glovebox::pref::{HistoryEntry, Millis, Operation, Preference, PreferenceId, Status, UserId};
use glovebox::schema::{CategoryRef, Schema};
use proptest::prelude::*;
use serde_json::Value;

use crate::strategies::{text, user};

fn schema() -> &'static Schema {
    static S: OnceLock<Schema> = OnceLock::new();
    S.get_or_init(Schema::embedded)
}

/// A value: one of the category's known values, or words of the user's (never blank).
fn attribute() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Za-z0-9][A-Za-z0-9 '&.-]{0,20}",
        "not [A-Za-z]{1,10}",
        "[^\\p{Cc}\\s][^\\p{Cc}]{0,12}",
    ]
}

/// Preference content: detail (index into the schema), value, evidence, status, confidence.
#[derive(Debug, Clone)]
struct Content {
    detail: usize,
    attribute: String,
    sentences: Vec<String>,
    pending: bool,
    confidence: f32,
}

fn content() -> impl Strategy<Value = Content> {
    let n = schema().details().len();
    (
        0..n,
        attribute(),
        prop::collection::vec(text(), 0..3),
        any::<bool>(),
        prop_oneof![Just(1.0f32), Just(0.0f32), 0.0f32..=1.0],
    )
        .prop_map(
            |(detail, attribute, sentences, pending, confidence)| Content {
                detail,
                attribute,
                sentences,
                pending,
                confidence,
            },
        )
}

/// Any sub or detail category of the real schema (what an opt-out names).
fn category() -> impl Strategy<Value = CategoryRef> {
    let s = schema();
    prop_oneof![
        (0..s.subs().len()).prop_map(|i| CategoryRef::Sub(schema().subs()[i].id)),
        (0..s.details().len()).prop_map(|i| CategoryRef::Detail(schema().details()[i].id)),
    ]
}

fn preference(user: &UserId, id: u64, c: &Content, times: (u64, u64, Option<u64>)) -> Preference {
    Preference {
        id: PreferenceId(id),
        user: user.clone(),
        detail: schema().details()[c.detail].id,
        attribute: c.attribute.clone(),
        sentences: c.sentences.clone(),
        status: if c.pending {
            Status::Pending
        } else {
            Status::Active
        },
        confidence: c.confidence,
        created: Millis(times.0),
        updated: Millis(times.1),
        last_recalled: times.2.map(Millis),
        replaces: None,
        condition: None,
        last_written: Millis(times.1),
    }
}

fn history_entry() -> impl Strategy<Value = HistoryEntry> {
    let ops = Operation::ALL.to_vec();
    (
        prop::sample::select(ops),
        any::<u64>(),
        prop::option::of(content()),
        prop::option::of(content()),
        prop::option::of(text()),
    )
        .prop_map(|(op, time, before, after, sentence)| {
            let u = UserId::new("h").unwrap();
            let category = before
                .as_ref()
                .or(after.as_ref())
                .map_or("music".to_string(), |c| {
                    schema().details()[c.detail].key.clone()
                });
            HistoryEntry {
                time: Millis(time),
                op,
                category,
                before: before.map(|c| preference(&u, 1, &c, (time, time, None))),
                after: after.map(|c| preference(&u, 2, &c, (time, time, None))),
                sentence,
            }
        })
}

fn export() -> impl Strategy<Value = Export> {
    (
        user(),
        any::<u64>(),
        prop::collection::vec(
            (
                content(),
                any::<u64>(),
                any::<u64>(),
                any::<(u64, Option<u64>)>(),
            ),
            0..8,
        ),
        prop::collection::vec(history_entry(), 0..6),
        prop::collection::vec(category(), 0..4),
    )
        .prop_map(|(user, exported, prefs, history, optouts)| Export {
            preferences: prefs
                .iter()
                .map(|(c, id, created, (updated, recalled))| {
                    preference(&user, *id, c, (*created, *updated, *recalled))
                })
                .collect(),
            user,
            exported: Millis(exported),
            history,
            optouts,
        })
}

/// A preference's content as an import keeps it: everything but ids, times and `replaces`.
fn kept(p: &Preference) -> (String, String, Vec<String>, Status, f32) {
    let key = schema().detail(p.detail).key.clone();
    (
        key,
        p.attribute.clone(),
        p.sentences.clone(),
        p.status,
        p.confidence,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn export_documents_read_back_as_the_same_preferences_and_optouts(e in export()) {
        let s = schema();
        let text = wire::export_document(s, &e).to_string();
        let doc: Value = serde_json::from_str(&text).unwrap();
        let back = wire::import_document(s, &doc);
        prop_assert!(back.is_ok(), "{:?}", back.err());
        let back = back.unwrap();
        let got: Vec<_> = back
            .preferences
            .iter()
            .map(|(n, status, confidence)| {
                (s.detail(n.detail).key.clone(), n.attribute.clone(), n.sentences.clone(), *status, *confidence)
            })
            .collect();
        prop_assert_eq!(got, e.preferences.iter().map(kept).collect::<Vec<_>>());
        prop_assert_eq!(back.optouts, e.optouts);
        // The history is in the document as it was recorded.
        let h = doc["history"].as_array().unwrap();
        prop_assert_eq!(h.len(), e.history.len());
        for (w, entry) in h.iter().zip(&e.history) {
            prop_assert_eq!(Operation::parse(w["operation"].as_str().unwrap()), Some(entry.op));
            prop_assert_eq!(w["category"].as_str(), Some(entry.category.as_str()));
            prop_assert_eq!(w["sentence"].as_str(), entry.sentence.as_deref());
        }
    }
}

// ---- through the real memory ----

fn models() -> Arc<Models> {
    static M: OnceLock<Arc<Models>> = OnceLock::new();
    M.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
        assert!(
            dir.join("minilm/model.safetensors").is_file(),
            "the embedder is missing: run `models/fetch` first"
        );
        let mut cfg = Config::default();
        cfg.models.dir = dir;
        Models::load(&cfg).expect("models load")
    })
    .clone()
}

/// One step of building a user's memory.
#[derive(Debug, Clone)]
enum Step {
    Import(Vec<Content>),
    OptOut(CategoryRef),
    OptIn(CategoryRef),
    Forget(prop::sample::Index),
    Confirm(prop::sample::Index),
    Reject(prop::sample::Index),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => prop::collection::vec(content(), 1..4).prop_map(Step::Import),
        1 => category().prop_map(Step::OptOut),
        1 => category().prop_map(Step::OptIn),
        1 => any::<prop::sample::Index>().prop_map(Step::Forget),
        1 => any::<prop::sample::Index>().prop_map(Step::Confirm),
        1 => any::<prop::sample::Index>().prop_map(Step::Reject),
    ]
}

fn run(m: &Memory, r: Request) -> Result<Value, glovebox::ops::OpError> {
    ops::execute(m, r).map(|reply: Reply| reply.to_json())
}

/// Applies a step through the same operations the socket runs (imports of what the user has
/// not opted out of, as a real memory would hold).
fn apply(m: &Memory, user: &UserId, step: &Step) {
    let s = schema();
    let nth = |at: &prop::sample::Index| {
        let list = m.list(user).unwrap();
        (!list.is_empty()).then(|| list[at.index(list.len())].id.0)
    };
    let key = |r: &CategoryRef| s.ref_key(*r).to_string();
    match step {
        Step::Import(cs) => {
            let allowed = m.allowed(user).unwrap();
            let prefs: Vec<_> = cs
                .iter()
                .filter(|c| allowed.contains(s.details()[c.detail].id))
                .map(|c| {
                    let p = preference(user, 0, c, (0, 0, None));
                    let new = NewPreference {
                        detail: p.detail,
                        attribute: p.attribute,
                        sentences: p.sentences,
                        condition: None,
                    };
                    (new, p.status, p.confidence)
                })
                .collect();
            m.import_as(user, prefs).unwrap();
        }
        Step::OptOut(r) => {
            run(
                m,
                Request::OptOut {
                    user: user.clone(),
                    category: key(r),
                },
            )
            .unwrap();
        }
        Step::OptIn(r) => {
            run(
                m,
                Request::OptIn {
                    user: user.clone(),
                    category: key(r),
                },
            )
            .unwrap();
        }
        Step::Forget(at) => {
            if let Some(id) = nth(at) {
                run(
                    m,
                    Request::Forget {
                        user: user.clone(),
                        what: ForgetSpec::Id(id),
                    },
                )
                .unwrap();
            }
        }
        // Confirming or rejecting an active preference is refused (not_pending); either is fine.
        Step::Confirm(at) => {
            if let Some(id) = nth(at) {
                let _ = run(
                    m,
                    Request::Confirm {
                        user: user.clone(),
                        preference: id,
                    },
                );
            }
        }
        Step::Reject(at) => {
            if let Some(id) = nth(at) {
                let _ = run(
                    m,
                    Request::Reject {
                        user: user.clone(),
                        preference: id,
                    },
                );
            }
        }
    }
}

/// A document or listing without what an import renews: ids, times, `replaces_id`, the
/// export's own time and user.
fn renewable(mut v: Value) -> Value {
    for k in ["exported_ms", "user", "history"] {
        v.as_object_mut().unwrap().remove(k);
    }
    for p in v["preferences"].as_array_mut().unwrap() {
        for k in [
            "id",
            "created_ms",
            "updated_ms",
            "last_recalled_ms",
            "replaces_id",
        ] {
            p.as_object_mut().unwrap().remove(k);
        }
    }
    v
}

proptest! {
    // Each case opens two real data directories and embeds every imported preference.
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn export_then_import_into_a_fresh_memory_lists_and_exports_the_same(
        steps in prop::collection::vec((any::<bool>(), step()), 1..10),
        other in user(),
        to in user(),
    ) {
        let ann = UserId::new("ann").unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let source = Memory::open_with(&tmp.path().join("a"), models()).unwrap();
        for (mine, step) in &steps {
            apply(&source, if *mine { &ann } else { &other }, step);
        }
        let doc = run(&source, Request::Export { user: ann.clone() }).unwrap();
        let listed = run(&source, Request::List { user: ann.clone() }).unwrap();

        let fresh = Memory::open_with(&tmp.path().join("b"), models()).unwrap();
        let n = run(&fresh, Request::Import { user: to.clone(), document: doc.clone() });
        prop_assert!(n.is_ok(), "import refused its own export: {:?}\n{doc:#}", n.err());
        prop_assert_eq!(&n.unwrap()["imported"], &Value::from(listed["preferences"].as_array().unwrap().len()));

        let again = run(&fresh, Request::Export { user: to.clone() }).unwrap();
        prop_assert_eq!(renewable(again.clone()), renewable(doc.clone()));
        let relisted = run(&fresh, Request::List { user: to.clone() }).unwrap();
        prop_assert_eq!(renewable(relisted), renewable(listed));
        // The import is recorded, one entry per preference; the index holds every one of them.
        let ops: Vec<&str> = again["history"].as_array().unwrap().iter().map(|h| h["operation"].as_str().unwrap()).collect();
        let optouts = doc["optouts"].as_array().unwrap().len();
        let imported = doc["preferences"].as_array().unwrap().len();
        prop_assert_eq!(ops.iter().filter(|o| **o == "import").count(), imported);
        prop_assert_eq!(ops.iter().filter(|o| **o == "optout").count(), optouts);
        prop_assert_eq!(fresh.index_len(), imported);
    }
}
