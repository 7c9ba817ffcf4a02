//! `#[entity(serde)]` stores a nested type through serde; a raw identifier field and a custom
//! entity name.

use dynamo_entity::Entity;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Address {
    pub city: String,
    pub lines: Vec<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "CUSTOMER#<id>", sk = "ADDRESS#<label>", name = "CustomerAddress")]
pub struct Addr {
    pub id: String,
    pub label: String,
    #[entity(serde)]
    pub address: Address,
    #[entity(serde, rename = "prev")]
    pub previous: Option<Address>,
    pub r#type: String,
}

fn main() {
    assert_eq!(<Addr as Entity>::TYPE, "CustomerAddress");
    let a = Addr {
        id: "c1".into(),
        label: "home".into(),
        address: Address {
            city: "Oslo".into(),
            lines: vec!["Gate 1".into()],
        },
        previous: None,
        r#type: "postal".into(),
    };
    let item = a.to_item().unwrap();
    assert!(item["address"].as_m().is_ok());
    assert!(!item.contains_key("prev"));
    assert_eq!(item["type"].as_s().unwrap(), "postal");
    assert_eq!(item["_type"].as_s().unwrap(), "CustomerAddress");
    assert_eq!(Addr::from_item(&item).unwrap(), a);
    assert_eq!(Addr::TYPE.attribute, "type"); // the field handle shadows `Entity::TYPE`
}
