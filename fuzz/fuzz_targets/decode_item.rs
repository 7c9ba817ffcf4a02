//! Item decoding of every Skill Exchange entity, the `AnyItem` enum and the `SkillPage` /
//! `UserPage` collections, on items built with `arbitrary`: valid sample items with attributes
//! removed, replaced by values of other types, numbers out of range or malformed, or the entity
//! type changed; and items made from scratch. Decoding must return a typed error, never panic,
//! and what decodes must survive encode + decode unchanged.
#![no_main]

use dynamo_entity_fuzz::{ItemSpec, decode_everything};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|specs: Vec<ItemSpec>| {
    let items: Vec<_> = specs.iter().take(8).map(ItemSpec::item).collect();
    decode_everything(&items);
});
