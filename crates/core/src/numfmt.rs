//! Decimal text for `f64` without core's float formatter.
//!
//! `format!("{x}")` and `format!("{x:.2}")` link the standard library's Grisu/Dragon4
//! formatter (~11 kB of wasm with its tables, docs/size.md), although the page already carries
//! a shortest-digits float printer: serde_json's (the `zmij` crate). [`shortest`] takes the digit
//! count from that printer and rounds exactly (big integers) to it; [`fixed`] rounds exactly in
//! integers. Both give the same text as `format!`, which the tests check.

use serde_json::Number;

/// `format!("{x}")`: the shortest digits that read back as `x` (the closest such when there
/// are several, the upper on a tie), never in exponent form (`0.1`, `5`, `-0`, `1000000`, `NaN`, `inf`).
pub fn shortest(x: f64) -> String {
    if let Some(s) = non_finite(x) {
        return s;
    }
    let mut out = String::new();
    if x.is_sign_negative() {
        out.push('-');
    }
    if x == 0.0 {
        out.push('0');
        return out;
    }
    // serde_json prints the shortest round-tripping digits (`d[.ddd][e[-]x]`); only their
    // count is used: among several candidates of that length `Display` takes the closest, which
    // is `x` rounded exactly to that many significant digits (ties up).
    let printed = Number::from_f64(x.abs())
        .map(|n| n.to_string())
        .unwrap_or_default();
    let mantissa = printed.split(['e', 'E']).next().unwrap_or("");
    let significant = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .skip_while(|&b| b == b'0')
        .count();
    let significant = significant.max(1);
    let (m, e) = decompose(x);
    // |x| = digits × 10^k exactly.
    let (digits, mut k) = if e >= 0 {
        (big_times(u128::from(m), 2, e as u32), 0i64)
    } else {
        (big_times(u128::from(m), 5, (-e) as u32), i64::from(e))
    };
    let mut head = digits.clone();
    if digits.len() > significant {
        let (h, tail) = digits.split_at(significant);
        k += tail.len() as i64;
        let half = tail.cmp(&format!("5{}", "0".repeat(tail.len() - 1)));
        head = h.to_string();
        // A tie goes up, as core's Grisu/Dragon4 shortest mode does.
        if half.is_ge() {
            head = increment(&head);
            if head.len() > significant {
                head.pop();
                k += 1;
            }
        }
    }
    let trimmed = head.trim_end_matches('0');
    k += (head.len() - trimmed.len()) as i64;
    let digits = trimmed;
    // Value = 0.digits × 10^point.
    let len = digits.len() as i64;
    let point = len + k;
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(digits);
    } else if point >= len {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (point - len) as usize));
    } else {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    }
    out
}

/// A decimal digit string plus one (`"129"` → `"130"`, `"99"` → `"100"`).
fn increment(digits: &str) -> String {
    let mut bytes = digits.as_bytes().to_vec();
    for b in bytes.iter_mut().rev() {
        if *b == b'9' {
            *b = b'0';
        } else {
            *b += 1;
            return String::from_utf8_lossy(&bytes).into_owned();
        }
    }
    format!("1{}", String::from_utf8_lossy(&bytes))
}

/// `|x| = m × 2^e` exactly (`x` finite).
fn decompose(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let exp_bits = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if exp_bits == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp_bits - 1075)
    }
}

