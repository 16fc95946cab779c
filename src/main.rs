//! The `hookharness` command-line tool.

fn main() {
    println!("hookharness {}", env!("CARGO_PKG_VERSION"));
}
