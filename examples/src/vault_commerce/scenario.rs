//! The access patterns of Vault Commerce, each checked against the data set.

use std::collections::BTreeSet;
use std::time::Instant;

use dynamo_entity::transact::MAX_ACTIONS;
use dynamo_entity::{Entity, Error, Table};
use futures::{StreamExt, TryStreamExt};

use super::data::Dataset;
use super::model::*;

pub use crate::report::{Mismatch, PatternReport};
use crate::report::{check, failed, timed};

/// How a rename reached the customer's orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    /// The profile and every order in one `TransactWriteItems`: all or nothing.
    Transaction {
        /// Orders renamed.
        orders: usize,
    },
    /// Too many orders for one transaction ([`MAX_ACTIONS`] actions, one of them the
    /// profile): the profile first, then a reconcile pass over the orders.
    Reconciled {
        /// Orders renamed by the pass.
        orders: usize,
    },
}

/// Renames a customer and copies the name onto every order of theirs. With fewer than
/// [`MAX_ACTIONS`] orders, the profile and the orders change in one transaction, so no
/// reader sees the old name on an order next to the new one on the profile. With more, the
/// profile changes first and [`reconcile_customer_name`] brings the orders in line; a reader
/// may see old names until it finishes, and running it again (or from a DynamoDB Streams
/// handler on the profile's `MODIFY`) repairs an interrupted pass.
///
/// An order placed while the transaction is prepared keeps the old name; the reconcile pass
/// finds it.
///
/// # Errors
/// [`Error::NotFound`] when the profile or an order does not exist (an update never creates an
/// item); [`Error::TransactionCanceled`] when the transaction is refused; any read or write error.
pub async fn rename_customer(table: &Table, user: &UserId, name: &str) -> Result<Propagation, Error> {
    let name = name.to_owned();
    let orders = table.query(Order::query(user)).all().await?;
    if orders.len() < MAX_ACTIONS {
        let mut tx = table.transact().update(table.update(User::key(user)).set(User::NAME, &name));
        for o in &orders {
            tx = tx.update(table.update(Order::key(user, &o.order_id)).set(Order::CUSTOMER_NAME, &name));
        }
        tx.send().await?;
        Ok(Propagation::Transaction { orders: orders.len() })
    } else {
        table.update(User::key(user)).set(User::NAME, &name).send().await?;
        Ok(Propagation::Reconciled { orders: reconcile_customer_name(table, user).await? })
    }
}

/// The reconcile pass: reads the profile (strongly consistent), then the customer's orders 25
/// at a time, and sets `customerName` on each order that differs (8 updates at a time). Returns
/// the number of orders updated; 0 when every order already had the name.
///
/// # Errors
/// [`Error::NotFound`] naming the profile's key when the user does not exist; any read or
/// write error (a pass that fails part way can simply be run again).
pub async fn reconcile_customer_name(table: &Table, user: &UserId) -> Result<usize, Error> {
    let profile = table.get_consistent(User::key(user)).await?.ok_or_else(|| Error::NotFound {
        entity: User::TYPE,
        key: User::key(user).encoded().map_or_else(|e| e.to_string(), |k| k.to_string()),
    })?;
    let mut updated = 0;
    let mut pages = std::pin::pin!(table.query(Order::query(user)).page_size(25).pages());
    while let Some(page) = pages.try_next().await? {
        let stale: Vec<Order> = page.items.into_iter().filter(|o| o.customer_name != profile.name).collect();
        updated += stale.len();
        futures::stream::iter(&stale)
            .map(|o| table.update(Order::key(user, &o.order_id)).set(Order::CUSTOMER_NAME, &profile.name).send())
            .buffer_unordered(8)
            .try_collect::<Vec<_>>()
            .await?;
    }
    Ok(updated)
}

/// Writes every item of the data set with batch writes.
///
/// # Errors
/// A write that fails, or a batch that could not write everything.
pub async fn load(table: &Table, data: &Dataset, concurrency: usize) -> Result<PatternReport, Mismatch> {
    let start = Instant::now();
    let outcome = table
        .batch_write()
        .put_all(&data.users)
        .put_all(&data.products)
        .put_all(&data.orders)
        .put_all(&data.wishes)
        .concurrency(concurrency.clamp(1, 16))
        .send()
        .await
        .map_err(failed("load"))?;
    outcome.check().map_err(failed("load"))?;
    check("load", outcome.written == data.item_count(), || {
        format!("wrote {} items of {}", outcome.written, data.item_count())
    })?;
    Ok(PatternReport { name: "load (BatchWriteItem)", items: outcome.written, micros: start.elapsed().as_micros() })
}

