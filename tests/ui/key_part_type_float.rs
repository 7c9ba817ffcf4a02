use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", gsi1 = "PRICED", gsi1_sk = "<price>")]
pub struct Skill {
    pub id: String,
    pub price: f64,
}

fn main() {}
