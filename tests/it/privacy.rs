//! Issue 6: opt-out, export → forget → import, compaction leaving nothing forgotten on disk,
//! and isolation between users.

use glovebox::memory::{ForgetWhat, Memory, NewPreference};
use glovebox::ops::{self, OpError, Reply, Request};
use glovebox::pref::UserId;
use serde_json::Value;
use tempfile::tempdir;

use crate::common::{open, user};
/// The export document, as `export` answers it.
fn export(m: &Memory, who: &UserId) -> Result<Value, OpError> {
    match ops::execute(m, Request::Export { user: who.clone() })? {
        Reply::Exported(doc) => Ok(doc),
        other => panic!("export answered {other:?}"),
    }
}

/// How many preferences `import` stored.
fn import(m: &Memory, who: &UserId, doc: &Value) -> Result<usize, OpError> {
    let request = Request::Import {
        user: who.clone(),
        document: doc.clone(),
    };
    match ops::execute(m, request)? {
        Reply::Imported { imported } => Ok(imported),
        other => panic!("import answered {other:?}"),
    }
}

fn music_conversation() -> glovebox::conversation::Conversation {
    let p =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/conversations/music.json");
    glovebox::conversation::Conversation::from_json(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn with_music_opted_out_nothing_musical_is_stored_or_recalled() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let s = m.schema().clone();
    let music = s.resolve("Music").unwrap();
    let glovebox::schema::CategoryRef::Sub(music_sub) = music else {
        panic!("Music is a subcategory");
    };
    let is_music = |p: &glovebox::pref::Preference| s.detail(p.detail).sub == music_sub;
    let (ann, bob) = (user("ann"), user("bob"));
    let asks = [
        "play some music",
        "put on my favourite genre",
        "something to calm me down",
    ];

    // Allowed, the conversation yields a music preference (so the opt-out below is what stops it).
    let stored = m.remember(&bob, &music_conversation()).unwrap();
    assert!(stored.iter().any(|o| is_music(&o.preference)), "{stored:?}");

    // Opted out first: nothing is stored, and recall returns no music (only what else there is).
    seed_temperature(&m, "ann");
    m.opt_out(&ann, music).unwrap();
    assert!(m.remember(&ann, &music_conversation()).unwrap().is_empty());
    assert!(!m.list(&ann).unwrap().iter().any(is_music));
    for q in asks {
        // Only the temperature is stored, and it is no answer to a music request: recall's
        // relevance gate may return nothing; it never returns music.
        let hits = m.recall(&ann, q, 10).unwrap();
        assert!(hits.len() <= 1, "{hits:?}");
        assert!(!hits.iter().any(|h| is_music(&h.preference)));
    }

    // Opting out later deletes what is stored, says how many, and recall never returns it.
    let had = m.list(&bob).unwrap().iter().filter(|p| is_music(p)).count();
    assert!(had >= 1);
    assert_eq!(m.opt_out(&bob, music).unwrap().len(), had);
    assert!(!m.list(&bob).unwrap().iter().any(is_music));
    for q in asks {
        assert!(m.recall(&bob, q, 10).unwrap().is_empty());
    }
    assert!(m.remember(&bob, &music_conversation()).unwrap().is_empty());
}

fn seed_temperature(m: &glovebox::memory::Memory, who: &str) {
    m.import(
        &user(who),
        vec![NewPreference {
            detail: m.schema().detail_by_key("preferred_temperature").unwrap(),
            attribute: "22 degree Celcius".into(),
            sentences: vec!["Keep the cabin at 22 degrees, always.".into()],
            condition: None,
        }],
    )
    .unwrap();
}

const SECRET: &str = "Zanzibar Quokka Jazz";

fn seed(m: &glovebox::memory::Memory, who: &str, attribute: &str) {
    let s = m.schema().clone();
    m.import(
        &user(who),
        vec![
            NewPreference {
                detail: s.detail_by_key("favorite_genres").unwrap(),
                attribute: attribute.into(),
                sentences: vec![format!("I could listen to {attribute} all day.")],
                condition: None,
            },
            NewPreference {
                detail: s.detail_by_key("preferred_temperature").unwrap(),
                attribute: "22 degree Celcius".into(),
                sentences: vec!["Keep the cabin at 22 degrees, always.".into()],
                condition: None,
            },
        ],
    )
    .unwrap();
}

fn summary(m: &glovebox::memory::Memory, who: &str) -> Vec<(String, String, Vec<String>)> {
    let mut v: Vec<_> = m
        .list(&user(who))
        .unwrap()
        .into_iter()
        .map(|p| {
            (
                m.schema().detail(p.detail).key.clone(),
                p.attribute,
                p.sentences,
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn export_forget_import_gives_back_the_same_memory() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let ann = user("ann");
    seed(&m, "ann", "Jazz");
    let music = m.schema().resolve("Radio and Podcasts").unwrap();
    m.opt_out(&ann, music).unwrap();
    let before = summary(&m, "ann");
    let recall_before: Vec<String> = m
        .recall(&ann, "play some music", 2)
        .unwrap()
        .iter()
        .map(|r| r.preference.attribute.clone())
        .collect();
    let doc = export(&m, &ann).unwrap();
    assert_eq!(doc["format"], "glovebox-export");
    assert_eq!(doc["optouts"][0]["key"], "radio_and_podcasts");
    m.forget(&ann, ForgetWhat::All).unwrap();
    assert!(m.list(&ann).unwrap().is_empty());
    assert!(m.optouts(&ann).unwrap().is_empty());
    assert_eq!(import(&m, &ann, &doc).unwrap(), 2);
    assert_eq!(summary(&m, "ann"), before);
    assert_eq!(m.optouts(&ann).unwrap(), vec![music]);
    let recall_after: Vec<String> = m
        .recall(&ann, "play some music", 2)
        .unwrap()
        .iter()
        .map(|r| r.preference.attribute.clone())
        .collect();
    assert_eq!(recall_after, recall_before);

    let mut bad = doc.clone();
    bad["preferences"][0]["category_key"] = "horoscope".into();
    let e = import(&m, &ann, &bad).unwrap_err().to_string();
    assert!(e.contains("unknown category key \"horoscope\""), "{e}");
    assert_eq!(
        summary(&m, "ann"),
        before,
        "a rejected import stores nothing"
    );

    // Pending preferences stay pending through export and import; an opted-out category refuses.
    let bob = user("bob");
    let mut doc = doc;
    doc["preferences"][0]["status"] = "pending".into();
    doc["preferences"][0]["confidence"] = 0.25.into();
    doc["optouts"] = serde_json::json!([]);
    assert_eq!(import(&m, &bob, &doc).unwrap(), 2);
    let pending: Vec<_> = m
        .list(&bob)
        .unwrap()
        .into_iter()
        .filter(|p| p.status == glovebox::pref::Status::Pending)
        .collect();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].confidence, 0.25);
    let climate = m.schema().resolve("Climate Control").unwrap();
    let carl = user("carl");
    m.opt_out(&carl, climate).unwrap();
    let e = import(&m, &carl, &doc).unwrap_err().to_string();
    assert!(e.contains("opted out"), "{e}");
    assert!(m.list(&carl).unwrap().is_empty());
}

#[test]
fn after_forget_and_compact_nothing_of_the_user_is_on_disk() {
    let dir = tempdir().unwrap();
    let mut m = open(dir.path());
    seed(&m, "ann", SECRET);
    seed(&m, "bob", "Rock");
    m.forget(&user("ann"), ForgetWhat::All).unwrap();
    m.compact().unwrap();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let p = entry.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        assert!(
            !bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
            "{} still holds a forgotten attribute",
            p.display()
        );
    }
    assert_eq!(summary(&m, "bob").len(), 2);
    assert_eq!(m.index_len(), 2);
    let hits = m.recall(&user("bob"), "play some rock", 1).unwrap();
    assert_eq!(hits[0].preference.attribute, "Rock");
}

#[test]
fn forgetting_one_preference_leaves_no_trace_in_history() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    seed(&m, "ann", SECRET);
    let genres = m.schema().resolve("favorite_genres").unwrap();
    assert_eq!(
        m.forget(&user("ann"), ForgetWhat::Category(genres))
            .unwrap()
            .len(),
        1
    );
    let h = m.history(&user("ann")).unwrap();
    assert!(h.iter().any(|e| e.op == glovebox::pref::Operation::Forget));
    let text = format!("{h:?}");
    assert!(!text.contains(SECRET), "{text}");
    assert!(
        text.contains("22 degree Celcius"),
        "the other preference's history stays"
    );
}

#[test]
fn users_never_see_each_other() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    seed(&m, "ann", "Jazz");
    seed(&m, "bob", "Rock");
    for (who, mine, theirs) in [("ann", "Jazz", "Rock"), ("bob", "Rock", "Jazz")] {
        let hits = m.recall(&user(who), "play music", 10).unwrap();
        assert!(!hits.is_empty());
        assert!(hits.iter().all(|h| h.preference.user == user(who)));
        assert!(hits.iter().any(|h| h.preference.attribute == mine));
        assert!(!summary(&m, who).iter().any(|(_, a, _)| a == theirs));
        let doc = export(&m, &user(who)).unwrap().to_string();
        assert!(doc.contains(mine) && !doc.contains(theirs));
    }
}