/// Runs every access pattern against a table loaded with `data` and checks each answer. The
/// last two patterns rename two customers.
///
/// # Errors
/// The first answer that differs from the data set.
pub async fn run(table: &Table, data: &Dataset) -> Result<Vec<PatternReport>, Mismatch> {
    let mut reports = Vec::new();
    let p = "user profile (GetItem USER#<id> / PROFILE)";
    let want = &data.users[data.users.len() / 3];
    let got = timed!(reports, p, {
        let got = table.get(User::key(&want.id)).await.map_err(failed(p))?;
        (usize::from(got.is_some()), got)
    });
    check(p, got.as_ref() == Some(want), || format!("got {got:?}"))?;

    let p = "product detail (GetItem PRODUCT#<sku> / METADATA)";
    let want = &data.products[data.products.len() / 2];
    let got = timed!(reports, p, {
        let got = table.get(Product::key(&want.sku)).await.map_err(failed(p))?;
        (usize::from(got.is_some()), got)
    });
    check(p, got.as_ref() == Some(want), || format!("got {got:?}"))?;

    // The account page of the ordinary customer with the most items.
    let p = "account page: profile, orders, wishlist (one Query of USER#<id>)";
    let user = data
        .users
        .iter()
        .skip(1)
        .max_by_key(|u| {
            let wishes = data.wishes.iter().filter(|w| w.user_id == u.id).count();
            (data.orders_of(&u.id).len() + wishes, std::cmp::Reverse(u.id.clone()))
        })
        .ok_or_else(|| Mismatch { pattern: p, detail: "no users".into() })?;
    let page = timed!(reports, p, {
        let c = table.collection(User::query(&user.id)).send().await.map_err(failed(p))?;
        let page: AccountPage = c.strict().decode().map_err(failed(p))?;
        (c.items().len(), page)
    });
    let expect = AccountPage {
        profile: user.clone(),
        orders: data.orders_of(&user.id).into_iter().cloned().collect(),
        wishlist: {
            let mut w: Vec<WishlistItem> = data.wishes.iter().filter(|w| w.user_id == user.id).cloned().collect();
            w.sort_by(|a, b| a.sku.cmp(&b.sku));
            w
        },
    };
    check(p, page == expect, || format!("got {page:?}, expected {expect:?}"))?;

    // The big customer's orders, newest first, 20 a page.
    let p = "a customer's orders, newest first, 20 a page by cursor";
    let big = &data.users[0];
    let (pages, got) = timed!(reports, p, {
        let mut got: Vec<Order> = Vec::new();
        let mut sizes = Vec::new();
        let mut cursor = None;
        loop {
            let page = table
                .query(Order::query(&big.id))
                .descending()
                .page_items(20)
                .after(cursor)
                .send()
                .await
                .map_err(failed(p))?;
            sizes.push(page.items.len());
            got.extend(page.items);
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        (got.len(), (sizes, got))
    });
    let mut expect: Vec<&Order> = data.orders_of(&big.id);
    expect.reverse();
    check(p, got.iter().collect::<Vec<_>>() == expect, || format!("{} orders, expected {}", got.len(), expect.len()))?;
    let full_pages = expect.len() / 20;
    check(p, pages.iter().take(full_pages).all(|&n| n == 20) && pages.len() <= full_pages + 1, || {
        format!("page sizes {pages:?}")
    })?;

    let p = "login by e-mail (GSI1 EMAIL#<email>)";
    let want = &data.users[data.users.len() / 2];
    let (found, unknown) = timed!(reports, p, {
        let found = table.query(User::gsi1(&want.email)).all().await.map_err(failed(p))?;
        let unknown = table.query(User::gsi1("nobody@vault.test")).all().await.map_err(failed(p))?;
        (found.len(), (found, unknown))
    });
    check(p, found == vec![want.clone()] && unknown.is_empty(), || format!("found {found:?}, unknown {unknown:?}"))?;

    let p = "paid orders, newest 10 (GSI1 STATUS#paid)";
    let got = timed!(reports, p, {
        let page =
            table.query(Order::gsi1(&OrderStatus::Paid)).descending().max_items(10).send().await.map_err(failed(p))?;
        (page.items.len(), page.items)
    });
    let mut paid: Vec<&Order> = data.orders.iter().filter(|o| o.status == OrderStatus::Paid).collect();
    paid.sort_by_key(|o| std::cmp::Reverse(o.created_at));
    paid.truncate(10);
    check(p, got.iter().collect::<Vec<_>>() == paid, || format!("got {got:?}"))?;

    // The adjacency list read from the product's end: the inverted index, 10 a page.
    let p = "who wishes a product (inverted index SK = WISHLIST#<sku>), 10 a page";
    let popular = &data.products[0].sku;
    let got = timed!(reports, p, {
        let mut got: Vec<WishlistItem> = Vec::new();
        let mut cursor = None;
        loop {
            let page = table
                .query(WishlistItem::inverted(popular))
                .page_items(10)
                .after(cursor)
                .send()
                .await
                .map_err(failed(p))?;
            got.extend(page.items);
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        (got.len(), got)
    });
    let users: Vec<&UserId> = got.iter().map(|w| &w.user_id).collect();
    let expect = data.wishers_of(popular);
    check(p, users == expect, || format!("wished by {users:?}, expected {expect:?}"))?;
    check(p, got.iter().all(|w| data.wishes.contains(w)), || "a wishlist item differs from the data set".into())?;

    let p = "a product's wishers among users 0010 to 0019 (inverted, PK BETWEEN)";
    let (low, high) = (UserId("0010".into()), UserId("0019".into()));
    let got = timed!(reports, p, {
        let got =
            table.query(WishlistItem::inverted(popular)).sk_between(&low, &high).all().await.map_err(failed(p))?;
        (got.len(), got)
    });
    let users: BTreeSet<&UserId> = got.iter().map(|w| &w.user_id).collect();
    let expect: BTreeSet<&UserId> =
        data.wishers_of(popular).into_iter().filter(|u| **u >= low && **u <= high).collect();
    check(p, users == expect && got.len() == expect.len(), || format!("got {users:?}, expected {expect:?}"))?;

    // Renames: a customer with a few orders in one transaction; the big customer through a
    // reconcile pass.
    let p = "rename a customer with few orders (one TransactWriteItems)";
    let few = data
        .users
        .iter()
        .skip(1)
        .find(|u| (2..10).contains(&data.orders_of(&u.id).len()))
        .ok_or_else(|| Mismatch { pattern: p, detail: "no customer with 2 to 9 orders".into() })?;
    let new_name = format!("{} (renamed)", few.name);
    let outcome = timed!(reports, p, {
        let outcome = rename_customer(table, &few.id, &new_name).await.map_err(failed(p))?;
        (data.orders_of(&few.id).len() + 1, outcome)
    });
    let n = data.orders_of(&few.id).len();
    check(p, outcome == Propagation::Transaction { orders: n }, || format!("{outcome:?}"))?;
    check_renamed(table, p, &few.id, &new_name, n).await?;

    let p = "rename the big customer (profile, then a reconcile pass)";
    let new_name = format!("{} (renamed)", big.name);
    let n = data.orders_of(&big.id).len();
    let outcome = timed!(reports, p, {
        let outcome = rename_customer(table, &big.id, &new_name).await.map_err(failed(p))?;
        (n + 1, outcome)
    });
    check(p, outcome == Propagation::Reconciled { orders: n }, || format!("{outcome:?}, expected {n} orders"))?;
    check_renamed(table, p, &big.id, &new_name, n).await?;
    let again = reconcile_customer_name(table, &big.id).await.map_err(failed(p))?;
    check(p, again == 0, || format!("a second pass updated {again} orders"))?;
    // The paid-orders index moved with nothing: renames do not touch GSI1 keys.
    let paid_now = table.query(Order::gsi1(&OrderStatus::Paid)).all().await.map_err(failed(p))?;
    let paid_count = data.orders.iter().filter(|o| o.status == OrderStatus::Paid).count();
    check(p, paid_now.len() == paid_count, || format!("{} paid orders, expected {paid_count}", paid_now.len()))?;

    Ok(reports)
}

/// The profile and every order of `user` carry `name`, and the user has `orders` orders.
async fn check_renamed(
    table: &Table,
    p: &'static str,
    user: &UserId,
    name: &str,
    orders: usize,
) -> Result<(), Mismatch> {
    let page: AccountPage =
        table.collection(User::query(user)).send().await.map_err(failed(p))?.strict().decode().map_err(failed(p))?;
    check(p, page.profile.name == name, || format!("profile name {:?}", page.profile.name))?;
    check(p, page.orders.len() == orders, || format!("{} orders, expected {orders}", page.orders.len()))?;
    let stale = page.orders.iter().filter(|o| o.customer_name != name).count();
    check(p, stale == 0, || format!("{stale} orders still carry the old name"))
}
