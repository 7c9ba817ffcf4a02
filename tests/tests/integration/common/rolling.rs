//! Two versions of the code serving one table at once, as during a rolling deploy: the harness
//! of `rekey_rolling` and `retype_rolling`.
//!
//! In a phase 8 tasks of each version create items, set the value of the items they own in the
//! phase (each item has one writer in a phase, so the last acknowledged value is known), count
//! (`add`) on any item and read items written by either version. Afterwards no request failed,
//! and every version serving the phase reads, for every item, the last acknowledged value and
//! the acknowledged count.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::future::Future;
use std::sync::{Arc, Mutex};

use dynamo_entity::{Error, Table};

/// What one version of the code does with an item, by its id.
pub trait Version: Copy + Debug + PartialEq + Send + Sync + 'static {
    /// The value a task sets.
    type Value: Clone + Debug + PartialEq + Send + Sync + 'static;
    fn label(self) -> &'static str;
    /// The value of the `n`th item a task creates, and of its `j`th set (task `k`).
    fn value(id: &str, n: usize, k: usize) -> Self::Value;
    fn create(self, table: &Table, id: &str, value: &Self::Value) -> impl Future<Output = Result<(), Error>> + Send;
    fn set(self, table: &Table, id: &str, value: &Self::Value) -> impl Future<Output = Result<(), Error>> + Send;
    /// Adds 1 to the item's count.
    fn count(self, table: &Table, id: &str) -> impl Future<Output = Result<(), Error>> + Send;
    /// The item's value and count, `None` when this version finds no item.
    fn get(self, table: &Table, id: &str) -> impl Future<Output = Result<Option<(Self::Value, u64)>, Error>> + Send;
}

/// The acknowledged writes: each item's last value and its count.
#[derive(Debug, Clone)]
pub struct Ledger<T> {
    pub value: BTreeMap<String, T>,
    pub count: BTreeMap<String, u64>,
    /// Every failed request, as `task: what: error`.
    pub failures: Vec<String>,
    pub requests: u64,
}

impl<T> Default for Ledger<T> {
    fn default() -> Self {
        Ledger { value: BTreeMap::new(), count: BTreeMap::new(), failures: Vec::new(), requests: 0 }
    }
}

impl<T> Ledger<T> {
    /// Records an item created with `value`.
    pub fn created(&mut self, id: &str, value: T) {
        self.value.insert(id.to_owned(), value);
        self.count.insert(id.to_owned(), 0);
    }
}

pub type Shared<T> = Arc<Mutex<Ledger<T>>>;

pub const TASKS: usize = 8;
pub const CREATES: usize = 3;
const SETS: usize = 6;
const COUNTS: usize = 6;
const READS: usize = 4;

/// One task of version `v` in `phase`: creates items, sets the value of the items it owns in
/// this phase, counts on items of `pool`, reads items of `pool`.
async fn task<V: Version>(
    v: V,
    table: Table,
    ledger: Shared<V::Value>,
    phase: &'static str,
    k: usize,
    owned: Vec<String>,
    pool: Vec<String>,
) {
    let tag = format!("{phase}-{}-{k}", v.label());
    let record = |ok: Result<(), String>| {
        let mut l = ledger.lock().unwrap();
        l.requests += 1;
        if let Err(what) = ok {
            l.failures.push(what);
        }
    };
    let mut rng = fastrand::Rng::with_seed(k as u64 * 7919 + phase.len() as u64);
    let mut mine = owned;
    for n in 0..CREATES {
        let id = format!("{tag}-{n}");
        let value = V::value(&id, n, k);
        match v.create(&table, &id, &value).await {
            Ok(()) => {
                ledger.lock().unwrap().created(&id, value);
                mine.push(id);
                record(Ok(()));
            }
            Err(e) => record(Err(format!("{tag}: create {id}: {e}"))),
        }
    }
    let count_pool: Vec<String> = pool.iter().chain(&mine).cloned().collect();
    for j in 0..SETS.max(COUNTS).max(READS) {
        if j < SETS && !mine.is_empty() {
            let id = &mine[j % mine.len()];
            let value = V::value(&format!("{tag} set {j}"), j, k);
            match v.set(&table, id, &value).await {
                Ok(()) => {
                    ledger.lock().unwrap().value.insert(id.clone(), value);
                    record(Ok(()));
                }
                Err(e) => record(Err(format!("{tag}: set {id}: {e}"))),
            }
        }
        if j < COUNTS {
            let id = &count_pool[rng.usize(..count_pool.len())];
            match v.count(&table, id).await {
                Ok(()) => {
                    *ledger.lock().unwrap().count.get_mut(id).expect("a known item") += 1;
                    record(Ok(()));
                }
                Err(e) => record(Err(format!("{tag}: count {id}: {e}"))),
            }
        }
        if j < READS && !pool.is_empty() {
            // An item another task (of either version) writes meanwhile: it is found.
            let id = &pool[rng.usize(..pool.len())];
            match v.get(&table, id).await {
                Ok(Some(_)) => record(Ok(())),
                Ok(None) => record(Err(format!("{tag}: get {id}: not found"))),
                Err(e) => record(Err(format!("{tag}: get {id}: {e}"))),
            }
        }
    }
}

