//! The JSON reader's tests: every public reader against the SDK's rules.

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use super::reader::skip_plain;
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
        (r#"{"a":{"L":[{"S":"e"},{ "N" : "7" }]}}"#, AttributeValue::L(vec![s("e"), AttributeValue::N("7".into())])),
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
                let mut b: Vec<u8> = (0..len).map(|k| if k % 3 == 0 { 0xe9 } else { b'a' + (k % 26) as u8 }).collect();
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
            RawItems::new(body.slice(at..at + items.len()), at, items.matches("},{").count() + 1)
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
    assert_eq!(String::from_utf8(taken.rest).unwrap(), r#"{"ConsumedCapacity":{"CapacityUnits":0.5,"TableName":"t"}}"#);
    // An empty item is an item.
    let empty = take_item(br#"{"Item":{}}"#, "Item");
    assert_eq!(empty, Ok(Some(Taken { value: HashMap::new(), rest: b"{}".to_vec() })));
}

#[test]
fn take_item_reads_a_writes_attributes() {
    let body = br#"{"Attributes":{"v":{"N":"2"},"l":{"L":[{"BOOL":true}]}},"ConsumedCapacity":{"CapacityUnits":1.0}}"#;
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
        assert_eq!(take_batch_responses(body).map_err(|e| e.reason), Err(reason), "{}", String::from_utf8_lossy(body));
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
