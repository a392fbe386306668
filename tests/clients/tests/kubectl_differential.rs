//! The differential test of issue #14: every scenario of `tests/clients/kubectl-corpus/` is
//! run in the model and with the real kubectl 1.32 against `rvlab serve` loaded with the same
//! setup, commands in the same order (`rvlab_clients::differential`), and each kubectl
//! command's requests (method, path with query, content type, body as JSON), stdout, stderr
//! and exit status must be equal, apart from uids, times and AGE cells. Every mismatch is
//! printed with both sides; the test fails if there is one, and says how many commands it
//! compared.

use anyhow::Result;
use rvlab_clients::differential::{corpus, run_scenario};
use std::fmt::Write as _;
use std::time::Instant;

#[test]
fn the_model_sends_and_prints_what_the_real_kubectl_does() -> Result<()> {
    let start = Instant::now();
    let corpus = corpus()?;
    assert!(!corpus.is_empty(), "the corpus is empty");
    let (mut compared, mut failures) = (0, String::new());
    for (name, src) in &corpus {
        let at = Instant::now();
        match run_scenario(src) {
            Err(e) => {
                let _ = writeln!(failures, "=== {name}: {e:#}\n");
            }
            Ok(cmds) => {
                for c in &cmds {
                    compared += 1;
                    let head = format!("{name}:{} {}: kubectl {}", c.line, c.client, c.command);
                    if c.diff.is_empty() {
                        println!("same     {head}");
                    } else {
                        println!("DIFFERS  {head}");
                        let _ = writeln!(failures, "=== {head}\n{}", c.diff);
                    }
                }
            }
        }
        println!("         {name}: {:.1?}", at.elapsed());
    }
    println!(
        "{compared} kubectl commands compared in {} scenarios, {:.1?}",
        corpus.len(),
        start.elapsed()
    );
    assert!(
        failures.is_empty(),
        "the model and the real kubectl differ:\n{failures}"
    );
    Ok(())
}
