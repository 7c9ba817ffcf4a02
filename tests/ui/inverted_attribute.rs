use dynamo_entity::Entity;

// `inverted` is a flag on the struct, given once; every mistake is reported at once.
#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "WISH#<product_id>", inverted = true)]
#[entity(inverted)]
pub struct Wish {
    pub user_id: String,
    #[entity(inverted)]
    pub product_id: String,
}

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "FOLLOWS#<other_id>", invertd)]
pub struct Follow {
    pub user_id: String,
    pub other_id: String,
}

fn main() {}
