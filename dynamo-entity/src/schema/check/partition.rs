//! Item collections: whether two entities can have items in one partition of some index, as
//! the entities of one `#[derive(Collection)]` must (the collection is read by one query of
//! one partition).

use crate::schema::check::{Unifier, delimiters_differ, is_checked, key_types_differ, templates, writes_multi_gsi};
use crate::schema::{EntitySchema, Index, MAX_GSI};

/// Whether some partition of some index can hold items of both `a` and `b`: the table, the
/// inverted index when either queries it (`#[entity(inverted)]`), or a GSI both write, whose
/// partition key templates can be equal (compared as [`keys_collide`](super::keys_collide)
/// compares keys: segment by segment, each placeholder by what its type writes). A
/// multi-attribute GSI both write keys its partitions on the items' own attributes, which can
/// always be equal. True when either schema is unchecked (a failed derive reported its error)
/// or their delimiters differ (the table's error).
///
/// ```
/// use dynamo_entity::__private::{failed_schema, share_a_partition};
/// assert!(share_a_partition(&failed_schema("A"), &failed_schema("B")));
/// ```
pub const fn share_a_partition(a: &EntitySchema, b: &EntitySchema) -> bool {
    if !is_checked(a) || !is_checked(b) || delimiters_differ(a, b) {
        return true;
    }
    if partitions_meet(a, b, Index::Primary) {
        return true;
    }
    if (a.inverted.is_some() || b.inverted.is_some()) && partitions_meet(a, b, Index::Inverted) {
        return true;
    }
    let mut n = 1;
    while n <= MAX_GSI {
        let gsi = Index::Gsi(n);
        if partitions_meet(a, b, gsi) || (writes_multi_gsi(a, gsi) && writes_multi_gsi(b, gsi)) {
            return true;
        }
        n += 1;
    }
    false
}

/// Whether `a` and `b` both write `index` with partition key templates that can be equal.
const fn partitions_meet(a: &EntitySchema, b: &EntitySchema, index: Index) -> bool {
    let (Some((apk, _)), Some((bpk, _))) = (templates(a, index), templates(b, index)) else {
        return false;
    };
    if apk.segments.len() != bpk.segments.len() || key_types_differ(Some(apk.key_type), Some(bpk.key_type)) {
        return false;
    }
    let mut u = Unifier::new(a, b);
    // Beyond the placeholders the comparison follows, the pair is taken to meet.
    u.templates(apk, bpk, apk.segments.len()) || u.overflow
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Template;
    use crate::schema::IndexSchema;
    use crate::schema::check::failed_schema;
    use crate::schema::check::fixtures::*;

    /// GSI `n` keyed on `pk`.
    const fn gsi(n: u8, pk: &'static Template) -> IndexSchema {
        IndexSchema { index: Index::Gsi(n), pk, sk: tpl!("META") }
    }

    #[test]
    fn entities_of_one_partition_share_it() {
        // `USER#<id>` and `USER#<user_id>`: the same partitions.
        assert!(share_a_partition(&USER, &BADGE) && share_a_partition(&ORDER, &ORDER_LINE));
        // `SKILL#<id>` never equals `USER#<id>`, nor `DOC#<id>`.
        assert!(!share_a_partition(&USER, &SKILL) && !share_a_partition(&SKILL, &VERSION));
        // A placeholder of a `u64` never writes `LATEST`.
        const BY_VERSION: EntitySchema =
            with_fields(entity("ByVersion", tpl!("V", "<version>"), tpl!("X")), &[shaped("version", U64)]);
        assert!(!share_a_partition(&BY_VERSION, &entity("Latest", tpl!("V", "LATEST"), tpl!("X"))));
        assert!(share_a_partition(&BY_VERSION, &entity("Named", tpl!("V", "<name>"), tpl!("X"))));
        // A failed derive is not reported again.
        assert!(share_a_partition(&USER, &failed_schema("Skill")));
    }

    #[test]
    fn a_gsi_both_write_can_hold_the_collection() {
        const SKILL_GSI: &[IndexSchema] = &[gsi(2, tpl!("SKILL", "<id>"))];
        const LEARNER_GSI: &[IndexSchema] = &[gsi(2, tpl!("SKILL", "<skill>"))];
        const OTHER_GSI: &[IndexSchema] = &[gsi(3, tpl!("SKILL", "<skill>"))];
        let (mut skill, mut learner) = (SKILL, USER);
        skill.gsis = SKILL_GSI;
        learner.gsis = LEARNER_GSI;
        assert!(share_a_partition(&learner, &skill) && share_a_partition(&skill, &learner));
        // GSI2 of one, GSI3 of the other: no partition in common.
        learner.gsis = OTHER_GSI;
        assert!(!share_a_partition(&learner, &skill));
        // The inverted index (`PROFILE` in both sort keys), when one of them queries it.
        assert!(!share_a_partition(&USER, &SKILL));
        let mut inverted = USER;
        inverted.inverted = Some(IndexSchema { index: Index::Inverted, pk: tpl!("PROFILE"), sk: tpl!("USER", "<id>") });
        assert!(share_a_partition(&inverted, &SKILL));
    }
}
