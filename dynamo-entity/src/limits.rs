//! DynamoDB's limits on requests, checked when a request is built: a request over one is
//! refused with [`Error::LimitExceeded`](crate::Error::LimitExceeded) (or, for the item size,
//! [`Error::ItemTooLarge`](crate::Error::ItemTooLarge)) before anything is sent, naming the
//! limit, the measured figure, the operation, the entity and the key.
//!
//! | limit | DynamoDB's figure | where checked |
//! |---|---|---|
//! | length of one expression (key condition, filter, condition, update, projection) | 4 KB (4,096 bytes) | every request with an expression |
//! | operators and functions in one expression | 300 | idem |
//! | operands of one `IN` | 100 | idem |
//! | length of one expression attribute name or value placeholder (`#n0`, `:v0`) | 255 bytes | idem |
//! | `ExpressionAttributeNames` + `ExpressionAttributeValues` | 2 MB (2,097,152 bytes) | idem |
//! | one expression with its names and values substituted | 1 MB (1,048,576 bytes; enforced by DynamoDB Local, not a published quota) | idem |
//! | attribute name | 64 KB (65,535 bytes) | idem, and every item written |
//! | nesting of a document value (maps and lists) | 32 levels | every value written or compared |
//! | item size | 400 KB | every item written ([`check_item_size`](crate::schema::size::check_item_size)); every update, by its key and the attributes it sets |
//! | partition key / sort key value | 2,048 / 1,024 bytes | when a key is encoded ([`key`](crate::key)) |
//! | actions of one transaction / their items' total size | 100 / 4 MB | [`transact`](crate::transact) |
//! | items of one `BatchWriteItem` / keys of one `BatchGetItem` | 25 / 100 | [`batch`](crate::batch) splits larger batches |
//!
//! How the figures are measured, as DynamoDB measures them (the boundaries are pinned by
//! integration tests against DynamoDB Local):
//!
//! * An expression's length is its UTF-8 length, placeholders as written.
//! * Operators and functions: each comparator (`=`, `<>`, `<`, `<=`, `>`, `>=`), each `AND`,
//!   `OR`, `NOT`, `BETWEEN` (its own `AND` not counted again) and `IN`, each function
//!   (`attribute_exists`, `attribute_not_exists`, `attribute_type`, `begins_with`, `contains`,
//!   `size`, `if_not_exists`, `list_append`), and in an update expression each `+` and `-`
//!   (its `SET a = …` assignments are not operators). Parentheses are free.
//! * The substitutions' size: each name placeholder's length plus the name's, each value
//!   placeholder's length plus the value's size by the item-size rules
//!   ([`value::size::value_size`](crate::value::size::value_size)).
//! * Nesting: a scalar attribute is one level, each map or list around it one more.
//!
//! The library's own additions count like anything else: the entity-type guard of every
//! conditional write, the range guards of [`add`](crate::update::UpdateRequest::add) /
//! [`subtract`](crate::update::UpdateRequest::subtract) (one per field, three operators each
//! with its `AND`), a version check. When they take a request over a limit, the error says how
//! much of the figure they account for ([`Error::LimitExceeded`](crate::Error::LimitExceeded)'s `library`).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::value::Item;
use crate::value::size::value_size;

/// The longest expression DynamoDB takes: 4 KB.
pub const MAX_EXPRESSION_BYTES: usize = 4096;
/// The most operators and functions one expression may hold.
pub const MAX_OPERATORS: usize = 300;
/// The most operands of one `IN`.
pub const MAX_IN_OPERANDS: usize = 100;
/// The longest expression attribute name or value placeholder (`#name`, `:value`), in bytes.
pub const MAX_PLACEHOLDER_BYTES: usize = 255;
/// The largest total of `ExpressionAttributeNames` and `ExpressionAttributeValues`: 2 MB.
pub const MAX_SUBSTITUTION_BYTES: usize = 2 * 1024 * 1024;
/// The largest expression with its names and values substituted: 1 MB (see
/// [`Limit::SubstitutedSize`] for how it is measured).
pub const MAX_SUBSTITUTED_BYTES: usize = 1024 * 1024;
/// The longest attribute name: 64 KB less one byte.
pub const MAX_ATTRIBUTE_NAME_BYTES: usize = 65_535;
/// The deepest nesting of a value: a scalar attribute is one level, each map or list around it
/// one more.
pub const MAX_NESTING_LEVELS: usize = 32;
/// The most actions of one `TransactWriteItems` / `TransactGetItems`.
pub const MAX_TRANSACTION_ACTIONS: usize = 100;
/// The largest total size of the items of one transaction: 4 MB.
pub const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;
/// The largest `BatchWriteItem` request (its HTTP body, in DynamoDB's JSON) and `BatchGetItem`
/// response: 16 MB. Items within 400 KB can still make a request over it, for their JSON can
/// be much larger than their size as DynamoDB counts it (a control character is 6 bytes of
/// JSON, `\u0001`; a number's leading zeros are not counted).
pub const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// One of DynamoDB's request limits (see the [module](self) for the figures and how they are
/// measured).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// An expression's length, in bytes ([`MAX_EXPRESSION_BYTES`]).
    ExpressionLength,
    /// The operators and functions of one expression ([`MAX_OPERATORS`]).
    Operators,
    /// The operands of one `IN` ([`MAX_IN_OPERANDS`]).
    InOperands,
    /// The length of one placeholder, in bytes ([`MAX_PLACEHOLDER_BYTES`]).
    PlaceholderLength,
    /// The size of the names and values substituted into a request's expressions, in bytes
    /// ([`MAX_SUBSTITUTION_BYTES`]).
    SubstitutionSize,
    /// The size of one expression with its names and values substituted, in bytes
    /// ([`MAX_SUBSTITUTED_BYTES`]): the expression's length (placeholders as written), plus
    /// for each use of a name placeholder the name's length, plus for each use of a value
    /// placeholder the value's size. Not among DynamoDB's published quotas; DynamoDB Local enforces it
    /// ("Expression size has exceeded the maximum allowed size"), and the figures were measured
    /// there.
    SubstitutedSize,
    /// The length of an attribute name, in bytes ([`MAX_ATTRIBUTE_NAME_BYTES`]).
    AttributeNameLength,
    /// The nesting levels of one value ([`MAX_NESTING_LEVELS`]).
    NestingLevels,
    /// The actions of one transaction ([`MAX_TRANSACTION_ACTIONS`]).
    TransactionActions,
    /// The total size of a transaction's items, in bytes ([`MAX_TRANSACTION_BYTES`]).
    TransactionSize,
    /// The size of a request's body, in bytes ([`MAX_REQUEST_BYTES`]).
    RequestSize,
}

