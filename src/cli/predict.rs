//! The prediction check of `flashix compare --device file:PATH --predict
//! PROFILE` (issue #15, "beyond the paper"): every index runs the same
//! workload twice, once on the real file and once on a simulated device
//! (an SSD timing model such as `x25e`, or an FTL profile), and the table
//! puts the model's predicted I/O time beside the time this machine's disk
//! took, with the error, so a user sees how far the model is from their own
//! disk before trusting its numbers.
//!
//! The two runs issue the same requests: the model device takes the file's
//! page size and its commit layer (`atomic`, on for files), and the
//! workload is generated from the same seed. The check says so per index
//! (`same requests`) by comparing the logical read and write counts; an
//! index whose runs differ (one that reads the device's timing, such as
//! FlashDB's cost-driven consolidation on a priced chip) is flagged, since
//! its two times then measure different work.
//!
//! Measured time is the wall time of the file's read, write and sync calls
//! (O_DIRECT where the file system allows it, `docs/FORMAT.md`); predicted
//! time is the model's service time for the same requests. The SSD models
//! were calibrated at queue depth 32 (`src/device/ssd.rs`) while the runner
//! issues one request at a time, which is one reason the two differ.

use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, Table};
use serde::Serialize;

use crate::device::profile::Target;
use crate::device::DeviceSpec;
use crate::runner::Report;

use super::CliResult;

/// One index's two runs.
#[derive(Clone, Debug, Serialize)]
pub struct Prediction {
    pub index: String,
    /// The model (`x25e`, ...).
    pub model: String,
    pub measured_s: f64,
    pub predicted_s: f64,
    /// (predicted − measured) / measured.
    pub error: f64,
    pub measured_read_s: f64,
    pub predicted_read_s: f64,
    pub measured_write_s: f64,
    pub predicted_write_s: f64,
    /// Whether both runs made the same logical reads and writes.
    pub same_requests: bool,
}

/// The model device for a file run: `profile` with the file's page size
/// and commit layer. Refuses anything but a file to predict, and a raw chip
/// or a file as the model.
pub fn model_spec(file: &DeviceSpec, profile: &str) -> CliResult<DeviceSpec> {
    if !matches!(file.target, Target::File(_)) {
        return Err(format!(
            "--predict compares a model with a real disk: run on --device file:PATH (not `{}`)",
            file.name
        )
        .into());
    }
    if profile.starts_with("file:") || profile.starts_with("raw:") {
        return Err(format!(
            "--predict takes a simulated device with logical pages (an SSD model such as x25e, or an FTL profile), not `{profile}`"
        )
        .into());
    }
    let sets = [
        ("page_size".to_string(), file.geometry.page_size.to_string()),
        ("atomic".to_string(), file.atomic.to_string()),
    ];
    Ok(DeviceSpec::parse(profile, &sets)?)
}

/// Pairs the file run and the model run of one index.
pub fn predict(index: &str, model: &str, file: &Report, sim: &Report) -> Prediction {
    let (f, s) = (&file.device_stats, &sim.device_stats);
    let measured_s = f.time_us / 1e6;
    let predicted_s = s.time_us / 1e6;
    Prediction {
        index: index.to_string(),
        model: model.to_string(),
        measured_s,
        predicted_s,
        error: if measured_s > 0.0 {
            (predicted_s - measured_s) / measured_s
        } else {
            f64::NAN
        },
        measured_read_s: f.read_time_us / 1e6,
        predicted_read_s: s.read_time_us / 1e6,
        measured_write_s: f.write_time_us / 1e6,
        predicted_write_s: s.write_time_us / 1e6,
        same_requests: f.logical_reads == s.logical_reads && f.logical_writes == s.logical_writes,
    }
}

/// The table `compare` prints under its own.
pub fn table(rows: &[Prediction]) -> String {
    let Some(first) = rows.first() else {
        return String::new();
    };
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.set_header(vec![
        "index".to_string(),
        "measured (s)".to_string(),
        format!("predicted by {} (s)", first.model),
        "error".to_string(),
        "reads: measured / predicted (s)".to_string(),
        "writes: measured / predicted (s)".to_string(),
        "same requests".to_string(),
    ]);
    for r in rows {
        t.add_row(vec![
            r.index.clone(),
            format!("{:.3}", r.measured_s),
            format!("{:.3}", r.predicted_s),
            if r.error.is_finite() {
                format!("{:+.0}%", r.error * 100.0)
            } else {
                "—".to_string()
            },
            format!("{:.3} / {:.3}", r.measured_read_s, r.predicted_read_s),
            format!("{:.3} / {:.3}", r.measured_write_s, r.predicted_write_s),
            if r.same_requests { "yes" } else { "NO" }.to_string(),
        ]);
    }
    for i in 1..=5 {
        if let Some(col) = t.column_mut(i) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    format!(
        "Prediction check: the {} model against this machine's disk (I/O time of the same requests; \
         measured = wall time of the file's reads, writes and syncs)\n{t}",
        first.model
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::DeviceReport;

    fn report(time: f64, read: f64, write: f64, reads: u64, writes: u64) -> Report {
        Report {
            device_stats: DeviceReport {
                time_us: time * 1e6,
                read_time_us: read * 1e6,
                write_time_us: write * 1e6,
                logical_reads: reads,
                logical_writes: writes,
                ..DeviceReport::default()
            },
            ..Report::default()
        }
    }

    #[test]
    fn the_error_is_relative_to_the_disk_and_differing_requests_are_flagged() {
        let p = predict(
            "btree",
            "x25e",
            &report(2.0, 1.5, 0.4, 10, 5),
            &report(3.0, 1.0, 2.0, 10, 5),
        );
        assert!((p.error - 0.5).abs() < 1e-12);
        assert!(p.same_requests);
        let text = table(&[p]);
        assert!(
            text.contains("+50%") && text.contains("predicted by x25e"),
            "{text}"
        );
        let q = predict(
            "flashdb",
            "x25e",
            &report(2.0, 1.0, 1.0, 10, 5),
            &report(1.0, 0.5, 0.5, 9, 5),
        );
        assert!(!q.same_requests);
        assert!(table(&[q]).contains("NO"));
    }

    #[test]
    fn only_a_file_is_predicted_and_only_by_a_simulated_device() {
        let file = DeviceSpec::parse("file:/tmp/x.db", &[]).unwrap();
        let m = model_spec(&file, "x25e").unwrap();
        assert_eq!(m.geometry.page_size, file.geometry.page_size);
        assert!(
            m.atomic,
            "a file runs over the commit layer, so must its model"
        );
        let ftl = DeviceSpec::parse("slc-small", &[]).unwrap();
        assert!(model_spec(&ftl, "x25e").is_err());
        assert!(model_spec(&file, "raw:slc-small").is_err());
        assert!(model_spec(&file, "file:/tmp/y").is_err());
        assert!(model_spec(&file, "no-such-profile").is_err());
    }
}
