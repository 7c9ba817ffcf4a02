// A failed derive still gives a vector field its search function, so that the code searching
// the index reports nothing more than the one mistake (the placeholder naming no field).
use dynamo_entity::{Entity, Table};

#[derive(Entity, Debug)]
#[entity(pk = "DOC#<idd>", sk = "META")]
pub struct Doc {
    pub id: String,
    pub tenant: String,
    #[entity(vector(index = "DocsByMeaning", dimensions = 3, distance = cosine, hash = tenant))]
    pub embedding: Vec<f32>,
}

async fn use_it(table: &Table) {
    let _ = table.search(Doc::search_embedding(vec![0.1, 0.2, 0.3])).filter(Doc::TENANT, &"acme".to_owned()).send().await;
}

fn main() {
    let _ = use_it;
}
