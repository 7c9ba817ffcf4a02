//! Checking DynamoDB's JSON without building it: [`Reader::check_item`] accepts exactly what
//! [`Reader::item`] reads (the same depths, tags and escapes), for the `Items` a page leaves
//! as JSON ([`take_raw_items`](super::take_raw_items)). Its loop repeats the builder's grammar
//! without its allocations, on purpose: the fuzz target `page_items` holds the two to the same
//! answer on every body.

use super::reader::{MAX_DEPTH, Malformed, Reader, unescape_into};

impl<'a> Reader<'a> {
    /// Checks the item here as [`item`](Self::item) reads it, at `depth`, without building it
    /// (`scratch`: room to unescape strings into).
    pub(super) fn check_item(&mut self, depth: u32, scratch: &mut String) -> Result<(), Malformed> {
        self.expect(b'{', "expected an item's object")?;
        self.delimited(b'}', "expected ',' or '}' in an item", |r| {
            r.check_string(scratch)?;
            r.colon()?;
            r.check_value(depth, scratch)
        })
    }

    /// Checks the string here as [`string`](Self::string) reads it.
    pub(super) fn check_string(&mut self, scratch: &mut String) -> Result<(), Malformed> {
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
    pub(super) fn check_value(&mut self, depth: u32, scratch: &mut String) -> Result<(), Malformed> {
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
    pub(super) fn check_list(
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
}