impl Limit {
    /// DynamoDB's figure for this limit.
    pub const fn max(self) -> usize {
        match self {
            Limit::ExpressionLength => MAX_EXPRESSION_BYTES,
            Limit::Operators => MAX_OPERATORS,
            Limit::InOperands => MAX_IN_OPERANDS,
            Limit::PlaceholderLength => MAX_PLACEHOLDER_BYTES,
            Limit::SubstitutionSize => MAX_SUBSTITUTION_BYTES,
            Limit::SubstitutedSize => MAX_SUBSTITUTED_BYTES,
            Limit::AttributeNameLength => MAX_ATTRIBUTE_NAME_BYTES,
            Limit::NestingLevels => MAX_NESTING_LEVELS,
            Limit::TransactionActions => MAX_TRANSACTION_ACTIONS,
            Limit::TransactionSize => MAX_TRANSACTION_BYTES,
            Limit::RequestSize => MAX_REQUEST_BYTES,
        }
    }

    /// What is measured, in words: "bytes", "operators and functions", ….
    pub const fn unit(self) -> &'static str {
        match self {
            Limit::ExpressionLength
            | Limit::PlaceholderLength
            | Limit::SubstitutionSize
            | Limit::SubstitutedSize
            | Limit::AttributeNameLength
            | Limit::TransactionSize
            | Limit::RequestSize => "bytes",
            Limit::Operators => "operators and functions",
            Limit::InOperands => "IN operands",
            Limit::NestingLevels => "nesting levels",
            Limit::TransactionActions => "actions",
        }
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Limit::ExpressionLength => "expression length",
            Limit::Operators => "operators per expression",
            Limit::InOperands => "operands of IN",
            Limit::PlaceholderLength => "placeholder length",
            Limit::SubstitutionSize => "size of ExpressionAttributeNames and ExpressionAttributeValues",
            Limit::SubstitutedSize => "size of an expression with its names and values substituted",
            Limit::AttributeNameLength => "attribute name length",
            Limit::NestingLevels => "nesting depth",
            Limit::TransactionActions => "actions per transaction",
            Limit::TransactionSize => "size of a transaction's items",
            Limit::RequestSize => "size of a request",
        })
    }
}

/// A limit a request breaks, before the request is named (`Exceeded::request`, in
/// [`error`](crate::error), makes the error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Exceeded {
    pub(crate) limit: Limit,
    /// The part of the request measured: `UpdateExpression`, `ConditionExpression`, ….
    pub(crate) part: String,
    pub(crate) measured: usize,
    /// How much of `measured` the library's own additions account for.
    pub(crate) library: usize,
}

impl Exceeded {
    fn new(limit: Limit, part: impl Into<String>, measured: usize) -> Exceeded {
        Exceeded { limit, part: part.into(), measured, library: 0 }
    }
}

/// Checks one expression: its length, operators and `IN` operands. `part` names it
/// (`ConditionExpression`, …); `update` says it is an update expression (whose `+` and `-`
/// count). The first `library` bytes of `text` are the library's own (its guards), counted as
/// the library's share of a figure over the limit. Requests check all their expressions at
/// once with [`check_request`]; this is one of them alone.
#[cfg(test)]
pub(crate) fn check_expression(
    part: &'static str,
    text: &str,
    update: bool,
    library: usize,
    names: Option<&HashMap<String, String>>,
    values: Option<&HashMap<String, AttributeValue>>,
) -> Result<(), Exceeded> {
    let measured = Substitutions::measure(names, values);
    check_expression_in(part, text, update, library, &measured)
}

