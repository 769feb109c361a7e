//! Retention: which preferences have gone unused long enough to expire
//! (`retention.expire_unused_days`). Pure logic over a given time; `Memory::expire_unused_at`
//! applies it to the store, and `Memory::housekeeping` runs it with the clock.

use crate::pref::{Millis, Preference};

/// Milliseconds in a day.
pub const DAY_MS: u64 = 24 * 3600 * 1000;

/// When a preference was last used: last recalled, or last written by Glovebox (created, or
/// confirmed again by a pass, or confirmed by the user), whichever is later. A preference the
/// driver just restated is not unused even if recall never returned it, and one just ingested
/// from words said long ago is not either (`updated`, the time they were said, does not count).
pub fn last_used(p: &Preference) -> Millis {
    p.last_recalled
        .map_or(p.last_written, |r| r.max(p.last_written))
}

/// Whether `p` is unused for at least `days` days at time `now`.
pub fn is_expired(p: &Preference, now: Millis, days: u32) -> bool {
    let age = now.0.saturating_sub(last_used(p).0);
    age >= u64::from(days) * DAY_MS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pref::{PreferenceId, Status, UserId};
    use crate::schema::Schema;

    fn pref(updated_day: u64, recalled_day: Option<u64>) -> Preference {
        let s = Schema::embedded();
        Preference {
            id: PreferenceId(1),
            user: UserId::new("u").unwrap(),
            detail: s.detail_by_key("favorite_genres").unwrap(),
            attribute: "Jazz".into(),
            sentences: vec!["I like jazz.".into()],
            status: Status::Active,
            confidence: 1.0,
            created: Millis(0),
            updated: Millis(updated_day * DAY_MS),
            last_recalled: recalled_day.map(|d| Millis(d * DAY_MS)),
            replaces: None,
            condition: None,
            last_written: Millis(updated_day * DAY_MS),
        }
    }

    #[test]
    fn the_latest_use_counts() {
        let day = |d: u64| Millis(d * DAY_MS);
        // Never recalled: its last write counts.
        assert!(!is_expired(&pref(10, None), day(39), 30));
        assert!(is_expired(&pref(10, None), day(40), 30));
        // A recall renews it...
        assert!(!is_expired(&pref(10, Some(20)), day(40), 30));
        assert!(is_expired(&pref(10, Some(20)), day(50), 30));
        // ...and so does a later write, even after an old recall.
        assert!(!is_expired(&pref(45, Some(20)), day(50), 30));
        // Words said long ago but written by Glovebox today: the write counts, not `updated`.
        let mut old = pref(10, None);
        old.updated = day(0);
        old.created = day(0);
        assert!(!is_expired(&old, day(39), 30));
        assert!(is_expired(&old, day(40), 30));
        old.last_written = day(100);
        assert!(!is_expired(&old, day(129), 30));
        assert!(is_expired(&old, day(130), 30));
        // A clock behind the data expires nothing.
        assert!(!is_expired(&pref(10, None), day(1), 30));
    }
}
