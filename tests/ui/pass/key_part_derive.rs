//! `#[derive(KeyPart)]`: transparent newtypes (numeric ones keep `N`), enums with renames.

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::key::PartForm;
use dynamo_entity::{Attribute, Entity, KeyPart};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
pub struct Cents(u64);

#[derive(KeyPart, Debug, Clone, PartialEq)]
pub struct Sku {
    code: String,
}

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
#[key_part(rename_all = "kebab-case")]
pub enum Status {
    InStock,
    #[key_part(rename = "gone")]
    SoldOut,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "SKU#<sku>",
    sk = "META",
    gsi1 = "STATUS#<status>",
    gsi1_sk = "<price>"
)]
pub struct Product {
    pub sku: Sku,
    pub status: Status,
    pub price: Cents,
}

fn main() {
    assert!(<Cents as KeyPart>::NUMERIC);
    assert!(!<Sku as KeyPart>::NUMERIC);
    assert_eq!(
        Product::schema().gsis[0].sk.key_type,
        dynamo_entity::key::KeyType::N
    );

    let mut out = String::new();
    Status::InStock
        .write_part(&mut out, PartForm::Composite)
        .unwrap();
    assert_eq!(out, "in-stock");
    assert_eq!(
        Status::parse_part("gone", PartForm::Composite).unwrap(),
        Status::SoldOut
    );
    assert!(Status::parse_part("sold-out", PartForm::Composite).is_err());
    assert_eq!(
        Status::SoldOut.to_attribute().unwrap(),
        Some(AttributeValue::S("gone".into()))
    );
    assert!(Status::from_attribute(Some(&AttributeValue::N("1".into()))).is_err());
    assert!(Status::from_attribute(Some(&AttributeValue::S("nope".into()))).is_err());
    assert_eq!(
        Cents::parse_part("00000000000000000042", PartForm::Composite).unwrap(),
        Cents(42)
    );
    assert_eq!(
        Cents(5).to_attribute().unwrap(),
        Some(AttributeValue::N("5".into()))
    );

    let p = Product {
        sku: Sku { code: "A-1".into() },
        status: Status::InStock,
        price: Cents(1999),
    };
    let item = p.to_item().unwrap();
    assert_eq!(item["GSI1PK"].as_s().unwrap(), "STATUS#in-stock");
    assert_eq!(item["GSI1SK"].as_n().unwrap(), "1999");
    assert_eq!(Product::from_item(&item).unwrap(), p);
}