/// A request's `ExpressionAttributeNames` and `ExpressionAttributeValues`, measured once for
/// all its expressions and for the limits on the maps themselves ([`Substitutions::check`]):
/// one pass over each map, one [`value_size`](crate::value::size::value_size) per value.
struct Substitutions<'a> {
    names: Option<&'a HashMap<String, String>>,
    values: Option<&'a HashMap<String, AttributeValue>>,
    /// The longest name, in bytes.
    longest_name: usize,
    /// The largest value's size.
    largest_value: usize,
    /// The maps' size, as [`Limit::SubstitutionSize`] measures it.
    total: usize,
    /// The first limit the maps break (see [`Substitutions::measure`]).
    checked: Result<(), Exceeded>,
}

impl<'a> Substitutions<'a> {
    /// Measures both maps in one pass each, finding the same first limit broken as
    /// `check_substitutions` would (names first, then values, each in the map's order): each
    /// placeholder's length, each name's length, each value's nesting, then their total size.
    fn measure(
        names: Option<&'a HashMap<String, String>>,
        values: Option<&'a HashMap<String, AttributeValue>>,
    ) -> Substitutions<'a> {
        let (mut total, mut longest_name, mut largest_value) = (0usize, 0usize, 0usize);
        // What may break a limit of one entry: a long placeholder or name, a map or list
        // value (its nesting). Only then are the entries checked one by one, in order.
        let (mut longest_placeholder, mut documents) = (0usize, false);
        for (placeholder, name) in names.into_iter().flatten() {
            longest_name = longest_name.max(name.len());
            longest_placeholder = longest_placeholder.max(placeholder.len());
            total += placeholder.len() + name.len();
        }
        for (placeholder, value) in values.into_iter().flatten() {
            let size = value_size(value);
            largest_value = largest_value.max(size);
            longest_placeholder = longest_placeholder.max(placeholder.len());
            documents |= matches!(value, AttributeValue::L(_) | AttributeValue::M(_));
            total += placeholder.len() + size;
        }
        let mut checked: Result<(), Exceeded> = Ok(());
        if longest_placeholder > MAX_PLACEHOLDER_BYTES || longest_name > MAX_ATTRIBUTE_NAME_BYTES || documents {
            checked = first_entry_over(names, values);
        }
        if checked.is_ok() && total > MAX_SUBSTITUTION_BYTES {
            checked = Err(Exceeded::new(
                Limit::SubstitutionSize,
                "ExpressionAttributeNames and ExpressionAttributeValues",
                total,
            ));
        }
        Substitutions { names, values, longest_name, largest_value, total, checked }
    }

    /// The first limit the names and values break.
    fn check(self) -> Result<(), Exceeded> {
        self.checked
    }
}

/// One expression of a request, for [`check_request`]: which part of the request it is
/// (`ConditionExpression`, …), its text, whether it is an update expression, and how many of
/// its first bytes are the library's own, counted as the library's share of a figure over the
/// limit.
pub(crate) type Expression<'t> = (&'static str, &'t str, bool, usize);

/// Checks a request: each of its expressions in order (its length, operators and `IN`
/// operands, its size with names and values substituted), then its names and values (each
/// placeholder's length, each name's length, each value's nesting, their total size); the
/// first limit broken, as checking each expression and then the maps, one after the other,
/// would report it. The names and values are measured once for all
/// ([`Substitutions::measure`]).
pub(crate) fn check_request(
    expressions: &[Expression<'_>],
    names: Option<&HashMap<String, String>>,
    values: Option<&HashMap<String, AttributeValue>>,
) -> Result<(), Exceeded> {
    let measured = Substitutions::measure(names, values);
    for &(part, text, update, library) in expressions {
        check_expression_in(part, text, update, library, &measured)?;
    }
    measured.check()
}

/// A condition the library puts before a request's own (`<prefix> AND (<own>)`), with the names
/// and values it adds, measured once: what it adds to each figure [`surely_fits`] bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Prefix {
    /// Its length alone (the condition of a request without one of its own).
    pub(crate) alone: usize,
    /// Its operators; joined to a condition, one more (the `AND`).
    pub(crate) operators: usize,
    /// Its placeholder uses (`#`, `:`).
    pub(crate) name_uses: usize,
    pub(crate) value_uses: usize,
    /// The size its names and values add to the request's maps (at most: a name the request
    /// already has is counted again).
    pub(crate) substitutions: usize,
    /// Its longest name and largest value.
    pub(crate) longest_name: usize,
    pub(crate) largest_value: usize,
}

impl Prefix {
    /// Its length with the ` AND (` and `)` that join it to a condition.
    pub(crate) fn joined(&self) -> usize {
        self.alone + " AND ()".len()
    }

    /// Measures the condition `text` with the names and values it adds.
    pub(crate) fn measure(
        text: &str,
        names: &HashMap<String, String>,
        values: &HashMap<String, AttributeValue>,
    ) -> Prefix {
        let scan = scan_expression(text, false);
        let measured = Substitutions::measure(Some(names), Some(values));
        Prefix {
            alone: text.len(),
            operators: scan.operators,
            name_uses: scan.name_uses,
            value_uses: scan.value_uses,
            substitutions: measured.total,
            longest_name: measured.longest_name,
            largest_value: measured.largest_value,
        }
    }
}

