//! Unit tests of the schema: loading, keys, values and typed details.

use super::*;

#[test]
fn every_embedded_detail_says_how_drivers_state_it() {
    let s = Schema::embedded();
    assert!(s.details().iter().all(|d| d.says.len() == 8), "eight each");
}

#[test]
fn embedded_schema_matches_carmem() {
    let s = Schema::embedded();
    assert_eq!(s.mains().len(), 4);
    assert_eq!(s.subs().len(), 11);
    assert_eq!(s.details().len(), 41);
    let t = s.detail(s.detail_by_key("preferred_temperature").unwrap());
    assert_eq!(t.cardinality, Cardinality::Single);
    assert_eq!(s.sub(t.sub).name, "Climate Control");
    assert!(t.attributes.iter().any(|a| a == "22 degree Celcius"));
    let c = s.detail(s.detail_by_key("favorite_cuisine").unwrap());
    assert_eq!(c.cardinality, Cardinality::Multiple);
}

#[test]
fn resolve_accepts_names_and_keys_of_subs_and_details() {
    let s = Schema::embedded();
    assert!(matches!(
        s.resolve("Climate Control"),
        Ok(CategoryRef::Sub(_))
    ));
    assert!(matches!(
        s.resolve("climate_control"),
        Ok(CategoryRef::Sub(_))
    ));
    assert!(matches!(
        s.resolve("preferred temperature"),
        Ok(CategoryRef::Detail(_))
    ));
    let err = s.resolve("Horoscope").unwrap_err().to_string();
    assert!(err.contains("Horoscope"), "{err}");
    assert_eq!(s.details_of(s.resolve("Music").unwrap()).len(), 4);
}

#[test]
fn free_values_map_to_the_known_value_they_name() {
    let s = Schema::embedded();
    let t = s.detail_by_key("preferred_temperature").unwrap();
    assert_eq!(
        s.canonical_attribute(t, "25 degrees Celsius"),
        Some("25 degree Celcius")
    );
    assert_eq!(
        s.canonical_attribute(t, "22 DEGREE celcius"),
        Some("22 degree Celcius")
    );
    assert_eq!(s.canonical_attribute(t, "26 degrees"), None);
    let d = s.detail_by_key("dietary_preferences").unwrap();
    assert_eq!(
        s.canonical_attribute(d, "vegetarian options"),
        Some("Vegetarian")
    );
    assert_eq!(s.canonical_attribute(d, "pescatarian"), None);
    let g = s.detail_by_key("favorite_genres").unwrap();
    assert_eq!(s.canonical_attribute(g, "jazz"), Some("Jazz"));
}

#[test]
fn the_vehicle_schema_loads_typed_with_its_calls() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/config/schemas/vehicle.toml");
    let s = Schema::load(Path::new(path)).unwrap();
    let h = s.detail(s.detail_by_key("seat_headrest_height").unwrap());
    assert_eq!((h.kind, h.range), (ValueKind::Integer, Some((0, 100))));
    let call = h.call.as_ref().unwrap();
    assert_eq!(call.function, "carcontrol_seat_set_headrest_height");
    assert_eq!(
        (call.argument.as_str(), call.selectors.clone()),
        ("value", vec!["seat".to_string()])
    );
    assert_eq!(
        s.detail_by_call("carcontrol_seat_set_headrest_height", "value"),
        Some(h.id)
    );
    let v = s.detail(s.detail_by_key("navigation_voice_mode").unwrap());
    assert_eq!(v.kind, ValueKind::Choice);
    assert_eq!(v.attributes, ["simple", "detailed", "mute"]);
    let f = s.detail(s.detail_by_key("hud_power").unwrap());
    assert_eq!(
        (f.kind, f.attributes.clone()),
        (
            ValueKind::Flag,
            vec![FLAG_ON.to_string(), FLAG_OFF.to_string()]
        )
    );
    assert!(s.detail_by_key("preferred_temperature").is_none());
    // Every setting says how drivers call it; CarMem's schema has no aliases.
    assert!(s.details().iter().all(|d| !d.aliases.is_empty()));
    assert!(h.aliases.iter().any(|p| p == "headrest"));
    assert!(Schema::embedded()
        .details()
        .iter()
        .all(|d| d.aliases.is_empty()));
}

