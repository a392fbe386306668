//! The determinism report natively with the page's features of the core (no `api`): rvlab-web's
//! example links `rvlab-instruments` as a native dev-dependency, which turns the `api` feature
//! on, and the `api` feature's store answers some lessons differently from the page's (it
//! defaults Deployments, docs/size.md). `cargo xtask determinism` compares this output with
//! rvlab-web's example under Node; the report itself is that example's.

#[allow(dead_code)]
#[path = "../../web/examples/determinism.rs"]
mod web;

fn main() {
    println!("{}", web::report().trim_end());
}
