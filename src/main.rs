//! The `hookharness` command-line tool; see `hookharness --help`.

fn main() -> std::process::ExitCode {
    hookharness::cli::main()
}
