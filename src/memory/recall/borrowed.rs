//! Category recall for a setting with nothing of its own remembered: what another setting's
//! remembered value says of it ([`Memory::switch_by_device`], [`Memory::by_quantity`]).

use super::super::condition::Situation;
use super::super::{typed, unnamed, Memory, MemoryError};
use super::Recalled;
use crate::pref::UserId;
use crate::schema::{CategoryRef, DetailId};

impl Memory {
    /// The newest of `others`' current values (category recall without borrowing) whose
    /// condition is not unmet and that `take` accepts (given the setting and the recalled
    /// value, it returns what the asked setting is then), returned as the evidence with `now` =
    /// what `take` gave.
    fn newest_borrowed(
        &self,
        user: &UserId,
        others: Vec<DetailId>,
        (text, situation): (&str, &Situation),
        take: impl Fn(DetailId, &Recalled) -> Option<String>,
    ) -> Result<Option<Recalled>, MemoryError> {
        let mut best: Option<Recalled> = None;
        for d in others {
            for r in self.category_values(user, CategoryRef::Detail(d), text, situation, false)? {
                if r.condition_met == Some(false) {
                    continue;
                }
                let Some(now) = take(d, &r) else {
                    continue;
                };
                if best
                    .as_ref()
                    .is_none_or(|b| r.preference.updated > b.preference.updated)
                {
                    best = Some(Recalled {
                        now: Some(now),
                        ..r
                    });
                }
            }
        }
        Ok(best)
    }

    /// A setting with nothing of its own remembered takes the newest value of its quantity
    /// ([`unnamed::quantity`]: the centre display's brightness, the HUD's) that was said
    /// without naming a device ("Set the brightness to 10.": [`unnamed::said_without_device`])
    /// and that it can hold ([`unnamed::fits`]), unless that value's condition is not met:
    /// extraction stored it under the closest setting of the quantity, which need not be the
    /// device the person was adjusting. It is returned as the evidence, with `now` = the value.
    /// A value said of a named device never carries over to another.
    pub(super) fn by_quantity(
        &self,
        user: &UserId,
        detail: DetailId,
        text: &str,
        situation: &Situation,
    ) -> Result<Option<Recalled>, MemoryError> {
        let to = self.schema.detail(detail);
        let others = unnamed::same_quantity(&self.schema, detail);
        self.newest_borrowed(user, others, (text, situation), |_, r| {
            let said = r.preference.sentences.last().map_or("", String::as_str);
            if !unnamed::said_without_device(&self.schema, said) {
                return None;
            }
            unnamed::fits(to, r.now.as_deref().unwrap_or(&r.preference.attribute))
        })
    }

    /// A switch with no value of its own remembered is on when a value of its device's
    /// settings is ([`typed::device_settings`]; "I usually keep the steering wheel heat at 9"
    /// says the wheel heating is on): the newest such value, unless its condition is not met,
    /// is returned as the evidence, with `now` = on, or the switch said now ("turn the wheel
    /// heat off"). Nothing is stored for the switch.
    pub(super) fn switch_by_device(
        &self,
        user: &UserId,
        switch: DetailId,
        text: &str,
        situation: &Situation,
    ) -> Result<Option<Recalled>, MemoryError> {
        let said = typed::named(self.schema.detail(switch), text);
        let now = said
            .first()
            .cloned()
            .unwrap_or_else(|| crate::schema::FLAG_ON.to_string());
        let devices = typed::device_settings(&self.schema, switch);
        self.newest_borrowed(user, devices, (text, situation), |d, r| {
            let value = r.now.as_deref().unwrap_or(&r.preference.attribute);
            typed::implies_on(self.schema.detail(d), value).then(|| now.clone())
        })
    }
}
