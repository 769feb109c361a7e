//! `glovebox eval polarity`: whether a value the user turns down is stored turned down.
//!
//! CarMem's maintenance questions say each entry's value again (`equal`: "Could you look for
//! high-end restaurants?") or turn it down (`negate`: "find restaurants that don't require
//! cash payment"). Each question whose words name the entry's value is run through
//! extraction's value step alone ([`Models::value_of`]: its category offered, as past the gate
//! and the offer decision), and what is stored is compared with what the negation rule
//! ([`values::turns_down`]) says of the same words. Until stop 54, where the rule turned the
//! value down, the model was given both the value and its negation to choose from, and
//! `model_chose` counted how it chose (the measure that moved the call to the rule); since then
//! a value turned down is offered only as its negation, so `model_chose` stays 0 unless some
//! path offers both again.

use serde_json::{json, Value};

use super::carmem::{EvalError, EvalUser};
use crate::memory::values::{self, NOT};
use crate::memory::Models;

/// Counts of one kind of question.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    /// Questions whose words name the entry's value (the model is offered it).
    named: usize,
    /// Of those, the negation rule turns the value down.
    rule_not: usize,
    /// What is stored: the value turned down, the value, anything else or nothing.
    stored_not: usize,
    stored_value: usize,
    stored_other: usize,
    /// Where the model chose between the value and its negation: how often the negation.
    chose: usize,
    chose_not: usize,
}

impl Tally {
    fn json(&self) -> Value {
        let r = super::cases::ratio;
        json!({
            "named": self.named,
            "rule_turns_down": r(self.rule_not, self.named),
            "stored_turned_down": r(self.stored_not, self.named),
            "stored_value": r(self.stored_value, self.named),
            "stored_other_or_nothing": r(self.stored_other, self.named),
            "model_chose": self.chose,
            "model_chose_turned_down": r(self.chose_not, self.chose),
        })
    }
}

/// Runs every `equal` and `negate` question of the users; one JSON line per named question
/// to `rows` when given.
pub fn run(
    models: &Models,
    users: &[EvalUser],
    mut rows: Option<&mut dyn std::io::Write>,
) -> Result<Value, EvalError> {
    let (mut equal, mut negate) = (Tally::default(), Tally::default());
    for e in users.iter().flat_map(|u| &u.entries) {
        for (question, turned, t) in [
            (&e.equal, false, &mut equal),
            (&e.negate, true, &mut negate),
        ] {
            let (stored, choices) = models.value_of(question, e.detail)?;
            let is = |v: &str, w: &str| v.eq_ignore_ascii_case(w);
            let not_x = format!("{NOT}{}", e.attribute);
            let offers_value = choices.iter().any(|c| is(c, &e.attribute));
            let offers_not = choices.iter().any(|c| is(c, &not_x));
            if !(offers_value || offers_not) {
                continue;
            }
            t.named += 1;
            let rule = values::turns_down(question, &e.attribute);
            t.rule_not += usize::from(rule);
            let got_not = stored.iter().any(|v| is(v, &not_x));
            let got_value = stored.iter().any(|v| is(v, &e.attribute));
            match (got_not, got_value) {
                (true, _) => t.stored_not += 1,
                (false, true) => t.stored_value += 1,
                _ => t.stored_other += 1,
            }
            if offers_value && offers_not && (got_not || got_value) {
                t.chose += 1;
                t.chose_not += usize::from(got_not);
            }
            if let Some(w) = rows.as_mut() {
                let row = json!({"question": question, "turns_down": turned,
                    "value": e.attribute, "rule": rule, "stored": stored, "choices": choices});
                writeln!(w, "{row}").map_err(EvalError::Write)?;
            }
        }
    }
    Ok(json!({"equal": equal.json(), "negate": negate.json()}))
}
