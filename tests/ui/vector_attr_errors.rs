//! The keys of `#[entity(vector(...))]`: one mistake a field.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "META")]
pub struct Doc {
    pub id: String,
    pub tenant: String,
    #[entity(vector(index = "ByA", dimensions = 3, distance = cosine, filter(tenant)))]
    pub a: Vec<f32>,
    #[entity(vector(index = "ByB", index = "ByB2", dimensions = 3, distance = cosine))]
    pub b: Vec<f32>,
    #[entity(vector(index = "ByC", dimensions = "3", distance = cosine))]
    pub c: Vec<f32>,
    #[entity(vector(index = "ByD", dimensions = 3, distance = COSINE))]
    pub d: Vec<f32>,
    #[entity(vector(index = "ByE", dimensions = 3, distance = cosine, hash = "tenant"))]
    pub e: Vec<f32>,
    #[entity(vector(index = "ByF", dimensions = 3, distance = cosine, filters(doc::tenant)))]
    pub f: Vec<f32>,
    #[entity(vector(dimensions = 3, distance = cosine))]
    pub g: Vec<f32>,
    #[entity(vector(index = "ByH", distance = cosine))]
    pub h: Vec<f32>,
    #[entity(vector(index = "ByI", dimensions = 3))]
    pub i: Vec<f32>,
    #[entity(vector(index = "ByJ", dimensions = 3, distance = cosine), vector(index = "ByJ2", dimensions = 3, distance = cosine))]
    pub j: Vec<f32>,
    #[entity(vector(index = "ByK", dimensions = 3, distance = "cosine"))]
    pub k: Vec<f32>,
}

fn main() {}
