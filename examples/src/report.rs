//! What every example's scenario reports: one line per access pattern, or the first answer
//! that differs from what the data set says.

use std::fmt;

/// One access pattern's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternReport {
    /// What was asked.
    pub name: &'static str,
    /// How many items the answer held.
    pub items: usize,
    /// Wall time in microseconds.
    pub micros: u128,
}

/// An answer that differs from what the data set says, or an operation that failed.
#[derive(Debug)]
pub struct Mismatch {
    /// The access pattern.
    pub pattern: &'static str,
    /// What differed.
    pub detail: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pattern, self.detail)
    }
}

impl std::error::Error for Mismatch {}

/// `Ok` when `ok`, else a [`Mismatch`] of `pattern` with the detail `detail` gives.
pub(crate) fn check(pattern: &'static str, ok: bool, detail: impl FnOnce() -> String) -> Result<(), Mismatch> {
    if ok { Ok(()) } else { Err(Mismatch { pattern, detail: detail() }) }
}
