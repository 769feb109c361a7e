//! Reading a typed detail's value from the user's own sentence: the numbers of an `integer`
//! detail that lie in its range, the state of an `flag` detail. These are what the grammar
//! offers for such a detail (the LLM chooses among them and `none`); nothing outside them can be
//! stored.

use crate::memory::values::{singular, turns_down, SCOPE};
use crate::schema::{Detail, DetailId, Schema, ValueKind, FLAG_OFF, FLAG_ON};

/// Words that name the top or the bottom of a range ("max it out", "the lowest setting").
const TOP_WORDS: &[&str] = &["max", "maximum", "maxed", "highest", "full"];
const BOTTOM_WORDS: &[&str] = &["min", "minimum", "lowest"];

/// Verbs that switch a device on, and off, by themselves ("enable the traffic display").
const ON_VERBS: &[&str] = &[
    "enable",
    "enabled",
    "enabling",
    "activate",
    "activated",
    "activating",
    "engage",
    "unmute",
];
const OFF_VERBS: &[&str] = &[
    "disable",
    "disabled",
    "disabling",
    "deactivate",
    "deactivated",
    "deactivating",
    "mute",
    "muted",
    "muting",
];
/// Verbs after which `on` or `off` is the state a device is put in ("turn the heating on",
/// "keep it off"); elsewhere `on` and `off` are mostly prepositions ("I grew up on rice", "on
/// days like this", "working on that patch").
const SWITCH_VERBS: &[&str] = &[
    "turn",
    "turns",
    "turned",
    "turning",
    "switch",
    "switched",
    "switching",
    "put",
    "keep",
    "keeping",
    "kept",
    "leave",
    "flip",
    "flick",
];
/// How many words before `on`/`off` a switch verb or the device's name still governs it.
const SWITCH_SCOPE: usize = 4;
/// Name words of a flag detail that name no device ("HUD Power", "Seat Ventilation Enabled").
const STATE_WORDS: &[&str] = &[
    "power", "enabled", "enable", "on", "off", "set", "mode", "status",
];

/// The words that name a flag detail's device: its name's words but the state words, a plural
/// `s` dropped ("Steering Wheel Heating Enabled": steering, wheel, heating).
fn device_words(detail: &Detail) -> Vec<String> {
    words(&detail.name)
        .into_iter()
        .filter(|w| !STATE_WORDS.contains(&w.as_str()))
        .map(|w| singular(&w))
        .collect()
}

/// The settings of the device a switch turns on and off: the details, not switches
/// themselves, whose names begin with the switch's device words ("Steering Wheel Heating
/// Enabled": the steering wheel heating level; "Radio Power": the radio's station, frequency
/// and volume). A remembered value of one of them says the device is on ([`implies_on`]).
pub fn device_settings(schema: &Schema, switch: DetailId) -> Vec<DetailId> {
    let f = schema.detail(switch);
    if f.kind != ValueKind::Flag {
        return Vec::new();
    }
    let device = device_words(f);
    if device.is_empty() {
        return Vec::new();
    }
    schema
        .details()
        .iter()
        .filter(|d| d.kind != ValueKind::Flag && d.id != switch)
        .filter(|d| {
            let w: Vec<String> = words(&d.name).iter().map(|x| singular(x)).collect();
            w.starts_with(&device)
        })
        .map(|d| d.id)
        .collect()
}

/// Whether a remembered value of a device's setting says the device is on: any value but a
/// turned-down one ("not blue") and, for a number, zero ("the window open 0", "heating at 0").
pub fn implies_on(detail: &Detail, value: &str) -> bool {
    if value.starts_with(crate::memory::values::NOT) {
        return false;
    }
    match detail.kind {
        ValueKind::Integer => value.trim().parse::<i64>().is_ok_and(|v| v > 0),
        _ => !value.trim().is_empty(),
    }
}

