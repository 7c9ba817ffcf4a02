//! A deterministic Vault Commerce data set: the same seed gives the same items, so every answer
//! can be checked.

use std::collections::BTreeSet;

use dynamo_entity::Timestamp;

use super::model::*;
use crate::rng::Rng;

/// How many items of each kind to generate.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// Users.
    pub users: usize,
    /// Products.
    pub products: usize,
    /// The most orders of an ordinary user (each has 0 to this many).
    pub max_orders: u64,
    /// The orders of user `0000`, the big customer whose rename goes through a reconcile pass
    /// (more than a transaction holds).
    pub big_customer_orders: usize,
    /// The most products on one wishlist besides the popular one.
    pub max_wishes: u64,
}

impl Sizes {
    /// The full example: 400 users, 120 products, up to 8 orders and 6 wishes a user, and a
    /// customer with 150 orders.
    pub const FULL: Sizes = Sizes { users: 400, products: 120, max_orders: 8, big_customer_orders: 150, max_wishes: 6 };
    /// A small set for tests: 30 users, 12 products, up to 5 orders and 4 wishes a user, and a
    /// customer with 120 orders.
    pub const SMALL: Sizes = Sizes { users: 30, products: 12, max_orders: 5, big_customer_orders: 120, max_wishes: 4 };
}

/// The generated items.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Users; user `0000` is the big customer.
    pub users: Vec<User>,
    /// Products; the first one is on every other wishlist.
    pub products: Vec<Product>,
    /// Orders, in order id order.
    pub orders: Vec<Order>,
    /// Wishlist items.
    pub wishes: Vec<WishlistItem>,
}

const TITLES: [&str; 6] = ["Trail Pack", "Camp Stove", "Rain Shell", "Head Lamp", "Water Filter", "Bivy Sack"];

fn at(base: Timestamp, secs: i64) -> Timestamp {
    base.add_millis(secs * 1000)
}

impl Dataset {
    /// Generates a data set of `sizes` from `seed`.
    pub fn generate(seed: u64, sizes: Sizes) -> Dataset {
        let mut rng = Rng::new(seed);
        let base = Timestamp::from_millis(1_767_225_600_000).unwrap_or(Timestamp::EPOCH); // 2026-01-01
        let users: Vec<User> = (0..sizes.users)
            .map(|i| User {
                id: UserId(format!("{i:04}")),
                name: format!("Customer {i}"),
                email: format!("customer{i}@vault.test"),
                tier: [Tier::Bronze, Tier::Silver, Tier::Gold][rng.below(3) as usize],
                created_at: at(base, i as i64 * 60),
            })
            .collect();
        let products: Vec<Product> = (0..sizes.products)
            .map(|i| Product {
                sku: Sku(format!("SKU-{}", 8000 + i)),
                title: format!("{} {}", TITLES[i % TITLES.len()], i / TITLES.len() + 1),
                price_cents: 500 + 100 * rng.below(200) as u32,
            })
            .collect();

        // Orders: the big customer's first, then 0 to `max_orders` for every other user; order
        // ids and times grow with the sequence number.
        let mut orders = Vec::new();
        let push_order = |user: &User, rng: &mut Rng, orders: &mut Vec<Order>| {
            let k = orders.len() as i64;
            orders.push(Order {
                user_id: user.id.clone(),
                order_id: OrderId(format!("2026-{k:05}")),
                customer_name: user.name.clone(),
                total_cents: 1000 + rng.below(50_000),
                status: [OrderStatus::Pending, OrderStatus::Paid, OrderStatus::Shipped][rng.below(3) as usize],
                created_at: at(base, 86_400 + k * 37),
            });
        };
        for _ in 0..sizes.big_customer_orders {
            push_order(&users[0], &mut rng, &mut orders);
        }
        for user in users.iter().skip(1) {
            for _ in 0..rng.below(sizes.max_orders + 1) {
                push_order(user, &mut rng, &mut orders);
            }
        }

        // Wishlists: every other user wishes the first product; then up to `max_wishes` more.
        let mut wishes = Vec::new();
        for (i, user) in users.iter().enumerate() {
            let mut skus = BTreeSet::new();
            if i % 2 == 1 {
                skus.insert(0);
            }
            for _ in 0..rng.below(sizes.max_wishes + 1) {
                skus.insert(rng.below(products.len() as u64) as usize);
            }
            for (n, p) in skus.into_iter().enumerate() {
                wishes.push(WishlistItem {
                    user_id: user.id.clone(),
                    sku: products[p].sku.clone(),
                    added_at: at(base, 172_800 + i as i64 * 600 + n as i64),
                });
            }
        }
        Dataset { users, products, orders, wishes }
    }

    /// Total number of items the data set writes.
    pub fn item_count(&self) -> usize {
        self.users.len() + self.products.len() + self.orders.len() + self.wishes.len()
    }

    /// A user's orders, oldest first.
    pub fn orders_of(&self, user: &UserId) -> Vec<&Order> {
        self.orders.iter().filter(|o| &o.user_id == user).collect()
    }

    /// The users who wish for `sku`, by user id.
    pub fn wishers_of(&self, sku: &Sku) -> Vec<&UserId> {
        let mut users: Vec<&UserId> = self.wishes.iter().filter(|w| &w.sku == sku).map(|w| &w.user_id).collect();
        users.sort();
        users
    }
}
