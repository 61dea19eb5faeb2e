//! Running a workload on a simulated flash chip and reading the report:
//! what each operation cost in page reads, writes, erases, time and
//! energy under the chip's cost model, as `flashix run` prints it.
//!
//! Run: `cargo run --release --example simulate`

use flashix::device::DeviceSpec;
use flashix::index::Params;
use flashix::runner::{run_workload, IndexDescription, RunOptions};
use flashix::store::create_index;
use flashix::workload::preset;

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Roh et al. 2009 §6's insert workload, smaller: 20,000 inserts after a
    // preload of 10,000, keys uniform in [0, 3,000,000].
    let spec = preset::build("insert-uniform", &[], Some(10_000), Some(20_000), 7)?;
    for name in ["btree", "mbtree"] {
        // A page-mapping FTL over a simulated SLC chip (`flashix devices`).
        let storage = DeviceSpec::parse("slc-small", &[])?.build()?;
        let mut index = create_index(name, storage, 64 << 10, Params::new())?;
        let options = RunOptions {
            verify: true, // every answer checked against an oracle
            quiet: true,
            final_flush: true, // everything on the device at the end
            memory_budget: 64 << 10,
            index: IndexDescription {
                name: name.into(),
                ..IndexDescription::default()
            },
            ..RunOptions::default()
        };
        let report = run_workload(index.as_mut(), &spec, options, None)?;
        println!("{name} on slc-small, 64 KiB:");
        println!("{}", report.summary_table());
        let insert = &report.by_op["insert"];
        assert!(insert.count == 20_000 && report.verified);
        println!(
            "{:.2} page writes per insert, {:.1} µs per insert\n",
            insert.page_writes as f64 / insert.count as f64,
            insert.time_us / insert.count as f64
        );
    }
    Ok(())
}
