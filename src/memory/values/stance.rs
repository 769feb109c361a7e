//! A stance the user turns down: a choice category whose value `Yes` says the category holds
//! ("Need for Handicapped Accessible Parking": Yes) is never said by that word, so the
//! negation rule ([`super::turns_down`]) cannot read it on the value. It reads it on the words
//! that name the stance ([`stance_words`]): "I don't need handicapped parking anymore", "no
//! need for the green options" turn the stance down; so do its words said as what the driver
//! is not doing ("I'm not paying extra for the green stuff"). In a choice of two values, the
//! one turned down says the other ([`other_of_two`]: "the market, not the supermarket").

use super::{
    aversive, indifferent_values, named_values_among, stems, turns_down, turns_down_known, NOT,
    WEAK_WORDS,
};
use crate::schema::{Cardinality, DetailId, Schema, ValueKind};

/// The value by which a choice category says it holds.
const STANCE: &str = "Yes";

/// The words that name a category's stance: the words of its name after the head it opens
/// with ("Need for", "Preference for", "Willingness to"), that no other category of the
/// schema has in its name ("handicapped", "accessible"; "covered"; "security"; "pay",
/// "extra", "green"). Empty when the name has none of its own.
fn stance_words(schema: &Schema, detail: DetailId) -> Vec<String> {
    let name = &schema.detail(detail).name;
    let words = stems(name);
    // After the first weak word: what the stance is about, not the head ("need", "preference").
    let from = words
        .iter()
        .position(|w| WEAK_WORDS.contains(&w.as_str()))
        .map_or(0, |i| i + 1);
    let others: Vec<String> = schema
        .details()
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != detail.index())
        .flat_map(|(_, d)| stems(&d.name))
        .collect();
    words[from..]
        .iter()
        .filter(|w| !WEAK_WORDS.contains(&w.as_str()) && !others.contains(w))
        .cloned()
        .collect()
}

/// The words with the form each takes after "not" as a verb ("pay": "I'm not paying extra for
/// it"), "-ing" on the word or on it without a last "e" ("use": "using"): a stance is often
/// turned down as what the driver is not doing.
fn with_ing(words: &[String]) -> Vec<String> {
    words
        .iter()
        .flat_map(|w| {
            let ing = format!("{}ing", w.strip_suffix('e').unwrap_or(w));
            [w.clone(), ing]
        })
        .collect()
}

/// The value to store when the sentence turns down the stance of a choice category with a
/// `Yes` value ([`STANCE`]) without naming any value: the one other value that takes a stance
/// ("No (cheapest prefered)" of *Willingness to Pay Extra for Green Fuel*), else `not Yes`.
/// `None` when the category has no such value, is itself an aversion ("Willingness to Take
/// Longer Route to Avoid Traffic": "avoid traffic" states it), or the sentence turns none of its
/// stance words down.
pub fn stance_turned_down(schema: &Schema, detail: DetailId, sentence: &str) -> Option<String> {
    let d = schema.detail(detail);
    if d.kind != ValueKind::Choice || aversive(&d.name) {
        return None;
    }
    let stance = d
        .attributes
        .iter()
        .find(|a| a.eq_ignore_ascii_case(STANCE))?;
    // Any one of them turned down turns the stance down (`turns_down` reads each word of a
    // value on its own).
    let words = stance_words(schema, detail);
    if words.is_empty() || !turns_down(sentence, &with_ing(&words).join(" ")) {
        return None;
    }
    // Not a value that says the stance does not matter: "avoid covered parking, I prefer the
    // open air" is no shrug.
    let indifferent = indifferent_values(schema, detail);
    let mut others = d
        .attributes
        .iter()
        .filter(|a| *a != stance && !indifferent.contains(&a.as_str()));
    Some(match (others.next(), others.next()) {
        (Some(one), None) => one.clone(),
        _ => format!("{NOT}{stance}"),
    })
}

/// What the user has in a single-value choice category whose value they turn down in
/// `evidence` (of the values they name, `named`): another value they name, by fewer of its
/// words ("We get our veg from the farm shop, not the supermarket"); empty when none.
pub fn named_instead(
    schema: &Schema,
    detail: DetailId,
    (sentences, evidence): (&[String], &str),
    named: &[&str],
) -> Vec<String> {
    named_values_among(schema, detail, sentences, |v| !named.contains(&v))
        .into_iter()
        .filter(|v| !aversive(v) && !turns_down_known(schema, detail, evidence, v))
        .map(str::to_string)
        .collect()
}

