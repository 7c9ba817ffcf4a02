//! DynamoDB's JSON item format read straight into [`Item`] maps, without the SDK's token
//! stream: the `Items` of a `Query` or `Scan` answer's body ([`take_items`]; or
//! [`take_raw_items`], which checks them and leaves them as JSON, for the page to read one at a
//! time into one reused map with [`ItemsReader`]), the `Item` of a
//! `GetItem` answer and the `Attributes` of a `PutItem`, `UpdateItem` or `DeleteItem` answer
//! ([`take_item`]), each table's items of a `BatchGetItem` answer ([`take_batch_responses`])
//! and the items of a `TransactGetItems` answer ([`take_transact_responses`]).
//!
//! Each string (an attribute's name, an `S`, an `N`, an element of a set) is written once,
//! into the `String` that holds it: a string without escapes is copied once; one with escapes
//! is unescaped into a `String` sized for it. The body is checked as UTF-8 once, as a whole:
//! a string is then a slice of it, which needs no check of its own (its quotes are ASCII, so
//! they are character boundaries).
//!
//! The rules are the SDK's (`aws-sdk-dynamodb`'s deserializer of `AttributeValue`), so that an
//! answer read here holds exactly the items the SDK would have made of it:
//!
//! | input | read as |
//! |---|---|
//! | `{"S":"…"}`, `{"N":"…"}` | `S`, `N` (a number's text is not checked, as the SDK does not) |
//! | `{"B":"…"}`, `{"BS":[…]}` | base64 (standard alphabet), decoded by the SDK's own decoder |
//! | `{"BOOL":true}`, `{"NULL":true}` | `BOOL`, `NULL` |
//! | `{"SS":[…]}`, `{"NS":[…]}`, `{"L":[…]}`, `{"M":{…}}` | sets, list, map |
//! | a member whose value is `null` in a value's object | left out (`{"S":null,"N":"1"}` is `N`) |
//! | a name twice in a map or an item | the last one |
//! | a value nested 63 levels deep (62 in `Responses`); in an item of `Items`, also an empty set, list or map at 62 | an error, as the SDK's depth limit |
//!
//! What this reader does not take on (a type tag written with escapes, an unknown type tag,
//! `__type`, a second `Items`, `Item` or `Attributes`, a member name written with escapes) is an
//! error too: the caller then leaves the body to the SDK,
//! whose answer (an error, or `AttributeValue::Unknown`) stays the SDK's. Malformed input is
//! an error, never a panic.
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | the answer's members taken out of a body (`take_*`), [`read_item`] |
//! | `reader.rs` | the lexical layer: [`Malformed`], strings, separators, the SDK's depths |
//! | `build.rs` | items and values read into new maps |
//! | `reuse.rs` | [`RawItems`] and [`ItemsReader`]: a page's items read into one reused map |
//! | `check.rs` | items checked as `build.rs` reads them, without building them |
//! | `plain.rs` | plain JSON, not the item format: the library's own small documents (a query's cursor) |

use std::collections::HashMap;

use aws_sdk_dynamodb::types::ItemResponse;
use bytes::Bytes;

use crate::value::Item;
use reader::{ATTRIBUTE_DEPTH, MEMBER_ATTRIBUTE_DEPTH, NESTED_ATTRIBUTE_DEPTH, Reader};

mod build;
mod check;
pub(crate) mod plain;
mod reader;
mod reuse;

pub use reader::Malformed;
pub use reuse::{ItemsReader, RawItems};

/// The member an answer's body held and the body without it.
#[derive(Debug, Clone, PartialEq)]
pub struct Taken<T> {
    /// The member's value: the items of `Items` in order, or the one item of `Item` or
    /// `Attributes`.
    pub value: T,
    /// The body with the member left out, every other member as it was.
    pub rest: Vec<u8>,
}

/// Reads the `Items` member of the JSON object `body` (a `Query` or `Scan` answer).
/// `Ok(None)`: the body has no `Items` member, or `"Items":null` (the SDK reads no items).
///
/// # Errors
/// [`Malformed`] when the body is not an object, its `Items` is not a list of items in
/// DynamoDB's JSON, or it holds what this reader leaves to the SDK (see the
/// `value::json` module documentation).
pub fn take_items(body: &[u8]) -> Result<Option<Taken<Vec<Item>>>, Malformed> {
    take(body, b"Items", |r| r.item_list(ATTRIBUTE_DEPTH))
}

/// Finds the `Items` member of the JSON object `body` (a `Query` or `Scan` answer) and leaves
/// it as JSON: [`RawItems`], read one item at a time with [`RawItems::reader`]. `body` is
/// shared, not copied. `Ok(None)`: no `Items` member, or `"Items":null`.
///
/// Each item is checked here as [`take_items`] reads it, without building it: a body that
/// reader refuses is refused here too, and left to the SDK. Each item is read when the page
/// decodes it; an error then (none, once checked) fails the read.
///
/// # Errors
/// As [`take_items`].
pub fn take_raw_items(body: &Bytes) -> Result<Option<Taken<RawItems>>, Malformed> {
    let taken = take(body, b"Items", |r| {
        let start = r.i;
        r.expect(b'[', "expected Items' list")?;
        let mut len = 0;
        let mut scratch = String::new();
        r.delimited(b']', "expected ',' or ']' in Items", |r| {
            r.check_item(ATTRIBUTE_DEPTH, &mut scratch)?;
            len += 1;
            Ok(())
        })?;
        Ok((start, r.i, len))
    })?;
    Ok(taken.map(|t| {
        let (start, end, len) = t.value;
        Taken { value: RawItems::new(body.slice(start..end), start, len), rest: t.rest }
    }))
}

