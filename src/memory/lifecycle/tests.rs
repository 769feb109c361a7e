//! The lifecycle's rules without a model or a store: pending on uncertain news, confirmation by
//! a certain repetition, uncertain updates waiting beside the active value, and deletions that
//! leave no trace.

use super::*;

const BELOW: f32 = 0.5;

fn schema() -> Schema {
    Schema::embedded()
}

fn user() -> UserId {
    UserId::new("u").unwrap()
}

fn cx<'a>(schema: &'a Schema, user: &'a UserId) -> Context<'a> {
    Context {
        schema,
        user,
        now: Millis(1_000),
        wrote: Millis(1_000),
    }
}

fn stored(s: &Schema, key: &str, id: u64, attribute: &str, status: Status) -> Preference {
    Preference {
        id: PreferenceId(id),
        user: user(),
        detail: s.detail_by_key(key).unwrap(),
        attribute: attribute.into(),
        sentences: vec![format!("I like {attribute}.")],
        status,
        confidence: 0.9,
        created: Millis(0),
        updated: Millis(0),
        last_recalled: None,
        replaces: None,
        condition: None,
        last_written: Millis(0),
    }
}

fn incoming(s: &Schema, key: &str, attribute: &str, confidence: f32) -> Extracted {
    Extracted {
        detail: s.detail_by_key(key).unwrap(),
        attribute: attribute.into(),
        sentence: format!("Play {attribute} now."),
        confidence,
        condition: None,
        one_off: false,
    }
}

fn deleted(step: &Step) -> Vec<u64> {
    step.changes
        .iter()
        .filter_map(|c| match c {
            Change::Delete(id) => Some(id.0),
            _ => None,
        })
        .collect()
}

fn ops(changes: &[Change]) -> Vec<Operation> {
    changes
        .iter()
        .filter_map(|c| match c {
            Change::History(_, h) => Some(h.op),
            _ => None,
        })
        .collect()
}

#[test]
fn new_and_appended_values_are_pending_when_uncertain() {
    let (s, u) = (schema(), user());
    let x = incoming(&s, "favorite_genres", "Jazz", 0.2);
    for op in [Maintenance::New, Maintenance::Append] {
        let step = maintenance(cx(&s, &u), op, &[], &x, BELOW, Some(PreferenceId(7)));
        assert_eq!(step.written.status, Status::Pending);
        assert_eq!(step.written.id, PreferenceId(7));
        assert!(step.removed.is_empty() && step.before.is_none());
        assert_eq!(ops(&step.changes), vec![Operation::Append]);
    }
    let sure = incoming(&s, "favorite_genres", "Jazz", 0.9);
    let step = maintenance(
        cx(&s, &u),
        Maintenance::New,
        &[],
        &sure,
        BELOW,
        Some(PreferenceId(7)),
    );
    assert_eq!(step.written.status, Status::Active);
}

#[test]
fn a_certain_pass_confirms_a_pending_preference_and_an_uncertain_one_does_not() {
    let (s, u) = (schema(), user());
    let pending = stored(&s, "favorite_genres", 3, "Jazz", Status::Pending);
    let st = [pending.clone()];
    let op = Maintenance::Pass(PreferenceId(3));
    let unsure = incoming(&s, "favorite_genres", "Jazz", 0.2);
    let step = maintenance(cx(&s, &u), op, &st, &unsure, BELOW, None);
    assert_eq!(step.written.status, Status::Pending);
    assert_eq!(step.written.id, PreferenceId(3));
    assert_eq!(step.written.sentences.len(), 2);
    assert_eq!(step.written.updated, Millis(1_000));
    let sure = incoming(&s, "favorite_genres", "Jazz", 0.95);
    let step = maintenance(cx(&s, &u), op, &st, &sure, BELOW, None);
    assert_eq!(step.written.status, Status::Active);
    assert_eq!(step.written.confidence, 0.95);
    assert_eq!(ops(&step.changes), vec![Operation::Pass]);
}

#[test]
fn a_pass_keeps_at_most_the_newest_sentences() {
    let (s, u) = (schema(), user());
    let mut p = stored(&s, "favorite_genres", 3, "Jazz", Status::Active);
    p.sentences = (0..MAX_SENTENCES).map(|i| format!("s{i}")).collect();
    let x = incoming(&s, "favorite_genres", "Jazz", 0.9);
    let step = maintenance(cx(&s, &u), Maintenance::Pass(p.id), &[p], &x, BELOW, None);
    assert_eq!(step.written.sentences.len(), MAX_SENTENCES);
    assert_eq!(step.written.sentences[0], "s1");
    assert_eq!(step.written.sentences.last(), Some(&x.sentence));
}

#[test]
fn an_uncertain_update_of_an_active_value_waits_beside_it() {
    let (s, u) = (schema(), user());
    let active = stored(
        &s,
        "preferred_temperature",
        3,
        "21 degree Celcius",
        Status::Active,
    );
    let st = [active.clone()];
    let x = incoming(&s, "preferred_temperature", "25 degree Celcius", 0.2);
    let op = Maintenance::Update(active.id);
    let step = maintenance(cx(&s, &u), op, &st, &x, BELOW, Some(PreferenceId(9)));
    assert_eq!(step.written.status, Status::Pending);
    assert_eq!(step.written.replaces, Some(PreferenceId(3)));
    assert!(step.removed.is_empty() && deleted(&step).is_empty());
    // A certain update replaces it at once.
    let x = incoming(&s, "preferred_temperature", "25 degree Celcius", 0.9);
    let step = maintenance(cx(&s, &u), op, &st, &x, BELOW, Some(PreferenceId(9)));
    assert_eq!(step.written.status, Status::Active);
    assert_eq!(deleted(&step), vec![3]);
}

