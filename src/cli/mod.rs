//! The command line (see `args.rs` for the grammar).

pub mod args;
pub mod size;

/// Runs the command line; errors are printed by `main`.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    use clap::Parser;
    let _cli = args::Cli::parse();
    Ok(())
}
