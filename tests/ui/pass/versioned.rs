// Every maintained attribute on one entity, with the handle types they get.
use dynamo_entity::error::Returned;
use dynamo_entity::expr::Field;
use dynamo_entity::{Entity, Table, Timestamp};
use dynamo_entity::versioning::EpochSeconds;
use dynamo_entity::versioning::Maintained;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "META", gsi1 = "AUTHOR#<author>", gsi1_sk = "<created_at>")]
pub struct Doc {
    pub id: String,
    pub author: String,
    #[entity(version, rename = "v")]
    pub version: u32,
    #[entity(created_at)]
    pub created_at: Timestamp,
    #[entity(updated_at)]
    pub updated_at: dynamo_entity::Timestamp,
    #[entity(ttl)]
    pub expires_at: Option<Timestamp>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TOKEN#<id>", sk = "META")]
pub struct Token {
    pub id: String,
    #[entity(ttl)]
    pub expires_at: Timestamp,
    #[entity(version)]
    pub version: i64,
}

async fn write(table: &Table, mut doc: Doc) -> dynamo_entity::Result<()> {
    table.create(&mut doc).await?;
    table.put(&doc).await?;
    let _old: Returned<Doc> = table.replace(&mut doc).await?;
    let t = Timestamp::now();
    table
        .update(Doc::key("d1"))
        .set(Doc::EXPIRES_AT, &Some(EpochSeconds(t)))
        .condition(Doc::CREATED_AT.lt(&t).and(Doc::VERSION.eq(&3)))
        .if_version(3)
        .send()
        .await?;
    table.update(Token::key("t1")).set(Token::EXPIRES_AT, &EpochSeconds(t)).any_version().send().await?;
    Ok(())
}

fn main() {
    let _: Field<Doc, u32, Maintained> = Doc::VERSION;
    let _: Field<Doc, Timestamp, Maintained> = Doc::CREATED_AT;
    let _: Field<Doc, Timestamp, Maintained> = Doc::UPDATED_AT;
    let _: Field<Doc, Option<EpochSeconds>> = Doc::EXPIRES_AT;
    let _: Field<Token, EpochSeconds> = Token::EXPIRES_AT;
    let schema = Doc::schema();
    assert_eq!(schema.version.map(|v| (v.field, v.attribute, v.max)), Some(("version", "v", u64::from(u32::MAX))));
    assert_eq!(schema.created_at.map(|f| f.attribute), Some("created_at"));
    assert_eq!(schema.updated_at.map(|f| f.attribute), Some("updated_at"));
    assert_eq!(schema.ttl.map(|f| f.attribute), Some("expires_at"));
    assert_eq!(Token::schema().version.map(|v| v.max), Some(i64::MAX as u64));
    let _ = write;
}
