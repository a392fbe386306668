//! `rvlab`: check, run and explore scenarios natively.

fn main() {
    std::process::exit(2);
}
