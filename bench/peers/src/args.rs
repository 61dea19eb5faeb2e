//! The command line: the bench's settings, shared by the parent (which
//! passes them on to every child) and the child (`--one ENGINE`, which
//! runs them).

use std::path::PathBuf;

use crate::engines;
use crate::error::Res;
use crate::workload::Workload;

#[derive(Clone)]
pub struct Args {
    pub n: u64,
    /// `--scale N,N,..`: run at each n in turn (the scaling run); empty:
    /// at `n` only.
    pub scale: Vec<u64>,
    /// The scaling run's output, without extension: `OUT.csv`, `OUT.svg`, `OUT.png`.
    pub out: PathBuf,
    /// `--plot A.csv,B.csv`: draw `OUT.svg` and `OUT.png` from these CSVs of scaling
    /// runs (concatenated) and run nothing.
    pub plot: Vec<PathBuf>,
    pub rounds: u32,
    pub commit_every: usize,
    pub engines: Vec<String>,
    pub workload: Workload,
    pub dir: Option<PathBuf>,
    /// Set in a child: the one engine it runs.
    pub one: Option<String>,
    pub seed: u64,
    pub timeout: u64,
    /// flashix's write-ahead log bound (`Options::log_bytes`): by default
    /// the memory (`--memory`). A checkpoint writes what the memory holds
    /// (the LSM-tree's C0, a B+-tree's dirty nodes); a log much longer
    /// than that spares few bytes and makes the file larger by twice its
    /// length (the log keeps two copies), which at a data size of a few
    /// times the memory is most of the file.
    pub log_bytes: u64,
    /// Every engine's cache and flashix's budget (`--memory`, bytes).
    pub memory: usize,
    /// Index parameters given to every flashix engine (`--set K=V`,
    /// repeatable), beside the store's defaults.
    pub params: Vec<(String, String)>,
}

fn usage() -> String {
    format!(
        "usage: peers [--n N | --scale N,N,.. (a scaling run: every n in turn, \
         writing OUT.csv, OUT.svg, OUT.png)] [--out OUT (default peers-scale)] \
         [--plot A.csv,B.csv (draw OUT.svg, OUT.png from scaling runs' CSVs; runs nothing)] [--rounds R] [--commit-every C] [--engines a,b,..] \
         [--workload insert-lookup|ycsb-a] [--dir DIR] [--timeout SECS per run] \
         [--log-bytes B (flashix's write-ahead log bound; 0: none; default: --memory)] \
         [--memory SIZE (every engine's cache, flashix's budget: 16MiB, 64MiB, bytes)] \
         [--set K=V (an index parameter of every flashix engine; repeatable)]\n\
         engines: {}",
        engines::names().join(",")
    )
}

/// Parses the process's arguments; `-h`/`--help` prints the usage and
/// exits.
pub fn parse() -> Res<Args> {
    let mut a = Args {
        n: 1_000_000,
        scale: Vec::new(),
        out: PathBuf::from("peers-scale"),
        plot: Vec::new(),
        rounds: 3,
        commit_every: 1000,
        engines: engines::names(),
        workload: Workload::InsertLookup,
        dir: None,
        one: None,
        seed: 1,
        timeout: 180,
        log_bytes: 0,
        memory: engines::DEFAULT_MEMORY,
        params: Vec::new(),
    };
    let mut log_bytes = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "-h" || flag == "--help" {
            println!("{}", usage());
            std::process::exit(0);
        }
        let value = it
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{}", usage()))?;
        match flag.as_str() {
            "--n" => a.n = value.replace('_', "").parse()?,
            "--scale" => {
                a.scale = value
                    .split(',')
                    .map(|v| v.replace('_', "").parse())
                    .collect::<Result<_, _>>()
                    .map_err(|_| format!("--scale {value:?}: not a list of counts (N,N,..)"))?;
            }
            "--out" => a.out = PathBuf::from(value),
            "--plot" => a.plot = value.split(',').map(PathBuf::from).collect(),
            "--rounds" => a.rounds = value.parse()?,
            "--commit-every" => a.commit_every = value.parse()?,
            "--engines" => a.engines = value.split(',').map(str::to_string).collect(),
            "--workload" => a.workload = Workload::parse(&value)?,
            "--dir" => a.dir = Some(PathBuf::from(value)),
            "--one" => a.one = Some(value),
            "--seed" => a.seed = value.parse()?,
            "--timeout" => a.timeout = value.parse()?,
            "--log-bytes" => log_bytes = Some(value.replace('_', "").parse()?),
            "--memory" => a.memory = parse_size(&value)?,
            "--set" => {
                let (k, v) = value
                    .split_once('=')
                    .ok_or_else(|| format!("--set {value:?}: not of the form K=V"))?;
                a.params.push((k.to_string(), v.to_string()));
            }
            _ => return Err(format!("unknown option {flag}\n{}", usage()).into()),
        }
    }
    a.log_bytes = log_bytes.unwrap_or(a.memory as u64);
    if a.commit_every == 0 || a.n == 0 || a.rounds == 0 || a.scale.contains(&0) {
        return Err("--n, --scale, --rounds and --commit-every must be positive".into());
    }
    let known = engines::names();
    for e in &a.engines {
        if !known.contains(e) {
            return Err(format!("unknown engine {e:?}\n{}", usage()).into());
        }
    }
    Ok(a)
}

/// `16MiB`, `512KiB`, `1GiB` or a number of bytes.
fn parse_size(s: &str) -> Res<usize> {
    let (num, unit) = match s.find(|c: char| !c.is_ascii_digit() && c != '_') {
        Some(i) => s.split_at(i),
        None => (s, ""),
    };
    let n: usize = num
        .replace('_', "")
        .parse()
        .map_err(|_| format!("--memory {s:?}: not a size (16MiB, 512KiB, bytes)"))?;
    let shift = match unit {
        "" | "B" => 0,
        "KiB" | "K" => 10,
        "MiB" | "M" => 20,
        "GiB" | "G" => 30,
        _ => return Err(format!("--memory {s:?}: unit must be B, KiB, MiB or GiB").into()),
    };
    n.checked_mul(1 << shift)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("--memory {s:?}: out of range").into())
}