/// Words that refuse a device named at most [`SCOPE`] words after them ("I don't want the
/// HUD", "no child lock"); milder cues ("forget", "switch") turn down a value, not a device
/// ("I always forget to roll up the window" says nothing of the auto close).
const DEVICE_REFUSALS: &[&str] = &["not", "no", "never", "without", "don't", "dont", "doesn't"];

/// Whether a refusal ([`DEVICE_REFUSALS`], or a word ending in `n't`) stands at most
/// [`SCOPE`] words before one of the device's words.
fn refuses_device(w: &[String], device: &[String]) -> bool {
    w.iter().enumerate().any(|(i, x)| {
        device.contains(&singular(x))
            && w[i.saturating_sub(SCOPE)..i]
                .iter()
                .any(|r| DEVICE_REFUSALS.contains(&r.as_str()) || r.ends_with("n't"))
    })
}

/// The state a sentence puts a flag detail in, if it says one: an on or off verb ("disable the
/// auto fold"); `on` or `off` governed by a switch verb or the device's name at most
/// [`SWITCH_SCOPE`] words before it ("turn on the child lock", "auto-brightness is off", "lights
/// on"); or a negation that turns the device itself down ("I don't want the HUD"). A negation
/// or an `on` about something else ("it's not wheat", "I grew up on tortillas") says nothing
/// about the steering wheel heating.
fn flag_state(detail: &Detail, w: &[String]) -> Option<&'static str> {
    let device = device_words(detail);
    let governed = |i: usize| {
        w[i.saturating_sub(SWITCH_SCOPE)..i]
            .iter()
            .any(|x| SWITCH_VERBS.contains(&x.as_str()) || device.contains(&singular(x)))
    };
    let said = |word: &str, verbs: &[&str]| {
        w.iter()
            .enumerate()
            .any(|(i, x)| verbs.contains(&x.as_str()) || (x == word && governed(i)))
    };
    // A switch said outright wins over a refusal nearby ("you can't open that window back
    // there, I turned on the child lock").
    if said("off", OFF_VERBS) {
        Some(FLAG_OFF)
    } else if said("on", ON_VERBS) {
        Some(FLAG_ON)
    } else if refuses_device(w, &device) {
        Some(FLAG_OFF)
    } else {
        None
    }
}

