//! The guide: single-table design with this library, chapter by chapter, in the order a team
//! works. Every code block is a doctest (`cargo test -p dynamo-entity --doc guide`).
#![doc = include_str!("../../guide/README.md")]

pub mod access_patterns {
    #![doc = include_str!("../../guide/01-access-patterns.md")]
}

pub mod keys {
    #![doc = include_str!("../../guide/02-keys.md")]
}

pub mod queries {
    #![doc = include_str!("../../guide/03-queries.md")]
}

pub mod writes {
    #![doc = include_str!("../../guide/04-writes.md")]
}

pub mod transactions {
    #![doc = include_str!("../../guide/05-transactions.md")]
}

pub mod other_clients {
    #![doc = include_str!("../../guide/07-other-clients.md")]
}

pub mod rolling_deploys {
    #![doc = include_str!("../../guide/08-rolling-deploys.md")]
}

pub mod streams {
    #![doc = include_str!("../../guide/09-streams.md")]
}

pub mod real_aws {
    #![doc = include_str!("../../guide/10-real-aws.md")]
}

pub mod performance {
    #![doc = include_str!("../../guide/11-performance.md")]
}
