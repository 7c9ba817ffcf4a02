//! The command line every example shares; an example gives its table, data set and scenario as
//! an [`Example`] and calls [`main`].
//!
//! Without arguments: DynamoDB (`DYNAMODB_ENDPOINT` when set, otherwise DynamoDB Local started
//! for the run), the example's table deleted and created anew, its full data set generated and
//! loaded, then every access pattern run and its answer checked, printed one line each with the
//! answer's size and time. `--small` uses the small data set; `--design` writes the example's
//! design documents and stops. Any mismatch or error prints `FAILED: <what>` and exits non-zero.

use std::future::Future;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use dynamo_entity::Table;
use dynamo_entity::schema::TableLayout;
use dynamo_entity_local::LocalDynamoDb;

use crate::report::{Mismatch, PatternReport};

/// Any error of a run.
pub type BoxError = Box<dyn std::error::Error>;

/// One runnable example: what [`run`] needs to know of it.
pub trait Example {
    /// The table's name.
    const TABLE: &'static str;
    /// The table's keys, indexes and capacity mode, printed after its name once it is created.
    const SHAPE: &'static str;
    /// The width of the report's access-pattern column.
    const WIDTH: usize;
    /// The data set.
    type Data;

    /// The files `--design` writes: each one's path (its folder is created when missing) and
    /// contents.
    ///
    /// # Errors
    /// When a document cannot be made.
    fn design() -> Result<Vec<(&'static str, String)>, BoxError>;

    /// The table to create.
    ///
    /// # Errors
    /// When the declaration and the entities disagree.
    fn layout() -> Result<TableLayout, dynamo_entity::Error>;

    /// The data set: the small one when `small`, else the full one.
    fn data(small: bool) -> Self::Data;

    /// What the data set holds, printed after `data set: `.
    fn summary(data: &Self::Data) -> String;

    /// Writes `data` into the new, empty table.
    fn load(table: &Table, data: &Self::Data) -> impl Future<Output = Result<PatternReport, Mismatch>>;

    /// Runs every access pattern against the loaded table and checks each answer.
    fn run(
        server: &LocalDynamoDb,
        table: &Table,
        data: &Self::Data,
    ) -> impl Future<Output = Result<Vec<PatternReport>, Mismatch>>;
}

/// The command line's options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// `--small`: the small data set.
    pub small: bool,
    /// `--design`: write the design documents and stop.
    pub design: bool,
}

impl Options {
    /// The options among the process's arguments; other arguments are ignored.
    #[must_use]
    pub fn from_args() -> Self {
        let mut options = Self::default();
        for arg in std::env::args().skip(1) {
            match arg.as_str() {
                "--small" => options.small = true,
                "--design" => options.design = true,
                _ => {}
            }
        }
        options
    }
}

/// The whole program of example `E`: [`run`] with the command line's options on a
/// multi-threaded Tokio runtime; on failure prints `FAILED: <what>` to stderr.
#[must_use]
pub fn main<E: Example>() -> ExitCode {
    let result = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime.block_on(run::<E>(Options::from_args())),
        Err(e) => Err(e.into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs example `E` with `options`, printing its report to stdout.
///
/// # Errors
/// The first that fails: writing a design document, reaching DynamoDB, creating the table,
/// loading the data set, or an access pattern whose answer differs from the data set.
pub async fn run<E: Example>(options: Options) -> Result<(), BoxError> {
    if options.design {
        for (path, contents) in E::design()? {
            if let Some(folder) = Path::new(path).parent() {
                std::fs::create_dir_all(folder)?;
            }
            std::fs::write(path, contents)?;
            println!("wrote {path}");
        }
        return Ok(());
    }
    let started = Instant::now();
    let server = LocalDynamoDb::shared().await?;
    println!("DynamoDB at {}", server.endpoint());
    let table = Table::new(server.client(), E::TABLE);

    // Start from an empty table on every run.
    let _ = table.delete_table().await;
    table.create_table_from(&E::layout()?).await?;
    println!("created table {} ({})", E::TABLE, E::SHAPE);

    let data = E::data(options.small);
    println!("data set: {}", E::summary(&data));
    println!();
    println!("{:<width$} {:>12} {:>13}", "access pattern", "answer", "time", width = E::WIDTH);
    print::<E>(&E::load(&table, &data).await?);
    let reports = E::run(server, &table, &data).await?;
    for r in &reports {
        print::<E>(r);
    }
    println!();
    println!("all {} access patterns answered as expected in {:.1} s", reports.len(), started.elapsed().as_secs_f64());
    Ok(())
}

/// One line of the report.
fn print<E: Example>(r: &PatternReport) {
    println!("{:<width$} {:>6} items {:>10.1} ms", r.name, r.items, r.micros as f64 / 1000.0, width = E::WIDTH);
}
