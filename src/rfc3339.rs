//! RFC 3339 date-times (`2025-03-10T08:00:00Z`, `2025-03-10T08:00:00+01:00`), read into and
//! written from [`Millis`]: when a conversation's words were said. No calendar library: the
//! proleptic Gregorian day count is a few lines.

use crate::pref::Millis;

/// Days from 1970-01-01 to the given civil date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn num(s: &str, what: &str) -> Result<i64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{what} {s:?} is not a number"));
    }
    s.parse()
        .map_err(|_| format!("{what} {s:?} is not a number"))
}

/// Parses `YYYY-MM-DDTHH:MM[:SS[.fff]](Z|±HH:MM)` (a space may stand for `T`; seconds may be
/// left out). The error says what was wrong.
pub fn parse(text: &str) -> Result<Millis, String> {
    let t = text.trim();
    let bad = |why: &str| Err(format!("time {text:?} is not RFC 3339 ({why})"));
    if t.len() < 16 || !t.is_char_boundary(10) || !t.is_char_boundary(11) {
        return bad("expected YYYY-MM-DDTHH:MM:SSZ");
    }
    let (date, rest) = (&t[..10], &t[11..]);
    if !matches!(&t[10..11], "T" | "t" | " ") {
        return bad("expected T between date and time");
    }
    let dp: Vec<&str> = date.split('-').collect();
    let [y, mo, d] = dp.as_slice() else {
        return bad("expected YYYY-MM-DD");
    };
    let (y, mo, d) = (num(y, "year")?, num(mo, "month")?, num(d, "day")?);
    let (clock, offset_ms) = if let Some(c) = rest.strip_suffix(['Z', 'z']) {
        (c, 0)
    } else if let Some(i) = rest.rfind(['+', '-']) {
        let (c, off) = rest.split_at(i);
        let sign = if off.starts_with('-') { -1 } else { 1 };
        let Some((oh, om)) = off[1..].split_once(':') else {
            return bad("expected an offset ±HH:MM");
        };
        (
            c,
            sign * (num(oh, "offset")? * 60 + num(om, "offset")?) * 60_000,
        )
    } else {
        return bad("expected Z or an offset ±HH:MM");
    };
    let cp: Vec<&str> = clock.split(':').collect();
    let (h, mi, sec) = match cp.as_slice() {
        [h, m] => (num(h, "hour")?, num(m, "minute")?, 0.0),
        [h, m, s] => (
            num(h, "hour")?,
            num(m, "minute")?,
            s.parse::<f64>()
                .map_err(|_| format!("second {s:?} is not a number"))?,
        ),
        _ => return bad("expected HH:MM:SS"),
    };
    if !(1..=12).contains(&mo)
        || !(1..=31).contains(&d)
        || h > 23
        || mi > 59
        || !(0.0..61.0).contains(&sec)
    {
        return bad("a field is out of range");
    }
    let ms = days_from_civil(y, mo, d) * 86_400_000
        + (h * 3600 + mi * 60) * 1000
        + (sec * 1000.0).round() as i64
        - offset_ms;
    u64::try_from(ms)
        .map(Millis)
        .or_else(|_| bad("before 1970"))
}

/// The month (1-12) and day of the month (UTC) of a time.
pub fn month_day(t: Millis) -> (u32, u32) {
    let (_, m, d) = civil_from_days((t.0 / 1000) as i64 / 86_400);
    (m as u32, d as u32)
}

/// Formats as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
pub fn format(t: Millis) -> String {
    let secs = (t.0 / 1000) as i64;
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip_and_offsets_apply() {
        let t = parse("2025-03-10T08:00:00Z").unwrap();
        assert_eq!(t, Millis(1_741_593_600_000));
        assert_eq!(format(t), "2025-03-10T08:00:00Z");
        assert_eq!(parse("2025-03-10T09:00+01:00").unwrap(), t);
        assert_eq!(parse("2025-03-10 08:00Z").unwrap(), t);
        assert_eq!(
            format(parse("2024-02-29T23:59:59Z").unwrap()),
            "2024-02-29T23:59:59Z"
        );
        assert_eq!(month_day(t), (3, 10));
        assert_eq!(month_day(parse("2024-02-29T23:59:59Z").unwrap()), (2, 29));
    }

    #[test]
    fn bad_times_say_what_is_wrong() {
        assert!(parse("yesterday").unwrap_err().contains("RFC 3339"));
        assert!(parse("2025-13-10T08:00:00Z")
            .unwrap_err()
            .contains("out of range"));
        assert!(parse("2025-03-10T08:00:00").unwrap_err().contains("offset"));
    }
}
