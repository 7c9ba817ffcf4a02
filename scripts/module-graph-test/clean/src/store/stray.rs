//! No module declares this file: the check names it, and rustc never reads it.

pub fn unused() {}
