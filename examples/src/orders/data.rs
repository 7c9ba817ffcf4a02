//! A deterministic Orders data set: the same seed gives the same items, so every answer can be
//! checked.

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
    /// The orders of the first user, the one whose history is read page by page.
    pub first_user_orders: usize,
}

impl Sizes {
    /// The full example: 300 users, 80 products, up to 10 orders a user, and a user with 95.
    pub const FULL: Sizes = Sizes { users: 300, products: 80, max_orders: 10, first_user_orders: 95 };
    /// A small set for tests: 25 users, 10 products, up to 4 orders a user, and a user with 45.
    pub const SMALL: Sizes = Sizes { users: 25, products: 10, max_orders: 4, first_user_orders: 45 };
}

/// The generated items.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Users, with `order_count` equal to their orders.
    pub users: Vec<User>,
    /// Products.
    pub products: Vec<Product>,
    /// Orders, oldest first.
    pub orders: Vec<Order>,
}

/// 2026-01-01T00:00:00Z.
pub fn base_time() -> Timestamp {
    Timestamp::from_millis(1_767_225_600_000).unwrap_or(Timestamp::EPOCH)
}

impl Dataset {
    /// Generates a data set of `sizes` from `seed`.
    pub fn generate(seed: u64, sizes: Sizes) -> Dataset {
        let mut rng = Rng::new(seed);
        let base = base_time();
        let mut users: Vec<User> = (0..sizes.users)
            .map(|i| User {
                id: UserId(format!("user{i:04}")),
                name: format!("User {i}"),
                email: format!("user{i}@example.com"),
                order_count: 0,
                created_at: base.add_millis(i as i64 * 60_000),
            })
            .collect();
        let products: Vec<Product> = (0..sizes.products)
            .map(|i| Product {
                id: ProductId(format!("prod{i:04}")),
                name: format!("Product {i}"),
                price_cents: 199 + 100 * rng.below(100),
            })
            .collect();

        // Who orders: the first user `first_user_orders` times, everyone else 0 to `max_orders`
        // times; then the orders are spread over time in a shuffled sequence.
        let mut buyers: Vec<usize> = vec![0; sizes.first_user_orders];
        for u in 1..users.len() {
            buyers.extend(std::iter::repeat_n(u, rng.below(sizes.max_orders + 1) as usize));
        }
        for i in (1..buyers.len()).rev() {
            buyers.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut at = base.add_millis(86_400_000);
        let orders: Vec<Order> = buyers
            .iter()
            .enumerate()
            .map(|(k, &u)| {
                at = at.add_millis(1_000 + rng.below(3_600_000) as i64);
                let lines: Vec<Line> = (0..1 + rng.below(3))
                    .map(|_| {
                        let p = rng.pick(&products);
                        Line { product: p.id.clone(), quantity: 1 + rng.below(4) as u32, unit_cents: p.price_cents }
                    })
                    .collect();
                users[u].order_count += 1;
                Order {
                    id: OrderId(format!("o{k:06}")),
                    user_id: users[u].id.clone(),
                    total_cents: lines.iter().map(|l| u64::from(l.quantity) * l.unit_cents).sum(),
                    lines,
                    status: if rng.below(4) == 0 { OrderStatus::Shipped } else { OrderStatus::Confirmed },
                    created_at: at,
                }
            })
            .collect();
        Dataset { users, products, orders }
    }

    /// Total number of items the data set writes.
    pub fn item_count(&self) -> usize {
        self.users.len() + self.products.len() + self.orders.len()
    }

    /// A user's orders, newest first.
    pub fn orders_of(&self, user: &UserId) -> Vec<&Order> {
        let mut orders: Vec<&Order> = self.orders.iter().filter(|o| &o.user_id == user).collect();
        orders.sort_by_key(|o| std::cmp::Reverse(o.created_at));
        orders
    }
}
