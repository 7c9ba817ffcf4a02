use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "OWNER#<owner>")]
pub struct Skill {
    pub id: String,
    pub title: String,
    pub seller_id: String,
}

fn main() {}
