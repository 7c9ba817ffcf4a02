//! A put's item, sent without a copy.
//!
//! The SDK takes the request it sends and gives nothing back. A write that the library may
//! send again (see [`write_token`](crate::write_token)) must therefore keep its request. An
//! update's or a delete's request is small, and each attempt sends a copy. A put's request
//! holds the whole item, and copying it took about 15,000 instructions a put (a Skill of 11
//! attributes), a fifth of what a put costs the library beyond hand-written SDK code.
//!
//! So a put's first attempt takes the item itself, and the crate's interceptor,
//! [`ReadBodies`](super::body::ReadBodies), keeps the body the SDK serialized from it
//! (`read_after_serialization`, [`keep`]; the body's bytes are shared, not copied). It does
//! this only for a put's attempt, which runs inside [`keeping`]. A request's own interceptor
//! (`customize`) would add a layer to the SDK's configuration that every lookup of the request
//! then walks: so the crate has one, on every handle's clients, added as always enabled (an
//! interceptor added otherwise costs about 4,800 instructions a request: the SDK asks at every
//! hook whether it is disabled). A later attempt is rare: a throttled attempt, one that lost
//! its answer, or another writer's newer write. It reads the item back from that body, so it
//! sends the exact values the first attempt sent ([`Held::item`]).
//!
//! | the attempt | its item |
//! |---|---|
//! | the first | the request's own, moved |
//! | a later one | read back from the body the attempt before it sent |
//! | a later one, when the attempt before it never reached serialization (an interceptor of the client refused it) | none: that attempt was not sent, and its error is the write's answer, so no later attempt is made |

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_smithy_types::body::SdkBody;

use crate::schema::Item;
use crate::value::json;

/// A put's item between its attempts (see the [module](self) documentation).
#[derive(Debug)]
pub(crate) struct Held {
    /// The item, until the first attempt takes it.
    item: Option<Item>,
    /// The body the latest attempt sent.
    sent: Option<SdkBody>,
}

impl Held {
    /// `item`, held for the attempts of its put.
    pub(crate) fn new(item: Item) -> Arc<Mutex<Held>> {
        Arc::new(Mutex::new(Held { item: Some(item), sent: None }))
    }

    /// The item of the next attempt: the request's own for the first, else the one the last
    /// attempt sent; `None` when no attempt sent one (it never reached serialization).
    pub(crate) fn item(held: &Mutex<Held>) -> Option<Item> {
        let mut held = held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(item) = held.item.take() {
            return Some(item);
        }
        item_in_body(held.sent.as_ref()?.bytes()?)
    }
}

tokio::task_local! {
    /// Where the put being sent keeps its body.
    static HELD: Arc<Mutex<Held>>;
}

/// `request`, a put's attempt, run so that [`keep`] keeps its body in `held`.
pub(crate) fn keeping<F: Future>(held: Arc<Mutex<Held>>, request: F) -> impl Future<Output = F::Output> {
    HELD.scope(held, request)
}

/// Keeps the body the SDK serialized for the put being sent ([`keeping`]); does nothing for
/// other requests. Called by the crate's one interceptor,
/// [`ReadBodies`](super::body::ReadBodies), in `read_after_serialization`.
pub(crate) fn keep(context: &BeforeTransmitInterceptorContextRef<'_>) {
    let _ = HELD.try_with(|held| {
        // The SDK serializes into memory, so the clone shares its bytes.
        let sent = context.request().body().try_clone();
        held.lock().unwrap_or_else(PoisonError::into_inner).sent = sent;
    });
}

/// The `Item` member of a serialized `PutItem` request, as the SDK's JSON writer wrote it, read
/// by the crate's reader of answers ([`json::take_item`]: a request's body has the same form).
fn item_in_body(body: &[u8]) -> Option<Item> {
    match json::take_item(body, "Item") {
        Ok(taken) => taken.map(|t| t.value),
        Err(e) => {
            tracing::warn!(at = e.at, reason = e.reason, "a put's sent item did not read back");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::primitives::Blob;
    use aws_sdk_dynamodb::types::AttributeValue;

    use super::*;

    #[test]
    fn the_item_reads_back_from_the_body_the_sdk_serialized() {
        let item = Item::from([
            ("PK".to_owned(), AttributeValue::S("SKILL#1 \"q\" \u{e9}".to_owned())),
            ("n".to_owned(), AttributeValue::N("-1.50".to_owned())),
            ("_w1".to_owned(), AttributeValue::B(Blob::new(vec![0, 1, 255]))),
            ("l".to_owned(), AttributeValue::L(vec![AttributeValue::Null(true), AttributeValue::Bool(false)])),
            ("ss".to_owned(), AttributeValue::Ss(vec!["a".to_owned(), "b".to_owned()])),
        ]);
        let body = br##"{"ConditionExpression":"attribute_not_exists(#pk)","ExpressionAttributeNames":{"#pk":"PK"},"Item":{"PK":{"S":"SKILL#1 \"q\" \u00e9"},"n":{"N":"-1.50"},"_w1":{"B":"AAH/"},"l":{"L":[{"NULL":true},{"BOOL":false}]},"ss":{"SS":["a","b"]}},"TableName":"t"}"##;
        assert_eq!(item_in_body(body), Some(item));
        assert_eq!(item_in_body(br#"{"TableName":"t"}"#), None);
        assert_eq!(item_in_body(b"not json"), None);
    }

    #[test]
    fn the_first_attempt_takes_the_item_and_a_later_one_reads_it_back() {
        let item = Item::from([("PK".to_owned(), AttributeValue::S("a".to_owned()))]);
        let held = Held::new(item.clone());
        assert_eq!(Held::item(&held), Some(item.clone()));
        // Nothing was sent yet: there is nothing to read back.
        assert_eq!(Held::item(&held), None);
        held.lock().unwrap().sent = Some(SdkBody::from(r#"{"Item":{"PK":{"S":"a"}},"TableName":"t"}"#));
        assert_eq!(Held::item(&held), Some(item.clone()));
        assert_eq!(Held::item(&held), Some(item));
    }
}
