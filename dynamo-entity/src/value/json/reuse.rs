//! A page's items read one at a time into one reused map: [`RawItems`] (the `Items` list left
//! as JSON), [`ItemsReader`] and the `Reader` methods that write a value over the one a slot
//! held (a string into the old `String`, a list or set element by element).

use aws_sdk_dynamodb::types::AttributeValue;
use bytes::Bytes;

use super::reader::{ATTRIBUTE_DEPTH, MAX_DEPTH, Malformed, Reader, unescape_into};
use crate::value::Item;

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
    /// The list `body` (`[{…},…]`, checked), found at `at` in the answer's body, of `len` items.
    pub(super) fn new(body: Bytes, at: usize, len: usize) -> RawItems {
        RawItems { body, at, len }
    }

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

impl<'a> Reader<'a> {
    /// `{"name": value, …}`: one item of `Items` into `item`, in place of the item it held
    /// (see [`ItemsReader`]). `order`: the addresses of `item`'s values in the order the last
    /// item named them (empty: unknown); `seen` gets this item's, or is left empty when they
    /// are not known (a name twice); `sorted` is room to sort them in. On an error, `item` is
    /// left half written.
    pub(super) fn item_into(
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

    /// The names of the item here, in order, each unescaped.
    pub(super) fn names(&mut self) -> Result<Vec<String>, Malformed> {
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
    pub(super) fn name(&mut self, unescaped: &mut String) -> Result<Option<&'a str>, Malformed> {
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
    pub(super) fn value_into(&mut self, slot: &mut AttributeValue, depth: u32) -> Result<(), Malformed> {
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
    pub(super) fn list_into(&mut self, list: &mut Vec<AttributeValue>, depth: u32) -> Result<(), Malformed> {
        self.elements_into(list, depth, |r, old| r.value_into(old, depth + 1), |r| r.value(depth + 1))
    }

    /// `["text", …]` at `depth` (an `SS` or `NS`) into `set`, its strings written over one by
    /// one.
    pub(super) fn strings_into(&mut self, set: &mut Vec<String>, depth: u32) -> Result<(), Malformed> {
        self.elements_into(set, depth, |r, old| r.string_into(old), |r| r.string())
    }

    /// A JSON array at `depth` into `into`: each element written over the old one at its
    /// place (`over`), or read new past the old ones' end (`new`); the old ones left over are
    /// dropped.
    pub(super) fn elements_into<T>(
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
}

/// Whether the addresses of `seen` are all different (`sorted`: room to sort them in).
fn distinct(seen: &[usize], sorted: &mut Vec<usize>) -> bool {
    sorted.clear();
    sorted.extend_from_slice(seen);
    sorted.sort_unstable();
    sorted.windows(2).all(|w| w[0] != w[1])
}
