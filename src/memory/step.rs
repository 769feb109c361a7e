//! A step from a remembered number that the words ask for: "a touch higher than the setting that
//! felt perfect", "two degrees cooler", "one level brighter", "turn it up 5 more". Recall of one
//! setting (`recall --category`) returns the remembered value and, when the utterance asks for a
//! step from it, the value to set now (`Recalled::now`), clamped to the detail's range.
//!
//! A step needs a direction word (a comparative such as *higher*, *cooler*, *brighter*, or
//! *more*/*less* after a verb of direction) and an amount bound to it: a number just before it
//! ("2 degrees cooler", "one level lower") or after *up*/*down* ("up 5 more"), or a small-amount
//! word ("a touch", "a bit", "slightly", "a notch": one step). A direction word alone ("turn on
//! the warmer", "cool me down") is not a step, and neither is "max": the top of a range is a
//! value the user names (`typed::named`), not a step from a remembered one. Nothing here is
//! fitted to data; the word lists are English grammar, not cues from a benchmark.

use crate::memory::values::digits;

/// Comparatives that move a setting up.
const UP: &[&str] = &[
    "higher", "warmer", "hotter", "stronger", "louder", "brighter", "faster", "firmer", "further",
    "farther", "bigger",
];
/// Comparatives that move a setting down.
const DOWN: &[&str] = &[
    "lower", "cooler", "colder", "weaker", "softer", "quieter", "dimmer", "darker", "slower",
    "gentler", "smaller",
];
/// Verbs and particles that give *more*/*less* and a following amount their direction.
const UP_VERBS: &[&str] = &["up", "raise", "increase", "boost", "bump"];
const DOWN_VERBS: &[&str] = &["down", "lower", "reduce", "decrease", "drop"];
/// Words for a small amount: one step.
const SMALL: &[&str] = &[
    "touch", "bit", "little", "tad", "notch", "slightly", "smidge",
];
/// Units that may stand between an amount and its direction ("2 degrees cooler").
const UNITS: &[&str] = &[
    "degree",
    "degrees",
    "level",
    "levels",
    "notch",
    "notches",
    "step",
    "steps",
    "percent",
    "%",
    "point",
    "points",
    "centimeter",
    "centimeters",
    "centimetre",
    "centimetres",
    "cm",
    "more",
    "less",
    "click",
    "clicks",
    "unit",
    "units",
];

