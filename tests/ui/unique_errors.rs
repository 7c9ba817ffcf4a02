// `#[entity(unique)]`: a field attribute without a value, on a field that stores one string,
// number, binary or bool value (an `Option` of one is fine: `None` claims nothing).
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "PROFILE", unique)]
struct OnTheStruct {
    id: String,
}

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
struct User {
    id: String,
    #[entity(unique)]
    score: f64,
    #[entity(unique)]
    tags: Vec<String>,
    #[entity(unique)]
    aliases: Option<Option<String>>,
    #[entity(unique, serde)]
    profile: std::collections::HashMap<String, String>,
    #[entity(unique = true)]
    email: String,
    #[entity(uniq)]
    handle: String,
    // Fine: one value, optional, or binary.
    #[entity(unique)]
    nickname: Option<String>,
    #[entity(unique)]
    fingerprint: Vec<u8>,
}

fn main() {}
