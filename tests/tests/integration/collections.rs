//! Item collections decoded by entity type: `#[derive(Collection)]` structs and enums.

use crate::common;

use dynamo_entity::collection::Items;
use dynamo_entity::{Entity, Error, Page, Timestamp};
use dynamo_entity_examples::skill_exchange::{
    AnyItem, Review, Skill, SkillId, SkillPage, SkillStatus, User, UserId, UserPage, schemas,
};

fn skill(id: &str) -> Skill {
    Skill {
        id: SkillId(id.into()),
        title: "t".into(),
        category: "code".into(),
        seller_id: UserId("u1".into()),
        status: SkillStatus::Approved,
        downloads: 3,
        price_cents: 500,
        created_at: Timestamp::parse("2025-01-01T00:00:00.000Z").unwrap(),
        submitted_at: None,
        seller_verified: false,
        tags: vec![],
    }
}

fn review(skill: &str, id: u32) -> Review {
    Review {
        skill_id: SkillId(skill.into()),
        id,
        author_id: UserId(format!("u{id}")),
        rating: 5,
        body: format!("review {id}"),
        created_at: Timestamp::parse("2025-02-01T00:00:00.000Z").unwrap(),
    }
}

fn ann() -> User {
    User {
        id: UserId("u1".into()),
        name: "Ann".into(),
        email: "ann@example.test".into(),
        verified: true,
        sales: 0,
        created_at: Timestamp::parse("2025-01-01T00:00:00.000Z").unwrap(),
    }
}

#[tokio::test]
async fn a_struct_collection_from_one_query() {
    let table = common::table("collection_struct", &schemas()).await;
    let s = skill("s1");
    table.put(&s).await.unwrap();
    for id in [10, 2, 1] {
        table.put(&review("s1", id)).await.unwrap();
    }
    let page: SkillPage = table.collection(Skill::query(&SkillId("s1".into()))).send().await.unwrap().decode().unwrap();
    assert_eq!(page, SkillPage { skill: s, reviews: vec![review("s1", 1), review("s1", 2), review("s1", 10)] });

    // Without its required parent, the page is a typed error naming it.
    table.put(&review("s2", 1)).await.unwrap();
    let err =
        table.collection(Skill::query(&SkillId("s2".into()))).send().await.unwrap().decode::<SkillPage>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "SkillPage.skill: no Skill item in the collection (first item: PK=SKILL#s2 SK=REVIEW#0000000001)"
    );
    assert!(matches!(err, Error::MissingItem { collection: "SkillPage", field: "skill", entity: "Skill", .. }));
}

