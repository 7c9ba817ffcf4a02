//! How the writes of a batch are split into `BatchWriteItem` requests: at most
//! [`MAX_WRITE_ITEMS`] writes and [`MAX_REQUEST_BYTES`] of body each,
//! after the size and duplicate checks.

use std::borrow::Borrow;

use crate::batch::key_id::check_duplicates;
use crate::batch::wire;
use crate::batch::write_op::WriteOp;
use crate::error::Error;
use crate::limits::MAX_REQUEST_BYTES;
use crate::schema::size::MAX_ITEM_BYTES;

/// The most writes (puts and deletes) DynamoDB accepts in one `BatchWriteItem` request.
pub const MAX_WRITE_ITEMS: usize = 25;

/// Checks the writes (item size, duplicate keys) and splits them into the requests of `table`:
/// at most [`MAX_WRITE_ITEMS`] writes each, and a body (the writes' JSON in the request's
/// envelope) of at most [`MAX_REQUEST_BYTES`], in order.
///
/// # Errors
/// [`Error::ItemTooLarge`]; [`Error::DuplicateKey`]; [`Error::LimitExceeded`] for a write
/// whose request alone would be over [`MAX_REQUEST_BYTES`].
pub(super) fn write_chunks<W: Borrow<WriteOp>>(ops: &[W], table: &str) -> Result<Vec<Vec<usize>>, Error> {
    if let Some(op) = ops.iter().map(Borrow::borrow).find(|op| op.size > MAX_ITEM_BYTES) {
        return Err(Error::ItemTooLarge {
            entity: op.entity,
            key: op.names.show_key(&op.key),
            size: op.size,
            limit: MAX_ITEM_BYTES,
        });
    }
    check_duplicates(ops.iter().map(Borrow::borrow).map(|op| (&op.key, op.entity, op.names)))?;
    // The room for the writes in a body: what is left of the limit after the envelope.
    let room = MAX_REQUEST_BYTES.saturating_sub(wire::envelope_len(table));
    let mut chunks: Vec<Vec<usize>> = Vec::new();
    let mut bytes = 0;
    for (i, op) in ops.iter().map(Borrow::borrow).enumerate() {
        // Its bytes and the comma before it.
        let len = op.wire.len() + 1;
        if len > room {
            return Err(Error::LimitExceeded {
                limit: crate::limits::Limit::RequestSize,
                part: "the BatchWriteItem request of this write alone".to_owned(),
                measured: len - 1 + wire::envelope_len(table),
                max: MAX_REQUEST_BYTES,
                library: 0,
                operation: "BatchWriteItem",
                entity: op.entity,
                key: op.names.show_key(&op.key),
            });
        }
        match chunks.last_mut() {
            Some(chunk) if chunk.len() < MAX_WRITE_ITEMS && bytes + len <= room => {
                chunk.push(i);
                bytes += len;
            }
            _ => {
                chunks.push(vec![i]);
                bytes = len;
            }
        }
    }
    Ok(chunks)
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::AttributeValue;

    use super::*;
    use crate::schema::{AttributeNames, PrimaryKey};

    #[test]
    fn a_write_whose_request_alone_is_over_16_mb_is_refused_and_others_are_split_by_bytes() {
        let names = &AttributeNames::DEFAULT;
        let op = |i: usize, value: AttributeValue| {
            let key = PrimaryKey { pk: AttributeValue::S(format!("A#{i}")), sk: AttributeValue::S("META".into()) };
            let mut item = names.key_item(&key);
            item.insert("v".to_owned(), value);
            WriteOp::from_item("Thing", names, key, item, 40).unwrap()
        };
        // A number of 38 significant digits counts 20 bytes, whatever its leading zeros: its
        // JSON can be any length.
        let huge = op(0, AttributeValue::N(format!("{}1", "0".repeat(MAX_REQUEST_BYTES))));
        let err = write_chunks(&[huge], "t").unwrap_err();
        // The write: `{"PutRequest":{"Item":` and `}}` (24 bytes), the item's braces and commas
        // (4), `"PK":{"S":"A#0"}` (16), `"SK":{"S":"META"}` (17), `"v":{"N":"` and `"}` (12)
        // around the number's digits; the envelope of table `t` (60).
        let measured = 24 + 4 + 16 + 17 + 12 + MAX_REQUEST_BYTES + 1 + 60;
        assert_eq!(
            err.to_string(),
            format!(
                "BatchWriteItem of Thing PK=A#0 SK=META: the BatchWriteItem request of this write alone has {measured} \
                 bytes, over DynamoDB's limit of 16777216 (size of a request); nothing was sent"
            )
        );
        // Each of these writes is a third of the room: two to a request.
        let third = (MAX_REQUEST_BYTES - wire::envelope_len("t")) / 3;
        let ops: Vec<WriteOp> = (0..5).map(|i| op(i, AttributeValue::S("x".repeat(third)))).collect();
        assert_eq!(write_chunks(&ops, "t").unwrap(), vec![vec![0, 1], vec![2, 3], vec![4]]);
        let small: Vec<WriteOp> = (0..30).map(|i| op(i, AttributeValue::S("x".into()))).collect();
        assert_eq!(write_chunks(&small, "t").unwrap().iter().map(Vec::len).collect::<Vec<_>>(), vec![25, 5]);
    }
}
