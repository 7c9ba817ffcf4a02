use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "PROFILE", gsi1 = "TEAM#<team>", gsi1_sk = "<nickname>")]
pub struct User {
    pub id: String,
    // In no key template.
    #[entity(key_fields = "keys")]
    pub name: String,
    // Only in GSI1, whose other part is an `Option`: when `nickname` is None the key is absent.
    #[entity(key_fields = "keys")]
    pub team: String,
    pub nickname: Option<String>,
    // Not a choice.
    #[entity(key_fields = "key")]
    pub email: String,
}

fn main() {}