#[test]
fn a_certain_update_of_a_pending_value_also_replaces_what_it_waited_beside() {
    let (s, u) = (schema(), user());
    let active = stored(
        &s,
        "preferred_temperature",
        3,
        "21 degree Celcius",
        Status::Active,
    );
    let mut pending = stored(
        &s,
        "preferred_temperature",
        5,
        "25 degree Celcius",
        Status::Pending,
    );
    pending.replaces = Some(active.id);
    let st = [active, pending.clone()];
    let op = Maintenance::Update(pending.id);
    let unsure = incoming(&s, "preferred_temperature", "23 degree Celcius", 0.2);
    let step = maintenance(cx(&s, &u), op, &st, &unsure, BELOW, Some(PreferenceId(9)));
    assert_eq!(step.written.status, Status::Pending);
    assert_eq!(step.written.replaces, Some(PreferenceId(3)));
    assert_eq!(deleted(&step), vec![5]);
    let sure = incoming(&s, "preferred_temperature", "23 degree Celcius", 0.9);
    let step = maintenance(cx(&s, &u), op, &st, &sure, BELOW, Some(PreferenceId(9)));
    assert_eq!(step.written.status, Status::Active);
    assert_eq!(step.written.replaces, None);
    assert_eq!(deleted(&step), vec![5, 3]);
    assert_eq!(
        ops(&step.changes),
        vec![Operation::Update, Operation::Update]
    );
}

#[test]
fn confirming_replaces_the_rest_of_a_single_value_category_only() {
    let (s, u) = (schema(), user());
    let active = stored(
        &s,
        "preferred_temperature",
        3,
        "21 degree Celcius",
        Status::Active,
    );
    let mut pending = stored(
        &s,
        "preferred_temperature",
        5,
        "25 degree Celcius",
        Status::Pending,
    );
    pending.replaces = Some(active.id);
    let step = confirmation(cx(&s, &u), pending.clone(), &[active, pending]);
    assert_eq!(step.written.status, Status::Active);
    assert_eq!(step.written.replaces, None);
    assert_eq!(deleted(&step), vec![3]);
    assert_eq!(
        ops(&step.changes),
        vec![Operation::Confirm, Operation::Update]
    );
    // In a multi-value category, only what it was to replace goes.
    let rock = stored(&s, "favorite_genres", 3, "Rock", Status::Active);
    let jazz = stored(&s, "favorite_genres", 4, "Jazz", Status::Active);
    let pop = stored(&s, "favorite_genres", 5, "Pop", Status::Pending);
    let step = confirmation(cx(&s, &u), pop.clone(), &[rock, jazz, pop]);
    assert!(deleted(&step).is_empty());
}

#[test]
fn deletions_scrub_history_and_record_only_the_category() {
    let (s, u) = (schema(), user());
    let p = stored(&s, "favorite_genres", 3, "Jazz", Status::Active);
    for op in [Operation::Forget, Operation::Reject, Operation::Expire] {
        let changes = deletion(cx(&s, &u), std::slice::from_ref(&p), op);
        assert!(matches!(&changes[0], Change::ScrubHistory(_, ids) if ids == &vec![p.id]));
        assert!(matches!(changes[1], Change::Delete(PreferenceId(3))));
        match &changes[2] {
            Change::History(_, h) => {
                assert_eq!(h.op, op);
                assert_eq!(h.category, "favorite_genres");
                assert!(h.before.is_none() && h.after.is_none() && h.sentence.is_none());
            }
            other => panic!("expected a history entry, got {other:?}"),
        }
    }
}

#[test]
fn a_one_off_request_waits_pending_until_it_is_asked_for_again_later() {
    let (s, u) = (schema(), user());
    let one_off = |attribute: &str| Extracted {
        one_off: true,
        ..incoming(&s, "preferred_radio_station", attribute, 0.95)
    };
    // Certain as it is, one request stores nothing recall uses (with confirm_below off, too).
    let x = one_off("BBC Radio 4");
    let step = maintenance(
        cx(&s, &u),
        Maintenance::New,
        &[],
        &x,
        0.0,
        Some(PreferenceId(4)),
    );
    assert_eq!(step.written.status, Status::Pending);
    // Nor does it displace a lasting preference: it waits beside it.
    let active = stored(&s, "preferred_radio_station", 3, "Radio 2", Status::Active);
    let op = Maintenance::Update(active.id);
    let st = [active.clone()];
    let step = maintenance(cx(&s, &u), op, &st, &x, 0.0, Some(PreferenceId(4)));
    assert_eq!(step.written.status, Status::Pending);
    assert_eq!(step.written.replaces, Some(PreferenceId(3)));
    assert!(deleted(&step).is_empty());
    // Asked for again later, it is what the driver usually wants.
    let pending = stored(
        &s,
        "preferred_radio_station",
        4,
        "BBC Radio 4",
        Status::Pending,
    );
    let op = Maintenance::Pass(pending.id);
    let st = [pending.clone()];
    let step = maintenance(cx(&s, &u), op, &st, &x, 0.0, None);
    assert_eq!(step.written.status, Status::Active);
    // The same conversation remembered again (said at the time it was written) is no repetition.
    let mut same_time = pending.clone();
    same_time.updated = Millis(1_000);
    let st = [same_time];
    let step = maintenance(cx(&s, &u), op, &st, &x, 0.0, None);
    assert_eq!(step.written.status, Status::Pending);
    // An uncertain repetition confirms nothing, one-off or not.
    let unsure = Extracted {
        one_off: true,
        ..incoming(&s, "preferred_radio_station", "BBC Radio 4", 0.2)
    };
    let step = maintenance(cx(&s, &u), op, &[pending], &unsure, BELOW, None);
    assert_eq!(step.written.status, Status::Pending);
}
