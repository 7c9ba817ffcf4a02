use super::MAX_FRAMES;
use crate::codec::encode;

pub struct Frame;

pub fn encode_all() {
    for _ in 0..MAX_FRAMES {
        encode();
    }
}