/// Reads the member `name` of the JSON object `body`, one item: `Item` of a `GetItem` answer,
/// `Attributes` of a `PutItem`, `UpdateItem` or `DeleteItem` answer. `Ok(None)`: the body has
/// no such member (`GetItem` of an absent item), or it is `null` (the SDK reads no item).
///
/// # Errors
/// As [`take_items`], for one item.
pub fn take_item(body: &[u8], name: &str) -> Result<Option<Taken<Item>>, Malformed> {
    take(body, name.as_bytes(), |r| r.item(&mut Vec::new(), MEMBER_ATTRIBUTE_DEPTH))
}

/// The items of a `BatchGetItem` answer, by table name.
pub type ItemsByTable = HashMap<String, Vec<Item>>;

/// Reads the `Responses` member of a `BatchGetItem` answer: each table's items, by table
/// name (a name twice: the last one, as the SDK reads it). `Ok(None)`: no `Responses`, or
/// `null`.
///
/// # Errors
/// As [`take_items`].
pub fn take_batch_responses(body: &[u8]) -> Result<Option<Taken<ItemsByTable>>, Malformed> {
    take(body, b"Responses", |r| {
        r.expect(b'{', "expected Responses' map")?;
        let mut tables = HashMap::new();
        r.delimited(b'}', "expected ',' or '}' in Responses", |r| {
            let name = r.string()?;
            r.colon()?;
            tables.insert(name, r.item_list(NESTED_ATTRIBUTE_DEPTH)?);
            Ok(())
        })?;
        Ok(tables)
    })
}

/// Reads the `Responses` member of a `TransactGetItems` answer: one `{"Item": …}` a read, in
/// order (`{}` or `"Item":null`: no item). `Ok(None)`: no `Responses`, or `null`.
///
/// # Errors
/// As [`take_items`]; also a member other than `Item` in a response, or a second `Item`.
pub fn take_transact_responses(body: &[u8]) -> Result<Option<Taken<Vec<ItemResponse>>>, Malformed> {
    take(body, b"Responses", |r| {
        r.expect(b'[', "expected Responses' list")?;
        let mut responses = Vec::new();
        r.delimited(b']', "expected ',' or ']' in Responses", |r| {
            r.expect(b'{', "expected a response's object")?;
            let mut item: Option<Option<Item>> = None;
            r.delimited(b'}', "expected ',' or '}' in a response", |r| {
                let start = r.i;
                if r.raw_string()? != b"Item" {
                    return Err(r.at(start, "a member of a response this reader leaves to the SDK"));
                }
                r.colon()?;
                if item.is_some() {
                    return Err(r.at(start, "a second Item"));
                }
                item = Some(if r.literal(b"null") {
                    None
                } else {
                    Some(r.item(&mut Vec::new(), NESTED_ATTRIBUTE_DEPTH)?)
                });
                Ok(())
            })?;
            responses.push(ItemResponse::builder().set_item(item.flatten()).build());
            Ok(())
        })?;
        Ok(responses)
    })
}

/// Reads the member `name` of the JSON object `body` with `read`: its value and the body
/// without it; `Ok(None)` when it is absent or `null`.
fn take<'a, T>(
    body: &'a [u8],
    name: &[u8],
    mut read: impl FnMut(&mut Reader<'a>) -> Result<T, Malformed>,
) -> Result<Option<Taken<T>>, Malformed> {
    let mut r = Reader::new(body)?;
    r.ws();
    r.expect(b'{', "expected the answer's object")?;
    // Every member but `name`, as byte ranges of `body`.
    let mut kept: Vec<(usize, usize)> = Vec::with_capacity(6);
    let mut value: Option<Option<T>> = None;
    r.delimited(b'}', "expected ',' or '}'", |r| {
        let start = r.i;
        let key = r.raw_string()?;
        if key.contains(&b'\\') {
            return Err(r.at(start, "an escaped member name"));
        }
        r.colon()?;
        if key == name {
            if value.is_some() {
                return Err(r.at(start, "a second answer member"));
            }
            value = Some(if r.literal(b"null") { None } else { Some(read(r)?) });
        } else {
            r.skip_value()?;
            kept.push((start, r.i));
        }
        Ok(())
    })?;
    let Some(Some(value)) = value else { return Ok(None) };
    let mut rest = Vec::with_capacity(kept.iter().map(|(s, e)| e - s + 1).sum::<usize>() + 2 + body.len() - r.i);
    rest.push(b'{');
    for (n, &(s, e)) in kept.iter().enumerate() {
        if n > 0 {
            rest.push(b',');
        }
        rest.extend_from_slice(&body[s..e]);
    }
    rest.push(b'}');
    // Whatever follows the object stays, for the SDK to judge.
    rest.extend_from_slice(&body[r.i..]);
    Ok(Some(Taken { value, rest }))
}

/// Reads one item in DynamoDB's JSON (`{"PK":{"S":"a"},…}`), at the depth of an item of an
/// answer's `Items`.
///
/// # Errors
/// As [`take_items`]; also anything but whitespace after the item.
pub fn read_item(text: &[u8]) -> Result<Item, Malformed> {
    let mut r = Reader::new(text)?;
    let mut scratch = Vec::new();
    r.ws();
    let item = r.item(&mut scratch, ATTRIBUTE_DEPTH)?;
    r.ws();
    if r.i != text.len() {
        return Err(r.at(r.i, "more after the item"));
    }
    Ok(item)
}

#[cfg(test)]
mod tests;