/// Whether an `UpdateItem` request with `update`, `condition` preceded by `prefix`, and `names`
/// and `values` with the prefix's own, surely keeps every limit [`check_request`] checks: each
/// figure's bound (the expressions' exact lengths and operators, the substitutions at most
/// their sum) fits. `false` when one may not: check the request as sent, exactly.
pub(crate) fn surely_fits(
    update: &str,
    condition: &str,
    names: Option<&HashMap<String, String>>,
    values: Option<&HashMap<String, AttributeValue>>,
    prefix: &Prefix,
) -> bool {
    let measured = Substitutions::measure(names, values);
    if measured.checked.is_err() || measured.total.saturating_add(prefix.substitutions) > MAX_SUBSTITUTION_BYTES {
        return false;
    }
    let longest = measured.longest_name.max(prefix.longest_name);
    let largest = measured.largest_value.max(prefix.largest_value);
    let fits = |length: usize, operators: usize, widest_in: usize, name_uses: usize, value_uses: usize| {
        let substituted =
            length.saturating_add(name_uses.saturating_mul(longest)).saturating_add(value_uses.saturating_mul(largest));
        length <= MAX_EXPRESSION_BYTES
            && operators <= MAX_OPERATORS
            && widest_in <= MAX_IN_OPERANDS
            && substituted <= MAX_SUBSTITUTED_BYTES
    };
    let scan = scan_expression(update, true);
    if !update.is_empty() && !fits(update.len(), scan.operators, scan.widest_in, scan.name_uses, scan.value_uses) {
        return false;
    }
    if condition.is_empty() {
        return fits(prefix.alone, prefix.operators, 0, prefix.name_uses, prefix.value_uses);
    }
    let scan = scan_expression(condition, false);
    fits(
        prefix.joined() + condition.len(),
        prefix.operators + 1 + scan.operators,
        scan.widest_in,
        prefix.name_uses + scan.name_uses,
        prefix.value_uses + scan.value_uses,
    )
}

/// One expression's limits, the request's names and values measured
/// ([`Substitutions::measure`]).
fn check_expression_in(
    part: &'static str,
    text: &str,
    update: bool,
    library: usize,
    measured: &Substitutions<'_>,
) -> Result<(), Exceeded> {
    let (names, values) = (measured.names, measured.values);
    let own = text.get(..library).unwrap_or(text);
    if text.len() > MAX_EXPRESSION_BYTES {
        let mut e = Exceeded::new(Limit::ExpressionLength, part, text.len());
        e.library = own.len();
        return Err(e);
    }
    if surely_short(text, measured) {
        return Ok(());
    }
    let scan = scan_expression(text, update);
    let (operators, widest_in) = (scan.operators, scan.widest_in);
    if operators > MAX_OPERATORS {
        let mut e = Exceeded::new(Limit::Operators, part, operators);
        e.library = count_operators(own, update).0;
        return Err(e);
    }
    if widest_in > MAX_IN_OPERANDS {
        return Err(Exceeded::new(Limit::InOperands, part, widest_in));
    }
    // Each name or value placeholder in the text stands for at most the longest name or the
    // largest value: when that bound fits, the exact size (a lookup per placeholder) does too.
    let (longest_name, largest_value) = (measured.longest_name, measured.largest_value);
    let bound = text
        .len()
        .saturating_add(scan.name_uses.saturating_mul(longest_name))
        .saturating_add(scan.value_uses.saturating_mul(largest_value));
    if bound <= MAX_SUBSTITUTED_BYTES {
        return Ok(());
    }
    let substituted = substituted_size(text, names, values);
    if substituted > MAX_SUBSTITUTED_BYTES {
        let mut e = Exceeded::new(Limit::SubstitutedSize, part, substituted);
        e.library = substituted_size(own, names, values);
        return Err(e);
    }
    Ok(())
}

/// The size of `text` with its names and values substituted, as [`Limit::SubstitutedSize`]
/// measures it.
fn substituted_size(
    text: &str,
    names: Option<&HashMap<String, String>>,
    values: Option<&HashMap<String, AttributeValue>>,
) -> usize {
    let bytes = text.as_bytes();
    let (mut total, mut i) = (text.len(), 0);
    while i < bytes.len() {
        let b = bytes[i];
        if b != b'#' && b != b':' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        let placeholder = &text[start..i];
        if b == b'#' {
            total += names.and_then(|n| n.get(placeholder)).map_or(0, String::len);
        } else {
            total += values.and_then(|v| v.get(placeholder)).map_or(0, value_size);
        }
    }
    total
}

/// The operators and functions of `text` as DynamoDB counts them (see the [module](self)),
/// and the most operands of one of its `IN` lists. `text` is an expression as the library
/// writes them: names and values are placeholders, so no operator hides in a name.
pub(crate) fn count_operators(text: &str, update: bool) -> (usize, usize) {
    let scan = scan_expression(text, update);
    (scan.operators, scan.widest_in)
}

/// What one pass over an expression measures.
struct Scan {
    /// Operators and functions, as [`count_operators`] counts them.
    operators: usize,
    /// The most operands of one `IN`.
    widest_in: usize,
    /// The `#` in the text: at least the uses of name placeholders.
    name_uses: usize,
    /// The `:` in the text: at least the uses of value placeholders.
    value_uses: usize,
}

/// Bytes of a word or placeholder (letters, digits, `_`, `#`, `:`, `.`): one table lookup a
/// byte instead of a chain of comparisons.
const WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'#' | b':' | b'.');
        b += 1;
    }
    t
};