#[test]
fn typed_details_are_checked() {
    let e = |d: &str| Schema::from_toml(&one_detail(d)).unwrap_err().to_string();
    let head = "[[main.sub.detail]]\nname = \"A\"\nkey = \"a\"\nvalues = \"single\"\n";
    assert!(e(&format!("{head}kind = \"integer\"\nmin = 1\n")).contains("needs both min and max"));
    assert!(e(&format!("{head}kind = \"integer\"\nmin = 5\nmax = 1\n")).contains("min above max"));
    assert!(e(&format!("{head}min = 1\nmax = 3\n")).contains("not kind"));
    assert!(e(&format!("{head}kind = \"flag\"\nattributes = [\"x\"]\n")).contains("flag"));
    assert!(e(&format!("{head}kind = \"choice\"\n")).contains("no attributes"));
    assert!(e(&format!("{head}function = \"f\"\n")).contains("function and argument"));
    // Value aliases name listed values only, once each, and only where values are listed.
    let choice = format!("{head}kind = \"choice\"\nattributes = [\"inside\", \"outside\"]\n");
    assert!(
        e(&format!("{choice}value_aliases = {{ middle = [\"x\"] }}\n")).contains("does not list")
    );
    assert!(
        e(&format!("{choice}value_aliases = {{ inside = [\" \"] }}\n")).contains("empty alias")
    );
    assert!(e(&format!(
        "{choice}value_aliases = {{ inside = [\"x\"], outside = [\"X\"] }}\n"
    ))
    .contains("twice"));
    assert!(e(&format!(
        "{head}kind = \"flag\"\nvalue_aliases = {{ on = [\"x\"] }}\n"
    ))
    .contains("lists no values"));
    // Real names belong to free text, each given once.
    assert!(e(&format!("{choice}names = [\"x\"]\n")).contains("no free text"));
    assert!(e(&format!("{head}names = [\"Tesco\", \"tesco\"]\n")).contains("twice"));
    assert!(e(&format!("{head}names = [\"\"]\n")).contains("empty name"));
    let named = Schema::from_toml(&one_detail(&format!("{head}names = [\" Lidl \"]\n"))).unwrap();
    assert_eq!(named.details()[0].names, ["Lidl"]);
    // Example statements: each non-empty, each given once, trimmed.
    assert!(e(&format!(
        "{head}says = [\"I always fill up at Shell.\", \"i always fill up at shell.\"]\n"
    ))
    .contains("twice"));
    assert!(e(&format!("{head}says = [\" \"]\n")).contains("empty example statement"));
    let says = Schema::from_toml(&one_detail(&format!(
        "{head}says = [\" Shell, always. \"]\n"
    )))
    .unwrap();
    assert_eq!(says.details()[0].says, ["Shell, always."]);
    // Only a setting whose value is a name of the user's is a place.
    assert!(e(&format!("{choice}place = true\n")).contains("place = true"));
    let ok = Schema::from_toml(&one_detail(&format!(
        "{choice}value_aliases = {{ INSIDE = [\"recirculation\"] }}\n"
    )))
    .unwrap();
    assert_eq!(
        ok.details()[0].value_aliases,
        [("inside".to_string(), vec!["recirculation".to_string()])]
    );
}

fn one_detail(detail: &str) -> String {
    format!(
        "version = 1\n[[main]]\nname = \"M\"\nkey = \"m\"\n[[main.sub]]\nname = \"S\"\nkey = \"s\"\n{detail}"
    )
}

#[test]
fn invalid_schemas_are_rejected_with_the_reason() {
    let dup = one_detail(
        "[[main.sub.detail]]\nname = \"A\"\nkey = \"a\"\nvalues = \"single\"\n\
         [[main.sub.detail]]\nname = \"B\"\nkey = \"a\"\nvalues = \"single\"\n",
    );
    let e = Schema::from_toml(&dup).unwrap_err().to_string();
    assert!(e.contains("duplicate key \"a\""), "{e}");

    let empty = one_detail("[[main.sub.detail]]\nname = \" \"\nkey = \"a\"\nvalues = \"single\"\n");
    let e = Schema::from_toml(&empty).unwrap_err().to_string();
    assert!(e.contains("empty name"), "{e}");

    let kind = one_detail("[[main.sub.detail]]\nname = \"A\"\nkey = \"a\"\nvalues = \"some\"\n");
    let e = Schema::from_toml(&kind).unwrap_err().to_string();
    assert!(e.contains("some"), "{e}");

    let badkey =
        one_detail("[[main.sub.detail]]\nname = \"A\"\nkey = \"A b\"\nvalues = \"single\"\n");
    assert!(Schema::from_toml(&badkey).is_err());

    let dupattr = one_detail(
        "[[main.sub.detail]]\nname = \"A\"\nkey = \"a\"\nvalues = \"single\"\nattributes = [\"x\", \"X\"]\n",
    );
    let e = Schema::from_toml(&dupattr).unwrap_err().to_string();
    assert!(e.contains("twice"), "{e}");
}