fn words(sentence: &str) -> Vec<String> {
    sentence
        .to_lowercase()
        .replace(['’', '`'], "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '\''))
        .map(|w| w.trim_matches(|c: char| c == '.' || c == '\'').to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Words before which a number word is the number ("to three", "level one").
const NUMBER_AFTER: &[&str] = &[
    "to", "at", "level", "notch", "setting", "speed", "position", "by", "from", "only", "just",
    "on", "down", "up",
];
/// Words after which a number word is the number ("one level", "two degrees").
const NUMBER_BEFORE: &[&str] = &[
    "level", "levels", "notch", "notches", "degree", "degrees", "percent", "setting",
];

/// Words after which a number word counts things, not a setting ("squint at one more
/// dashboard", "at one last stop").
const NO_NUMBER_BEFORE: &[&str] = &["more", "last", "other", "another"];
/// Words that, right after a number, place it outside the car: the weather, not a setting
/// ("it's 35°C outside").
const OUTSIDE: &[&str] = &["outside", "outdoors"];

/// Units of quantities no setting of a car holds (time, age, distance, money, people): a number
/// right before one measures that ("finish under 55 minutes", "18-year-olds", "3 miles"), unless
/// the setting's own words name the unit (a schema may ship a timer in minutes).
const OTHER_UNITS: &str = "second seconds minute minutes min mins hour hours hr hrs day days \
    week weeks month months year years mile miles km kilometer kilometers kilometre kilometres \
    meter meters metre metres feet foot inch inches dollar dollars euro euros buck bucks cent \
    cents people person persons kids children times";

/// `sentence` with every number word that is not a setting's number ("maybe one day", "pick
/// one up", "you two handle it") written "a", so that only a number in a setting's place ("to
/// three", "at seventy-five", "two degrees") reads as a number. Digits are always numbers.
fn numeric_words(sentence: &str) -> String {
    use crate::memory::values::{TENS, UNITS};
    let tokens: Vec<&str> = sentence.split(' ').collect();
    let bare = |t: &str| {
        t.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    };
    let number = |w: &str| {
        w.split('-')
            .all(|p| !p.is_empty() && (UNITS.contains(&p) || TENS.contains(&p)))
    };
    tokens
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let w = bare(t);
            if !number(&w) {
                return (*t).to_string();
            }
            let before = i
                .checked_sub(1)
                .map(|j| bare(tokens[j]))
                .unwrap_or_default();
            let after = tokens.get(i + 1).map(|t| bare(t)).unwrap_or_default();
            let numeral = !NO_NUMBER_BEFORE.contains(&after.as_str())
                && (NUMBER_AFTER.contains(&before.as_str())
                    || NUMBER_BEFORE.contains(&after.as_str())
                    || TENS.contains(&before.as_str())
                    || (TENS.contains(&w.as_str()) && number(&after)));
            if numeral {
                (*t).to_string()
            } else {
                // Keep the punctuation around the word; the word itself reads as "a".
                let start = t.find(|c: char| c.is_alphanumeric()).unwrap_or(0);
                let end = t
                    .rfind(|c: char| c.is_alphanumeric())
                    .map_or(t.len(), |e| e + 1);
                format!("{}a{}", &t[..start], &t[end..])
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The state a statement of liking takes for a switch whose device it names and whose state it
/// does not say ("At least the seat heater makes this less painful", "When I park, I want the
/// windows to close automatically"): on, the switch's only stance, as a closed list's only
/// value besides "does not matter" is ([`crate::memory::values::only_stance`]). Only where
/// the sentence says every word of the switch's name but its state words, or of one of its
/// aliases (word forms folded, [`same_stem`]), negates nothing ("I don't need the seat heater"),
/// speaks to no listener and is about no device's power ("I love this radio"). Whether the
/// sentence states a preference is the gate's call, made before.
pub fn stance(detail: &Detail, sentence: &str) -> Option<&'static str> {
    // "You and your heated steering wheels" is the listener's taste.
    const LISTENER: &[&str] = &["you", "your", "you're", "yours"];
    let w = words(sentence);
    if detail.kind != ValueKind::Flag
        || crate::memory::values::negates(sentence)
        || words(&detail.name).last().is_some_and(|x| x == "power")
        || w.iter().any(|x| LISTENER.contains(&x.as_str()))
    {
        return None;
    }
    let said: Vec<String> = w.iter().map(|x| singular(x)).collect();
    let says_all = |names: &[String]| {
        !names.is_empty()
            && names
                .iter()
                .all(|n| said.iter().any(|x| x == n || same_stem(x, n)))
    };
    let alias_said = detail.aliases.iter().any(|a| {
        let a: Vec<String> = words(a).iter().map(|x| singular(x)).collect();
        says_all(&a)
    });
    let names_device = says_all(&device_words(detail)) || alias_said;
    (names_device && flag_state(detail, &w).is_none()).then_some(FLAG_ON)
}

/// The words of a detail's name, description and aliases.
fn own_words(detail: &Detail) -> Vec<String> {
    let mut out = words(&detail.name);
    out.extend(words(&detail.description));
    for a in &detail.aliases {
        out.extend(words(a));
    }
    out
}

/// Whether two words are forms of one ("heater" and "heating", "closing" and "close",
/// "automatically" and "automatic"): both share a stem of at least four letters and differ
/// only by an ending of a few letters.
fn same_stem(a: &str, b: &str) -> bool {
    const ENDINGS: &[&str] = &["", "s", "e", "d", "ed", "er", "ing", "ally", "ly"];
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let rest = |w: &str| w.chars().skip(common).collect::<String>();
    common >= 4 && ENDINGS.contains(&rest(a).as_str()) && ENDINGS.contains(&rest(b).as_str())
}

/// The values of a typed detail that `sentence` names, in sentence order, without repeats:
/// for an integer detail the whole numbers in its range (digits, number words, and its top or
/// bottom for "max"/"lowest"); for a flag, `on` or `off` when the sentence switches it; empty
/// for other kinds.
pub fn named(detail: &Detail, sentence: &str) -> Vec<String> {
    let spaced = sentence.replace(['—', '–'], " ");
    let mut out = mentioned(detail, sentence);
    if detail.kind == ValueKind::Integer {
        // A number the sentence turns down is not the setting ("Level 3 is too strong,
        // let's stick to level 1", "as long as it's not 86 on the dial").
        out.retain(|v| !turns_down(&spaced, v));
    }
    out
}

/// The values of a typed detail that `sentence` mentions, turned down or not ("82 is too low"
/// mentions 82): [`named`] before it leaves out what the sentence turns down. A number right
/// after "by" is an amount of change, not mentioned as a value ("lowered it by forty").
pub fn mentioned(detail: &Detail, sentence: &str) -> Vec<String> {
    // Number words ("lower the headrest to three", "twenty-two degrees") read as digits where
    // they stand in a setting's place, not in "one day", "pick one up", "you two".
    // Dashes between words ("seventy-five—that's right") part them as spaces do.
    let spaced = sentence.replace(['—', '–'], " ");
    let w = words(&crate::memory::values::digits(&numeric_words(&spaced)));
    let mut out: Vec<String> = Vec::new();
    let mut push = |v: String| {
        if !out.contains(&v) {
            out.push(v);
        }
    };
    match (detail.kind, detail.range) {
        (ValueKind::Integer, Some((lo, hi))) => {
            let own = own_words(detail);
            for (i, word) in w.iter().enumerate() {
                // An amount of change is no value of the setting ("lowered the leg support by
                // forty").
                if i > 0 && w[i - 1] == "by" {
                    continue;
                }
                // Nor is a quantity of something else ("under 55 minutes", "18-year-olds").
                if w.get(i + 1).is_some_and(|u| {
                    OTHER_UNITS.split_whitespace().any(|x| x == u) && !own.contains(u)
                }) {
                    continue;
                }
                // Nor is the weather ("it's 35°C outside, set it to 20").
                if w[i + 1..w.len().min(i + 4)]
                    .iter()
                    .any(|x| OUTSIDE.contains(&x.as_str()))
                {
                    continue;
                }
                let n = word
                    .strip_suffix('%')
                    .unwrap_or(word)
                    .parse::<f64>()
                    .ok()
                    .filter(|n| n.fract() == 0.0)
                    .map(|n| n as i64)
                    .or_else(|| TOP_WORDS.contains(&word.as_str()).then_some(hi))
                    .or_else(|| BOTTOM_WORDS.contains(&word.as_str()).then_some(lo));
                if let Some(n) = n.filter(|n| (lo..=hi).contains(n)) {
                    push(n.to_string());
                }
            }
        }
        (ValueKind::Flag, _) => {
            if let Some(state) = flag_state(detail, &w) {
                push(state.into());
            }
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;

    fn vehicle() -> Schema {
        crate::schema::vehicle_for_tests()
    }

    #[test]
    fn a_liking_that_names_a_switch_without_its_state_turns_it_on() {
        let s = vehicle();
        let d = |k: &str| s.detail(s.detail_by_key(k).unwrap()).clone();
        let heat = d("seat_heating_mode");
        assert_eq!(
            stance(&heat, "At least the seat heater makes this less painful."),
            Some(FLAG_ON)
        );
        // Said by one of its other names.
        assert_eq!(
            stance(
                &d("window_auto_close_on_lock"),
                "When I park, I want the windows to close automatically."
            ),
            Some(FLAG_ON)
        );
        // A state said is read by `named`; a negation is no liking; a device not named, or
        // named in part, takes no stance.
        assert_eq!(stance(&heat, "Turn the seat heating off."), None);
        assert_eq!(stance(&heat, "I don't need the seat heater today."), None);
        assert_eq!(stance(&heat, "The seat is fine."), None);
        assert_eq!(stance(&heat, "You and your heated seats, man."), None);
        assert_eq!(stance(&d("radio_power"), "I love this radio."), None);
        assert_eq!(
            named(
                &d("window_child_lock"),
                "Disabling the child lock lets in more air."
            ),
            [FLAG_OFF]
        );
        assert_eq!(
            stance(&d("seat_heating_level"), "The seat heater is great."),
            None
        );
    }

    #[test]
    fn forms_of_one_word_share_a_stem() {
        assert!(same_stem("heater", "heating"));
        assert!(same_stem("closing", "close"));
        assert!(same_stem("automatically", "automatic"));
        assert!(same_stem("heat", "heating"));
        assert!(!same_stem("hea", "heal"));
        assert!(!same_stem("control", "contrast"));
        assert!(!same_stem("position", "positive"));
    }

    #[test]
    fn a_switch_knows_the_settings_of_its_device() {
        let s = vehicle();
        let keys = |k: &str| -> Vec<String> {
            device_settings(&s, s.detail_by_key(k).unwrap())
                .into_iter()
                .map(|d| s.detail(d).key.clone())
                .collect()
        };
        assert_eq!(
            keys("steering_wheel_heating_enabled"),
            ["steering_wheel_heating_level"]
        );
        assert_eq!(keys("seat_heating_mode"), ["seat_heating_level"]);
        assert_eq!(
            keys("light_reading_light"),
            ["light_reading_light_brightness"]
        );
        let radio = keys("radio_power");
        assert!(radio.contains(&"radio_volume".to_string()), "{radio:?}");
        // A switch of its own, with no setting beside it; not a switch at all.
        assert!(keys("light_fog_light").is_empty());
        assert!(keys("seat_heating_level").is_empty());
        let level = s.detail(s.detail_by_key("seat_heating_level").unwrap());
        assert!(implies_on(level, "2"));
        assert!(!implies_on(level, "0"));
        let colour = s.detail(s.detail_by_key("light_ambient_color").unwrap());
        assert!(implies_on(colour, "blue"));
        assert!(!implies_on(colour, "not blue"));
    }

    #[test]
    fn integers_in_range_are_read_from_digits_words_and_extremes() {
        let s = vehicle();
        let d = s.detail(s.detail_by_key("seat_headrest_height").unwrap());
        assert_eq!(
            named(d, "I need the headrest all the way up at 44."),
            ["44"]
        );
        assert_eq!(named(d, "Let me just lower the headrest to three."), ["3"]);
        assert_eq!(named(d, "Headrest at seventy-five—that's right."), ["75"]);
        let t = s.detail(s.detail_by_key("air_conditioner_temperature").unwrap());
        assert_eq!(named(t, "Set it to 22, not 5 or 140."), ["22"]);
        let h = s.detail(s.detail_by_key("hud_brightness_level").unwrap());
        assert_eq!(named(h, "I want the brightness maxed out."), ["10"]);
        let m = s.detail(s.detail_by_key("seat_massage_level").unwrap());
        assert_eq!(
            named(m, "Level 3 is too strong, let's stick to level 1 for now."),
            ["1"]
        );
        assert_eq!(named(m, "Not 1, level 2."), ["2"]);
        let v = s.detail(s.detail_by_key("seat_vertical_position").unwrap());
        assert_eq!(named(v, "82 is too low. Put it at 84."), ["84"]);
        assert_eq!(mentioned(v, "82 is too low. Put it at 84."), ["82", "84"]);
        // An amount of change is no value.
        let l = s.detail(s.detail_by_key("seat_leg_support_height").unwrap());
        assert!(named(l, "There, lowered the leg support by forty.").is_empty());
        assert_eq!(named(l, "Raised it by 5, to 45."), ["45"]);
        let m = s.detail(s.detail_by_key("music_volume").unwrap());
        assert!(named(m, "As long as it's not 86 on the dial, we're safe.").is_empty());
        // A quantity of time, age, distance, money or people is no setting's value.
        assert!(named(m, "I'd love to finish under 55 minutes.").is_empty());
        assert!(named(l, "Do you think 18-year-olds care about gifts?").is_empty());
        assert!(named(m, "It's 12 miles to the site and 20 dollars for parking.").is_empty());
        assert_eq!(
            named(m, "After 10 minutes of this, set the volume to 30."),
            ["30"]
        );
    }

    #[test]
    fn one_is_a_number_only_where_it_counts() {
        let s = vehicle();
        let d = s.detail(s.detail_by_key("seat_massage_level").unwrap());
        assert_eq!(named(d, "Set the massage to level one."), ["1"]);
        assert_eq!(named(d, "Take it down to one, please."), ["1"]);
        assert!(named(d, "Maybe one day I'll try it.").is_empty());
        assert!(named(d, "One step at a time.").is_empty());
        assert!(named(d, "I might pick one up this weekend.").is_empty());
        assert!(named(d, "You two handle the cold better, do what you want.").is_empty());
        // Counting things: "one more", "one last".
        assert!(named(d, "If I have to squint at one more dashboard...").is_empty());
        let t = s.detail(s.detail_by_key("air_conditioner_temperature").unwrap());
        assert_eq!(named(t, "Set it to twenty two."), ["22"]);
        assert_eq!(named(t, "Twenty-two degrees, please."), ["22"]);
        // The weather is no setting.
        assert!(named(t, "Ugh, it's 35°C outside.").is_empty());
        assert_eq!(
            named(t, "It's 30 degrees outside, set the AC to 20."),
            ["20"]
        );
    }

    #[test]
    fn flags_read_on_and_off() {
        let s = vehicle();
        let d = s.detail(s.detail_by_key("hud_power").unwrap());
        assert_eq!(named(d, "Turn the HUD on, please."), [FLAG_ON]);
        assert_eq!(named(d, "I don't want the HUD."), [FLAG_OFF]);
        assert!(named(d, "The HUD is nice.").is_empty());
        let w = s.detail(s.detail_by_key("steering_wheel_heating_enabled").unwrap());
        assert_eq!(
            named(w, "Turning off the steering wheel heating."),
            [FLAG_OFF]
        );
        assert_eq!(named(w, "Keep the wheel heating on today."), [FLAG_ON]);
        assert_eq!(named(w, "Switch it on, my hands are cold."), [FLAG_ON]);
        // `on`, `off` and negations about something else are no switch.
        assert!(named(
            w,
            "I grew up on tortillas and rice, so that's going to be rough."
        )
        .is_empty());
        assert!(named(
            w,
            "Just because it's not wheat or corn doesn't mean it won't matter."
        )
        .is_empty());
        assert!(named(w, "We're off to the coast on Sunday.").is_empty());
        assert!(named(
            w,
            "I always forget these steering wheels have heat settings."
        )
        .is_empty());
        assert_eq!(
            named(w, "I don't need the wheel heating today."),
            [FLAG_OFF]
        );
        let a = s.detail(s.detail_by_key("instrument_panel_auto_brightness").unwrap());
        assert_eq!(named(a, "There, auto-brightness is off."), [FLAG_OFF]);
        let c = s.detail(s.detail_by_key("window_child_lock").unwrap());
        assert_eq!(
            named(
                c,
                "You can't open that window back there, I turned on the child lock."
            ),
            [FLAG_ON]
        );
        let f = s.detail(s.detail_by_key("mirror_auto_fold_on_lock").unwrap());
        assert_eq!(
            named(f, "Let me just disable the auto fold for a bit."),
            [FLAG_OFF]
        );
    }
}
