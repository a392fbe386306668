//! [`Count`]: an exact count of schedules, of any size.
//!
//! The explorer counts schedules with multiplicity, and the number of orders grows like a
//! multinomial: three clients with 16 requests each already have 48!/(16!)³ ≈ 1.4 × 10²¹
//! schedules, more than a `u64` holds. A count is never saturated; it is a `u64` while it fits
//! (no allocation, one add) and grows 64-bit limbs above that.
//!
//! Written here rather than taken from a big-integer crate: the explorer only adds counts,
//! compares them and prints them in decimal, and the page is within a few kB of its 300 kB
//! budget (docs/size.md); these few functions are all it links (+2.0 kB shipped in all, measured;
//! a big-integer crate was not tried).
//!
//! In JSON (docs/json-trace.md, "Explorer report") a count is a number while it fits in a
//! `u64` and a string of decimal digits above that, so that no reader loses precision.

use serde_json::Value;
use std::cmp::Ordering;
use std::fmt;

/// A non-negative integer of any size: `low + high[0]·2⁶⁴ + high[1]·2¹²⁸ + …`, with no zero
/// limb at the top of `high` and no empty `high` (so equal values are equal structs). Sixteen
/// bytes: a memoised summary holds several counts, and the limbs above are rare.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Count {
    low: u64,
    #[allow(
        clippy::box_collection,
        reason = "a thin pointer: 16 bytes a count instead of 32 with a Vec (or 24 with a boxed slice)"
    )]
    high: Option<Box<Vec<u64>>>,
}

impl From<u64> for Count {
    fn from(n: u64) -> Self {
        Count { low: n, high: None }
    }
}

impl Count {
    /// Zero.
    pub fn zero() -> Self {
        Count::default()
    }

    /// The limbs above the first.
    fn high(&self) -> &[u64] {
        self.high.as_deref().map_or(&[], Vec::as_slice)
    }

    /// Whether this is zero.
    pub fn is_zero(&self) -> bool {
        self.low == 0 && self.high.is_none()
    }

    /// The value, when it fits in a `u64`.
    pub fn to_u64(&self) -> Option<u64> {
        self.high.is_none().then_some(self.low)
    }

    /// The nearest `f64` (rounded down below 2⁵³ precision; for rates and bars, never for a
    /// count shown to people).
    pub fn to_f64(&self) -> f64 {
        let mut x = 0.0f64;
        for limb in self.high().iter().rev() {
            x = x * 18_446_744_073_709_551_616.0 + *limb as f64;
        }
        x * 18_446_744_073_709_551_616.0 + self.low as f64
    }

    fn limbs(&self) -> impl Iterator<Item = u64> + '_ {
        std::iter::once(self.low).chain(self.high().iter().copied())
    }

    fn from_limbs(mut limbs: Vec<u64>) -> Self {
        while limbs.len() > 1 && limbs.last() == Some(&0) {
            limbs.pop();
        }
        let low = limbs.first().copied().unwrap_or(0);
        let high = (limbs.len() > 1).then(|| Box::new(limbs[1..].to_vec()));
        Count { low, high }
    }

    /// Adds `other`.
    pub fn add(&mut self, other: &Count) {
        if self.high.is_none() && other.high.is_none() {
            if let Some(sum) = self.low.checked_add(other.low) {
                self.low = sum;
                return;
            }
        }
        let n = self.high().len().max(other.high().len()) + 1;
        let mut out = Vec::with_capacity(n + 1);
        {
            let (mut a, mut b) = (self.limbs(), other.limbs());
            let mut carry = false;
            for _ in 0..n {
                let (x, y) = (a.next().unwrap_or(0), b.next().unwrap_or(0));
                let (s, c1) = x.overflowing_add(y);
                let (s, c2) = s.overflowing_add(u64::from(carry));
                out.push(s);
                carry = c1 || c2;
            }
            if carry {
                out.push(1);
            }
        }
        *self = Count::from_limbs(out);
    }

    /// Adds a `u64`.
    pub fn add_u64(&mut self, n: u64) {
        match self.low.checked_add(n) {
            Some(sum) => self.low = sum,
            None => self.add(&Count::from(n)),
        }
    }

    /// `self · m + a`, for parsing.
    fn mul_add(&self, m: u64, a: u64) -> Count {
        let mut out = Vec::with_capacity(self.high().len() + 2);
        let mut carry = u128::from(a);
        for limb in self.limbs() {
            let v = u128::from(limb) * u128::from(m) + carry;
            out.push(v as u64);
            carry = v >> 64;
        }
        out.push(carry as u64);
        Count::from_limbs(out)
    }

    /// Reads decimal digits (`"1606938044258990275541962092341162602522202993782792835301376"`);
    /// `None` for an empty string or any other character.
    pub fn parse(text: &str) -> Option<Count> {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut n = Count::zero();
        for chunk in text.as_bytes().chunks(18) {
            let digits = std::str::from_utf8(chunk).ok()?;
            let m = 10u64.pow(chunk.len() as u32);
            n = n.mul_add(m, digits.parse().ok()?);
        }
        Some(n)
    }

    /// The JSON form: a number while it fits in a `u64`, else a string of decimal digits.
    pub fn to_json(&self) -> Value {
        match self.to_u64() {
            Some(n) => n.into(),
            None => self.to_string().into(),
        }
    }

    /// Reads the JSON form ([`Count::to_json`]).
    pub fn from_json(v: &Value) -> Option<Count> {
        match v {
            Value::Number(n) => n.as_u64().map(Count::from),
            Value::String(s) => Count::parse(s),
            _ => None,
        }
    }
}