fn words(text: &str) -> Vec<String> {
    digits(text)
        .to_lowercase()
        .replace(['’', '`'], "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '%' || c == '.'))
        .map(|w| w.trim_matches('.').to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

fn amount(word: &str) -> Option<i64> {
    let w = word.strip_suffix('%').unwrap_or(word);
    w.parse::<f64>()
        .ok()
        .filter(|n| n.fract() == 0.0 && *n > 0.0 && *n <= 1000.0)
        .map(|n| n as i64)
}

/// The amount bound to the direction word at `at`: a number or a small-amount word among the
/// (at most three) words before it, units and "a"/"just"/"about" allowed between.
fn amount_before(w: &[String], at: usize) -> Option<i64> {
    for back in 1..=3 {
        let Some(i) = at.checked_sub(back) else { break };
        let word = w[i].as_str();
        if let Some(n) = amount(word) {
            return Some(n);
        }
        if SMALL.contains(&word) {
            return Some(1);
        }
        if !(UNITS.contains(&word) || matches!(word, "a" | "just" | "about" | "only" | "one")) {
            break;
        }
    }
    None
}

/// The direction a verb or particle of direction gives ("up", "lower", "increase").
fn verb_sign(word: &str) -> Option<i64> {
    if UP_VERBS.contains(&word) {
        Some(1)
    } else if DOWN_VERBS.contains(&word) {
        Some(-1)
    } else {
        None
    }
}

/// The signed step `text` asks for from a remembered number, if any.
pub fn step(text: &str) -> Option<i64> {
    let w = words(text);
    // A comparative with its amount before it ("2 degrees cooler", "a touch higher", "5
    // percent more").
    for (i, word) in w.iter().enumerate() {
        let sign = if UP.contains(&word.as_str()) {
            1
        } else if DOWN.contains(&word.as_str()) {
            -1
        } else if matches!(word.as_str(), "more" | "less") {
            // *more*/*less* take their direction from a verb earlier in the clause.
            let verb = w[..i].iter().rev().take(6).find_map(|v| verb_sign(v));
            match (verb, word.as_str()) {
                (Some(s), _) => s,
                (None, "more") => 1,
                (None, _) => -1,
            }
        } else {
            continue;
        };
        if let Some(n) = amount_before(&w, i) {
            return Some(sign * n);
        }
    }
    // A verb of direction with its amount after it ("turn it up 5 more", "lower it 5 more",
    // "increase the leg support by one level", "zoom out one level"): a number followed by a
    // unit or *more*/*less*, or a small-amount word.
    for (i, word) in w.iter().enumerate() {
        // "zoom out" shows less detail: a lower zoom level; "zoom in" a higher one.
        let zoom = (i > 0 && w[i - 1] == "zoom")
            .then_some(match word.as_str() {
                "in" => Some(1),
                "out" => Some(-1),
                _ => None,
            })
            .flatten();
        let Some(sign) = verb_sign(word).or(zoom) else {
            continue;
        };
        let after: Vec<&str> = w[i + 1..].iter().take(6).map(String::as_str).collect();
        for (j, x) in after.iter().enumerate() {
            if let Some(n) = amount(x) {
                if after.get(j + 1).is_some_and(|u| UNITS.contains(u)) {
                    return Some(sign * n);
                }
                break;
            }
            if SMALL.contains(x) {
                return Some(sign);
            }
        }
    }
    None
}

/// `value` moved by `step`, kept within `range`.
pub fn apply(value: i64, step: i64, range: Option<(i64, i64)>) -> i64 {
    let v = value.saturating_add(step);
    match range {
        Some((lo, hi)) => v.clamp(lo, hi),
        None => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparatives_with_an_amount_are_steps() {
        assert_eq!(
            step("I want it just a touch higher than the setting that felt perfect"),
            Some(1)
        );
        assert_eq!(step("two centimeters higher would be even better"), Some(2));
        assert_eq!(step("make it 2 degrees cooler this time"), Some(-2));
        assert_eq!(step("give me a massage, but one level stronger"), Some(1));
        assert_eq!(step("make it 10 levels brighter"), Some(10));
        assert_eq!(step("And make it a bit brighter than that."), Some(1));
        assert_eq!(step("one level lower than last time"), Some(-1));
    }

    #[test]
    fn more_and_less_take_the_verb_direction() {
        assert_eq!(
            step("Open the window to what I like, about 5 percent more."),
            Some(5)
        );
        assert_eq!(step("lower it 5 more than the call setting"), Some(-5));
        assert_eq!(
            step("go back to my volume from March, but turn it up 5 more"),
            Some(5)
        );
        assert_eq!(step("turn the panel up one notch"), Some(1));
        assert_eq!(
            step("Restore my position, but increase the leg support by one level."),
            Some(1)
        );
        assert_eq!(
            step("I need to see the street names clearly, but zoom out one level."),
            Some(-1)
        );
        assert_eq!(step("zoom in a little"), Some(1));
        assert_eq!(step("Zoom in on the map."), None);
    }

    #[test]
    fn a_direction_word_alone_or_a_named_value_is_no_step() {
        assert_eq!(step("Turn on the warmer to my setting."), None);
        assert_eq!(step("Cool me down, but remember my rule."), None);
        assert_eq!(step("Set the temperature to 22."), None);
        assert_eq!(step("Use the max brightness."), None);
        assert_eq!(step("It's a bit warm outside."), None);
        assert_eq!(step("I like more light in the morning."), None);
    }

    #[test]
    fn a_step_stays_in_range() {
        assert_eq!(apply(84, 1, Some((0, 100))), 85);
        assert_eq!(apply(9, 3, Some((0, 10))), 10);
        assert_eq!(apply(1, -5, Some((0, 10))), 0);
        assert_eq!(apply(1, -5, None), -4);
    }
}
