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

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::{AttributeValue, ItemResponse};
use bytes::Bytes;

use crate::value::Item;

/// Why a body could not be read: the byte offset and what was wrong there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed {
    /// The byte offset in the body.
    pub at: usize,
    /// What was expected or found.
    pub reason: &'static str,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {} of the answer", self.reason, self.at)
    }
}

impl std::error::Error for Malformed {}

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
        Taken { value: RawItems { body: body.slice(start..end), at: start, len }, rest: t.rest }
    }))
}

/// A page's `Items` left as the answer's JSON (`[{…},…]`, a shared slice of the body): its
/// items are read one at a time, into one map ([`ItemsReader`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RawItems {
    /// The list's JSON, brackets included.
    body: Bytes,
    /// Where the list starts in the answer's body (for the offsets of errors).
    at: usize,
    /// How many items the list holds.
    len: usize,
}

impl RawItems {
    /// How many items the list holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list holds no item.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A reader of the items, one after the other.
    ///
    /// # Errors
    /// [`Malformed`] when the list is not UTF-8 (not when it came from [`take_raw_items`]).
    pub fn reader(&self) -> Result<ItemsReader<'_>, Malformed> {
        let r = Reader::new(&self.body).map_err(|e| Malformed { at: e.at + self.at, reason: e.reason })?;
        Ok(ItemsReader {
            r,
            at: self.at,
            started: false,
            done: false,
            order: Vec::new(),
            seen: Vec::new(),
            sorted: Vec::new(),
        })
    }

    /// The list `list` (`[{…},…]`) of `len` items, unchecked: for tests of what a reader
    /// does with an item it cannot read.
    #[cfg(test)]
    pub(crate) fn unchecked(list: &'static str, len: usize) -> RawItems {
        RawItems { body: Bytes::from_static(list.as_bytes()), at: 0, len }
    }

    /// Every item, each in a map of its own (as [`take_items`] reads them).
    ///
    /// # Errors
    /// [`Malformed`] at the first item [`take_items`] would refuse.
    pub fn to_items(&self) -> Result<Vec<Item>, Malformed> {
        let mut r = Reader::new(&self.body).map_err(|e| Malformed { at: e.at + self.at, reason: e.reason })?;
        r.item_list(ATTRIBUTE_DEPTH).map_err(|e| Malformed { at: e.at + self.at, reason: e.reason })
    }
}

/// Reads the items of [`RawItems`] one at a time, each into the same map
/// ([`next_into`](Self::next_into)): an attribute the map has already gets its new value in
/// place, and an `S` or `N` over an `S` or `N` is written into the old value's `String`.
/// Items of one page mostly have the same attributes, so a page's names and strings are
/// allocated once, not once per item.
#[derive(Debug)]
pub struct ItemsReader<'a> {
    r: Reader<'a>,
    /// Where the list starts in the answer's body.
    at: usize,
    /// Whether the list's `[` is read.
    started: bool,
    /// Whether the list's `]` is read.
    done: bool,
    /// The addresses of the map's values, in the order the last item named them: every value
    /// of the map, each once. Empty when unknown.
    order: Vec<usize>,
    /// The same, for the item being read.
    seen: Vec<usize>,
    /// Room to sort `seen` in.
    sorted: Vec<usize>,
}

impl ItemsReader<'_> {
    /// Reads the next item into `item`, in place of what it held; `Ok(false)` after the last.
    /// `item` may be emptied between calls (its map taken: the next item then fills it anew);
    /// it must not be changed otherwise.
    ///
    /// # Errors
    /// [`Malformed`] at what [`take_items`] would refuse; `item` is then empty.
    pub fn next_into(&mut self, item: &mut Item) -> Result<bool, Malformed> {
        let read = self.next_inner(item);
        if read.is_err() {
            item.clear();
            self.order.clear();
            self.done = true;
        }
        read.map_err(|e| Malformed { at: e.at + self.at, reason: e.reason })
    }

    fn next_inner(&mut self, item: &mut Item) -> Result<bool, Malformed> {
        if self.done {
            return Ok(false);
        }
        let r = &mut self.r;
        if self.started {
            r.ws();
            match r.next() {
                Some(b',') => {}
                Some(b']') => {
                    self.done = true;
                    return Ok(false);
                }
                _ => return Err(r.at(r.i.saturating_sub(1), "expected ',' or ']' in Items")),
            }
        } else {
            r.ws();
            r.expect(b'[', "expected Items' list")?;
            self.started = true;
            r.ws();
            if r.peek() == Some(b']') {
                r.i += 1;
                self.done = true;
                return Ok(false);
            }
        }
        r.ws();
        if item.len() != self.order.len() {
            self.order.clear();
        }
        r.item_into(item, &self.order, &mut self.seen, &mut self.sorted, ATTRIBUTE_DEPTH)?;
        std::mem::swap(&mut self.order, &mut self.seen);
        Ok(true)
    }
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

/// The SDK refuses a value, set, list or map read at this depth or deeper (its count starts at
/// 0 for the answer, 1 for `Items`, 2 for an item, 3 for an item's attribute value).
const MAX_DEPTH: u32 = 128;
/// The depth of the attribute values of an item of `Items`.
const ATTRIBUTE_DEPTH: u32 = 3;
/// The depth of the attribute values of an answer's `Item` or `Attributes`, one level nearer
/// the answer (the item is at depth 1).
const MEMBER_ATTRIBUTE_DEPTH: u32 = 2;
/// The depth of the attribute values of an item of a `BatchGetItem`'s `Responses` (the map 1,
/// a table's list 2, an item 3) or of a `TransactGetItems`' (the list 1, a response 2, its
/// `Item` 3).
const NESTED_ATTRIBUTE_DEPTH: u32 = 4;

