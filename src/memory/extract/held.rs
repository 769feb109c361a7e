//! A setting referred to by the value it holds: "82 is too low", "Level 4 is useless", "50 is
//! bad" speak of the setting the speaker has at 82, at 4, at 50, and often name it no other
//! way ("I think I overcorrected the seat. 82 is too low. Let me bump it up to 84."). The
//! embedder cannot place a bare number; the speaker's own store can. A correction that
//! follows ("bump it up to 84") then takes the offer over (`memory::correction`).

use super::names::{just_above, spoken_names};
use crate::memory::typed;
use crate::schema::{DetailId, Schema, ValueKind};

/// The values a speaker holds: (detail, value) of their stored preferences.
pub type Held = [(DetailId, String)];

/// Puts first in a sentence's row the integer setting whose held value the sentence mentions
/// (turned down or not: [`typed::mentioned`]), when
/// it names no other setting by its name (a sentence that names the setting is placed by
/// [`super::names_first`] already). Among several settings holding the named value, the one the
/// embedder places nearest. A setting dropped from the row (it cannot hold what is said) stays
/// dropped.
pub fn held_value_first(schema: &Schema, row: &mut [f32], sentence: &str, held: &Held) {
    if held.is_empty() {
        return;
    }
    let spoken = spoken_names(schema, sentence);
    let best = held
        .iter()
        .filter(|(d, value)| {
            let detail = schema.detail(*d);
            detail.kind == ValueKind::Integer
                && row.get(d.index()).is_some_and(|s| s.is_finite())
                && (spoken.is_empty() || spoken.contains(&d.index()))
                && typed::mentioned(detail, sentence)
                    .iter()
                    .any(|v| v.eq_ignore_ascii_case(value.trim()))
        })
        .map(|(d, _)| d.index())
        .max_by(|&a, &b| row[a].total_cmp(&row[b]));
    if let Some(k) = best {
        let top = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        if row[k] < top {
            row[k] = just_above(top, row[k]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vehicle() -> Schema {
        crate::schema::vehicle_for_tests()
    }

    fn id(s: &Schema, key: &str) -> DetailId {
        s.details().iter().find(|d| d.key == key).unwrap().id
    }

    /// A row whose best category is `first`, with every detail scored.
    fn row(s: &Schema, first: &str) -> Vec<f32> {
        let mut r = vec![0.2; s.details().len()];
        r[id(s, first).index()] = 0.5;
        r
    }

    fn best(s: &Schema, r: &[f32]) -> String {
        let k = super::super::best_category(r).unwrap().0;
        s.details()[k].key.clone()
    }

    #[test]
    fn a_bare_number_is_the_setting_that_holds_it() {
        let s = vehicle();
        let held = vec![
            (id(&s, "seat_vertical_position"), "82".to_string()),
            (id(&s, "music_volume"), "20".to_string()),
        ];
        let mut r = row(&s, "navigation_volume");
        held_value_first(&s, &mut r, "82 is too low.", &held);
        assert_eq!(best(&s, &r), "seat_vertical_position");
    }

    #[test]
    fn a_number_no_setting_holds_or_another_named_setting_changes_nothing() {
        let s = vehicle();
        let held = vec![(id(&s, "seat_vertical_position"), "82".to_string())];
        let mut r = row(&s, "navigation_volume");
        held_value_first(&s, &mut r, "83 is too low.", &held);
        assert_eq!(best(&s, &r), "navigation_volume");
        held_value_first(&s, &mut r, "Set the navigation volume to 82.", &held);
        assert_eq!(best(&s, &r), "navigation_volume");
        held_value_first(&s, &mut r, "82 is too low.", &[]);
        assert_eq!(best(&s, &r), "navigation_volume");
    }

    #[test]
    fn of_two_settings_holding_the_number_the_nearer_is_taken() {
        let s = vehicle();
        let held = vec![
            (id(&s, "hud_height_level"), "4".to_string()),
            (id(&s, "hud_brightness_level"), "4".to_string()),
        ];
        let mut r = row(&s, "navigation_volume");
        r[id(&s, "hud_brightness_level").index()] = 0.4;
        r[id(&s, "hud_height_level").index()] = 0.3;
        held_value_first(&s, &mut r, "Level 4 is useless.", &held);
        assert_eq!(best(&s, &r), "hud_brightness_level");
    }
}
