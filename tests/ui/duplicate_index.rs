use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(
    pk = "SKILL#<id>", sk = "META",
    gsi1 = "CAT#<category>", gsi1_sk = "<downloads>",
    gsi1 = "SELLER#<seller>",
)]
pub struct Skill {
    pub id: String,
    pub category: String,
    pub seller: String,
    pub downloads: u64,
}

fn main() {}
