//! A search schema attribute of a type whose `Attribute` impl stores neither S, N nor B: the
//! derive cannot tell by the type's name, the constant `Attribute::STORED` tells.
use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::value::{StoredType, ValueError};
use dynamo_entity::{Attribute, Entity};

/// Stored as a list of strings.
pub struct Labels(pub Vec<String>);

impl Attribute for Labels {
    const STORED: StoredType = StoredType::Other("L");
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        Ok(Some(AttributeValue::L(self.0.iter().map(|s| AttributeValue::S(s.clone())).collect())))
    }
    fn from_attribute(_: Option<&AttributeValue>) -> Result<Self, ValueError> {
        Ok(Labels(Vec::new()))
    }
}

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "META")]
pub struct Doc {
    pub id: String,
    pub labels: Labels,
    #[entity(vector(index = "ByMeaning", dimensions = 3, distance = cosine, filters(labels)))]
    pub embedding: Vec<f32>,
}

fn main() {}
