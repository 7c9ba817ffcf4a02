pub struct Tick(pub u64);

pub fn now() -> Tick {
    Tick(crate::shim::epoch())
}