/// `format!("{x:.prec$}")` for `prec` up to 9: the exact binary value of `x` rounded to `prec`
/// decimals, ties to even.
pub fn fixed(x: f64, prec: u32) -> String {
    if let Some(s) = non_finite(x) {
        return s;
    }
    let prec = prec.min(9);
    let (m, e) = decompose(x);
    let scaled = u128::from(m) * 10u128.pow(prec);
    let digits = if e >= 0 {
        big_times(scaled, 2, e as u32)
    } else {
        let sh = (-e) as u32;
        let q = if sh >= 128 {
            0 // scaled < 2^87, far below half a unit
        } else {
            let q = scaled >> sh;
            let r = scaled & ((1u128 << sh) - 1);
            let half = 1u128 << (sh - 1);
            if r > half || (r == half && q & 1 == 1) {
                q + 1
            } else {
                q
            }
        };
        q.to_string()
    };
    let prec = prec as usize;
    let digits = format!("{digits:0>width$}", width = prec + 1);
    let mut out = String::new();
    if x.is_sign_negative() {
        out.push('-');
    }
    let (int_part, frac_part) = digits.split_at(digits.len() - prec);
    out.push_str(int_part);
    if prec > 0 {
        out.push('.');
        out.push_str(frac_part);
    }
    out
}

fn non_finite(x: f64) -> Option<String> {
    if x.is_nan() {
        Some("NaN".into())
    } else if x.is_infinite() {
        Some(if x < 0.0 { "-inf" } else { "inf" }.into())
    } else {
        None
    }
}

/// The decimal digits of `n × factor^count` (`factor` small), with base-10^9 limbs (least
/// significant first).
fn big_times(n: u128, factor: u64, count: u32) -> String {
    const BASE: u64 = 1_000_000_000;
    let mut limbs: Vec<u64> = Vec::new();
    let mut rest = n;
    while rest > 0 {
        limbs.push((rest % u128::from(BASE)) as u64);
        rest /= u128::from(BASE);
    }
    for _ in 0..count {
        let mut carry = 0;
        for limb in &mut limbs {
            let v = *limb * factor + carry;
            *limb = v % BASE;
            carry = v / BASE;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    let mut out = limbs.last().map(|l| l.to_string()).unwrap_or_default();
    for limb in limbs.iter().rev().skip(1) {
        out.push_str(&format!("{limb:09}"));
    }
    if out.is_empty() {
        out.push('0');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SAMPLES: [f64; 25] = [
        0.0,
        -0.0,
        0.1,
        0.5,
        1.0,
        5.0,
        2.5,
        0.25,
        0.125,
        1.005,
        10.4,
        1e16,
        1e21,
        1e22,
        1.5e300,
        1e-7,
        5e-324,
        123456.789,
        0.3,
        2.675,
        f64::MAX,
        f64::MIN_POSITIVE,
        -7.25,
        1e15,
        140349218985427.63, // exactly …427.625: a tie between two shortest candidates
    ];

    #[test]
    fn samples_match_format() {
        for x in SAMPLES
            .into_iter()
            .chain([f64::NAN, f64::INFINITY, f64::NEG_INFINITY])
        {
            assert_eq!(shortest(x), format!("{x}"), "{x:e}");
            for p in 0..=9 {
                assert_eq!(
                    fixed(x, p),
                    format!("{x:.p$}", p = p as usize),
                    "{x:e} .{p}"
                );
            }
        }
    }

    #[test]
    fn durations_and_speeds_match_format() {
        for n in (0..200_000u64).chain((0..2_000).map(|i| i * 1_234_567)) {
            for (scale, p) in [(1e3, 1), (1e6, 2), (1e9, 3)] {
                let x = n as f64 / scale;
                assert_eq!(
                    fixed(x, p),
                    format!("{x:.p$}", p = p as usize),
                    "{n}/{scale}"
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn any_float_matches_format(bits in any::<u64>(), p in 0u32..=9) {
            let x = f64::from_bits(bits);
            prop_assert_eq!(shortest(x), format!("{x}"));
            prop_assert_eq!(fixed(x, p), format!("{x:.p$}", p = p as usize));
        }

        #[test]
        fn short_decimals_match_format(n in 0u64..10_000_000, scale in 0u32..12) {
            let x = n as f64 / 10f64.powi(scale as i32);
            prop_assert_eq!(shortest(x), format!("{x}"));
        }
    }
}
