//! Stable sorting with one compiled sort for every element type.
//!
//! `slice::sort_by` is generic: each element type gets its own copy of the standard library's
//! driftsort (~3.5 kB of wasm each; the core sorted seven types, docs/size.md). These helpers
//! sort a permutation of indices instead (one small merge sort shared by all callers, the
//! element comparison behind `dyn`) and then move the elements into place with swaps. The result is the
//! same as `slice::sort_by`: both are stable sorts by the same comparison.

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`, like `v.sort_by(cmp)`.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = {
        let items: &[T] = v;
        order_of(items.len(), &mut |a, b| cmp(&items[a], &items[b]))
    };
    permute(v, order);
}

/// Sorts `v` stably by `key`, like `v.sort_by_key(key)`.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably, like `v.sort()`.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The indices `0..n` in stable sorted order under `cmp` (the single compiled sort).
///
/// A bottom-up merge sort: a few hundred bytes of wasm where the standard library's driftsort
/// costs ~4.5 kB (docs/size.md). The lists sorted here are small (object keys, diagnostics,
/// field managers), and for a total order every stable sort gives the same result.
fn order_of(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut merged = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (mid + width).min(n);
            let (mut i, mut j) = (lo, mid);
            for slot in &mut merged[lo..hi] {
                // The left run wins ties: that keeps equal elements in their order.
                let take_left = i < mid && (j == hi || cmp(order[j], order[i]) != Ordering::Less);
                if take_left {
                    *slot = order[i];
                    i += 1;
                } else {
                    *slot = order[j];
                    j += 1;
                }
            }
            lo = hi;
        }
        std::mem::swap(&mut order, &mut merged);
        width *= 2;
    }
    order
}

/// Rearranges `v` so that position `k` holds what was at `order[k]` (`order` a permutation),
/// following each cycle of the permutation with swaps.
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..v.len() {
        let mut j = start;
        loop {
            let k = order[j];
            // Mark position `j` as final; a finished cycle reads as fixed points.
            order[j] = j;
            if k == start || k == j {
                break;
            }
            v.swap(j, k);
            j = k;
        }
    }
}

#[cfg(test)]
#[allow(
    clippy::disallowed_methods,
    reason = "the tests compare with std's sort"
)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Same result as the standard library's stable sort, ties included.
        #[test]
        fn matches_std_stable_sort(v in proptest::collection::vec((0u8..6, any::<u16>()), 0..60)) {
            let mut ours = v.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut std = v.clone();
            std.sort_by_key(|a| a.0);
            prop_assert_eq!(&ours, &std);
            let mut ours = v.clone();
            sort_by_key(&mut ours, |p| std::cmp::Reverse(p.1 % 7));
            let mut std = v.clone();
            std.sort_by_key(|p| std::cmp::Reverse(p.1 % 7));
            prop_assert_eq!(&ours, &std);
            let mut ours = v.clone();
            sort(&mut ours);
            let mut std = v;
            std.sort();
            prop_assert_eq!(ours, std);
        }
    }
}
