//! `cargo xtask size`: the page's download as shipped (`dist/`'s precompressed `.gz` files)
//! against the budget and the committed baseline, a ratchet (the size stage of `cargo xtask test`, after `dist`; docs/size.md).

use crate::bench::{download_sizes, download_sizes_of, kb, print_sizes, shipped_total, BUDGET};
use anyhow::{bail, Context, Result};
use std::path::Path;

/// The committed baseline: the page's shipped bytes (its `.gz` files, [`crate::bench::Size`])
/// when it last changed on purpose.
pub const BASELINE_FILE: &str = "xtask/size-baseline.txt";
/// The committed baseline of the page's kubectl build (`kubectl.html`).
pub const KUBECTL_BASELINE_FILE: &str = "xtask/size-baseline-kubectl.txt";
/// How much the page may grow over the baseline without updating it (bytes as shipped).
pub const SLACK: u64 = 2_000;

/// Measures `dist/` (wasm + JS + CSS, as shipped: each file's precompressed `.gz`, else its
/// gzip level 9; both figures printed, as `cargo xtask bench` does) and checks the shipped one:
/// the page `index.html` loads against the budget and its baseline; the kubectl build
/// `kubectl.html` loads (only for a kubectl scenario) against its own baseline, a ratchet
/// without the budget: with the kubectl model the page does not fit it (docs/size.md).
pub fn size() -> Result<()> {
    let dist = Path::new("dist");
    let sizes = download_sizes(dist)?;
    print_sizes(&sizes);
    let total = shipped_total(&sizes);
    let baseline = read_baseline(BASELINE_FILE)?;
    let short_names = !crate::names::skipped();
    let first = check(total, baseline, short_names);
    let kubectl = download_sizes_of(dist, crate::assets::KUBECTL_PAGE)?;
    println!("\nthe kubectl build ({}):", crate::assets::KUBECTL_PAGE);
    print_sizes(&kubectl);
    let k_total = shipped_total(&kubectl);
    let k_baseline = read_baseline(KUBECTL_BASELINE_FILE)?;
    println!("{}", first?);
    println!("{}", check_kubectl(k_total, k_baseline, short_names)?);
    Ok(())
}

fn read_baseline(file: &str) -> Result<u64> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {file}"))?;
    parse_baseline(&text).with_context(|| file.to_string())
}

/// Ok (with a line to print) when the kubectl build's `total` is within [`SLACK`] of its
/// `baseline` (when `ratchet`); otherwise the error says what to do.
pub fn check_kubectl(total: u64, baseline: u64, ratchet: bool) -> Result<String> {
    let what = format!(
        "the kubectl build ({}, loaded only for kubectl scenarios): {} shipped ({total} bytes)",
        crate::assets::KUBECTL_PAGE,
        kb(total)
    );
    if ratchet && total > baseline + SLACK {
        bail!(
            "{what}, {} over its committed baseline of {} ({KUBECTL_BASELINE_FILE}); at most {} \
             of growth passes unnoticed. If the growth is deliberate, write {total} into \
             {KUBECTL_BASELINE_FILE} in the same commit and say in its message why; otherwise \
             find what grew (docs/size.md, \"How to look\")",
            kb(total - baseline),
            kb(baseline),
            kb(SLACK)
        );
    }
    let mut line = format!("size: {what}, its baseline {}", kb(baseline));
    if ratchet && baseline > total + SLACK {
        line.push_str(&format!(
            "; {} under it: write {total} into {KUBECTL_BASELINE_FILE} so the ratchet keeps the gain",
            kb(baseline - total)
        ));
    }
    Ok(line)
}

/// The one number of the baseline file (`#` lines are comments).
pub fn parse_baseline(text: &str) -> Result<u64> {
    let numbers: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    match numbers.as_slice() {
        [n] => n
            .replace('_', "")
            .parse()
            .with_context(|| format!("{BASELINE_FILE}: `{n}` is not a number of bytes")),
        _ => bail!("{BASELINE_FILE} must hold exactly one number (bytes), besides `#` comments"),
    }
}

