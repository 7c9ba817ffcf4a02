//! What errors name of an action ([`Named`]), the checks DynamoDB makes on a whole transaction
//! made before sending (1 to [`MAX_ACTIONS`] actions, one per item), and DynamoDB's cancellation
//! reasons mapped back onto the actions.

use std::collections::HashMap;

use aws_sdk_dynamodb::types as sdk;

use crate::error::{ActionKind, CancellationCode, CancellationReason, Error};
use crate::limits;
use crate::schema::AttributeNames;
use crate::transact::action::{Action, invalid};

/// The most actions one transaction may hold: DynamoDB's limit for `TransactWriteItems` and
/// `TransactGetItems`.
pub const MAX_ACTIONS: usize = 100;

/// What errors need to name one action: its kind, entity type, table and key.
pub(super) trait Named {
    fn kind(&self) -> ActionKind;
    fn entity(&self) -> &'static str;
    fn table(&self) -> &str;
    fn key(&self) -> &str;
    /// The attribute names of the action's entity.
    fn names(&self) -> &'static AttributeNames;
}

impl Named for Action {
    fn kind(&self) -> ActionKind {
        self.kind
    }
    fn entity(&self) -> &'static str {
        self.entity
    }
    fn table(&self) -> &str {
        &self.table
    }
    fn key(&self) -> &str {
        &self.key
    }
    fn names(&self) -> &'static AttributeNames {
        self.names
    }
}

/// The checks DynamoDB would make on the whole request, made before sending: 1 to 100 actions,
/// no two on one item.
pub(super) fn check_actions<A: Named>(actions: &[A], what: &str) -> Result<(), Error> {
    if actions.is_empty() {
        return Err(invalid(format!("a {what} needs at least one action")));
    }
    if actions.len() > MAX_ACTIONS {
        let operation = if what == "transaction" { "TransactWriteItems" } else { "TransactGetItems" };
        let entity = actions.first().map_or("", Named::entity);
        let e = limits::check_transaction(actions.len(), 0).err();
        return Err(e.map_or_else(|| invalid(what), |e| e.request(operation, entity, String::new())));
    }
    let mut seen: HashMap<(&str, &str), usize> = HashMap::with_capacity(actions.len());
    // The entities of one table must agree on its attribute names (a transaction may span
    // tables, each with its own).
    let mut tables: HashMap<&str, usize> = HashMap::new();
    for (i, a) in actions.iter().enumerate() {
        let first = *tables.entry(a.table()).or_insert(i);
        let (f, n) = (actions[first].names(), a.names());
        if f != n {
            return Err(invalid(format!(
                "actions {first} ({} {}) and {i} ({} {}) of this {what} are on table {} but use different \
                 attribute names (key attributes {} / {} and {} / {}, type attribute {} and {}): entities of \
                 tables with different attribute names cannot share a table",
                actions[first].kind(),
                actions[first].entity(),
                a.kind(),
                a.entity(),
                a.table(),
                f.pk,
                f.sk,
                n.pk,
                n.sk,
                f.entity_type,
                n.entity_type
            )));
        }
    }
    for (i, a) in actions.iter().enumerate() {
        if let Some(first) = seen.insert((a.table(), a.key()), i) {
            let f = &actions[first];
            return Err(invalid(format!(
                "actions {first} ({} {}) and {i} ({} {}) of this {what} are on the same item {} of table {}; \
                 DynamoDB allows one action per item in a transaction",
                f.kind(),
                f.entity(),
                a.kind(),
                a.entity(),
                a.key(),
                a.table()
            )));
        }
    }
    Ok(())
}