/// The other value of a single-value choice category of two values, neither of which says the
/// thing does not matter ([`indifferent_values`]), for the one the user turns down (`turned`,
/// as the schema spells it): "the market, not the supermarket" buys at *Local Markets/Farms*,
/// though "market" is no word its value opens with; "I never pay with cash" pays by card.
/// `None` for any other category or value.
pub fn other_of_two(schema: &Schema, detail: DetailId, turned: &str) -> Option<String> {
    let d = schema.detail(detail);
    let two = d.kind == ValueKind::Choice
        && d.cardinality == Cardinality::Single
        && indifferent_values(schema, detail).is_empty();
    match d.attributes.as_slice() {
        [a, b] if two && turned == a.as_str() => Some(b.clone()),
        [a, b] if two && turned == b.as_str() => Some(a.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(schema: &Schema, k: &str) -> DetailId {
        schema.detail_by_key(k).unwrap()
    }

    #[test]
    fn stance_words_are_the_names_own() {
        let s = Schema::embedded();
        let w = stance_words(&s, key(&s, "need_for_handicapped_accessible_parking"));
        assert!(w.contains(&"handicapped".to_string()), "{w:?}");
        assert!(!w.contains(&"need".to_string()) && !w.contains(&"parking".to_string()));
        assert_eq!(
            stance_words(&s, key(&s, "preference_for_covered_parking")),
            ["covered"]
        );
        assert_eq!(
            stance_words(&s, key(&s, "preference_for_parking_with_security")),
            ["security"]
        );
    }

    #[test]
    fn a_stance_turned_down_is_its_other_value_or_not_yes() {
        let s = Schema::embedded();
        let hc = key(&s, "need_for_handicapped_accessible_parking");
        let green = key(&s, "willingness_to_pay_extra_for_green_fuel");
        let traffic = key(&s, "willingness_to_take_longer_route_to_avoid_traffic");
        let down = |d, t: &str| stance_turned_down(&s, d, t);
        assert_eq!(
            down(hc, "I don't need handicapped parking anymore.").as_deref(),
            Some("not Yes")
        );
        assert_eq!(
            down(hc, "Find standard parking, no need for handicapped access.").as_deref(),
            Some("not Yes")
        );
        assert_eq!(down(hc, "Locate parking with handicapped access."), None);
        assert_eq!(
            down(green, "I'm not interested in paying extra for green fuel.").as_deref(),
            Some("No (cheapest prefered)")
        );
        assert_eq!(
            down(
                green,
                "Not paying a dime more per gallon for the green kind, ever."
            )
            .as_deref(),
            Some("No (cheapest prefered)")
        );
        assert_eq!(down(green, "Find stations with green fuel options."), None);
        assert_eq!(
            down(green, "I don't mind paying a bit more for green fuel."),
            None
        );
        assert_eq!(
            down(
                key(&s, "preference_for_parking_with_security"),
                "Park anywhere, no security needed."
            )
            .as_deref(),
            Some("not Yes")
        );
        // An aversion's own "avoid" states the stance.
        assert_eq!(
            down(traffic, "Avoid traffic even if it takes longer."),
            None
        );
    }

    #[test]
    fn the_other_of_two_is_the_one_not_turned_down() {
        let s = Schema::embedded();
        let other = |k: &str, v: &str| other_of_two(&s, key(&s, k), v);
        assert_eq!(
            other(
                "preference_for_local_markets_farms_or_supermarket",
                "Supermarket"
            )
            .as_deref(),
            Some("Local Markets/Farms")
        );
        assert_eq!(
            other("preferred_payment_method", "Cash").as_deref(),
            Some("Card")
        );
        // Of three there is no one other; nor beside a value of not minding.
        assert_eq!(other("fan_speed_preferences", "High"), None);
        assert_eq!(other("preference_for_covered_parking", "Yes"), None);
        // Two stances beside a value of not minding are a scale of three, not a choice of two.
        assert_eq!(other("price_sensitivity_for_fuel", "Rather cheapest"), None);
    }
}
