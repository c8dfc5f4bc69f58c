//! Tolerant reading of fields (§14.36): numbers as strings, null as empty, dates in two
//! spellings, a question's options as labels.

use serde::Deserialize;
use serde::de::Deserializer;
use serde_json::Value;

/// Accepts an integer, a numeric string or null; anything else reads as `None` rather than
/// failing the whole object (hostile or sloppy servers, §14.36).
pub(crate) fn lenient_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let v = Option::<Value>::deserialize(d)?;
    Ok(match v {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    })
}

pub(crate) fn lenient_i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let v = Option::<Value>::deserialize(d)?;
    Ok(match v {
        Some(Value::Number(n)) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    })
}

/// Unix ms as an integer, or a whole float within range; anything else (a string, a
/// fraction, a value past the year 9999) reads as unknown rather than failing the object.
pub(super) fn lenient_ms<'de, D>(d: D) -> Result<Option<i64>, D::Error>
where
    D: Deserializer<'de>,
{
    /// Unix ms of 9999-12-31: a later deadline is no date.
    const LATEST_MS: f64 = 253_402_300_799_000.0;
    let value = Option::<Value>::deserialize(d)?;
    Ok(match value {
        Some(Value::Number(n)) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && f.fract() == 0.0 && f.abs() <= LATEST_MS)
                .map(|f| f as i64)
        }),
        _ => None,
    }
    .filter(|ms| ms.unsigned_abs() as f64 <= LATEST_MS))
}

pub(super) fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A question's options as their labels: each entry a plain string or (the production
/// shape) an object with a `label`; entries that are neither are skipped.
pub fn option_labels(options: &Value) -> Vec<String> {
    options
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|o| o.as_str().or_else(|| o.get("label")?.as_str()))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn labels<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(option_labels(&Value::deserialize(d)?))
}

/// A text field that a server may send as something else: a string stays as it is, null is
/// empty, anything else is kept as its compact JSON. One odd item must not fail the whole
/// page of a transcript backfill.
pub(super) fn text_or_json<'de, D>(d: D) -> Result<String, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    })
}

/// An id a server may send as a number.
pub(super) fn string_or_number<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(serde::de::Error::custom(format!(
            "expected a string id, got {other}"
        ))),
    }
}

/// A time a server may send as ms (number or digits) or as an RFC 3339 date; anything else
/// reads as 0 (unknown) rather than failing the item.
pub(super) fn unix_ms_or_date<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok().or_else(|| rfc3339_ms(s.trim())),
        _ => None,
    }
    .unwrap_or(0))
}

/// `2026-12-01T13:04:36.123Z` or `…+02:00` as Unix ms.
pub(super) fn rfc3339_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &s[19..];
    let mut ms = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        let scaled = format!("{:0<3}", &frac[..digits.min(3)]);
        ms = scaled.parse().ok()?;
        rest = &frac[digits..];
    }
    let offset_min = match rest {
        "Z" | "z" | "" => 0,
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let oh = rest.get(1..3)?.parse::<i64>().ok()?;
            let om = rest.get(4..6)?.parse::<i64>().ok()?;
            sign * (oh * 60 + om)
        }
    };
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + h) * 60 + mi - offset_min) * 60_000 + sec * 1000 + ms)
}
