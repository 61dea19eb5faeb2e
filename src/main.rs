//! The `flashix` command line. All logic lives in the library's `cli`
//! module; this only turns its result into an exit code, so that every error
//! is one clear line on stderr and never a panic trace.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so a write to a closed pipe (`flashix compare |
    // head -1`) is an error, and `println!` panics on it. Restoring the
    // default disposition ends the process quietly on the first such write,
    // as `head`'s other upstreams (cat, grep) end: status 141 in a shell,
    // nothing on stderr. The alternative, handling BrokenPipe at every print
    // (tables, rankings, progress lines, `list`, `reproduce`), would leave
    // each new print a chance to panic again. flashix writes to no socket,
    // and its device files are regular files, which never raise SIGPIPE.
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists;
    // SIG_DFL is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
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
