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

/// The [`Mismatch`] of `pattern` for an operation that failed, for `map_err`.
pub(crate) fn failed<E: fmt::Display>(pattern: &'static str) -> impl FnOnce(E) -> Mismatch {
    move |e| Mismatch { pattern, detail: format!("operation failed: {e}") }
}

/// `timed!(reports, name, { ...; (items, value) })`: runs the block, pushes a
/// [`PatternReport`] named `name` with the block's wall time and `items` onto `reports`, and
/// gives `value`. The block may use `?` and `.await` of the function it is in.
macro_rules! timed {
    ($reports:ident, $name:expr, $body:expr) => {{
        let start = std::time::Instant::now();
        let (items, value) = $body;
        $reports.push($crate::report::PatternReport { name: $name, items, micros: start.elapsed().as_micros() });
        value
    }};
}
pub(crate) use timed;
