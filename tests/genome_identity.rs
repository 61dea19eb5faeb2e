//! A workload read from a file is named and seeded by its content, never
//! its path (issue #46): the genome experiments give byte-identical CSVs
//! with the genome at two different paths under two different names.
//! Without the optional genome there is nothing to compare; CI runs the
//! tests both with and without it.

use std::path::Path;
use std::process::Command;

fn reproduce(genome: &Path, out: &Path) -> String {
    let run = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(["reproduce", "mbtree-fig18", "--quick", "--quiet", "--out"])
        .arg(out)
        .env("FLASHIX_GENOME", genome)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read_to_string(out.join("mbtree-fig18/mbtree-fig18.csv")).unwrap()
}

#[test]
fn the_genome_at_two_paths_gives_identical_csvs() {
    let Some(genome) = flashix::experiment::genome().path.clone() else {
        eprintln!("no genome on this machine: nothing to compare");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("one/NTUH-K2044.fna.xz");
    let b = dir.path().join("another/place/k2044-copy.xz");
    for p in [&a, &b] {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::copy(&genome, p).unwrap();
    }
    let csv_a = reproduce(&a, &dir.path().join("out-a"));
    let csv_b = reproduce(&b, &dir.path().join("out-b"));
    assert_eq!(csv_a, csv_b);
    assert!(
        !csv_a.contains(dir.path().to_str().unwrap()),
        "a path in the CSV"
    );
    // The name by content is the one committed runs carry.
    assert!(
        csv_a.contains(flashix::experiment::NTUH_K2044),
        "{}",
        &csv_a[..400.min(csv_a.len())]
    );
}
