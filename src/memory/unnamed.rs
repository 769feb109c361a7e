//! Values said without their device ("Set the brightness to 10.", "8 is the sweet spot.",
//! "Blue helps me focus on the road at night."). Extraction has to store such a value under
//! one setting, the one closest to the sentence, and with no device named that may be another
//! device's setting of the same quantity (the HUD's brightness for the centre display's). When
//! a person is later asked for a setting of which nothing of their own is remembered, such a
//! value of the same quantity is what is known of their wish ([`Memory::recall_category`]).
//!
//! [`Memory::recall_category`]: crate::memory::Memory::recall_category

use crate::memory::extract;
use crate::schema::{Detail, DetailId, Schema, ValueKind};

/// Name words that say how a quantity is set, not which one ("HUD Brightness *Level*",
/// "Rearview Mirror Height *Position*").
const HOW: &[&str] = &["level", "position"];

/// The quantity a vehicle setting sets: the last word of its name but [`HOW`]'s ("HUD
/// Brightness Level" and "Center Display Brightness": brightness; "Seat Ventilation Speed"
/// and "Air Conditioner Fan Speed": speed). None for a switch, a name of the user's (a
/// destination, a song) or a setting without a vehicle call.
pub fn quantity(detail: &Detail) -> Option<String> {
    let settable = match detail.kind {
        ValueKind::Integer | ValueKind::Choice => true,
        ValueKind::Text => detail.has_example_values(),
        ValueKind::Flag => false,
    };
    if detail.call.is_none() || !settable {
        return None;
    }
    extract::name_words(&detail.name)
        .into_iter()
        .rev()
        .find(|w| !HOW.contains(&w.as_str()))
}

/// The other settings of `detail`'s quantity ([`quantity`]), in schema order.
pub fn same_quantity(schema: &Schema, detail: DetailId) -> Vec<DetailId> {
    let Some(q) = quantity(schema.detail(detail)) else {
        return Vec::new();
    };
    schema
        .details()
        .iter()
        .filter(|d| d.id != detail && quantity(d).as_deref() == Some(q.as_str()))
        .map(|d| d.id)
        .collect()
}

/// `value` as `detail` holds it, when it can: a number in its range, one of its listed values
/// (case folded; a turned-down value never carries over).
pub fn fits(detail: &Detail, value: &str) -> Option<String> {
    let v = value.trim();
    match detail.kind {
        ValueKind::Integer => {
            let n: i64 = v.parse().ok()?;
            let (lo, hi) = detail.range?;
            (lo..=hi).contains(&n).then(|| n.to_string())
        }
        ValueKind::Choice | ValueKind::Text => detail
            .attributes
            .iter()
            .find(|a| a.eq_ignore_ascii_case(v))
            .cloned(),
        ValueKind::Flag => None,
    }
}

/// Whether a value's evidence said it without its device: the sentence names no one device's
/// settings ([`extract::names_one_device`]).
pub fn said_without_device(schema: &Schema, sentence: &str) -> bool {
    !extract::names_one_device(schema, sentence)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vehicle() -> Schema {
        crate::schema::vehicle_for_tests()
    }

    fn id(s: &Schema, key: &str) -> DetailId {
        s.details()
            .iter()
            .find(|d| d.key == key)
            .expect("detail")
            .id
    }

    #[test]
    fn quantities_are_the_last_word_of_a_setting_name() {
        let s = vehicle();
        let keys = |d: &str| -> Vec<String> {
            same_quantity(&s, id(&s, d))
                .into_iter()
                .map(|x| s.detail(x).key.clone())
                .collect()
        };
        assert!(keys("center_display_brightness").contains(&"hud_brightness_level".to_string()));
        assert!(keys("seat_ventilation_speed").contains(&"air_conditioner_fan_speed".to_string()));
        assert!(keys("light_ambient_color").contains(&"instrument_panel_color".to_string()));
        // A map's view is not its zoom; a switch and a name of the user's have no quantity.
        assert!(keys("navigation_map_view").is_empty());
        assert!(keys("music_power").is_empty());
        assert!(keys("radio_name").is_empty());
        assert!(keys("seat_massage_level").is_empty());
    }

    #[test]
    fn a_value_carries_over_only_where_it_fits() {
        let s = vehicle();
        let panel = s.detail(id(&s, "instrument_panel_brightness"));
        assert_eq!(fits(panel, "4").as_deref(), Some("4"));
        assert_eq!(fits(panel, "8"), None, "the panel's brightness ends at 5");
        let colour = s.detail(id(&s, "instrument_panel_color"));
        assert_eq!(fits(colour, "Blue").as_deref(), Some("blue"));
        assert_eq!(fits(colour, "not blue"), None);
    }

    #[test]
    fn a_sentence_naming_its_device_is_not_without_one() {
        let s = vehicle();
        assert!(said_without_device(&s, "Set the brightness to 10."));
        assert!(said_without_device(&s, "8 is the sweet spot."));
        assert!(!said_without_device(&s, "Set the HUD brightness to 4."));
    }
}
