//! The lifetime lines of `run`, `compare` and `advise` (`--ops-per-day
//! N`): how long the chip lasts at N operations a day, from the measured
//! phase's wear (`device::wear`: the busiest block decides, since nothing
//! here levels wear), with the endurance and where it comes from.

use crate::device::profile::endurance_source;
use crate::device::wear::{leveling_note, DAYS_PER_YEAR};
use crate::device::DeviceSpec;
use crate::runner::Report;

use super::format::{group, wrap};
use super::CliResult;

/// Checks `--ops-per-day`: a positive, finite rate.
pub fn check_rate(rate: Option<f64>) -> CliResult<Option<f64>> {
    match rate {
        Some(r) if !(r.is_finite() && r > 0.0) => {
            Err(format!("--ops-per-day must be a positive number, got {r}").into())
        }
        r => Ok(r),
    }
}

/// Years for a table: `∞` (no erase), `12,345 y`, `42 y`, `3.1 y`, `183 d`.
pub fn years_text(years: Option<f64>) -> String {
    match years {
        None => "∞".into(),
        Some(y) if y >= 999.5 => format!("{} y", group(y.round() as u64)),
        Some(y) if y >= 9.95 => format!("{y:.0} y"),
        Some(y) if y >= 0.995 => format!("{y:.1} y"),
        Some(y) => format!("{:.0} d", (y * DAYS_PER_YEAR).max(0.0)),
    }
}

/// The projected years of `report` at `rate` operations a day (`None`:
/// no erase in the measured phase), or `Err` with why there is none
/// (a device without a simulated chip).
pub fn years(report: &Report, rate: f64) -> Result<Option<f64>, &'static str> {
    match &report.wear {
        Some(w) => Ok(w.lifetime(rate).years()),
        None => Err("not projected: this device does not show its erase blocks"),
    }
}

/// The endurance sentence: `endurance 1,000,000 erases a block (SOURCE)`.
pub fn endurance_text(spec: &DeviceSpec) -> Option<String> {
    endurance_source(spec).map(|source| {
        format!(
            "endurance {} erases a block ({source})",
            group(spec.geometry.endurance)
        )
    })
}

/// `run`'s lifetime paragraph.
pub fn projection(report: &Report, spec: &DeviceSpec, rate: f64) -> String {
    let Some(w) = &report.wear else {
        return wrap(&format!(
            "lifetime at {} operations a day: not projected: {} ({}) does not show its erase blocks",
            group(rate.round() as u64),
            spec.name,
            report.device.kind
        ));
    };
    let l = w.lifetime(rate);
    let basis = match w.busiest_block {
        Some(b) => format!(
            "block {b} was erased {} times in the {} measured operations ({} erases in all, {:.4} an operation)",
            group(w.busiest_erases),
            group(w.ops),
            group(w.erases),
            w.erases_per_op
        ),
        None => {
            let written: u64 = report.by_op.values().map(|c| c.page_writes).sum();
            if written == 0 {
                format!(
                    "the {} measured operations wrote no page, so wear sets no limit at this workload",
                    group(w.ops)
                )
            } else {
                format!(
                    "no block was erased in the {} measured operations (they wrote {} pages into free \
                     space): too short a run to project from (a longer one, or a fuller chip, erases)",
                    group(w.ops),
                    group(written)
                )
            }
        }
    };
    let rough = if (1..10).contains(&w.busiest_erases) {
        "; a projection from so few erases is rough (a longer run tightens it)"
    } else {
        ""
    };
    let even = match l.years_even_wear() {
        Some(y) if w.busiest_block.is_some() => format!(
            "; with every erase spread evenly over the {} blocks (what wear leveling could reach): {}",
            group(w.blocks),
            years_text(Some(y))
        ),
        _ => String::new(),
    };
    wrap(&format!(
        "lifetime at {} operations a day: {} until the busiest block wears out; {basis}; {}{rough}{even}. {}, from a new chip.",
        group(rate.round() as u64),
        years_text(l.years()),
        leveling_note(&report.device.kind),
        endurance_text(spec).unwrap_or_default()
    ))
}

/// `compare`'s lifetime lines: one entry per configuration.
pub fn projections(reports: &[(String, Report)], spec: &DeviceSpec, rate: f64) -> String {
    let kind = reports.first().map_or("", |(_, r)| r.device.kind.as_str());
    let Some(e) = endurance_text(spec) else {
        return wrap(&format!(
            "Lifetime at {} operations a day: not projected: {} does not show its erase blocks.",
            group(rate.round() as u64),
            spec.name
        ));
    };
    let entries: Vec<String> = reports
        .iter()
        .map(|(name, r)| match years(r, rate) {
            Ok(y) => format!("{name} {}", years_text(y)),
            Err(_) => format!("{name} -"),
        })
        .collect();
    let head = format!(
        "Lifetime at {} operations a day until the busiest block wears out ({e}; {}; ∞: no erase \
         in the measured operations): ",
        group(rate.round() as u64),
        leveling_note(kind)
    );
    wrap(&format!("{head}{}", entries.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_read_at_a_glance() {
        assert_eq!(years_text(None), "∞");
        assert_eq!(years_text(Some(12_345.4)), "12,345 y");
        assert_eq!(years_text(Some(42.2)), "42 y");
        assert_eq!(years_text(Some(3.04)), "3.0 y");
        assert_eq!(years_text(Some(0.5)), "183 d");
        assert!(check_rate(Some(0.0)).is_err() && check_rate(Some(f64::NAN)).is_err());
        assert_eq!(check_rate(None).unwrap(), None);
    }
}
