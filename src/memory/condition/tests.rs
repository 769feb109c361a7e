use super::*;

#[test]
fn finds_a_leading_clause() {
    assert_eq!(
        find("When I drive through the industrial district, I always switch air circulation to inside to avoid the fumes.").as_deref(),
        Some("when I drive through the industrial district")
    );
    assert_eq!(
        find("If it's raining I want the wipers on auto.").as_deref(),
        Some("if it's raining")
    );
}

#[test]
fn finds_a_trailing_clause_and_a_time_phrase() {
    assert_eq!(
        find("Set the seat heating to 3 when it is below 5 degrees.").as_deref(),
        Some("when it is below 5 degrees")
    );
    assert_eq!(
        find("Green is too dark for me at night, I prefer white.").as_deref(),
        Some("at night")
    );
    assert_eq!(
        find("I want the brightness maxed out at 10 during the day.").as_deref(),
        Some("during the day")
    );
    assert_eq!(
        find("In the morning I like the news on.").as_deref(),
        Some("in the morning")
    );
}

#[test]
fn no_condition_in_plain_or_polite_preferences() {
    assert_eq!(find("I prefer the panel in white."), None);
    assert_eq!(find("Set it to 22 if you can."), None);
    assert_eq!(find("I always like jazz, if possible."), None);
    assert_eq!(find("At 10 I need the headrest up."), None);
    assert_eq!(find("When is dinner?"), None);
    assert_eq!(
        find("I always keep the mirror heating on when I drive."),
        None
    );
    assert_eq!(
        find("When I drive at night, the mirror glare bothers me.").as_deref(),
        Some("when I drive at night")
    );
}

#[test]
fn a_clause_that_names_no_situation_sets_no_condition() {
    assert_eq!(find("We'll keep the AC at 21 while we're at it."), None);
    assert_eq!(
        find("I can find a new route with this map if I need to."),
        None
    );
    assert_eq!(find("Keep the volume at 10 unless I say otherwise."), None);
    assert_eq!(
        find("Keep the volume at 10 unless I say so at night.").as_deref(),
        Some("unless I say so at night")
    );
}

#[test]
fn no_condition_in_concessions_alternatives_or_the_request_itself() {
    assert_eq!(find("Avoid traffic even if it takes longer."), None);
    assert_eq!(
        find("Find parking, it doesn't matter if it's covered or not."),
        None
    );
    assert_eq!(
        find("Avoid BiteBox Burgers when searching for fast food options."),
        None
    );
    assert_eq!(
        find("Let's not listen to that station anymore when I ask for news updates."),
        None
    );
    assert_eq!(find("Avoid highways during navigation."), None);
    assert_eq!(
        find("Hey, while we're on the road, can you find a charger?"),
        None
    );
    // A place or a time is still a condition.
    assert_eq!(
        find("When I drive through the tunnel, switch to inside air.").as_deref(),
        Some("when I drive through the tunnel")
    );
    assert_eq!(
        find("I want it warmer if it is below 5 degrees.").as_deref(),
        Some("if it is below 5 degrees")
    );
}

#[test]
fn time_conditions_follow_the_clock() {
    let at = |h| Situation {
        local_time: Some((h, 0)),
        ..Situation::default()
    };
    assert_eq!(judge("at night", "", &at(22)), Verdict::Decided(true));
    assert_eq!(judge("at night", "", &at(3)), Verdict::Decided(true));
    assert_eq!(judge("at night", "", &at(14)), Verdict::Decided(false));
    assert_eq!(judge("in the morning", "", &at(8)), Verdict::Decided(true));
    assert_eq!(judge("during the day", "", &at(12)), Verdict::Decided(true));
    assert_eq!(
        judge("at night", "", &Situation::default()),
        Verdict::BySimilarity
    );
    assert_eq!(
        judge("when I drive at night", "", &at(23)),
        Verdict::Decided(true)
    );
    assert_eq!(
        judge("at night on the motorway", "", &at(23)),
        Verdict::BySimilarity
    );
    assert_eq!(
        judge("at night on the motorway", "", &at(13)),
        Verdict::Decided(false)
    );
}

#[test]
fn thresholds_compare_numbers() {
    let facts = |f: &str| Situation {
        facts: vec![f.to_string()],
        ..Situation::default()
    };
    let c = "when it is above 25 degrees";
    assert_eq!(
        judge(c, "", &facts("outside 28 degrees")),
        Verdict::Decided(true)
    );
    assert_eq!(
        judge(c, "", &facts("outside 18 degrees")),
        Verdict::Decided(false)
    );
    assert_eq!(
        judge(
            "when it's below 5 degrees",
            "it's 2 degrees out",
            &Situation::default()
        ),
        Verdict::Decided(true)
    );
    assert_eq!(judge(c, "", &facts("raining")), Verdict::BySimilarity);
    // The number in the condition's unit, not the first number said.
    assert_eq!(
        judge(c, "set the fan to 2", &facts("outside 28 degrees")),
        Verdict::Decided(true)
    );
}

#[test]
fn other_conditions_go_to_similarity() {
    assert_eq!(
        judge(
            "when I pick up Aunt May",
            "we're getting Aunt May",
            &Situation::default()
        ),
        Verdict::BySimilarity
    );
}

#[test]
fn a_purpose_for_the_others_in_the_car_is_a_condition_the_speakers_own_is_not() {
    assert_eq!(
        find("Okay Dad, I'll raise the radio to 70 so you can follow the game.").as_deref(),
        Some("so you can follow the game")
    );
    assert_eq!(
        find("Put the seat heating on 2 so that we don't freeze on the ferry.").as_deref(),
        Some("so that we don't freeze on the ferry")
    );
    // The speaker's own reason always holds; a result is no purpose; "so" opening the
    // sentence is a discourse word.
    assert_eq!(
        find("I keep the HUD high so I can see over the bonnet."),
        None
    );
    assert_eq!(find("We left early, so you have time to rest."), None);
    assert_eq!(find("So we can go with 21 degrees then."), None);
    assert_eq!(
        find("I've changed my plans, so we won't be needing the heated seats."),
        None
    );
}
