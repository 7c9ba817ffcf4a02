//! Reading DynamoDB's JSON into new values: an answer's items ([`Reader::item_list`]), one
//! item ([`Reader::item`]) and one attribute value ([`Reader::value`]), the form DynamoDB
//! writes (`{"S":"a"}`) read without the general loop.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::reader::{MAX_DEPTH, Malformed, Reader};
use crate::value::Item;

impl<'a> Reader<'a> {
    /// `[item, …]`: the answer's `Items` (or a table's items in a `BatchGetItem` answer), the
    /// items' attribute values at `depth`.
    pub(super) fn item_list(&mut self, depth: u32) -> Result<Vec<Item>, Malformed> {
        self.expect(b'[', "expected Items' list")?;
        let mut items = Vec::new();
        // The attributes of the item being read, reused from item to item: each item's map is
        // then made at its final size.
        let mut scratch = Vec::new();
        self.delimited(b']', "expected ',' or ']' in Items", |r| {
            let start = r.i;
            items.push(r.item(&mut scratch, depth)?);
            if items.len() == 1 {
                // The first item's size tells about how many follow: the list is made once at
                // about its size. At most one place an item per 64 bytes of the body left.
                let rest = r.b.len() - r.i;
                items.reserve(rest / (r.i - start).max(64));
            }
            Ok(())
        })?;
        Ok(items)
    }

    /// `{"name": value, …}`: one item (of `Items`, or an answer's `Item` or `Attributes`),
    /// its attribute values at `depth`.
    pub(super) fn item(&mut self, scratch: &mut Vec<(String, AttributeValue)>, depth: u32) -> Result<Item, Malformed> {
        scratch.clear();
        self.expect(b'{', "expected an item's object")?;
        self.delimited(b'}', "expected ',' or '}' in an item", |r| {
            let name = r.string()?;
            r.colon()?;
            scratch.push((name, r.value(depth)?));
            Ok(())
        })?;
        let mut item = HashMap::with_capacity(scratch.len());
        item.extend(scratch.drain(..));
        Ok(item)
    }

    /// One attribute value (`{"S":"a"}`) at `depth`.
    pub(super) fn value(&mut self, depth: u32) -> Result<AttributeValue, Malformed> {
        if depth >= MAX_DEPTH {
            return Err(self.at(self.i, "nested too deeply"));
        }
        let start = self.i;
        if let Some(value) = self.compact_value(depth)? {
            return Ok(value);
        }
        self.i = start;
        self.expect(b'{', "expected an attribute value's object")?;
        let mut value = None;
        self.delimited(b'}', "expected ',' or '}' in an attribute value", |r| {
            let tag_at = r.i;
            let tag = r.raw_string()?;
            r.colon()?;
            if r.literal(b"null") {
                // The SDK leaves out a member whose value is null.
                return Ok(());
            }
            if value.is_some() {
                return Err(r.at(tag_at, "an attribute value of two types"));
            }
            value = Some(match tag {
                b"S" => AttributeValue::S(r.string()?),
                b"N" => AttributeValue::N(r.string()?),
                b"B" => AttributeValue::B(r.blob()?),
                b"BOOL" => AttributeValue::Bool(r.boolean()?),
                b"NULL" => AttributeValue::Null(r.boolean()?),
                b"SS" => AttributeValue::Ss(r.list(depth + 1, Self::string)?),
                b"NS" => AttributeValue::Ns(r.list(depth + 1, Self::string)?),
                b"BS" => AttributeValue::Bs(r.list(depth + 1, Self::blob)?),
                b"L" => AttributeValue::L(r.list(depth + 1, |r| r.value(depth + 2))?),
                b"M" => AttributeValue::M(r.map(depth + 1)?),
                _ => return Err(r.at(tag_at, "a type this reader leaves to the SDK")),
            });
            Ok(())
        })?;
        value.ok_or_else(|| self.at(start, "an attribute value of no type"))
    }

    /// The value here when it is written as DynamoDB writes it, its one member without
    /// whitespace (`{"S":"a"}`, `{"N":"1"}`, `{"BOOL":true}`, `{"L":[…]}`, `{"M":{…}}`):
    /// read without [`value`](Self::value)'s general loop. `Ok(None)`: another form, to be
    /// read again from the same place by that loop (an error here is the one that loop meets
    /// at the same place).
    #[inline]
    pub(super) fn compact_value(&mut self, depth: u32) -> Result<Option<AttributeValue>, Malformed> {
        let b = self.b;
        let at = self.i;
        let value = match (b.get(at..at + 5), b.get(at + 5)) {
            (Some(b"{\"S\":"), Some(b'"')) => {
                self.i = at + 5;
                AttributeValue::S(self.string()?)
            }
            (Some(b"{\"N\":"), Some(b'"')) => {
                self.i = at + 5;
                AttributeValue::N(self.string()?)
            }
            (Some(b"{\"L\":"), Some(b'[')) => {
                self.i = at + 5;
                AttributeValue::L(self.list(depth + 1, |r| r.value(depth + 2))?)
            }
            (Some(b"{\"M\":"), Some(b'{')) => {
                self.i = at + 5;
                AttributeValue::M(self.map(depth + 1)?)
            }
            (Some(b"{\"BOO"), _) if b.get(at + 5..at + 8) == Some(b"L\":") => {
                self.i = at + 8;
                if self.literal(b"true") {
                    AttributeValue::Bool(true)
                } else if self.literal(b"false") {
                    AttributeValue::Bool(false)
                } else {
                    return Ok(None);
                }
            }
            _ => return Ok(None),
        };
        if self.peek() == Some(b'}') {
            self.i += 1;
            Ok(Some(value))
        } else {
            Ok(None)
        }
    }

    /// `[element, …]` at `depth` (a set or a list), each element read by `read`.
    pub(super) fn list<T>(
        &mut self,
        depth: u32,
        mut read: impl FnMut(&mut Self) -> Result<T, Malformed>,
    ) -> Result<Vec<T>, Malformed> {
        if depth >= MAX_DEPTH {
            return Err(self.at(self.i, "nested too deeply"));
        }
        self.expect(b'[', "expected a list")?;
        let mut out = Vec::new();
        self.delimited(b']', "expected ',' or ']'", |r| {
            out.push(read(r)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// `{"name": value, …}` at `depth`: an `M`.
    pub(super) fn map(&mut self, depth: u32) -> Result<HashMap<String, AttributeValue>, Malformed> {
        if depth >= MAX_DEPTH {
            return Err(self.at(self.i, "nested too deeply"));
        }
        self.expect(b'{', "expected a map")?;
        let mut out = HashMap::new();
        self.delimited(b'}', "expected ',' or '}' in a map", |r| {
            let name = r.string()?;
            r.colon()?;
            out.insert(name, r.value(depth + 1)?);
            Ok(())
        })?;
        Ok(out)
    }
}
