//! The deployment files in `deploy/`, tested on this machine: the Slurm
//! script is linted (`shellcheck`) and run end to end with a stand-in
//! `sbatch` that runs the array's tasks and then the merge, and a task run
//! again after it stopped part way keeps its finished runs; the Kubernetes
//! file is checked by `kubectl --dry-run=client` where a cluster answers,
//! else by `deploy/k8s/check.py` (a schema check, with python3 and
//! PyYAML); the Dockerfile's stages are checked for what the image needs.
//! A check whose tool is missing says so and passes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Whether `tool` runs here (`tool --version` succeeds).
fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs `cmd`, which must succeed; its output otherwise.
fn succeeds(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_slurm_script_passes_shellcheck() {
    if !have("shellcheck") {
        eprintln!("skipped: shellcheck is not installed (apt-get install shellcheck)");
        return;
    }
    succeeds(Command::new("shellcheck").arg(repo("deploy/slurm/reproduce.sbatch")));
}

/// A stand-in for `sbatch --parsable`: an array runs its tasks one after
/// the other, any other job at once (its dependency, the array, has then
/// finished); each prints a job id.
const FAKE_SBATCH: &str = r#"#!/usr/bin/env bash
set -euo pipefail
array="" script=""
for a in "$@"; do
  case $a in
    --array=*) array=${a#--array=} ;;
    --*) ;;
    *) script=$a ;;
  esac
done
echo "${FLASHIX_MODE} $*" >> "$SBATCH_LOG"
if [[ -n $array ]]; then
  for ((i = ${array%-*}; i <= ${array#*-}; i++)); do
    SLURM_ARRAY_TASK_ID=$i bash "$script" >&2
  done
else
  bash "$script" >&2
fi
echo "$((1000 + $(wc -l < "$SBATCH_LOG")));cluster"
"#;

#[test]
fn the_slurm_script_runs_shards_then_the_merge() {
    if !have("bash") {
        eprintln!("skipped: no bash");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let sbatch = bin.join("sbatch");
    std::fs::write(&sbatch, FAKE_SBATCH).unwrap();
    let status = Command::new("chmod")
        .arg("+x")
        .arg(&sbatch)
        .status()
        .unwrap();
    assert!(status.success());
    let out = dir.path().join("out");
    let log = dir.path().join("sbatch.log");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = Command::new("bash")
        .arg(repo("deploy/slurm/reproduce.sbatch"))
        .env("PATH", path)
        .env("SBATCH_LOG", &log)
        .env("SHARDS", "3")
        .env("SELECTION", "bftl-table2")
        .env("QUICK", "1")
        .env("OUT", &out)
        .env("FLASHIX", env!("CARGO_BIN_EXE_flashix"))
        .env_remove("FLASHIX_MODE")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let submitted = std::fs::read_to_string(&log).unwrap();
    assert!(
        submitted.contains("shard ") && submitted.contains("--array=0-2"),
        "{submitted}"
    );
    assert!(
        submitted.contains("merge ") && submitted.contains("--dependency=afterok:1001"),
        "{submitted}"
    );
    for i in 0..3 {
        assert!(out.join(format!("shard-{i}-of-3/shard.json")).is_file());
    }
    let csv = out.join("merged/bftl-table2/bftl-table2.csv");
    assert!(csv.is_file(), "{stderr}");

    // A task requeued after it stopped part way (no manifest, a run file
    // missing) runs the same command again: it keeps the runs it has.
    let script = std::fs::read_to_string(repo("deploy/slurm/reproduce.sbatch")).unwrap();
    assert!(script.contains("\n#SBATCH --requeue\n"));
    let shard = out.join("shard-1-of-3");
    std::fs::remove_file(shard.join("shard.json")).unwrap();
    let mut runs: Vec<PathBuf> = std::fs::read_dir(shard.join("bftl-table2"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    runs.sort();
    assert!(runs.len() >= 2, "{runs:?}");
    let lost = runs.pop().unwrap();
    std::fs::remove_file(&lost).unwrap();
    let requeued = Command::new("bash")
        .arg(repo("deploy/slurm/reproduce.sbatch"))
        .env("FLASHIX_MODE", "shard")
        .env("SLURM_ARRAY_TASK_ID", "1")
        .env("SHARDS", "3")
        .env("SELECTION", "bftl-table2")
        .env("QUICK", "1")
        .env("OUT", &out)
        .env("FLASHIX", env!("CARGO_BIN_EXE_flashix"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&requeued.stdout);
    assert!(requeued.status.success(), "{stdout}");
    let kept = format!("{} kept from an earlier attempt", runs.len());
    assert!(stdout.contains(&kept), "{stdout}");
    assert!(lost.is_file() && shard.join("shard.json").is_file());
}

#[test]
fn the_kubernetes_file_is_valid() {
    let file = repo("deploy/k8s/reproduce.yaml");
    // A shard's pod that fails is replaced (and resumes from the volume).
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("backoffLimitPerIndex: "));
    // A cluster to validate against: kubectl's client-side dry run needs
    // its schemas.
    let cluster = Command::new("kubectl")
        .args(["version", "--request-timeout=5s"])
        .output()
        .is_ok_and(|o| o.status.success());
    if cluster {
        succeeds(
            Command::new("kubectl")
                .args(["apply", "--dry-run=client", "-f"])
                .arg(&file),
        );
        return;
    }
    let Ok(out) = Command::new("python3")
        .arg(repo("deploy/k8s/check.py"))
        .arg(&file)
        .output()
    else {
        eprintln!("skipped: no cluster for kubectl and no python3 for deploy/k8s/check.py");
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(3) {
        eprintln!("skipped: {stderr}");
        return;
    }
    assert!(out.status.success(), "{stderr}");
}

/// The image builds from the sources with the toolchain and runs from a
/// slim image with only the binary: two stages, the build `--locked`, the
/// binary copied across, and a context that leaves the build outputs out.
#[test]
fn the_dockerfile_builds_in_one_stage_and_runs_in_another() {
    let text = std::fs::read_to_string(repo("deploy/Dockerfile")).unwrap();
    let from: Vec<&str> = text.lines().filter(|l| l.starts_with("FROM ")).collect();
    assert_eq!(from.len(), 2, "{from:?}");
    assert!(from[0].contains("rust:") && from[0].ends_with(" AS build"));
    assert!(from[1].contains("-slim"));
    assert!(text.contains("cargo build --release --locked"));
    assert!(text.contains("COPY --from=build"));
    let ignore = std::fs::read_to_string(repo(".dockerignore")).unwrap();
    assert!(ignore.lines().any(|l| l.trim() == "target"));
}