/// Ok (with a line to print) when `total` is within the budget and, when `ratchet`, within
/// [`SLACK`] of `baseline`; otherwise the error says what to do.
pub fn check(total: u64, baseline: u64, ratchet: bool) -> Result<String> {
    if total > BUDGET {
        bail!(
            "the page's download is {} as shipped, over the {} budget (docs/size.md); \
             the budget does not move: make the page smaller (docs/size.md, \"How to look\")",
            kb(total),
            kb(BUDGET)
        );
    }
    if !ratchet {
        return Ok(format!(
            "size: {} shipped ({total} bytes), within the {} budget; the baseline ({}) is not \
             compared because {}=1 (the import and export names are long, a few kB more)",
            kb(total),
            kb(BUDGET),
            kb(baseline),
            crate::names::SKIP_VAR
        ));
    }
    if total > baseline + SLACK {
        bail!(
            "the page's download grew to {} shipped, {} over the committed baseline of {} \
             ({BASELINE_FILE}); at most {} of growth passes unnoticed. If the growth is \
             deliberate, write {total} into {BASELINE_FILE} in the same commit and say in its \
             message why the page needs it; otherwise find what grew (docs/size.md, \
             \"How to look\")",
            kb(total),
            kb(total - baseline),
            kb(baseline),
            kb(SLACK)
        );
    }
    let mut line = format!(
        "size: {} shipped ({total} bytes), within the {} budget and {} of the baseline ({})",
        kb(total),
        kb(BUDGET),
        kb(SLACK),
        kb(baseline)
    );
    if baseline > total + SLACK {
        line.push_str(&format!(
            "; {} under it: write {total} into {BASELINE_FILE} so the ratchet keeps the gain",
            kb(baseline - total)
        ));
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_baseline_file_holds_one_number() {
        assert_eq!(parse_baseline("# bytes\n\n 263_912 \n").unwrap(), 263_912);
        assert!(parse_baseline("# nothing\n").is_err());
        assert!(parse_baseline("1\n2\n").is_err());
        assert!(parse_baseline("263 kB\n").is_err());
    }

    #[test]
    fn the_committed_baseline_is_within_the_budget() {
        let text = std::fs::read_to_string(crate::util::project_root().join(BASELINE_FILE))
            .expect("the baseline file");
        let baseline = parse_baseline(&text).unwrap();
        assert!(baseline > 100_000 && baseline <= BUDGET, "{baseline}");
    }

    #[test]
    fn the_kubectl_build_has_a_ratchet_and_no_budget() {
        assert!(check_kubectl(360_000, 358_500, true).is_ok());
        let err = check_kubectl(361_000, 358_500, true)
            .unwrap_err()
            .to_string();
        assert!(err.contains("2.5 kB over its committed baseline"), "{err}");
        assert!(
            err.contains("write 361000 into xtask/size-baseline-kubectl.txt"),
            "{err}"
        );
        assert!(check_kubectl(361_000, 358_500, false).is_ok());
        let ok = check_kubectl(350_000, 358_500, true).unwrap();
        assert!(ok.contains("write 350000 into"), "{ok}");
        let text = std::fs::read_to_string(crate::util::project_root().join(KUBECTL_BASELINE_FILE))
            .expect("the kubectl baseline file");
        assert!(parse_baseline(&text).unwrap() > BUDGET / 2);
    }

    #[test]
    fn budget_and_ratchet() {
        // Within the slack either way.
        assert!(check(250_000, 250_000, true).is_ok());
        assert!(check(252_000, 250_000, true).is_ok());
        let err = check(252_001, 250_000, true).unwrap_err().to_string();
        assert!(err.contains("2.0 kB over the committed baseline"), "{err}");
        assert!(
            err.contains("write 252001 into xtask/size-baseline.txt"),
            "{err}"
        );
        assert!(err.contains("in the same commit"), "{err}");
        // Smaller: fine, with the hint to lower the baseline.
        let ok = check(240_000, 250_000, true).unwrap();
        assert!(ok.contains("write 240000 into"), "{ok}");
        assert!(!check(249_000, 250_000, true).unwrap().contains("write"));
        // The budget holds with or without the ratchet.
        let err = check(300_001, 300_000, true).unwrap_err().to_string();
        assert!(err.contains("over the 300.0 kB budget"), "{err}");
        assert!(check(300_001, 250_000, false).is_err());
        // Without short names only the budget counts.
        assert!(check(256_000, 250_000, false).is_ok());
    }
}