/// Whether `text` keeps the limits [`check_expression_in`] checks after its length, by bounds
/// that need no tokenizing (most requests: a key condition, a type guard, a few `SET`s):
/// every operator [`scan_expression`] counts is at least one byte of its own, so a text of at
/// most [`MAX_OPERATORS`] bytes has at most that many; an `IN`'s operands, the name uses and
/// the value uses are at most the text's `:` and `#` bytes; the substituted size is then at
/// most the text with each of those bytes standing for the longest name or largest value.
/// `false` says nothing: scan the text.
fn surely_short(text: &str, measured: &Substitutions<'_>) -> bool {
    let len = text.len();
    if len > MAX_OPERATORS {
        return false;
    }
    // Each `#` and `:` is a byte of the text: at most `len` of them in all. A short text with
    // small substitutions fits by that bound alone, without counting them.
    let widest = measured.longest_name.max(measured.largest_value);
    if len <= MAX_IN_OPERANDS && len.saturating_add(len.saturating_mul(widest)) <= MAX_SUBSTITUTED_BYTES {
        return true;
    }
    let (mut hashes, mut colons) = (0usize, 0usize);
    for b in text.bytes() {
        hashes += usize::from(b == b'#');
        colons += usize::from(b == b':');
    }
    let bound = text
        .len()
        .saturating_add(hashes.saturating_mul(measured.longest_name))
        .saturating_add(colons.saturating_mul(measured.largest_value));
    colons <= MAX_IN_OPERANDS && bound <= MAX_SUBSTITUTED_BYTES
}

/// [`count_operators`] with the placeholder uses counted in the same pass.
fn scan_expression(text: &str, update: bool) -> Scan {
    let bytes = text.as_bytes();
    let (mut count, mut widest_in, mut i) = (0usize, 0usize, 0usize);
    let (mut name_uses, mut value_uses) = (0usize, 0usize);
    // A `BETWEEN` is waiting for its `AND`, which is not counted again.
    let mut between = 0usize;
    // Inside `SET`, `=` assigns; elsewhere it compares.
    let mut in_set = false;
    while i < bytes.len() {
        let b = bytes[i];
        if WORD[usize::from(b)] && b != b'.' {
            let start = i;
            // Every `#` and `:` counted: at least one for each placeholder (`#a.#b` is two).
            while i < bytes.len() && WORD[usize::from(bytes[i])] {
                match bytes[i] {
                    b'#' => name_uses += 1,
                    b':' => value_uses += 1,
                    _ => {}
                }
                i += 1;
            }
            if b == b'#' || b == b':' {
                continue;
            }
            match &text[start..i] {
                "SET" if update => in_set = true,
                "REMOVE" | "ADD" | "DELETE" if update => in_set = false,
                "AND" if between > 0 => between -= 1,
                "BETWEEN" => {
                    between += 1;
                    count += 1;
                }
                "IN" => {
                    count += 1;
                    // The operands: placeholders up to the closing parenthesis.
                    let close = text[i..].find(')').map_or(bytes.len(), |c| i + c);
                    let operands = text[i..close].bytes().filter(|c| *c == b':').count();
                    widest_in = widest_in.max(operands);
                }
                "AND"
                | "OR"
                | "NOT"
                | "attribute_exists"
                | "attribute_not_exists"
                | "attribute_type"
                | "begins_with"
                | "contains"
                | "size"
                | "if_not_exists"
                | "list_append" => count += 1,
                _ => {}
            }
            continue;
        }
        match b {
            b'<' | b'>' => {
                count += 1;
                // `<=`, `>=`, `<>` are one operator.
                if matches!(bytes.get(i + 1), Some(b'=' | b'>')) {
                    i += 1;
                }
            }
            b'=' if !(update && in_set) => count += 1,
            b'+' | b'-' if update => count += 1,
            _ => {}
        }
        i += 1;
    }
    Scan { operators: count, widest_in, name_uses, value_uses }
}

/// Checks a request's `ExpressionAttributeNames` and `ExpressionAttributeValues`: each
/// placeholder's length, each name's length, each value's nesting, and their total size.
/// (Requests check them with their expressions, [`check_request`].)
#[cfg(test)]
pub(crate) fn check_substitutions(
    names: Option<&HashMap<String, String>>,
    values: Option<&HashMap<String, AttributeValue>>,
) -> Result<(), Exceeded> {
    Substitutions::measure(names, values).check()
}

/// The first entry of `names`, then of `values`, in the maps' order, that breaks a limit of
/// one entry ([`name_limits`], [`value_limits`]).
fn first_entry_over(
    names: Option<&HashMap<String, String>>,
    values: Option<&HashMap<String, AttributeValue>>,
) -> Result<(), Exceeded> {
    for (placeholder, name) in names.into_iter().flatten() {
        name_limits(placeholder, name)?;
    }
    for (placeholder, value) in values.into_iter().flatten() {
        value_limits(placeholder, value)?;
    }
    Ok(())
}