#[tokio::test]
async fn unknown_items_are_skipped_or_rejected() {
    let table = common::table("collection_unknown", &schemas()).await;
    let user = ann();
    table.put(&user).await.unwrap();
    // An item of a type UserPage does not name, in the user's partition.
    let mut stray = review("x", 1).to_item().unwrap();
    stray.insert("PK".into(), aws_sdk_dynamodb::types::AttributeValue::S("USER#u1".into()));
    stray.insert("SK".into(), aws_sdk_dynamodb::types::AttributeValue::S("NOTE#1".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(stray)).send().await.unwrap();

    let c = table.collection(User::query(&UserId("u1".into()))).send().await.unwrap();
    assert_eq!(c.items().len(), 2);
    let page: UserPage = c.decode().unwrap();
    assert_eq!(page, UserPage { user: user.clone(), badges: vec![] });
    let err = c.strict().decode::<UserPage>().unwrap_err();
    assert_eq!(err.to_string(), "UserPage does not hold items of entity type `Review`: PK=USER#u1 SK=NOTE#1");

    // Two profiles in one partition: a single-item field refuses the second.
    let mut twin = user.to_item().unwrap();
    twin.insert("SK".into(), aws_sdk_dynamodb::types::AttributeValue::S("PROFILE2".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(twin)).send().await.unwrap();
    let c = table.collection(User::query(&UserId("u1".into()))).send().await.unwrap();
    let err = c.decode::<UserPage>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "UserPage.user takes one item, but the collection holds another: PK=USER#u1 SK=PROFILE2"
    );
}

#[tokio::test]
async fn the_table_enum_decodes_any_item() {
    let table = common::table("collection_enum", &schemas()).await;
    table.put(&skill("s1")).await.unwrap();
    table.put(&review("s1", 1)).await.unwrap();
    let mut foreign = review("s9", 1).to_item().unwrap();
    foreign.insert("_type".into(), aws_sdk_dynamodb::types::AttributeValue::S("Legacy".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(foreign)).send().await.unwrap();

    let scan = table.client().scan().table_name(table.name()).send().await.unwrap();
    let items = Items::from(scan.items.unwrap_or_default());
    // The item at a review's key whose type value no entity has is that key's item of the
    // wrong type, as a get of it says: reported, not passed over.
    let err = items.decode_each::<AnyItem>().unwrap_err();
    let wrong = "item PK=SKILL#s9 SK=REVIEW#0000000001 has entity type Legacy, expected Review";
    assert_eq!(err.to_string(), wrong);
    let Page { items: mut decoded, skipped, .. } = items.lenient().decode_each::<AnyItem>();
    decoded.sort_by_key(|i| format!("{i:?}"));
    assert_eq!(decoded, vec![AnyItem::Review(review("s1", 1)), AnyItem::Skill(skill("s1"))]);
    assert_eq!(skipped.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), [wrong]);
    assert_eq!(
        <AnyItem as dynamo_entity::EntityEnum>::TYPES,
        &["User", "Badge", "Skill", "Review", "Purchase", "Coupon", "Redemption"]
    );
}

/// Every item of a collection is in exactly one of a lenient decode's `items`, `skipped` and
/// `passed_over`: the review that does not decode is reported, the library's guard item and the
/// items of other entities are passed over (and counted), the rest decode.
#[test]
fn lenient_decodes_account_for_every_item() {
    use aws_sdk_dynamodb::types::AttributeValue;
    use dynamo_entity::query::Decoded;
    let s = |v: &str| AttributeValue::S(v.to_owned());
    let mut broken = review("s1", 2).to_item().unwrap();
    broken.insert("rating".into(), s("five"));
    let guard = [("PK", "UNIQUE#Skill#title#t"), ("SK", "UNIQUE"), ("_type", "_unique")];
    let guard = guard.into_iter().map(|(k, v)| (k.to_owned(), s(v))).collect();
    let user = ann();
    let items = Items::from(vec![
        skill("s1").to_item().unwrap(),
        review("s1", 1).to_item().unwrap(),
        broken,
        guard,
        user.to_item().unwrap(),
    ]);
    let broken_key = "PK=SKILL#s1 SK=REVIEW#0000000002";

    let reviews = items.lenient().all::<Review>();
    assert_eq!(reviews.items, [review("s1", 1)]);
    assert_eq!(reviews.skipped.iter().map(|e| e.key.as_str()).collect::<Vec<_>>(), [broken_key]);
    assert_eq!(reviews.passed_over, 3, "the skill, the guard item and the user");

    let every = items.lenient().decode_each::<AnyItem>();
    assert_eq!(every.items, [AnyItem::Skill(skill("s1")), AnyItem::Review(review("s1", 1)), AnyItem::User(user)]);
    assert_eq!(every.skipped.iter().map(|e| e.key.as_str()).collect::<Vec<_>>(), [broken_key]);
    assert_eq!(every.passed_over, 1, "the guard item");

    let Decoded { value, skipped } = items.lenient().one::<Skill>().unwrap();
    assert_eq!((value, skipped.len()), (Some(skill("s1")), 0));
    let Decoded { value, skipped } = items.lenient().decode::<SkillPage>().unwrap();
    assert_eq!(value, SkillPage { skill: skill("s1"), reviews: vec![review("s1", 1)] });
    assert_eq!(skipped.iter().map(|e| e.key.as_str()).collect::<Vec<_>>(), [broken_key]);
    let strict = items.strict().decode_each::<AnyItem>().unwrap_err();
    assert!(matches!(&strict, Error::Decode { entity: "Review", attribute: "rating", key, .. } if key == broken_key));
}
