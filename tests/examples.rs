//! The examples in `examples/` run as tests, so that what a newcomer copies
//! works (cargo test also builds them as programs).

#[path = "../examples/custom_device.rs"]
mod custom_device;
#[path = "../examples/embed.rs"]
mod embed;
// It prints a report's table, which needs the `cli` feature.
#[cfg(feature = "cli")]
#[path = "../examples/simulate.rs"]
mod simulate;

#[test]
fn embed_runs() {
    embed::main().unwrap();
}

#[cfg(feature = "cli")]
#[test]
fn simulate_runs() {
    simulate::main().unwrap();
}

#[test]
fn custom_device_runs() {
    custom_device::main().unwrap();
}
