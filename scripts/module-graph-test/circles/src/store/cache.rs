use super::disk::page::Page;

pub struct Cache {
    page: Option<Page>,
}

impl Cache {
    pub fn new() -> Cache {
        Cache { page: None }
    }
}
