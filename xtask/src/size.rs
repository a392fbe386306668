//! `cargo xtask size`: the page's download (`dist/`) against the budget and the committed
//! baseline, a ratchet (the size stage of `cargo xtask test`, after `dist`; docs/size.md).

use crate::bench::{download_sizes, kb, print_sizes, BUDGET};
use anyhow::{bail, Context, Result};
use std::path::Path;

/// The committed baseline: the page's gzip bytes when it last changed on purpose.
pub const BASELINE_FILE: &str = "xtask/size-baseline.txt";
/// How much the page may grow over the baseline without updating it (bytes of gzip).
pub const SLACK: u64 = 2_000;

/// Measures `dist/` (wasm + JS + CSS, gzip level 9, as `cargo xtask bench`) and checks it.
pub fn size() -> Result<()> {
    let sizes = download_sizes(Path::new("dist"))?;
    print_sizes(&sizes);
    let total: u64 = sizes.iter().map(|s| s.gzip).sum();
    let text = std::fs::read_to_string(BASELINE_FILE)
        .with_context(|| format!("cannot read {BASELINE_FILE}"))?;
    let baseline = parse_baseline(&text)?;
    let short_names = !crate::names::skipped();
    println!("{}", check(total, baseline, short_names)?);
    Ok(())
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
            "the page's download is {} gzip, over the {} budget (product.md, docs/size.md); \
             the budget does not move: make the page smaller (docs/size.md, \"How to look\")",
            kb(total),
            kb(BUDGET)
        );
    }
    if !ratchet {
        return Ok(format!(
            "size: {} gzip ({total} bytes), within the {} budget; the baseline ({}) is not \
             compared because {}=1 (the import and export names are long, a few kB more)",
            kb(total),
            kb(BUDGET),
            kb(baseline),
            crate::names::SKIP_VAR
        ));
    }
    if total > baseline + SLACK {
        bail!(
            "the page's download grew to {} gzip, {} over the committed baseline of {} \
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
        "size: {} gzip ({total} bytes), within the {} budget and {} of the baseline ({})",
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