/// Maps DynamoDB's cancellation reasons onto the actions, keeping the failed ones.
pub(super) fn cancellation<A: Named>(actions: &[A], reasons: &[sdk::CancellationReason]) -> Error {
    let reasons = reasons
        .iter()
        .enumerate()
        .filter_map(|(index, r)| {
            let code = CancellationCode::parse(r.code()?)?;
            let action = actions.get(index);
            Some(CancellationReason {
                index,
                action: action.map_or(ActionKind::Get, Named::kind),
                entity: action.map_or("<unknown>", Named::entity),
                key: action.map_or_else(String::new, |a| a.key().to_owned()),
                code,
                message: r.message().map(str::to_owned),
                item: r.item().filter(|i| !i.is_empty()).cloned(),
            })
        })
        .collect();
    Error::TransactionCanceled { reasons }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct N(&'static str, &'static str);
    impl Named for N {
        fn kind(&self) -> ActionKind {
            ActionKind::Create
        }
        fn entity(&self) -> &'static str {
            "Order"
        }
        fn table(&self) -> &str {
            self.0
        }
        fn key(&self) -> &str {
            self.1
        }
        fn names(&self) -> &'static AttributeNames {
            &AttributeNames::DEFAULT
        }
    }

    #[test]
    fn one_action_per_item_and_at_most_100() {
        let ok = [N("t", "PK=a SK=b"), N("t", "PK=a SK=c"), N("u", "PK=a SK=b")];
        assert!(check_actions(&ok, "transaction").is_ok());
        let dup = [N("t", "PK=a SK=b"), N("t", "PK=x SK=y"), N("t", "PK=a SK=b")];
        let err = check_actions(&dup, "transaction").unwrap_err().to_string();
        assert!(err.contains("actions 0 (create Order) and 2 (create Order)"), "{err}");
        assert!(err.contains("PK=a SK=b of table t"), "{err}");
        let keys: Vec<String> = (0..=MAX_ACTIONS).map(|i| format!("PK={i} SK=x")).collect();
        let many: Vec<N> = keys.iter().map(|k| N("t", Box::leak(k.clone().into_boxed_str()))).collect();
        assert!(check_actions(&many[..MAX_ACTIONS], "transaction").is_ok());
        let err = check_actions(&many, "transaction").unwrap_err();
        assert!(
            matches!(
                err,
                Error::LimitExceeded {
                    limit: crate::limits::Limit::TransactionActions,
                    measured: 101,
                    max: 100,
                    operation: "TransactWriteItems",
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            "TransactWriteItems of Order: TransactItems has 101 actions, over DynamoDB's limit of 100 (actions per \
             transaction); nothing was sent"
        );
        assert!(check_actions::<N>(&[], "transaction").is_err());
    }

    #[test]
    fn codes() {
        assert_eq!(CancellationCode::parse("None"), None);
        for code in [
            "ConditionalCheckFailed",
            "TransactionConflict",
            "ItemCollectionSizeLimitExceeded",
            "ProvisionedThroughputExceeded",
            "ThrottlingError",
            "ValidationError",
            "SomethingNew",
        ] {
            assert_eq!(CancellationCode::parse(code).unwrap().as_str(), code);
        }
        assert_eq!(CancellationCode::parse("SomethingNew"), Some(CancellationCode::Other("SomethingNew".into())));
        assert!(CancellationCode::TransactionConflict.is_transient());
        assert!(!CancellationCode::ConditionalCheckFailed.is_transient());
    }

    #[test]
    fn cancellation_keeps_the_request_index_of_failed_actions() {
        let actions = [N("t", "PK=A SK=1"), N("t", "PK=B SK=1")];
        let reasons = [
            sdk::CancellationReason::builder().code("None").build(),
            sdk::CancellationReason::builder()
                .code("ConditionalCheckFailed")
                .message("The conditional request failed")
                .build(),
        ];
        let Error::TransactionCanceled { reasons } = cancellation(&actions, &reasons) else { panic!() };
        assert_eq!(reasons.len(), 1);
        assert_eq!((reasons[0].index, reasons[0].key.as_str()), (1, "PK=B SK=1"));
        assert_eq!(reasons[0].code, CancellationCode::ConditionalCheckFailed);
        assert_eq!(reasons[0].to_string(), "action 1 (create Order PK=B SK=1): ConditionalCheckFailed");
    }
}