/// Every item read by version `v`, against the ledger: its value and its count.
pub async fn check<V: Version>(v: V, table: &Table, ledger: &Ledger<V::Value>) {
    let mut wrong = Vec::new();
    for (id, value) in &ledger.value {
        let expected = Some((value.clone(), ledger.count[id]));
        match v.get(table, id).await {
            Ok(read) if read == expected => {}
            other => {
                wrong.push(format!("{id}: {} reads {other:?}, the acknowledged writes make {expected:?}", v.label()))
            }
        }
    }
    assert_eq!(wrong, Vec::<String>::new(), "{} of {} items", wrong.len(), ledger.value.len());
}

/// The items each task sets in a phase: each item by one task, which moves to a task of the
/// other version from one phase to the next (tasks alternate versions).
fn owners<T>(ledger: &Ledger<T>, tasks: usize, shift: usize) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new(); tasks];
    for id in ledger.value.keys() {
        let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        out[(hash as usize + shift) % tasks].push(id.clone());
    }
    out
}

/// Runs one phase: versions `a` and `b`, 8 tasks each, then checks that both read every
/// acknowledged write.
pub async fn phase<V: Version>(a: V, b: V, table: &Table, ledger: &Shared<V::Value>, name: &'static str, shift: usize) {
    let (owned, pool) = {
        let l = ledger.lock().unwrap();
        (owners(&l, 2 * TASKS, shift), l.value.keys().cloned().collect::<Vec<_>>())
    };
    let mut handles = Vec::new();
    for (i, owned) in owned.into_iter().enumerate() {
        let v = if i % 2 == 0 { a } else { b };
        handles.push(tokio::spawn(task(v, table.clone(), ledger.clone(), name, i, owned, pool.clone())));
    }
    for h in handles {
        h.await.unwrap();
    }
    let l = ledger.lock().unwrap().clone();
    assert_eq!(l.failures, Vec::<String>::new(), "phase {name}: failed requests");
    check(a, table, &l).await;
    check(b, table, &l).await;
}

/// The launch: `n` items created by version `v` alone, recorded in the ledger.
pub async fn launch<V: Version>(v: V, table: &Table, ledger: &Shared<V::Value>, n: usize) {
    for i in 0..n {
        let id = format!("launch-{i:02}");
        let value = V::value(&id, i, 0);
        v.create(table, &id, &value).await.unwrap();
        ledger.lock().unwrap().created(&id, value);
    }
}

/// Applies `migrations` in a task of its own, beside the phase that runs meanwhile; the task
/// returns how many steps ran.
pub fn apply_beside(
    migrations: &Arc<dynamo_entity::migrate::Migrations>,
    table: &Table,
) -> tokio::task::JoinHandle<Result<usize, Error>> {
    let (migrations, table) = (Arc::clone(migrations), table.clone());
    tokio::spawn(async move {
        migrations.apply(&table, &dynamo_entity::migrate::RunOptions::default()).await.map(|a| a.len())
    })
}

/// The raw items of the entity type `type_name` (`_type`), split by `first`: `(those it holds
/// for, the others)`.
pub async fn split_items(
    table: &Table,
    type_name: &str,
    first: impl Fn(&dynamo_entity::Item) -> bool,
) -> (usize, usize) {
    let items: Vec<_> = super::scan_all(table)
        .await
        .into_iter()
        .filter(|i| i.get("_type") == Some(&aws_sdk_dynamodb::types::AttributeValue::S(type_name.to_owned())))
        .collect();
    let held = items.iter().filter(|i| first(i)).count();
    (held, items.len() - held)
}