#[derive(Debug)]
struct Reader<'a> {
    /// The body's bytes.
    b: &'a [u8],
    /// The same body as text.
    s: &'a str,
    i: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `b`, once `b` is checked as UTF-8.
    ///
    /// # Errors
    /// [`Malformed`] at the first byte that is not UTF-8 (the SDK refuses such a body too).
    fn new(b: &'a [u8]) -> Result<Reader<'a>, Malformed> {
        match std::str::from_utf8(b) {
            Ok(s) => Ok(Reader { b, s, i: 0 }),
            Err(e) => Err(Malformed { at: e.valid_up_to(), reason: "a body that is not UTF-8" }),
        }
    }

    fn at(&self, at: usize, reason: &'static str) -> Malformed {
        Malformed { at, reason }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    /// Skips JSON whitespace (space, tab, CR, LF).
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\r' | b'\n') = self.peek() {
            self.i += 1;
        }
    }

    fn expect(&mut self, c: u8, reason: &'static str) -> Result<(), Malformed> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.at(self.i, reason))
        }
    }

    /// Reads `word` (`null`, `true`, `false`) when it is next and ends there (whitespace,
    /// `,`, `}`, `]` or the end follows, as the SDK requires); `false` otherwise, nothing read.
    fn literal(&mut self, word: &[u8]) -> bool {
        let end = self.i + word.len();
        if self.b.get(self.i..end) != Some(word) {
            return false;
        }
        match self.b.get(end) {
            None | Some(b' ' | b'\t' | b'\r' | b'\n' | b',' | b'}' | b']') => {
                self.i = end;
                true
            }
            _ => false,
        }
    }

    /// The bytes between the quotes of the string that starts here, escapes as written, after
    /// checking that the string ends and holds no control character.
    fn raw_string(&mut self) -> Result<&'a [u8], Malformed> {
        self.escaped_string().map(|(raw, _)| raw)
    }

    /// As [`raw_string`](Self::raw_string), and whether the string holds an escape.
    fn escaped_string(&mut self) -> Result<(&'a [u8], bool), Malformed> {
        self.expect(b'"', "expected a string")?;
        let start = self.i;
        let b = self.b;
        let mut i = start;
        let mut escaped = false;
        loop {
            i = skip_plain(b, i);
            match b.get(i) {
                Some(b'"') => {
                    self.i = i + 1;
                    return Ok((&b[start..i], escaped));
                }
                Some(b'\\') => {
                    escaped = true;
                    i += 2;
                }
                Some(0..=0x1f) => return Err(self.at(i, "a control character in a string")),
                Some(_) => i += 1,
                None => return Err(self.at(b.len(), "a string that does not end")),
            }
        }
    }

    /// The text of `raw`, a string [`escaped_string`](Self::escaped_string) just read (its
    /// closing quote at `self.i - 1`): a slice of the body, checked once as a whole.
    fn text_of(&self, raw: &[u8]) -> Result<&'a str, Malformed> {
        let end = self.i - 1;
        let start = end - raw.len();
        // The quotes around it are ASCII, so both ends are character boundaries.
        self.s.get(start..end).ok_or_else(|| self.at(start, "a string that is not UTF-8"))
    }

    /// The string that starts here, unescaped, in a `String` of its own.
    fn string(&mut self) -> Result<String, Malformed> {
        let start = self.i + 1;
        let (raw, escaped) = self.escaped_string()?;
        let text = self.text_of(raw)?;
        if !escaped {
            return Ok(text.to_owned());
        }
        let first = text.find('\\').unwrap_or(text.len());
        unescape(text, first).map_err(|(off, reason)| self.at(start + off, reason))
    }

    /// The string that starts here, unescaped, into `out` in place of its text.
    fn string_into(&mut self, out: &mut String) -> Result<(), Malformed> {
        let start = self.i + 1;
        let (raw, escaped) = self.escaped_string()?;
        let text = self.text_of(raw)?;
        out.clear();
        if !escaped {
            out.push_str(text);
            return Ok(());
        }
        let first = text.find('\\').unwrap_or(text.len());
        unescape_into(text, first, out).map_err(|(off, reason)| self.at(start + off, reason))
    }

    /// The rest of a JSON array or object after its opening bracket: elements separated by
    /// `,` up to `close`, each read by `element` (whitespace around them skipped). `separator`
    /// is the error when an element is followed by neither.
    fn delimited(
        &mut self,
        close: u8,
        separator: &'static str,
        mut element: impl FnMut(&mut Self) -> Result<(), Malformed>,
    ) -> Result<(), Malformed> {
        self.ws();
        if self.peek() == Some(close) {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.ws();
            element(self)?;
            self.ws();
            match self.next() {
                Some(b',') => {}
                Some(c) if c == close => return Ok(()),
                _ => return Err(self.at(self.i.saturating_sub(1), separator)),
            }
        }
    }

    /// The `:` between a member's name and its value, with the whitespace around it.
    fn colon(&mut self) -> Result<(), Malformed> {
        self.ws();
        self.expect(b':', "expected ':'")?;
        self.ws();
        Ok(())
    }

    /// `[item, …]`: the answer's `Items` (or a table's items in a `BatchGetItem` answer), the
    /// items' attribute values at `depth`.
    fn item_list(&mut self, depth: u32) -> Result<Vec<Item>, Malformed> {
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
    fn item(&mut self, scratch: &mut Vec<(String, AttributeValue)>, depth: u32) -> Result<Item, Malformed> {
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

    /// `{"name": value, …}`: one item of `Items` into `item`, in place of the item it held
    /// (see [`ItemsReader`]). `order`: the addresses of `item`'s values in the order the last
    /// item named them (empty: unknown); `seen` gets this item's, or is left empty when they
    /// are not known (a name twice); `sorted` is room to sort them in. On an error, `item` is
    /// left half written.
    fn item_into(
        &mut self,
        item: &mut Item,
        order: &[usize],
        seen: &mut Vec<usize>,
        sorted: &mut Vec<usize>,
        depth: u32,
    ) -> Result<(), Malformed> {
        let start = self.i;
        seen.clear();
        // Whether a name was added to the map (its values may then have moved).
        let mut added = false;
        // The name, when written with escapes.
        let mut unescaped = String::new();
        self.expect(b'{', "expected an item's object")?;
        self.delimited(b'}', "expected ',' or '}' in an item", |r| {
            let name = match r.name(&mut unescaped)? {
                Some(plain) => plain,
                None => unescaped.as_str(),
            };
            match item.get_mut(name) {
                Some(slot) => {
                    seen.push(std::ptr::from_mut(slot).addr());
                    r.colon()?;
                    r.value_into(slot, depth)
                }
                None => {
                    let name = name.to_owned();
                    r.colon()?;
                    item.insert(name, r.value(depth)?);
                    added = true;
                    Ok(())
                }
            }
        })?;
        if !added && seen.len() == item.len() && (seen.as_slice() == order || distinct(seen, sorted)) {
            // As many names as the map has, each naming a value of its own (the names of the
            // last item, in the same order, are): the map holds this item and nothing else.
            return Ok(());
        }
        // Otherwise the names this item does not have go, and the order is taken again.
        let end = self.i;
        self.i = start;
        let names = self.names();
        self.i = end;
        let names = names?;
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != item.len() {
            item.retain(|k, _| sorted.binary_search(k).is_ok());
        }
        seen.clear();
        for name in &names {
            if let Some(slot) = item.get_mut(name.as_str()) {
                seen.push(std::ptr::from_mut(slot).addr());
            }
        }
        if seen.len() != item.len() {
            // A name twice: no order to rely on.
            seen.clear();
        }
        Ok(())
    }

    /// Checks the item here as [`item`](Self::item) reads it, at `depth`, without building it
    /// (`scratch`: room to unescape strings into).
    fn check_item(&mut self, depth: u32, scratch: &mut String) -> Result<(), Malformed> {
        self.expect(b'{', "expected an item's object")?;
        self.delimited(b'}', "expected ',' or '}' in an item", |r| {
            r.check_string(scratch)?;
            r.colon()?;
            r.check_value(depth, scratch)
        })
    }

    /// Checks the string here as [`string`](Self::string) reads it.
    fn check_string(&mut self, scratch: &mut String) -> Result<(), Malformed> {
        let start = self.i + 1;
        let (raw, escaped) = self.escaped_string()?;
        let text = self.text_of(raw)?;
        if escaped {
            scratch.clear();
            let first = text.find('\\').unwrap_or(text.len());
            unescape_into(text, first, scratch).map_err(|(off, reason)| self.at(start + off, reason))?;
        }
        Ok(())
    }

    /// Checks the attribute value here as [`value`](Self::value) reads it, at `depth`.
    fn check_value(&mut self, depth: u32, scratch: &mut String) -> Result<(), Malformed> {
        if depth >= MAX_DEPTH {
            return Err(self.at(self.i, "nested too deeply"));
        }
        let b = self.b;
        let start = self.i;
        if let (Some(b"{\"S\":" | b"{\"N\":"), Some(b'"')) = (b.get(start..start + 5), b.get(start + 5)) {
            self.i = start + 5;
            self.check_string(scratch)?;
            if self.peek() == Some(b'}') {
                self.i += 1;
                return Ok(());
            }
            self.i = start;
        }
        self.expect(b'{', "expected an attribute value's object")?;
        let mut typed = false;
        self.delimited(b'}', "expected ',' or '}' in an attribute value", |r| {
            let tag_at = r.i;
            let tag = r.raw_string()?;
            r.colon()?;
            if r.literal(b"null") {
                return Ok(());
            }
            if typed {
                return Err(r.at(tag_at, "an attribute value of two types"));
            }
            typed = true;
            match tag {
                b"S" | b"N" => r.check_string(scratch),
                b"B" => r.blob().map(drop),
                b"BOOL" | b"NULL" => r.boolean().map(drop),
                b"SS" | b"NS" => r.check_list(depth + 1, |r| r.check_string(scratch)),
                b"BS" => r.check_list(depth + 1, |r| r.blob().map(drop)),
                b"L" => r.check_list(depth + 1, |r| r.check_value(depth + 2, scratch)),
                b"M" => {
                    if depth + 1 >= MAX_DEPTH {
                        return Err(r.at(r.i, "nested too deeply"));
                    }
                    r.expect(b'{', "expected a map")?;
                    r.delimited(b'}', "expected ',' or '}' in a map", |r| {
                        r.check_string(scratch)?;
                        r.colon()?;
                        r.check_value(depth + 2, scratch)
                    })
                }
                _ => Err(r.at(tag_at, "a type this reader leaves to the SDK")),
            }
        })?;
        if typed { Ok(()) } else { Err(self.at(start, "an attribute value of no type")) }
    }

    /// Checks `[element, …]` at `depth` as [`list`](Self::list) reads it, each element by
    /// `check`.
    fn check_list(
        &mut self,
        depth: u32,
        mut check: impl FnMut(&mut Self) -> Result<(), Malformed>,
    ) -> Result<(), Malformed> {
        if depth >= MAX_DEPTH {
            return Err(self.at(self.i, "nested too deeply"));
        }
        self.expect(b'[', "expected a list")?;
        self.delimited(b']', "expected ',' or ']'", |r| check(r))
    }

    /// The names of the item here, in order, each unescaped.
    fn names(&mut self) -> Result<Vec<String>, Malformed> {
        let mut names = Vec::new();
        self.expect(b'{', "expected an item's object")?;
        self.delimited(b'}', "expected ',' or '}' in an item", |r| {
            names.push(r.string()?);
            r.colon()?;
            r.skip_value()
        })?;
        Ok(names)
    }

    /// The string that starts here, a name: its text in the body when it has no escape, else
    /// `None` with the text unescaped into `unescaped`.
    fn name(&mut self, unescaped: &mut String) -> Result<Option<&'a str>, Malformed> {
        let start = self.i + 1;
        let (raw, escaped) = self.escaped_string()?;
        let text = self.text_of(raw)?;
        if !escaped {
            return Ok(Some(text));
        }
        unescaped.clear();
        let first = text.find('\\').unwrap_or(text.len());
        unescape_into(text, first, unescaped).map_err(|(off, reason)| self.at(start + off, reason))?;
        Ok(None)
    }

    /// One attribute value at `depth` into `slot`, in place of its value: an `S` or `N` over
    /// an `S` or `N` is written into the old `String`.
    fn value_into(&mut self, slot: &mut AttributeValue, depth: u32) -> Result<(), Malformed> {
        let b = self.b;
        let at = self.i;
        if let (Some(tag @ (b"{\"S\":" | b"{\"N\":")), Some(b'"')) = (b.get(at..at + 5), b.get(at + 5)) {
            let mut text = match slot {
                AttributeValue::S(old) | AttributeValue::N(old) => std::mem::take(old),
                _ => String::new(),
            };
            self.i = at + 5;
            self.string_into(&mut text)?;
            if self.peek() == Some(b'}') {
                self.i += 1;
                *slot = if tag[2] == b'S' { AttributeValue::S(text) } else { AttributeValue::N(text) };
                return Ok(());
            }
            // Another form: read again by the general loop.
            self.i = at;
        }
        // A list over a list, a string set over a string set (a number set over a number
        // set): the old elements are written over, one by one.
        match (&mut *slot, b.get(at..at + 5), b.get(at + 5..at + 7)) {
            (AttributeValue::L(old), Some(b"{\"L\":"), Some([b'[', _])) => {
                let mut list = std::mem::take(old);
                self.i = at + 5;
                self.list_into(&mut list, depth + 1)?;
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    *slot = AttributeValue::L(list);
                    return Ok(());
                }
            }
            (AttributeValue::Ss(old), Some(b"{\"SS\""), Some(b":["))
            | (AttributeValue::Ns(old), Some(b"{\"NS\""), Some(b":[")) => {
                let mut set = std::mem::take(old);
                let string_set = b[at + 2] == b'S';
                self.i = at + 6;
                self.strings_into(&mut set, depth + 1)?;
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    *slot = if string_set { AttributeValue::Ss(set) } else { AttributeValue::Ns(set) };
                    return Ok(());
                }
            }
            _ => {}
        }
        self.i = at;
        *slot = self.value(depth)?;
        Ok(())
    }

    /// `[value, …]` at `depth` (an `L`) into `list`, its elements written over one by one.
    fn list_into(&mut self, list: &mut Vec<AttributeValue>, depth: u32) -> Result<(), Malformed> {
        self.elements_into(list, depth, |r, old| r.value_into(old, depth + 1), |r| r.value(depth + 1))
    }

    /// `["text", …]` at `depth` (an `SS` or `NS`) into `set`, its strings written over one by
    /// one.
    fn strings_into(&mut self, set: &mut Vec<String>, depth: u32) -> Result<(), Malformed> {
        self.elements_into(set, depth, |r, old| r.string_into(old), |r| r.string())
    }

    /// A JSON array at `depth` into `into`: each element written over the old one at its
    /// place (`over`), or read new past the old ones' end (`new`); the old ones left over are
    /// dropped.
    fn elements_into<T>(
        &mut self,
        into: &mut Vec<T>,
        depth: u32,
        mut over: impl FnMut(&mut Self, &mut T) -> Result<(), Malformed>,
        mut new: impl FnMut(&mut Self) -> Result<T, Malformed>,
    ) -> Result<(), Malformed> {
        if depth >= MAX_DEPTH {
            return Err(self.at(self.i, "nested too deeply"));
        }
        self.expect(b'[', "expected a list")?;
        let mut n = 0;
        self.delimited(b']', "expected ',' or ']'", |r| {
            match into.get_mut(n) {
                Some(old) => over(r, old)?,
                None => into.push(new(r)?),
            }
            n += 1;
            Ok(())
        })?;
        into.truncate(n);
        Ok(())
    }

    /// One attribute value (`{"S":"a"}`) at `depth`.
    fn value(&mut self, depth: u32) -> Result<AttributeValue, Malformed> {
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
    fn compact_value(&mut self, depth: u32) -> Result<Option<AttributeValue>, Malformed> {
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

    fn boolean(&mut self) -> Result<bool, Malformed> {
        if self.literal(b"true") {
            Ok(true)
        } else if self.literal(b"false") {
            Ok(false)
        } else {
            Err(self.at(self.i, "expected true or false"))
        }
    }

    /// A base64 string, decoded as the SDK decodes it: the text as written, escapes included.
    fn blob(&mut self) -> Result<Blob, Malformed> {
        let start = self.i + 1;
        let raw = self.raw_string()?;
        let text = self.text_of(raw)?;
        let bytes = aws_smithy_types::base64::decode(text).map_err(|_| self.at(start, "invalid base64"))?;
        Ok(Blob::new(bytes))
    }

    /// `[element, …]` at `depth` (a set or a list), each element read by `read`.
    fn list<T>(
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
    fn map(&mut self, depth: u32) -> Result<HashMap<String, AttributeValue>, Malformed> {
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

    /// Skips one JSON value of any kind, strings' escapes and nesting followed; the value's
    /// contents are not checked (the SDK reads them from the body this reader leaves).
    fn skip_value(&mut self) -> Result<(), Malformed> {
        let mut open = 0usize;
        loop {
            self.ws();
            match self.peek() {
                Some(b'"') => {
                    self.raw_string()?;
                }
                Some(b'{' | b'[') => {
                    open += 1;
                    self.i += 1;
                    continue;
                }
                Some(b'}' | b']') if open > 0 => {
                    open -= 1;
                    self.i += 1;
                }
                Some(b',' | b':') if open > 0 => {
                    self.i += 1;
                    continue;
                }
                Some(c) if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.') => {
                    while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.')) {
                        self.i += 1;
                    }
                }
                _ => return Err(self.at(self.i, "expected a value")),
            }
            if open == 0 {
                return Ok(());
            }
        }
    }
}

/// Whether the addresses of `seen` are all different (`sorted`: room to sort them in).
fn distinct(seen: &[usize], sorted: &mut Vec<usize>) -> bool {
    sorted.clear();
    sorted.extend_from_slice(seen);
    sorted.sort_unstable();
    sorted.windows(2).all(|w| w[0] != w[1])
}

/// The first byte at or after `i` that ends a string's plain run: a quote, a backslash, a
/// control character, or the end (`b.len()`). Eight bytes at a time, then byte by byte.
fn skip_plain(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = b.get(i..i + 8) {
        let w = u64::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7]]);
        // A byte of `x` is zero (or, for `w - 0x20`, below 0x20) where the result's high bit is set.
        let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
        let special = zero(w ^ (ONES * u64::from(b'"')))
            | zero(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w & HIGH);
        if special != 0 {
            // The lowest marked byte is the first special one: a borrow only marks bytes above
            // a byte that is special itself.
            return i + (special.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            break;
        }
        i += 1;
    }
    i.min(b.len())
}

