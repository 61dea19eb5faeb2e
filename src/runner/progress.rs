//! The run's progress bar ([`Progress`]), and, for a build without the
//! `cli` feature (no indicatif), bars that draw nothing: the subset of
//! indicatif's API that the run loop and the sweep executor call, with
//! indicatif's signatures, so that their code is the same in both builds
//! and only the import differs. A library user's program gets no bar on
//! its stderr; the `flashix` command line, built with `cli`, draws
//! indicatif's.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

#[cfg(feature = "cli")]
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::RunOptions;

/// A progress bar on stderr, shown only when stderr is a terminal, the run
/// is not quiet, and it has lasted more than a second.
pub(super) struct Progress {
    enabled: bool,
    started: Instant,
    expected: Option<u64>,
    bar: Option<ProgressBar>,
}

impl Progress {
    pub(super) fn new(options: &RunOptions) -> Self {
        Progress {
            enabled: !options.quiet && std::io::stderr().is_terminal(),
            started: Instant::now(),
            expected: options.expected_ops,
            bar: None,
        }
    }

    /// Called after every operation: only the test is in line.
    #[inline]
    pub(super) fn tick(&mut self, done: u64) {
        if self.enabled && done.is_multiple_of(4096) {
            self.draw(done);
        }
    }

    #[inline(never)]
    fn draw(&mut self, done: u64) {
        if self.bar.is_none() && self.started.elapsed() > Duration::from_secs(1) {
            let bar = match self.expected {
                Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
                None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            };
            if let Ok(style) = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {human_pos}/{human_len} ops ({per_sec})",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            self.bar = Some(bar);
        }
        if let Some(b) = &self.bar {
            b.set_position(done);
        }
    }

    pub(super) fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

#[cfg(not(feature = "cli"))]
pub use quiet::{ProgressBar, ProgressDrawTarget, ProgressStyle};

#[cfg(not(feature = "cli"))]
mod quiet {
    /// Where a bar would draw (indicatif's `ProgressDrawTarget`).
    pub struct ProgressDrawTarget;

    impl ProgressDrawTarget {
        pub fn stderr() -> Self {
            ProgressDrawTarget
        }
    }

    /// A bar's look (indicatif's `ProgressStyle`).
    pub struct ProgressStyle;

    impl ProgressStyle {
        /// Never fails; a `Result` because indicatif's parses the template.
        pub fn with_template(_template: &str) -> Result<Self, std::fmt::Error> {
            Ok(ProgressStyle)
        }

        pub fn progress_chars(self, _chars: &str) -> Self {
            self
        }
    }

    /// A bar that draws nothing (indicatif's `ProgressBar`).
    pub struct ProgressBar;

    impl ProgressBar {
        pub fn with_draw_target(_len: Option<u64>, _target: ProgressDrawTarget) -> Self {
            ProgressBar
        }

        pub fn hidden() -> Self {
            ProgressBar
        }

        pub fn set_style(&self, _style: ProgressStyle) {}

        pub fn set_prefix(&self, _prefix: String) {}

        pub fn set_position(&self, _pos: u64) {}

        pub fn inc(&self, _delta: u64) {}

        pub fn finish_and_clear(&self) {}
    }
}
