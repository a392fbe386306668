//! Decimal text without the standard library's float formatter (`format!("{x:.2}")` links
//! ~11 kB of Grisu/Dragon4 and tables into the page, docs/size.md).
//!
//! - [`fixed`]: an integer quantity in a smaller unit shown in a larger one (nanoseconds as
//!   `10.41ms`, milliseconds as `0.80 s`), computed in integers;
//! - [`plain`]: a backoff's `factor` or `jitter` (`0.1`, `5`), from serde_json's shortest
//!   printer, which the page links anyway.

/// `a / b` rounded to the nearest integer, a tie to the even one.
fn div_round_even(a: u128, b: u128) -> u128 {
    let (q, r) = (a / b, a % b);
    if 2 * r > b || (2 * r == b && q % 2 == 1) {
        q + 1
    } else {
        q
    }
}

/// `n / 10^p` with `d` digits after the point (`d ≤ p`, `1 ≤ p ≤ 19`): `fixed(10_412_345, 6, 2)` is
/// `"10.41"`, `fixed(800, 3, 2)` is `"0.80"`.
///
/// The digits are those of the nearest `d`-digit decimal. A value exactly halfway between two
/// (`10.415`) is shown the way the float formatting this replaces showed it, so that no
/// narration or label changes: `format!("{:.d$}", n as f64 / 10^p)` rounds the `f64` nearest
/// to the value, which lies above or below the halfway point (or on it, then ties go to even).
/// This computes that `f64` exactly in integers (`n` rounded to 53 bits, then the quotient
/// rounded to 53 bits, ties to even as IEEE 754 does) and rounds it.
pub fn fixed(n: u64, p: u32, d: u32) -> String {
    let p = p.clamp(1, 19);
    let d = d.min(p);
    // `n as f64`: `n` rounded to 53 significant bits.
    let bits = 64 - n.leading_zeros();
    let a: u128 = if bits <= 53 {
        u128::from(n)
    } else {
        let s = bits - 53;
        div_round_even(u128::from(n), 1 << s) << s
    };
    let den = 10u128.pow(p);
    let scaled = if a == 0 {
        0
    } else {
        // The quotient as a double: `m × 2^-s` with `2^52 ≤ m < 2^53` (before rounding).
        let quotient = |s: i32| {
            if s >= 0 {
                (a << s) / den
            } else {
                a / (den << -s)
            }
        };
        let mut s: i32 = 0;
        loop {
            let q = quotient(s);
            if q < 1 << 52 {
                s += 1;
            } else if q >= 1 << 53 {
                s -= 1;
            } else {
                break;
            }
        }
        let ten_d = 10u128.pow(d);
        if s >= 0 {
            let m = div_round_even(a << s, den);
            div_round_even(m * ten_d, 1 << s)
        } else {
            let m = div_round_even(a, den << -s);
            (m << -s) * ten_d
        }
    };
    // Printed as `u64`s (no `u128` formatting code in the page): with `p ≥ 1` the whole part
    // is below 2^64 / 10 + 1, and the fraction below 10^19.
    let unit = 10u128.pow(d);
    let whole = u64::try_from(scaled / unit).unwrap_or(u64::MAX);
    if d == 0 {
        return whole.to_string();
    }
    let frac = u64::try_from(scaled % unit).unwrap_or(0);
    format!("{whole}.{frac:0width$}", width = d as usize)
}

