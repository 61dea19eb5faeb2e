//! Progress bars that draw nothing, for a build without the `cli` feature
//! (no indicatif): the subset of indicatif's API that the run loop and the
//! sweep executor call, with indicatif's signatures, so that their code is
//! the same in both builds and only the import differs. A library user's
//! program gets no bar on its stderr; the `flashix` command line, built
//! with `cli`, draws indicatif's.

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
