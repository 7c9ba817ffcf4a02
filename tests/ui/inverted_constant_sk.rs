use dynamo_entity::Entity;

// The inverted index is queried by `SK`: a constant sort key would be one partition holding
// every profile.
#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "PROFILE", inverted)]
pub struct User {
    pub id: String,
    pub name: String,
}

fn main() {}