/// `text` unescaped, its first backslash at byte `first`. The error: the offset in `text` and
/// why.
fn unescape(text: &str, first: usize) -> Result<String, (usize, &'static str)> {
    let mut out = String::with_capacity(text.len());
    unescape_into(text, first, &mut out)?;
    Ok(out)
}

/// [`unescape`], appended to `out`.
fn unescape_into(text: &str, first: usize, out: &mut String) -> Result<(), (usize, &'static str)> {
    out.reserve(text.len());
    out.push_str(&text[..first]);
    let b = text.as_bytes();
    let mut i = first;
    while i < b.len() {
        let Some(next) = text[i..].find('\\').map(|n| i + n) else {
            out.push_str(&text[i..]);
            break;
        };
        out.push_str(&text[i..next]);
        i = next + 1;
        let c = match b.get(i) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let high = hex4(b, i + 1).ok_or((next, "an invalid \\u escape"))?;
                i += 4;
                if (0xD800..0xDC00).contains(&high) {
                    if b.get(i + 1..i + 3) != Some(b"\\u") {
                        return Err((next, "a high surrogate without its low one"));
                    }
                    let low = hex4(b, i + 3).ok_or((next, "an invalid \\u escape"))?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return Err((next, "a high surrogate without its low one"));
                    }
                    i += 6;
                    char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                        .ok_or((next, "an invalid surrogate pair"))?
                } else {
                    char::from_u32(high).ok_or((next, "a lone low surrogate"))?
                }
            }
            _ => return Err((next, "an invalid escape")),
        };
        out.push(c);
        i += 1;
    }
    Ok(())
}