/// The limits of one entry of `ExpressionAttributeNames`: the placeholder's length, the name's.
fn name_limits(placeholder: &str, name: &str) -> Result<(), Exceeded> {
    if placeholder.len() > MAX_PLACEHOLDER_BYTES {
        return Err(Exceeded::new(
            Limit::PlaceholderLength,
            format!("name placeholder {placeholder}"),
            placeholder.len(),
        ));
    }
    if name.len() > MAX_ATTRIBUTE_NAME_BYTES {
        return Err(Exceeded::new(Limit::AttributeNameLength, format!("attribute name of {placeholder}"), name.len()));
    }
    Ok(())
}

/// The limits of one entry of `ExpressionAttributeValues`: the placeholder's length, the
/// value's nesting.
fn value_limits(placeholder: &str, value: &AttributeValue) -> Result<(), Exceeded> {
    if placeholder.len() > MAX_PLACEHOLDER_BYTES {
        return Err(Exceeded::new(
            Limit::PlaceholderLength,
            format!("value placeholder {placeholder}"),
            placeholder.len(),
        ));
    }
    if matches!(value, AttributeValue::L(_) | AttributeValue::M(_)) {
        check_nested(value, || format!("value {placeholder}"))?;
    }
    Ok(())
}

/// An upper bound of `item`'s size ([`item_size`](crate::value::size::item_size)) and the first
/// attribute over a limit ([`check_item_attributes`]), in one pass over the item: a number
/// counts its text's length plus one (at least its size), other scalars their exact size,
/// lists and maps their exact size. When the bound is within 400 KB, the item is.
pub(crate) fn item_bound_and_attributes(item: &Item) -> (usize, Result<(), Exceeded>) {
    let mut bound = 0usize;
    let mut first: Result<(), Exceeded> = Ok(());
    for (name, value) in item {
        let (size, nested) = match value {
            AttributeValue::S(s) => (s.len(), false),
            AttributeValue::N(n) => (n.len() + 1, false),
            AttributeValue::Bool(_) | AttributeValue::Null(_) => (1, false),
            AttributeValue::L(_) | AttributeValue::M(_) => (value_size(value), true),
            other => (value_size(other), false),
        };
        bound = bound.saturating_add(name.len() + size);
        if first.is_ok() {
            if name.len() > MAX_ATTRIBUTE_NAME_BYTES {
                first = Err(Exceeded::new(Limit::AttributeNameLength, "attribute name", name.len()));
            } else if nested {
                first = check_nested(value, || format!("attribute `{name}`"));
            }
        }
    }
    (bound, first)
}

/// Checks the attributes of an item to be written: name lengths and nesting (its size is
/// [`check_item_size`](crate::schema::size::check_item_size)'s).
pub(crate) fn check_item_attributes(item: &Item) -> Result<(), Exceeded> {
    for (name, value) in item {
        if name.len() > MAX_ATTRIBUTE_NAME_BYTES {
            return Err(Exceeded::new(Limit::AttributeNameLength, "attribute name", name.len()));
        }
        check_nested(value, || format!("attribute `{name}`"))?;
    }
    Ok(())
}

/// Checks a value inside a map or list (`what` names it for the error): its nesting
/// ([`MAX_NESTING_LEVELS`]) and the names of the attributes of its maps, which are attribute
/// names like any other ([`MAX_ATTRIBUTE_NAME_BYTES`]).
fn check_nested(value: &AttributeValue, what: impl Fn() -> String) -> Result<(), Exceeded> {
    let levels = nesting_levels(value);
    if levels > MAX_NESTING_LEVELS {
        return Err(Exceeded::new(Limit::NestingLevels, what(), levels));
    }
    let longest = longest_map_key(value);
    if longest > MAX_ATTRIBUTE_NAME_BYTES {
        return Err(Exceeded::new(Limit::AttributeNameLength, format!("a map key in {}", what()), longest));
    }
    Ok(())
}

/// The length in bytes of the longest key of the maps in `value`, at any depth (0 when it
/// holds no map).
fn longest_map_key(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::L(list) => list.iter().map(longest_map_key).max().unwrap_or(0),
        AttributeValue::M(map) => map.iter().map(|(k, v)| k.len().max(longest_map_key(v))).max().unwrap_or(0),
        _ => 0,
    }
}

/// The nesting levels of a value: 1 for a scalar or a set, 1 more for each map or list around
/// the deepest element.
pub fn nesting_levels(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::L(list) => 1 + list.iter().map(nesting_levels).max().unwrap_or(0),
        AttributeValue::M(map) => 1 + map.values().map(nesting_levels).max().unwrap_or(0),
        _ => 1,
    }
}

