//! dynamo-entity against real DynamoDB: the client comes from `aws-config`, which finds
//! credentials and the region the way every AWS SDK does (environment variables, the shared
//! `~/.aws/config` and `~/.aws/credentials` files and their profiles, SSO, web identity, the
//! ECS and EC2 instance roles). The example creates a table (on-demand), writes, reads, updates,
//! queries and deletes a few items, checks each answer, and deletes the table it created.
//!
//! ```text
//! # real DynamoDB, in the account and region of the default credentials chain:
//! AWS_PROFILE=dev AWS_REGION=eu-west-1 cargo run -p dynamo-entity-examples --example real_dynamodb
//! # any DynamoDB endpoint, such as DynamoDB Local (test credentials when none are set):
//! DYNAMODB_ENDPOINT=http://127.0.0.1:8000 cargo run -p dynamo-entity-examples --example real_dynamodb
//! ```
//!
//! `DYNAMODB_TABLE` names the table (default `dynamo-entity-example-<process id>`); the table
//! must not exist. `-- --keep` leaves it in place.

use std::error::Error as StdError;
use std::process::ExitCode;

use aws_config::BehaviorVersion;
use dynamo_entity::value::time::EpochSeconds;
use dynamo_entity::{Entity, Table, Timestamp};

/// A customer and its order counter; `expires` is the time-to-live attribute (epoch seconds).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "CUSTOMER#<id>", sk = "PROFILE", gsi1 = "COUNTRY#<country>", gsi1_sk = "CUSTOMER#<id>")]
struct Customer {
    id: String,
    country: String,
    name: String,
    orders: u32,
    expires: Option<EpochSeconds>,
}

type BoxError = Box<dyn StdError + Send + Sync>;

/// The DynamoDB client: the default chain of `aws-config`, pointed at `DYNAMODB_ENDPOINT` when
/// that is set. For such an endpoint without credentials in the environment, fixed test
/// credentials and `us-east-1` (DynamoDB Local accepts any; it keeps one database per access
/// key id and region).
async fn client() -> aws_sdk_dynamodb::Client {
    let mut loader = aws_config::defaults(BehaviorVersion::latest());
    if let Ok(endpoint) = std::env::var("DYNAMODB_ENDPOINT") {
        loader = loader.endpoint_url(endpoint);
        if std::env::var_os("AWS_ACCESS_KEY_ID").is_none() && std::env::var_os("AWS_PROFILE").is_none() {
            let test = aws_sdk_dynamodb::config::Credentials::new("local", "local", None, None, "example");
            loader = loader.credentials_provider(test).region(aws_config::Region::new("us-east-1"));
        }
    }
    let config = loader.load().await;
    aws_sdk_dynamodb::Client::new(&config)
}

fn check<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), BoxError> {
    if got == want {
        println!("ok  {what}");
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}").into())
    }
}

async fn run(table: &Table) -> Result<(), BoxError> {
    let later = Timestamp::now().add_millis(30 * 86_400_000);
    let ann = Customer {
        id: "c1".into(),
        country: "NZ".into(),
        name: "Ann".into(),
        orders: 0,
        expires: Some(EpochSeconds(later)),
    };
    let bob = Customer { id: "c2".into(), country: "NZ".into(), name: "Bob".into(), orders: 3, expires: None };
    table.create(&ann).await?;
    table.create(&bob).await?;
    check("create-if-absent refuses a second create", table.create(&ann).await.is_err(), true)?;

    let got = table.get_consistent(Customer::key("c1")).await?;
    check("get", got.as_ref().map(|c| c.name.as_str()), Some("Ann"))?;

    // An atomic counter: the update returns the item after it (or, if it does not decode, the
    // decode problem; the update was applied either way and must not be sent again).
    let updated = table.update(Customer::key("c1")).add(Customer::ORDERS, &1).send().await?;
    check("update add", updated.into_result()?.orders, 1)?;

    let nz = table.query(Customer::gsi1("NZ")).all().await?;
    check("GSI1 query", nz.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), vec!["c1", "c2"])?;

    let deleted = table.delete(Customer::key("c2")).await?;
    check("delete returns the item", deleted.into_result()?.map(|c| c.orders), Some(3))?;
    check("deleted", table.get_consistent(Customer::key("c2")).await?, None)?;
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let keep = std::env::args().any(|a| a == "--keep");
    let name =
        std::env::var("DYNAMODB_TABLE").unwrap_or_else(|_| format!("dynamo-entity-example-{}", std::process::id()));
    let table = Table::new(client().await, name.clone());
    // CreateTable (on-demand) with GSI1, then waits until the table is ACTIVE.
    if let Err(e) = table.create_table(&[Customer::schema()]).await {
        eprintln!("cannot create table {name}: {e}");
        return ExitCode::FAILURE;
    }
    let result = run(&table).await;
    if !keep && let Err(e) = table.delete_table().await {
        eprintln!("cannot delete table {name}: {e}");
    }
    match result {
        Ok(()) => {
            println!("all checks passed on table {name}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}