/// The four hexadecimal digits at `at`, if they are.
fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let digits = b.get(at..at + 4)?;
    let mut n = 0u32;
    for &d in digits {
        n = n * 16 + char::from(d).to_digit(16)?;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.to_owned())
    }

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
    }

    #[test]
    fn every_type_reads_into_its_value() {
        let text = br#"{"s":{"S":"a"},"n":{"N":"-1.5E3"},"b":{"B":"AAEC"},"t":{"BOOL":true},"f":{"BOOL":false},
            "z":{"NULL":true},"ss":{"SS":["x","y"]},"ns":{"NS":["1","2"]},"bs":{"BS":["AA==","/w=="]},
            "l":{"L":[{"S":"e"},{"N":"7"}]},"m":{"M":{"k":{"S":"v"},"e":{"M":{}}}}}"#;
        let expected = item(&[
            ("s", s("a")),
            ("n", AttributeValue::N("-1.5E3".into())),
            ("b", AttributeValue::B(Blob::new(vec![0, 1, 2]))),
            ("t", AttributeValue::Bool(true)),
            ("f", AttributeValue::Bool(false)),
            ("z", AttributeValue::Null(true)),
            ("ss", AttributeValue::Ss(vec!["x".into(), "y".into()])),
            ("ns", AttributeValue::Ns(vec!["1".into(), "2".into()])),
            ("bs", AttributeValue::Bs(vec![Blob::new(vec![0]), Blob::new(vec![255])])),
            ("l", AttributeValue::L(vec![s("e"), AttributeValue::N("7".into())])),
            ("m", AttributeValue::M(item(&[("k", s("v")), ("e", AttributeValue::M(HashMap::new()))]))),
        ]);
        assert_eq!(read_item(text), Ok(expected));
    }

    #[test]
    fn escapes_and_surrogate_pairs_unescape() {
        let text = br#"{"k\u00e9y":{"S":"a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00 \u00"}}"#;
        // The last escape is short: an error.
        assert_eq!(read_item(text).map_err(|e| e.reason), Err("an invalid \\u escape"));
        let text = br#"{"k\u00e9y":{"S":"a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00!"}}"#;
        assert_eq!(read_item(text), Ok(item(&[("kéy", s("a\"b\\c/d\u{8}\u{c}\n\r\tAé€😀!"))])));
        let text = "{\"k\":{\"S\":\"caf\u{e9} \u{1F600}\"}}";
        assert_eq!(read_item(text.as_bytes()), Ok(item(&[("k", s("café 😀"))])));
    }

    #[test]
    fn bad_escapes_are_errors() {
        for (text, reason) in [
            (r#"{"k":{"S":"\ud83d"}}"#, "a high surrogate without its low one"),
            (r#"{"k":{"S":"\ud83d\u0041"}}"#, "a high surrogate without its low one"),
            (r#"{"k":{"S":"\ude00"}}"#, "a lone low surrogate"),
            (r#"{"k":{"S":"\x"}}"#, "an invalid escape"),
            (r#"{"k":{"S":"\u12G4"}}"#, "an invalid \\u escape"),
            (r#"{"k":{"S":"\u+123"}}"#, "an invalid \\u escape"),
        ] {
            assert_eq!(read_item(text.as_bytes()).map_err(|e| e.reason), Err(reason), "{text}");
        }
    }

    #[test]
    fn compact_and_spaced_values_read_the_same() {
        // DynamoDB's compact form takes the short path; any other form the general loop, from
        // the same place.
        for (text, expected) in [
            (r#"{"a":{"S":"x"}}"#, s("x")),
            (r#"{"a":{ "S":"x"}}"#, s("x")),
            (r#"{"a":{"S" : "x" }}"#, s("x")),
            (r#"{"a":{"S":"x","N":null}}"#, s("x")),
            (r#"{"a":{"S":null,"N":"1"}}"#, AttributeValue::N("1".into())),
            (r#"{"a":{"N":"-1.5E3"}}"#, AttributeValue::N("-1.5E3".into())),
            (r#"{"a":{"BOOL":true}}"#, AttributeValue::Bool(true)),
            (r#"{"a":{"BOOL":false }}"#, AttributeValue::Bool(false)),
            (r#"{"a":{"BOOL":false,"S":null}}"#, AttributeValue::Bool(false)),
            (
                r#"{"a":{"L":[{"S":"e"},{ "N" : "7" }]}}"#,
                AttributeValue::L(vec![s("e"), AttributeValue::N("7".into())]),
            ),
            (r#"{"a":{"L":[],"M":null}}"#, AttributeValue::L(vec![])),
            (r#"{"a":{"M":{"k":{"S":"v"}}}}"#, AttributeValue::M(item(&[("k", s("v"))]))),
            (r#"{"a":{"S":"a\"b"}}"#, s("a\"b")),
        ] {
            assert_eq!(read_item(text.as_bytes()), Ok(item(&[("a", expected)])), "{text}");
        }
        for (text, reason) in [
            (r#"{"a":{"S":"x","N":"1"}}"#, "an attribute value of two types"),
            (r#"{"a":{"BOOL":tru}}"#, "expected true or false"),
            (r#"{"a":{"BOOL":true,"BOOL":true}}"#, "an attribute value of two types"),
            (r#"{"a":{"S":"\x"}}"#, "an invalid escape"),
            (r#"{"a":{"L":[1]}}"#, "expected an attribute value's object"),
            (r#"{"a":{"M":{"k":1}}}"#, "expected an attribute value's object"),
            (r#"{"a":{"S":"x"]}"#, "expected ',' or '}' in an attribute value"),
        ] {
            assert_eq!(read_item(text.as_bytes()).map_err(|e| e.reason), Err(reason), "{text}");
        }
    }

    #[test]
    fn a_body_that_is_not_utf8_is_left_whole() {
        // Even outside `Items`: the body is checked once, as a whole, and left to the SDK.
        let body = b"{\"Items\":[{\"a\":{\"S\":\"x\"}}],\"Other\":\"\xc3\"}";
        assert_eq!(take_items(body), Err(Malformed { at: 36, reason: "a body that is not UTF-8" }));
        let body = "{\"Items\":[{\"\u{e9}\":{\"S\":\"\u{1F600}\"}}]}";
        let taken = take_items(body.as_bytes()).unwrap().unwrap();
        assert_eq!(taken.value, vec![item(&[("\u{e9}", s("\u{1F600}"))])]);
    }

    #[test]
    fn null_members_are_left_out_and_duplicates_keep_the_last() {
        let text = br#"{"a":{"S":null,"N":"1"},"a":{"S":"2"} , "b" : { "BOOL" : false } }"#;
        assert_eq!(read_item(text), Ok(item(&[("a", s("2")), ("b", AttributeValue::Bool(false))])));
    }

    #[test]
    fn malformed_input_is_an_error() {
        for (text, reason) in [
            (&br#"{"a":{}}"#[..], "an attribute value of no type"),
            (br#"{"a":{"S":null}}"#, "an attribute value of no type"),
            (br#"{"a":{"S":"x","N":"1"}}"#, "an attribute value of two types"),
            (br#"{"a":{"X":"x"}}"#, "a type this reader leaves to the SDK"),
            (br#"{"a":{"S":1}}"#, "expected a string"),
            (br#"{"a":{"BOOL":truex}}"#, "expected true or false"),
            (br#"{"a":{"B":"A"}}"#, "invalid base64"),
            (br#"{"a":{"L":[null]}}"#, "expected an attribute value's object"),
            (br#"{"a":null}"#, "expected an attribute value's object"),
            (b"{\"a\":{\"S\":\"\x01\"}}", "a control character in a string"),
            (b"{\"a\":{\"S\":\"\xff\"}}", "a body that is not UTF-8"),
            (br#"{"a":{"S":"x"}"#, "expected ',' or '}' in an item"),
            (br#"{"a":{"S":"x"}} x"#, "more after the item"),
            (br#"{"a":{"S":"x}}"#, "a string that does not end"),
        ] {
            assert_eq!(read_item(text).map_err(|e| e.reason), Err(reason), "{}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn depth_is_limited_as_the_sdk_limits_it() {
        // A map at level k (0: an item's attribute) is read at depth 4 + 2k; 128 is refused.
        let nested = |levels: usize, inner: &str| {
            let mut t = String::from(inner);
            for _ in 0..levels {
                t = format!(r#"{{"M":{{"a":{t}}}}}"#);
            }
            format!(r#"{{"a":{t}}}"#)
        };
        assert!(read_item(nested(62, r#"{"S":"x"}"#).as_bytes()).is_ok());
        assert_eq!(read_item(nested(62, r#"{"M":{}}"#).as_bytes()).map_err(|e| e.reason), Err("nested too deeply"));
        assert_eq!(read_item(nested(62, r#"{"SS":[]}"#).as_bytes()).map_err(|e| e.reason), Err("nested too deeply"));
        assert_eq!(read_item(nested(63, r#"{"S":"x"}"#).as_bytes()).map_err(|e| e.reason), Err("nested too deeply"));
    }

    #[test]
    fn a_plain_run_ends_at_the_first_quote_backslash_or_control_character() {
        for len in 0..20 {
            for at in 0..=len {
                for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                    // Plain bytes around it, ASCII and not (0xe9 is a byte of a multi-byte character).
                    let mut b: Vec<u8> =
                        (0..len).map(|k| if k % 3 == 0 { 0xe9 } else { b'a' + (k % 26) as u8 }).collect();
                    if at < len {
                        b[at] = special;
                    }
                    assert_eq!(skip_plain(&b, 0), at, "{b:?}");
                    assert_eq!(skip_plain(&b, at.min(len)), at);
                }
            }
        }
        // 0x20 and above, 0x7f and high bytes are plain.
        let plain = [0x20, 0x21, 0x7f, 0x80, 0xff, b' ', b'~', b'/', 0x5b, 0x5d, 0x23];
        assert_eq!(skip_plain(&plain, 0), plain.len());
    }

    #[test]
    fn take_items_leaves_the_other_members() {
        let body = br#" {"Count":2,"Items":[{"a":{"S":"x"}},{}],"LastEvaluatedKey":{"a":{"S":"x"}},"ScannedCount":3} "#;
        let taken = take_items(body).unwrap().unwrap();
        assert_eq!(taken.value, vec![item(&[("a", s("x"))]), HashMap::new()]);
        assert_eq!(
            String::from_utf8(taken.rest).unwrap(),
            r#"{"Count":2,"LastEvaluatedKey":{"a":{"S":"x"}},"ScannedCount":3} "#
        );
        let first = br#"{"Items":[],"Count":0}"#;
        assert_eq!(take_items(first), Ok(Some(Taken { value: vec![], rest: br#"{"Count":0}"#.to_vec() })));
        assert_eq!(take_items(br#"{"Items":null,"Count":0}"#), Ok(None));
        assert_eq!(take_items(br#"{"Count":0}"#), Ok(None));
        assert_eq!(take_items(b"{}"), Ok(None));
        assert_eq!(take_items(br#"{"Items":[],"Items":[]}"#).map_err(|e| e.reason), Err("a second answer member"));
        assert_eq!(take_items(br#"{"It\u0065ms":[]}"#).map_err(|e| e.reason), Err("an escaped member name"));
        assert_eq!(take_items(b"").map_err(|e| e.reason), Err("expected the answer's object"));
        assert_eq!(take_items(br#"{"Count":1 2}"#).map_err(|e| e.reason), Err("expected ',' or '}'"));
    }

    /// The items of `items` (a JSON list) as the page reads them: each into the one map, a copy
    /// of the map after each, and the error that ends the list, if any.
    fn read_in_turn(items: &str) -> (Vec<Item>, Option<Malformed>) {
        let body = Bytes::from(format!(r#"{{"Count":1,"Items":{items},"ScannedCount":2}}"#));
        let raw = match take_raw_items(&body) {
            Ok(taken) => {
                let taken = taken.unwrap();
                assert_eq!(String::from_utf8(taken.rest).unwrap(), r#"{"Count":1,"ScannedCount":2}"#);
                taken.value
            }
            // A list the check refuses (left to the SDK), read all the same: what the page
            // meets if an item it finds unreadable comes through.
            Err(_) => {
                let at = body.iter().position(|&c| c == b'[').unwrap();
                RawItems { body: body.slice(at..at + items.len()), at, len: items.matches("},{").count() + 1 }
            }
        };
        let mut reader = raw.reader().unwrap();
        let (mut map, mut out) = (Item::new(), Vec::new());
        loop {
            match reader.next_into(&mut map) {
                Ok(true) => out.push(map.clone()),
                Ok(false) => return (out, None),
                Err(e) => {
                    assert!(map.is_empty());
                    assert_eq!(reader.next_into(&mut map), Ok(false));
                    return (out, Some(e));
                }
            }
        }
    }

    #[test]
    fn items_read_in_turn_into_one_map_are_each_exactly_the_item() {
        let items = [
            r#"{"a":{"S":"first"},"b":{"N":"1"}}"#,
            // The same names, in the same order and not.
            r#"{"a":{"S":"x"},"b":{"N":"2"}}"#,
            r#"{"b":{"N":"3"},"a":{"S":"y"}}"#,
            // Fewer, more, other names.
            r#"{"a":{"S":"z"}}"#,
            r#"{"a":{"S":"w"},"c":{"BOOL":true},"b":{"N":"4"}}"#,
            r#"{"d":{"NULL":true}}"#,
            // `S` and `N` over each other, and over `L`, `M`, a set; `L` and `M` over `S`.
            r#"{"d":{"S":"s"},"e":{"N":"5"}}"#,
            r#"{"d":{"N":"6"},"e":{"S":"t"}}"#,
            r#"{"d":{"L":[{"S":"l"},{"N":"7"}]},"e":{"M":{"k":{"S":"v"}}}}"#,
            r#"{"d":{"S":"after a list"},"e":{"N":"8"}}"#,
            r#"{"d":{"SS":["p","q"]},"e":{"M":{}}}"#,
            // Lists and sets over lists and sets: longer, shorter, of other types.
            r#"{"d":{"SS":["p2","q2","r2"]},"e":{"L":[{"S":"a"},{"N":"1"}]}}"#,
            r#"{"d":{"SS":["p3"]},"e":{"L":[{"N":"2"},{"S":"b"},{"L":[{"S":"c"}]},{"BOOL":true}]}}"#,
            r#"{"d":{"NS":["1","2"]},"e":{"L":[{"L":[{"S":"d"},{"S":"e"}]}]}}"#,
            r#"{"d":{"NS":["3"]},"e":{"L":[]}}"#,
            r#"{"d":{"SS":["x"]},"e":{"L":[{"S":"f"}]}}"#,
            r#"{"d":{"N":"9"},"e":{"S":"after a map"}}"#,
            // Escaped strings and names, spaced and null members.
            r#"{"d":{"S":"a\"b\\c\u00e9\ud83d\ude00"},"e\u0041":{ "N" : "10" }}"#,
            r#"{"d":{"S":null,"N":"11"},"eA":{"S":"\n"}}"#,
            // A name twice (the last one), then items after it.
            r#"{"d":{"S":"one"},"d":{"N":"12"}}"#,
            r#"{"d":{"S":"two"}}"#,
            r#"{"d":{"S":"three"},"f":{"S":"f"}}"#,
            r#"{}"#,
            r#"{"g":{"B":"AAEC"}}"#,
        ];
        let (read, error) = read_in_turn(&format!("[{}]", items.join(" , ")));
        assert_eq!(error, None);
        let expected: Vec<Item> = items.iter().map(|i| read_item(i.as_bytes()).unwrap()).collect();
        assert_eq!(read, expected);
        // And as written out, for the ones whose reading is not plain.
        assert_eq!(read[3], item(&[("a", s("z"))]));
        assert_eq!(read[7], item(&[("d", AttributeValue::N("6".into())), ("e", s("t"))]));
        let l = AttributeValue::L;
        let n = |v: &str| AttributeValue::N(v.into());
        let strings = |v: &[&str]| v.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            read[11],
            item(&[("d", AttributeValue::Ss(strings(&["p2", "q2", "r2"]))), ("e", l(vec![s("a"), n("1")]))])
        );
        let e = l(vec![n("2"), s("b"), l(vec![s("c")]), AttributeValue::Bool(true)]);
        assert_eq!(read[12], item(&[("d", AttributeValue::Ss(strings(&["p3"]))), ("e", e)]));
        let e = l(vec![l(vec![s("d"), s("e")])]);
        assert_eq!(read[13], item(&[("d", AttributeValue::Ns(strings(&["1", "2"]))), ("e", e)]));
        assert_eq!(read[14], item(&[("d", AttributeValue::Ns(strings(&["3"]))), ("e", l(vec![]))]));
        assert_eq!(read[15], item(&[("d", AttributeValue::Ss(strings(&["x"]))), ("e", l(vec![s("f")]))]));
        assert_eq!(read[17], item(&[("d", s("a\"b\\c\u{e9}\u{1F600}")), ("eA", AttributeValue::N("10".into()))]));
        assert_eq!(read[18], item(&[("d", AttributeValue::N("11".into())), ("eA", s("\n"))]));
        assert_eq!(read[19], item(&[("d", AttributeValue::N("12".into()))]));
        assert_eq!(read[20], item(&[("d", s("two"))]));
        assert_eq!(read[22], Item::new());
        assert_eq!(read[23], item(&[("g", AttributeValue::B(Blob::new(vec![0, 1, 2])))]));
    }

    #[test]
    fn an_item_like_the_one_before_reuses_its_names_and_strings() {
        let body = Bytes::from_static(
            br#"{"Items":[{"a":{"S":"a long first text"},"n":{"N":"12345"}},{"a":{"S":"short"},"n":{"N":"6"}},{"n":{"S":"n is an S"},"a":{"N":"1"}}]}"#,
        );
        let raw = take_raw_items(&body).unwrap().unwrap().value;
        assert_eq!(raw.len(), 3);
        let mut reader = raw.reader().unwrap();
        let mut map = Item::new();
        let buffer = |map: &Item, name: &str| match map.get(name) {
            Some(AttributeValue::S(t) | AttributeValue::N(t)) => (t.as_ptr(), t.capacity()),
            _ => panic!("no string at {name}"),
        };
        let key = |map: &Item, name: &str| map.get_key_value(name).unwrap().0.as_ptr();
        assert_eq!(reader.next_into(&mut map), Ok(true));
        let (a, n, key_a) = (buffer(&map, "a"), buffer(&map, "n"), key(&map, "a"));
        assert_eq!(reader.next_into(&mut map), Ok(true));
        assert_eq!(map, item(&[("a", s("short")), ("n", AttributeValue::N("6".into()))]));
        // The same buffers, the same key.
        assert_eq!((buffer(&map, "a"), buffer(&map, "n"), key(&map, "a")), (a, n, key_a));
        // An `N` where an `S` was, and the other way round: the strings move across.
        assert_eq!(reader.next_into(&mut map), Ok(true));
        assert_eq!(map, item(&[("n", s("n is an S")), ("a", AttributeValue::N("1".into()))]));
        assert_eq!(buffer(&map, "a"), a);
        assert_eq!(reader.next_into(&mut map), Ok(false));
        assert_eq!(reader.next_into(&mut map), Ok(false));
    }

    #[test]
    fn a_map_taken_between_items_is_filled_anew() {
        let body = Bytes::from_static(br#"{"Items":[{"a":{"S":"x"},"b":{"S":"y"}},{"a":{"S":"z"}},{"a":{"S":"w"}}]}"#);
        let raw = take_raw_items(&body).unwrap().unwrap().value;
        let mut reader = raw.reader().unwrap();
        let mut map = Item::new();
        assert_eq!(reader.next_into(&mut map), Ok(true));
        let first = std::mem::take(&mut map);
        assert_eq!(first, item(&[("a", s("x")), ("b", s("y"))]));
        assert_eq!(reader.next_into(&mut map), Ok(true));
        assert_eq!(map, item(&[("a", s("z"))]));
        assert_eq!(reader.next_into(&mut map), Ok(true));
        assert_eq!(map, item(&[("a", s("w"))]));
        assert_eq!(reader.next_into(&mut map), Ok(false));
    }

    #[test]
    fn a_malformed_item_late_in_a_page_is_an_error_there() {
        let good = r#"{"a":{"S":"x"}}"#;
        for (bad, reason, at) in [
            (r#"{"a":{"X":"x"}}"#, "a type this reader leaves to the SDK", 6),
            (r#"{"a":{"S":"\q"}}"#, "an invalid escape", 11),
            (r#"{"a":}"#, "expected an attribute value's object", 5),
            (r#"{"a":{"B":"A"}}"#, "invalid base64", 11),
            (r#"{"a":{"BOOL":1}}"#, "expected true or false", 13),
        ] {
            let (read, error) = read_in_turn(&format!("[{good},{good},{bad},{good}]"));
            assert_eq!(read, vec![item(&[("a", s("x"))]); 2], "{bad}");
            // The offset is the body's: `{"Count":1,"Items":[` and two items before it.
            let start = r#"{"Count":1,"Items":["#.len() + 2 * (good.len() + 1);
            assert_eq!(error, Some(Malformed { at: start + at, reason }), "{bad}");
            // The eager reader refuses the same list, and so does the check of `take_raw_items`:
            // the body is left to the SDK.
            let body = format!(r#"{{"Items":[{good},{bad}]}}"#);
            assert_eq!(take_items(body.as_bytes()).map_err(|e| e.reason), Err(reason));
            let at = body.len() - bad.len() - 2 + at;
            assert_eq!(take_raw_items(&Bytes::from(body)), Err(Malformed { at, reason }), "{bad}");
        }
    }

    #[test]
    fn take_raw_items_checks_the_lists_structure() {
        let taken = take_raw_items(&Bytes::from_static(br#"{"Items":[],"Count":0}"#)).unwrap().unwrap();
        assert!(taken.value.is_empty());
        assert_eq!(taken.rest, br#"{"Count":0}"#.to_vec());
        assert_eq!(taken.value.to_items(), Ok(vec![]));
        assert_eq!(take_raw_items(&Bytes::from_static(br#"{"Items":null}"#)), Ok(None));
        assert_eq!(take_raw_items(&Bytes::from_static(br#"{"Count":0}"#)), Ok(None));
        for (body, reason) in [
            (&br#"{"Items":[1]}"#[..], "expected an item's object"),
            (br#"{"Items":[{}"#, "expected ',' or ']' in Items"),
            (br#"{"Items":[{"a":{"S":"x}}]}"#, "a string that does not end"),
            (br#"{"Items":{}}"#, "expected Items' list"),
            (br#"{"Items":[],"Items":[]}"#, "a second answer member"),
            (b"{\"Items\":[{\"a\":{\"S\":\"\xff\"}}]}", "a body that is not UTF-8"),
        ] {
            let body = Bytes::copy_from_slice(body);
            assert_eq!(take_raw_items(&body).map_err(|e| e.reason), Err(reason), "{}", String::from_utf8_lossy(&body));
        }
        let body = Bytes::from_static(br#"{"Items":[{"a":{"S":"x"}},{"b":{"N":"1"}}]}"#);
        let raw = take_raw_items(&body).unwrap().unwrap().value;
        assert_eq!(raw.to_items(), Ok(vec![item(&[("a", s("x"))]), item(&[("b", AttributeValue::N("1".into()))])]));
    }

    #[test]
    fn take_item_reads_get_items_item_and_leaves_the_rest() {
        let body =
            br#"{"ConsumedCapacity":{"CapacityUnits":0.5,"TableName":"t"}, "Item" : {"a":{"S":"x"},"n":{"N":"1"}} }"#;
        let taken = take_item(body, "Item").unwrap().unwrap();
        assert_eq!(taken.value, item(&[("a", s("x")), ("n", AttributeValue::N("1".into()))]));
        assert_eq!(
            String::from_utf8(taken.rest).unwrap(),
            r#"{"ConsumedCapacity":{"CapacityUnits":0.5,"TableName":"t"}}"#
        );
        // An empty item is an item.
        let empty = take_item(br#"{"Item":{}}"#, "Item");
        assert_eq!(empty, Ok(Some(Taken { value: HashMap::new(), rest: b"{}".to_vec() })));
    }

    #[test]
    fn take_item_reads_a_writes_attributes() {
        let body =
            br#"{"Attributes":{"v":{"N":"2"},"l":{"L":[{"BOOL":true}]}},"ConsumedCapacity":{"CapacityUnits":1.0}}"#;
        let taken = take_item(body, "Attributes").unwrap().unwrap();
        let expected =
            item(&[("v", AttributeValue::N("2".into())), ("l", AttributeValue::L(vec![AttributeValue::Bool(true)]))]);
        assert_eq!(taken.value, expected);
        assert_eq!(String::from_utf8(taken.rest).unwrap(), r#"{"ConsumedCapacity":{"CapacityUnits":1.0}}"#);
        // The other answer's member is left where it is.
        assert_eq!(take_item(body, "Item"), Ok(None));
        assert_eq!(take_item(br#"{"Item":{"a":{"S":"x"}}}"#, "Attributes"), Ok(None));
    }

    #[test]
    fn take_item_of_an_absent_or_null_member_is_none() {
        assert_eq!(take_item(b"{}", "Item"), Ok(None));
        assert_eq!(take_item(b" { } ", "Attributes"), Ok(None));
        assert_eq!(take_item(br#"{"ConsumedCapacity":{"CapacityUnits":0.5}}"#, "Item"), Ok(None));
        assert_eq!(take_item(br#"{"Item":null}"#, "Item"), Ok(None));
        assert_eq!(take_item(br#"{"Attributes":null,"ConsumedCapacity":null}"#, "Attributes"), Ok(None));
    }

    #[test]
    fn take_item_leaves_what_it_does_not_take_on() {
        for (body, reason) in [
            (&br#"{"Item":{},"Item":{}}"#[..], "a second answer member"),
            (br#"{"Item":null,"Item":{}}"#, "a second answer member"),
            (br#"{"It\u0065m":{"a":{"S":"x"}}}"#, "an escaped member name"),
            (br#"{"\u0043onsumedCapacity":{},"Item":{}}"#, "an escaped member name"),
            (br#"{"Item":{"a":{"X":"x"}}}"#, "a type this reader leaves to the SDK"),
            (br#"{"Item":[]}"#, "expected an item's object"),
            (br#"{"Item":{"a":{"S":"x"}}"#, "expected ',' or '}'"),
            (br#"["Item"]"#, "expected the answer's object"),
        ] {
            assert_eq!(take_item(body, "Item").map_err(|e| e.reason), Err(reason), "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn an_answers_item_is_one_level_nearer_the_depth_limit() {
        // A map at level k (0: an attribute of `Item`) is read at depth 3 + 2k, its values at
        // 4 + 2k; 128 is refused. An empty map at level 62 is read; in `Items`, it is not.
        let nested = |levels: usize, inner: &str| {
            let mut t = String::from(inner);
            for _ in 0..levels {
                t = format!(r#"{{"M":{{"a":{t}}}}}"#);
            }
            format!(r#"{{"Item":{{"a":{t}}}}}"#)
        };
        let depth = |levels, inner| take_item(nested(levels, inner).as_bytes(), "Item").map(|t| t.is_some());
        assert_eq!(depth(62, r#"{"M":{}}"#), Ok(true));
        assert_eq!(depth(62, r#"{"SS":[]}"#), Ok(true));
        assert_eq!(depth(62, r#"{"M":{"b":{"S":"x"}}}"#).map_err(|e| e.reason), Err("nested too deeply"));
        assert_eq!(depth(63, r#"{"S":"x"}"#).map_err(|e| e.reason), Err("nested too deeply"));
    }

    #[test]
    fn take_batch_responses_reads_each_tables_items() {
        let body = br#"{"ConsumedCapacity":[{"TableName":"t"}],"Responses":{"t":[{"a":{"S":"x"}},{"a":{"S":"y"}}],"u":[],"v":[{}],"v":[{"b":{"N":"1"}}]},"UnprocessedKeys":{}}"#;
        let taken = take_batch_responses(body).unwrap().unwrap();
        let expected = HashMap::from([
            ("t".to_owned(), vec![item(&[("a", s("x"))]), item(&[("a", s("y"))])]),
            ("u".to_owned(), vec![]),
            // A table twice: the last one, as the SDK reads it.
            ("v".to_owned(), vec![item(&[("b", AttributeValue::N("1".into()))])]),
        ]);
        assert_eq!(taken.value, expected);
        assert_eq!(
            String::from_utf8(taken.rest).unwrap(),
            r#"{"ConsumedCapacity":[{"TableName":"t"}],"UnprocessedKeys":{}}"#
        );
        assert_eq!(
            take_batch_responses(br#"{"Responses":{}}"#),
            Ok(Some(Taken { value: HashMap::new(), rest: b"{}".to_vec() }))
        );
        assert_eq!(take_batch_responses(br#"{"Responses":null}"#), Ok(None));
        assert_eq!(take_batch_responses(br#"{"UnprocessedKeys":{}}"#), Ok(None));
        for (body, reason) in [
            (&br#"{"Responses":{"t":null}}"#[..], "expected Items' list"),
            (br#"{"Responses":[]}"#, "expected Responses' map"),
            (br#"{"Responses":{},"Responses":{}}"#, "a second answer member"),
            (br#"{"Responses":{"t":[{"a":{"X":"x"}}]}}"#, "a type this reader leaves to the SDK"),
        ] {
            assert_eq!(
                take_batch_responses(body).map_err(|e| e.reason),
                Err(reason),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn take_transact_responses_reads_each_reads_item() {
        let body = br#"{"ConsumedCapacity":[],"Responses":[{"Item":{"a":{"S":"x"}}},{},{"Item":null},{"Item":{}}]}"#;
        let taken = take_transact_responses(body).unwrap().unwrap();
        let response = |i: Option<Item>| ItemResponse::builder().set_item(i).build();
        let expected =
            vec![response(Some(item(&[("a", s("x"))]))), response(None), response(None), response(Some(Item::new()))];
        assert_eq!(taken.value, expected);
        assert_eq!(String::from_utf8(taken.rest).unwrap(), r#"{"ConsumedCapacity":[]}"#);
        assert_eq!(
            take_transact_responses(br#"{"Responses":[]}"#),
            Ok(Some(Taken { value: vec![], rest: b"{}".to_vec() }))
        );
        assert_eq!(take_transact_responses(br#"{"Responses":null}"#), Ok(None));
        assert_eq!(take_transact_responses(b"{}"), Ok(None));
        for (body, reason) in [
            (&br#"{"Responses":[{"Item":{},"Item":{}}]}"#[..], "a second Item"),
            (br#"{"Responses":[{"Other":1}]}"#, "a member of a response this reader leaves to the SDK"),
            (br#"{"Responses":[{"It\u0065m":{}}]}"#, "a member of a response this reader leaves to the SDK"),
            (br#"{"Responses":[null]}"#, "expected a response's object"),
            (br#"{"Responses":{}}"#, "expected Responses' list"),
        ] {
            assert_eq!(
                take_transact_responses(body).map_err(|e| e.reason),
                Err(reason),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn responses_items_are_one_level_farther_from_the_depth_limit() {
        // A value at level k (0: an item's attribute) of an item of `Responses` is read at
        // depth 4 + 2k; 128 is refused.
        let nested = |levels: usize, inner: &str| {
            let mut t = String::from(inner);
            for _ in 0..levels {
                t = format!(r#"{{"M":{{"a":{t}}}}}"#);
            }
            t
        };
        // A `BatchGetItem`'s answer, or a `TransactGetItems`' (`transact`).
        let read = |transact: bool, levels: usize, inner: &str| {
            let value = nested(levels, inner);
            if transact {
                let body = format!(r#"{{"Responses":[{{"Item":{{"a":{value}}}}}]}}"#);
                take_transact_responses(body.as_bytes()).map(|t| t.is_some()).map_err(|e| e.reason)
            } else {
                let body = format!(r#"{{"Responses":{{"t":[{{"a":{value}}}]}}}}"#);
                take_batch_responses(body.as_bytes()).map(|t| t.is_some()).map_err(|e| e.reason)
            }
        };
        for transact in [false, true] {
            assert_eq!(read(transact, 61, r#"{"M":{}}"#), Ok(true));
            assert_eq!(read(transact, 61, r#"{"M":{"b":{"S":"x"}}}"#), Err("nested too deeply"));
            assert_eq!(read(transact, 62, r#"{"S":"x"}"#), Err("nested too deeply"));
        }
    }
}