impl PartialEq<u64> for Count {
    fn eq(&self, other: &u64) -> bool {
        self.to_u64() == Some(*other)
    }
}

impl PartialEq<Count> for u64 {
    fn eq(&self, other: &Count) -> bool {
        other == self
    }
}

impl<'a> std::iter::Sum<&'a Count> for Count {
    fn sum<I: Iterator<Item = &'a Count>>(iter: I) -> Count {
        let mut total = Count::zero();
        for c in iter {
            total.add(c);
        }
        total
    }
}

impl PartialOrd<u64> for Count {
    fn partial_cmp(&self, other: &u64) -> Option<Ordering> {
        Some(match self.to_u64() {
            Some(n) => n.cmp(other),
            None => Ordering::Greater,
        })
    }
}

impl Ord for Count {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self.high(), other.high());
        a.len()
            .cmp(&b.len())
            .then_with(|| a.iter().rev().cmp(b.iter().rev()))
            .then_with(|| self.low.cmp(&other.low))
    }
}

impl PartialOrd for Count {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.high.is_none() {
            return write!(f, "{}", self.low);
        }
        // Repeated division by 10⁹ over 32-bit halves, in u64 arithmetic (a u128 division
        // would link a 128-bit divide into the page); the remainders are the decimal groups,
        // least significant first.
        const TEN9: u64 = 1_000_000_000;
        let mut halves: Vec<u32> = self
            .limbs()
            .flat_map(|l| [l as u32, (l >> 32) as u32])
            .collect();
        let mut groups = Vec::new();
        while halves.iter().any(|&h| h != 0) {
            let mut rem = 0u64;
            for h in halves.iter_mut().rev() {
                let cur = (rem << 32) | u64::from(*h);
                *h = (cur / TEN9) as u32;
                rem = cur % TEN9;
            }
            groups.push(rem);
        }
        let mut groups = groups.iter().rev();
        if let Some(first) = groups.next() {
            write!(f, "{first}")?;
        }
        for g in groups {
            write!(f, "{g:09}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Count;
    use proptest::prelude::*;

    fn wide(n: u128) -> Count {
        Count::from_limbs(vec![n as u64, (n >> 64) as u64])
    }

    proptest! {
        /// Sums, order, decimal text and parsing agree with `u128` below 2¹²⁷.
        #[test]
        fn agrees_with_u128(a in 0u128..(1 << 127), b in 0u128..(1 << 127)) {
            let mut s = wide(a);
            s.add(&wide(b));
            prop_assert_eq!(&s, &wide(a + b));
            prop_assert_eq!(s.to_string(), (a + b).to_string());
            prop_assert_eq!(Count::parse(&(a + b).to_string()), Some(s.clone()));
            prop_assert_eq!(wide(a).cmp(&wide(b)), a.cmp(&b));
            prop_assert_eq!(Count::from_json(&s.to_json()), Some(s.clone()));
            prop_assert_eq!(s.to_u64(), u64::try_from(a + b).ok());
        }
    }

    #[test]
    fn doubling_past_two_limbs_stays_exact() {
        let mut n = Count::from(1);
        for _ in 0..200 {
            let copy = n.clone();
            n.add(&copy);
        }
        let text = "1606938044258990275541962092341162602522202993782792835301376";
        assert_eq!(n.to_string(), text, "2^200");
        assert_eq!(Count::parse(text), Some(n.clone()));
        assert!(n > Count::parse(&text[1..]).unwrap());
        assert!(n > u64::MAX);
        assert_eq!(n.to_json(), serde_json::Value::String(text.into()));
        assert!((n.to_f64() / 2f64.powi(200) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_count_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Count>(), 16);
    }

    #[test]
    fn a_u64_sum_that_overflows_carries() {
        let mut n = Count::from(u64::MAX);
        n.add_u64(1);
        assert_eq!(n.to_string(), "18446744073709551616");
        assert_eq!(n.to_u64(), None);
        assert_eq!(n.to_json(), serde_json::json!("18446744073709551616"));
        assert_eq!(Count::from(7).to_json(), serde_json::json!(7));
        assert_eq!(
            Count::from_json(&serde_json::json!(7)),
            Some(Count::from(7))
        );
    }

    #[test]
    fn bad_text_is_not_a_count() {
        for t in ["", "-1", "1.5", "12a", " 1", "1e3"] {
            assert_eq!(Count::parse(t), None, "{t:?}");
        }
        assert_eq!(Count::from_json(&serde_json::json!(-1)), None);
        assert_eq!(Count::from_json(&serde_json::json!(1.5)), None);
        assert_eq!(Count::parse("000"), Some(Count::zero()));
    }
}
