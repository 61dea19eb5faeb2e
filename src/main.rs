//! The `flashix` command line. All logic lives in the library's `cli`
//! module; this only turns its result into an exit code, so that every error
//! is one clear line on stderr and never a panic trace.

use std::process::ExitCode;

fn main() -> ExitCode {
    // A panic is a bug in flashix, not bad input; still, the user gets one
    // line, not a backtrace dump.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("flashix: internal error (please report): {info}");
    }));
    match flashix::cli::main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("flashix: error: {e}");
            ExitCode::from(1)
        }
    }
}