/// Checks a transaction's size: its number of actions and the total size of its items.
pub(crate) fn check_transaction(actions: usize, bytes: usize) -> Result<(), Exceeded> {
    if actions > MAX_TRANSACTION_ACTIONS {
        return Err(Exceeded::new(Limit::TransactionActions, "TransactItems", actions));
    }
    if bytes > MAX_TRANSACTION_BYTES {
        return Err(Exceeded::new(Limit::TransactionSize, "TransactItems", bytes));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_are_counted_as_dynamodb_counts_them() {
        // Figures measured against DynamoDB Local (see the integration test `limits::`).
        assert_eq!(count_operators("#a = :b", false), (1, 0));
        assert_eq!(count_operators("#a <> :b AND #c <= :d OR #e >= :f", false), (5, 0));
        assert_eq!(count_operators("#a BETWEEN :b AND :c AND #d < :e", false), (3, 0));
        assert_eq!(count_operators("NOT (#a > :b)", false), (2, 0));
        assert_eq!(count_operators("size(#a) = :b", false), (2, 0));
        assert_eq!(count_operators("#a IN (:v0, :v1, :v2)", false), (1, 3));
        assert_eq!(count_operators("(attribute_not_exists(#n0) OR #n1 = :v0)", false), (3, 0));
        assert_eq!(count_operators("SET #a = :b, #c = if_not_exists(#c, :z) + :d REMOVE #e", true), (2, 0));
        assert_eq!(count_operators("SET #a = list_append(:l, #a) ADD #s :v", true), (1, 0));
        assert_eq!(count_operators("#pk = :v0 AND begins_with(#sk, :v1)", false), (3, 0));
    }

    #[test]
    fn short_expressions_pass_without_a_scan_only_when_their_bounds_fit() {
        let names: HashMap<String, String> = [("#n0".to_owned(), "status".to_owned())].into();
        let values = |n: usize| -> HashMap<String, AttributeValue> {
            [(":v0".to_owned(), AttributeValue::S("a".repeat(n)))].into()
        };
        let small = values(10);
        let measured = Substitutions::measure(Some(&names), Some(&small));
        assert!(surely_short("#n0 = :v0", &measured));
        assert!(surely_short(&"=".repeat(MAX_OPERATORS), &measured), "300 one-byte operators are at the limit");
        assert!(!surely_short(&" ".repeat(MAX_OPERATORS + 1), &measured), "over 300 bytes: scanned");
        let colons = ":".repeat(MAX_IN_OPERANDS + 1);
        assert!(!surely_short(&format!("#n0 IN ({colons})"), &measured), "101 `:` may be 101 IN operands");
        // `:v0` of 1 MB less 12 bytes: the text with the name and the value substituted is 3
        // bytes over 1 MB, and so is the bound: the scan measures it and refuses it.
        let large = values(MAX_SUBSTITUTED_BYTES - 12);
        let measured = Substitutions::measure(Some(&names), Some(&large));
        assert!(!surely_short("#n0 = :v0", &measured));
        let e = check_expression_in("ConditionExpression", "#n0 = :v0", false, 0, &measured).unwrap_err();
        assert_eq!((e.limit, e.measured), (Limit::SubstitutedSize, MAX_SUBSTITUTED_BYTES + 3));
        // The fast path answers as the scan does: 301 operators in 301 bytes are refused.
        let e = check_expression("ConditionExpression", &"=".repeat(301), false, 0, None, None).unwrap_err();
        assert_eq!((e.limit, e.measured), (Limit::Operators, 301));
    }

    #[test]
    fn expressions_over_a_limit_name_it() {
        let ok = ["#a = :b"; 150].join(" AND ");
        assert_eq!(check_expression("ConditionExpression", &ok, false, 0, None, None), Ok(()));
        let over = ["#a = :b"; 151].join(" AND ");
        let e =
            check_expression("ConditionExpression", &over, false, "#a = :b AND #a = :b".len(), None, None).unwrap_err();
        assert_eq!((e.limit, e.measured, e.library), (Limit::Operators, 301, 3));
        let long = format!("{}{}", "#a = :b", " ".repeat(4090));
        assert_eq!(check_expression("FilterExpression", &long, false, 0, None, None).unwrap_err().measured, 4097);
        let ins: Vec<String> = (0..101).map(|i| format!(":v{i}")).collect();
        let e = check_expression("FilterExpression", &format!("#a IN ({})", ins.join(", ")), false, 0, None, None)
            .unwrap_err();
        assert_eq!((e.limit, e.measured), (Limit::InOperands, 101));
    }

    #[test]
    fn substituted_expressions_at_1_mb() {
        // Figures measured against DynamoDB Local: `#x = :b0` with `x` and a string of
        // 1,048,567 bytes is the largest it accepts; two uses of one value count twice; a name
        // counts its length.
        let value = |n: usize| -> HashMap<String, AttributeValue> {
            [(":b0".to_owned(), AttributeValue::S("a".repeat(n)))].into()
        };
        let x: HashMap<String, String> =
            [("#x".to_owned(), "x".to_owned()), ("#y".to_owned(), "y".repeat(1000))].into();
        let size = |text: &str, n: usize| substituted_size(text, Some(&x), Some(&value(n)));
        assert_eq!(size("#x = :b0", 1_048_567), MAX_SUBSTITUTED_BYTES);
        assert_eq!(size("#x = :b0 OR #x = :b0", 524_277), MAX_SUBSTITUTED_BYTES);
        assert_eq!(size("#y = :b0", 1_047_568), MAX_SUBSTITUTED_BYTES);
        let e = check_expression("ConditionExpression", "#x = :b0", false, 0, Some(&x), Some(&value(1_048_568)))
            .unwrap_err();
        assert_eq!((e.limit, e.measured), (Limit::SubstitutedSize, MAX_SUBSTITUTED_BYTES + 1));
    }

    #[test]
    fn a_large_value_the_expression_does_not_use_is_not_counted() {
        // The bound (every `:` as the largest value) is over 1 MB, the exact size is not.
        let values: HashMap<String, AttributeValue> = [
            (":b0".to_owned(), AttributeValue::S("a".repeat(MAX_SUBSTITUTED_BYTES))),
            (":b1".to_owned(), AttributeValue::S("b".to_owned())),
        ]
        .into();
        let names: HashMap<String, String> = [("#x".to_owned(), "x".to_owned())].into();
        assert_eq!(check_expression("ConditionExpression", "#x = :b1", false, 0, Some(&names), Some(&values)), Ok(()));
        let e = check_expression("ConditionExpression", "#x = :b0", false, 0, Some(&names), Some(&values)).unwrap_err();
        assert_eq!((e.limit, e.measured), (Limit::SubstitutedSize, MAX_SUBSTITUTED_BYTES + 9));
        // A path of two names is two uses.
        assert_eq!(scan_expression("#a.#b = :v AND #c[1] <> :w", false).name_uses, 3);
        assert_eq!(scan_expression("#a.#b = :v AND #c[1] <> :w", false).value_uses, 2);
    }

    #[test]
    fn a_request_reports_its_first_limit_as_the_checks_one_by_one_do() {
        let mut deep = AttributeValue::S("a".into());
        for _ in 0..32 {
            deep = AttributeValue::L(vec![deep]);
        }
        let names: HashMap<String, String> = [("#a".to_owned(), "a".to_owned())].into();
        let values: HashMap<String, AttributeValue> = [(":b".to_owned(), deep)].into();
        let (n, v) = (Some(&names), Some(&values));
        let long = format!("{}{}", "#a = :b", " ".repeat(4090));
        let over = ["#a = :b"; 151].join(" AND ");
        let cases: [&[Expression<'_>]; 4] = [
            &[("UpdateExpression", "SET #a = :b", true, 0), ("ConditionExpression", &long, false, 3)],
            &[("KeyConditionExpression", "#a = :b", false, 0), ("FilterExpression", &over, false, 0)],
            &[("ConditionExpression", "#a = :b", false, 0)],
            &[],
        ];
        for expressions in cases {
            let one_by_one = expressions
                .iter()
                .try_for_each(|&(part, text, update, library)| check_expression(part, text, update, library, n, v))
                .and_then(|()| check_substitutions(n, v));
            assert_eq!(check_request(expressions, n, v), one_by_one);
        }
        let e = check_request(cases[0], n, v).unwrap_err();
        assert_eq!(
            (e.limit, e.part.as_str(), e.measured, e.library),
            (Limit::ExpressionLength, "ConditionExpression", 4097, 3)
        );
        assert_eq!(check_request(cases[1], n, v).unwrap_err().limit, Limit::Operators);
        assert_eq!(check_request(cases[2], n, v).unwrap_err().limit, Limit::NestingLevels);
        assert_eq!(check_request(&[("ConditionExpression", "#a = :b", false, 0)], n, None), Ok(()));
    }

    #[test]
    fn substitutions_and_nesting() {
        let mut deep = AttributeValue::S("a".into());
        for _ in 0..31 {
            deep = AttributeValue::M([("k".to_owned(), deep)].into());
        }
        assert_eq!(nesting_levels(&deep), 32);
        let values: HashMap<String, AttributeValue> = [(":v".to_owned(), deep.clone())].into();
        assert_eq!(check_substitutions(None, Some(&values)), Ok(()));
        let deeper: HashMap<String, AttributeValue> = [(":v".to_owned(), AttributeValue::L(vec![deep]))].into();
        assert_eq!(check_substitutions(None, Some(&deeper)).unwrap_err().measured, 33);
        // 2 MB in all: `#x` + `x` and `:s` + the string.
        let names: HashMap<String, String> = [("#x".to_owned(), "x".to_owned())].into();
        let fits: HashMap<String, AttributeValue> =
            [(":s".to_owned(), AttributeValue::S("a".repeat(MAX_SUBSTITUTION_BYTES - 5)))].into();
        assert_eq!(check_substitutions(Some(&names), Some(&fits)), Ok(()));
        let over: HashMap<String, AttributeValue> =
            [(":s".to_owned(), AttributeValue::S("a".repeat(MAX_SUBSTITUTION_BYTES - 4)))].into();
        let e = check_substitutions(Some(&names), Some(&over)).unwrap_err();
        assert_eq!((e.limit, e.measured), (Limit::SubstitutionSize, MAX_SUBSTITUTION_BYTES + 1));
    }
    #[test]
    fn a_map_key_is_an_attribute_name() {
        let long = "n".repeat(MAX_ATTRIBUTE_NAME_BYTES + 1);
        let inner = AttributeValue::M([(long.clone(), AttributeValue::S("v".into()))].into());
        let list = AttributeValue::L(vec![AttributeValue::S("x".into()), inner]);
        assert_eq!(longest_map_key(&list), 65_536);
        let item: Item = [("doc".to_owned(), list)].into();
        let err = check_item_attributes(&item).unwrap_err();
        assert_eq!((err.limit, err.measured), (Limit::AttributeNameLength, 65_536));
        assert_eq!(item_bound_and_attributes(&item).1.unwrap_err().measured, 65_536);
        let fits = AttributeValue::M([("n".repeat(MAX_ATTRIBUTE_NAME_BYTES), AttributeValue::Null(true))].into());
        assert_eq!(check_item_attributes(&[("doc".to_owned(), fits)].into()), Ok(()));
    }
}
