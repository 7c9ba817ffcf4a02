use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", gsi4 = "SKILL#<status>", gsi2_sk = "<created_at>")]
pub struct Skill {
    pub id: String,
    pub status: String,
    pub created_at: u64,
}

fn main() {}
