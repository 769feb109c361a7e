//! Unit tests of the store: round trips, isolation, id allocation, refusal of foreign files.

use super::*;
use crate::pref::Operation;

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
        condition: None,
        last_written: Millis(2),
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

#[test]
fn records_written_before_last_written_load_with_their_updated_time() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(dir.path());
    let old = br#"{"id":7,"user":"ann","detail":"favorite_genres","attribute":"Jazz",
        "sentences":["I like jazz."],"pending":false,"confidence":0.9,"created":1,"updated":5,
        "last_recalled":null}"#;
    let p = s.decode_bytes(old).unwrap();
    assert_eq!((p.updated, p.last_written), (Millis(5), Millis(5)));
    // Written now, the field is kept apart from `updated`.
    let mut q = pref(8, "ann", "favorite_genres", "Rock");
    q.last_written = Millis(9);
    let bytes = serde_json::to_vec(&s.encode(&q)).unwrap();
    assert_eq!(s.decode_bytes(&bytes).unwrap(), q);
}
