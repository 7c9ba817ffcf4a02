//! `batch.rs` beside `batch/`: it composes `batch/wire.rs` (no edge), which uses its items.

mod wire;

pub use wire::Frame;

/// The most frames in one batch.
pub const MAX_FRAMES: usize = 25;

pub fn send() {
    wire::encode_all();
}
