//! DynamoDB's shape of a vector index, checked by the derive: one mistake a field.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "META")]
pub struct Doc {
    pub id: String,
    pub tenant: String,
    pub lang: String,
    pub active: bool,
    pub tags: Vec<String>,
    #[entity(serde)]
    pub meta: Meta,
    #[entity(vector(index = "ByA", dimensions = 3, distance = cosine))]
    pub a: Vec<f64>,
    #[entity(serde, vector(index = "ByB", dimensions = 3, distance = cosine))]
    pub b: Vec<f32>,
    #[entity(vector(index = "C", dimensions = 3, distance = cosine))]
    pub c: Vec<f32>,
    #[entity(vector(index = "ByA", dimensions = 3, distance = euclidean))]
    pub d: Vec<f32>,
    #[entity(vector(index = "ByE", dimensions = 0, distance = cosine))]
    pub e: Vec<f32>,
    #[entity(vector(index = "ByF", dimensions = 4097, distance = dot_product))]
    pub f: Vec<f32>,
    #[entity(vector(index = "ByG", dimensions = 3, distance = cosine, hash = tenant, filters(tenant)))]
    pub g: Vec<f32>,
    #[entity(vector(index = "ByH", dimensions = 3, distance = cosine, filters(h)))]
    pub h: Vec<f32>,
    #[entity(vector(index = "ByJ", dimensions = 3, distance = cosine, filters(meta)))]
    pub j: Vec<f32>,
    #[entity(vector(index = "ByK", dimensions = 3, distance = cosine, filters(tenat)))]
    pub k: Vec<f32>,
    #[entity(vector(index = "ByL", dimensions = 3, distance = cosine, filters(active)))]
    pub l: Vec<f32>,
    #[entity(vector(index = "ByM", dimensions = 3, distance = cosine, hash = tags))]
    pub m: Option<Vec<f32>>,
}

#[derive(serde::Serialize, serde::Deserialize)]
pub struct Meta {
    pub note: String,
}

fn main() {}