/// A finite `f64` in plain decimal notation with no needless digits (`0.1`, `5`, `0.000001`):
/// serde_json's shortest round-tripping digits, written out without an exponent. For the
/// decimals the language accepts (at most 6 digits after the point, at most 1000) these are
/// exactly the digits written, normalised. `NaN` and the infinities read `NaN`, `inf`, `-inf`.
pub fn plain(x: f64) -> String {
    let Some(n) = serde_json::Number::from_f64(x) else {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    };
    // `[-]d[.ddd][e[-]x]`.
    let printed = n.to_string();
    let (negative, printed) = match printed.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, printed.as_str()),
    };
    let (mantissa, exp) = match printed.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().unwrap_or(0)),
        None => (printed, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int}{frac}");
    let significant = all.trim_start_matches('0');
    // Value = 0.digits × 10^point.
    let point = int.len() as i64 + exp - (all.len() - significant.len()) as i64;
    let digits = significant.trim_end_matches('0');
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if digits.is_empty() {
        out.push('0');
    } else if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(digits);
    } else if point as usize >= digits.len() {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
    } else {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The float formatting `fixed` replaces, as the oracle (tests only: not in the page).
    fn old(n: u64, p: u32, d: u32) -> String {
        format!("{:.*}", d as usize, n as f64 / 10f64.powi(p as i32))
    }

    #[test]
    fn fixed_is_the_old_float_text() {
        assert_eq!(fixed(10_412_345, 6, 2), "10.41");
        assert_eq!(fixed(800, 3, 2), "0.80");
        assert_eq!(fixed(1_500, 3, 1), "1.5");
        assert_eq!(fixed(0, 9, 3), "0.000");
        assert_eq!(fixed(12_345, 3, 0), "12");
        // Halfway: 10.125 is a double (ties to even), 10.415 lies below its double.
        assert_eq!(fixed(10_125_000, 6, 2), old(10_125_000, 6, 2));
        assert_eq!(fixed(10_415_000, 6, 2), old(10_415_000, 6, 2));
        // Every duration the µs and ms branches of `fmt_duration` show, near their ties.
        for n in 0..200_000u64 {
            assert_eq!(fixed(n, 3, 1), old(n, 3, 1), "{n}");
        }
        for k in 0..100_000u64 {
            let n = k * 5_000 + (k % 3);
            assert_eq!(fixed(n, 6, 2), old(n, 6, 2), "{n}");
            let n = k * 5_000;
            assert_eq!(fixed(n, 6, 2), old(n, 6, 2), "{n}");
        }
        let mut rng = Rng::new(7);
        for _ in 0..200_000 {
            let n = rng.next_u64() >> (rng.next_u64() % 64);
            for (p, d) in [
                (3, 1),
                (6, 2),
                (9, 3),
                (3, 2),
                (3, 0),
                (3, 3),
                (9, 0),
                (19, 5),
            ] {
                assert_eq!(fixed(n, p, d), old(n, p, d), "{n} {p} {d}");
            }
            // Exact halves in every branch.
            let h = (n >> 20) * 1_000_000 + 500_000;
            assert_eq!(fixed(h, 9, 3), old(h, 9, 3), "{h}");
        }
        assert_eq!(fixed(u64::MAX, 9, 3), old(u64::MAX, 9, 3));
        assert_eq!(fixed(u64::MAX, 3, 3), old(u64::MAX, 3, 3));
    }

    #[test]
    fn plain_is_display() {
        for x in [
            0.0,
            0.1,
            0.5,
            1.0,
            1.5,
            2.0,
            5.0,
            10.0,
            1000.0,
            0.000001,
            0.123456,
            999.999999,
            0.25,
            1e-7,
            1e21,
            123456789.125,
            -0.5,
            -2.0,
        ] {
            assert_eq!(plain(x), format!("{x}"), "{x}");
        }
        // Every decimal the language accepts for `jitter`: up to 6 digits after the point.
        let mut rng = Rng::new(3);
        for _ in 0..100_000 {
            let m = rng.next_u64() % 1_000_000_001;
            let k = (rng.next_u64() % 7) as i32;
            let x = m as f64 / 10f64.powi(k);
            assert_eq!(plain(x), format!("{x}"), "{m}e-{k}");
        }
        assert_eq!(plain(f64::NAN), "NaN");
        assert_eq!(plain(f64::INFINITY), "inf");
        assert_eq!(plain(f64::NEG_INFINITY), "-inf");
    }
}
