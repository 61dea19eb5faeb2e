//! The house rules of issue #42, checked on the crate's own source so that
//! they hold for every later change:
//!
//! 1. **No import up a floor.** Each top-level module of `src/` sits on a
//!    floor ([`FLOORS`]); a file may reference items of its own floor or
//!    below, never above, so a reader of a floor needs only the floors under it.
//! 2. **No circle of files.** Files that reference each other, directly or
//!    through others, can only be read, tested and moved together. A
//!    module's own file (`mod.rs`, or `foo.rs` beside `foo/`) and its direct
//!    children aside: the parent declares and re-exports them, they use what
//!    it shares.
//! 3. **No source file over [`MAX_LINES`] lines** under `src/`, `tests/`,
//!    `examples/`, `benches/` and `bench/`.
//!
//! The references come from `architecture/reader.rs`, a small Rust reader
//! using only std (a parser crate would be a dependency for one test): it
//! resolves every path a file names (`use` trees, `crate::`, `self::`,
//! `super::`, `use`-bound names, globs, re-exports, inline modules,
//! `#[path]`) to the file that defines the item. Code under `#[cfg(test)]`
//! counts like any other: a unit test importing from above is an arrow up.
//! The self-tests at the bottom check the reader on literals, `use` trees
//! and a small crate. Every violation is listed with the names that cause
//! it and their lines, so that
//! `cargo test --release --test architecture -- --nocapture` is the map of
//! what to move.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Instant;

#[path = "architecture/reader.rs"]
mod reader;

use reader::{lex, text, use_tree, Graph, Kind, Names, Token};

/// The floors of the house, top to bottom, by top-level module of `src/`
/// (`src/store.rs` and `src/store/` are both `store`). A file may reference
/// items on its own floor or a lower one. Two rooms of one floor may use
/// each other as long as no circle forms (rule 2). A new top-level module
/// must be given its floor here; the roots ([`ROOTS`]) are exempt.
const FLOORS: &[(&str, u8)] = &[
    ("cli", 6),
    ("experiment", 5),
    ("runner", 4),
    ("store", 4),
    ("index", 3),
    ("node", 2),
    ("device", 1),
    ("workload", 1),
];

/// The crate roots: they wire the floors together (declare them, re-export
/// the `Store`), so rules 1 and 2 leave them out.
const ROOTS: &[&str] = &["src/lib.rs", "src/main.rs"];

/// Rule 3: the most lines a source file may have.
const MAX_LINES: usize = 1000;

/// Rule 3 looks at every `.rs` file under these folders (`target` skipped).
const LINE_LIMIT_DIRS: &[&str] = &["src", "tests", "examples", "benches", "bench"];

/// How many referenced names a reported edge shows.
const SAMPLE: usize = 8;

// ---------------------------------------------------------------- rules --

/// The floor of a file of `src/`: its top-level module's, from `floors`.
fn floor_of<'a>(path: &str, floors: &[(&'a str, u8)]) -> Option<(&'a str, u8)> {
    let rest = path.strip_prefix("src/")?;
    let top = rest.split('/').next()?.trim_end_matches(".rs");
    floors.iter().find(|(name, _)| *name == top).copied()
}

/// Rule 1: edges from a file to one on a higher floor, and files whose top
/// module has no floor.
fn up_arrows(g: &Graph, floors: &[(&str, u8)]) -> (Vec<(usize, usize)>, Vec<String>) {
    let off_table = g
        .files
        .iter()
        .filter(|f| !ROOTS.contains(&f.as_str()) && floor_of(f, floors).is_none());
    let up = g.edges.keys().filter(|&&(from, to)| {
        match (
            floor_of(&g.files[from], floors),
            floor_of(&g.files[to], floors),
        ) {
            (Some((_, a)), Some((_, b))) => b > a,
            _ => false,
        }
    });
    (up.copied().collect(), off_table.cloned().collect())
}

/// Rule 2: the strongly connected components of more than one file, the
/// edges between a module's file and its direct children left out.
fn circles(g: &Graph) -> Vec<Vec<usize>> {
    let n = g.files.len();
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in g.edges.keys() {
        if g.parent[a] != Some(b) && g.parent[b] != Some(a) {
            adj[a].push(b);
        }
    }
    let mut t = Tarjan {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    let mut out: Vec<Vec<usize>> = t.out.into_iter().filter(|c| c.len() > 1).collect();
    for c in &mut out {
        c.sort_by(|&a, &b| g.files[a].cmp(&g.files[b]));
    }
    out.sort_by(|a, b| g.files[a[0]].cmp(&g.files[b[0]]));
    out
}

struct Tarjan {
    adj: Vec<Vec<usize>>,
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    stack: Vec<usize>,
    on_stack: Vec<bool>,
    next: usize,
    out: Vec<Vec<usize>>,
}

impl Tarjan {
    fn visit(&mut self, v: usize) {
        self.index[v] = Some(self.next);
        self.low[v] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        for w in self.adj[v].clone() {
            match self.index[w] {
                None => {
                    self.visit(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.index[v] {
            let mut component = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            self.out.push(component);
        }
    }
}

/// Rule 3: every `.rs` file under `dirs` of `root` with more than `max` lines.
fn long_files(root: &Path, dirs: &[&str], max: usize) -> Vec<(String, usize)> {
    let mut files = Vec::new();
    for dir in dirs {
        rs_files(&root.join(dir), &mut files);
    }
    let mut long: Vec<(String, usize)> = files
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).expect("a source file is readable");
            let lines = text.lines().count();
            let shown = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string();
            (lines > max).then_some((shown, lines))
        })
        .collect();
    long.sort();
    long
}

fn rs_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("a listed directory entry").path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                rs_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

// ------------------------------------------------------------- reports --

/// The names an edge carries, as `Name (line n)`, the first [`SAMPLE`].
fn sample(names: &Names) -> String {
    let mut s: Vec<String> = names
        .iter()
        .take(SAMPLE)
        .map(|(l, line)| format!("{l} (line {line})"))
        .collect();
    if names.len() > SAMPLE {
        s.push(format!("and {} more", names.len() - SAMPLE));
    }
    s.join(", ")
}

fn report_up_arrows(g: &Graph, floors: &[(&str, u8)]) -> (usize, String) {
    let (up, off_table) = up_arrows(g, floors);
    let from_files: BTreeSet<usize> = up.iter().map(|&(from, _)| from).collect();
    let mut out = format!(
        "rule 1, no import up a floor: {} arrow(s) up from {} file(s), {} file(s) on no floor\n",
        up.len(),
        from_files.len(),
        off_table.len()
    );
    let floor = |f: usize| {
        floor_of(&g.files[f], floors).map_or(String::new(), |(n, l)| format!("{n}, floor {l}"))
    };
    for &from in &from_files {
        let _ = writeln!(
            out,
            "  {} ({}) imports from above:",
            g.files[from],
            floor(from)
        );
        for &(_, to) in up.iter().filter(|(f, _)| *f == from) {
            let _ = writeln!(
                out,
                "    -> {} ({}): {}",
                g.files[to],
                floor(to),
                sample(&g.edges[&(from, to)])
            );
        }
    }
    for f in &off_table {
        let _ = writeln!(
            out,
            "  {f}: its top-level module is on no floor; add it to FLOORS in tests/architecture.rs"
        );
    }
    (up.len() + off_table.len(), out)
}

fn report_circles(g: &Graph) -> (usize, String) {
    let found = circles(g);
    let mut out = format!("rule 2, no circle of files: {} circle(s)\n", found.len());
    for (k, circle) in found.iter().enumerate() {
        let names: Vec<&str> = circle.iter().map(|&f| g.files[f].as_str()).collect();
        let _ = writeln!(
            out,
            "  circle {} of {}: {}",
            k + 1,
            found.len(),
            names.join(", ")
        );
        for (&(from, to), names) in &g.edges {
            let inside = circle.contains(&from) && circle.contains(&to);
            if inside && g.parent[from] != Some(to) && g.parent[to] != Some(from) {
                let _ = writeln!(
                    out,
                    "    {} -> {}: {}",
                    g.files[from],
                    g.files[to],
                    sample(names)
                );
            }
        }
    }
    (found.len(), out)
}

/// The crate's own `src/`, read once for all the rules.
fn this_crate() -> &'static (Graph, String) {
    static GRAPH: OnceLock<(Graph, String)> = OnceLock::new();
    GRAPH.get_or_init(|| {
        let start = Instant::now();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut paths = Vec::new();
        rs_files(&root.join("src"), &mut paths);
        let sources: BTreeMap<String, String> = paths
            .iter()
            .map(|p| {
                let rel = p
                    .strip_prefix(root)
                    .expect("under the crate")
                    .to_string_lossy()
                    .replace('\\', "/");
                (
                    rel,
                    std::fs::read_to_string(p).expect("a source file is readable"),
                )
            })
            .collect();
        let g = reader::graph(&sources, ROOTS);
        let mut head = format!(
            "architecture: {} files of src/ read, {} file-to-file references, in {} ms\n",
            g.files.len(),
            g.edges.len(),
            start.elapsed().as_millis()
        );
        for note in &g.notes {
            let _ = writeln!(head, "  note: {note}");
        }
        if !g.unresolved.is_empty() {
            let shown: Vec<&str> = g
                .unresolved
                .iter()
                .take(SAMPLE)
                .map(String::as_str)
                .collect();
            let _ = writeln!(
                head,
                "  note: {} name(s) found in no definition, counted to their module's file: {}",
                g.unresolved.len(),
                shown.join(", ")
            );
        }
        (g, head)
    })
}

#[test]
fn no_import_up_a_floor() {
    let (g, head) = this_crate();
    let (count, report) = report_up_arrows(g, FLOORS);
    println!("{head}{report}");
    assert_eq!(
        count, 0,
        "rule 1 broken: see the list above (the floors are FLOORS in tests/architecture.rs)"
    );
}

#[test]
fn no_circle_of_files() {
    let (g, head) = this_crate();
    let (count, report) = report_circles(g);
    println!("{head}{report}");
    assert_eq!(count, 0, "rule 2 broken: see the circles above; move what both sides share to where both can import it");
}

/// The rules see only what the reader reads: a file no `mod` reaches, a
/// `mod` without its file or a file misread would hide references.
#[test]
fn the_reader_reads_every_file_of_src() {
    let (g, head) = this_crate();
    println!("{head}");
    assert!(
        g.notes.is_empty(),
        "the reader missed files: see the notes above"
    );
}

#[test]
fn no_file_over_the_line_limit() {
    let long = long_files(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        LINE_LIMIT_DIRS,
        MAX_LINES,
    );
    let mut report = format!(
        "rule 3, no source file over {MAX_LINES} lines: {} file(s) over\n",
        long.len()
    );
    for (path, lines) in &long {
        let _ = writeln!(report, "  {path}: {lines} lines");
    }
    println!("{report}");
    assert!(
        long.is_empty(),
        "rule 3 broken: split the files above by topic"
    );
}

// --------------------------------------------------- the reader's tests --

fn idents(toks: &[Token]) -> Vec<&str> {
    toks.iter()
        .filter(|t| t.kind == Kind::Ident)
        .map(|t| t.text.as_str())
        .collect()
}

#[test]
fn lexer_drops_comments_and_literals() {
    let src = r###"// use crate::line_comment;
/* crate::block /* nested crate::inner */ crate::after_nested */
/// doc crate::doc_line
//! inner doc crate::inner_doc
let s = "crate::string \" crate::escaped";
let r = r#"crate::raw "quoted" "#; let rr = r##"a "# crate::hashes"##;
let b = b"crate::bytes"; let br = br#"crate::raw_bytes"#; let bc = b'\''; let c = '"';
let q = '\''; let bs = '\\'; let u = '\u{1F600}';
fn f<'a>(x: &'a str) -> &'static str { 'outer: loop { break 'outer x; } }
let r#type = 1;
crate::real::Item
"###;
    let toks = lex(src);
    let ids = idents(&toks);
    let strs: Vec<&str> = toks
        .iter()
        .filter(|t| t.kind == Kind::Str)
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(
        strs,
        [
            r#"crate::string \" crate::escaped"#,
            r#"crate::raw "quoted" "#,
            r##"a "# crate::hashes"##,
            "crate::bytes",
            "crate::raw_bytes"
        ]
    );
    for hidden in [
        "line_comment",
        "block",
        "inner",
        "after_nested",
        "doc_line",
        "inner_doc",
        "escaped",
        "hashes",
        "outer",
    ] {
        assert!(
            !ids.contains(&hidden),
            "{hidden} leaked out of a comment or literal: {ids:?}"
        );
    }
    for seen in ["f", "x", "str", "loop", "break", "r#type", "real", "Item"] {
        assert!(ids.contains(&seen), "{seen} missing: {ids:?}");
    }
    let real = toks
        .iter()
        .find(|t| t.text == "real")
        .expect("the path after the literals");
    assert_eq!(
        real.line, 11,
        "lines are counted through comments and literals"
    );
    assert_eq!(toks.iter().filter(|t| t.text == "::").count(), 2);
}

#[test]
fn use_trees_expand_to_one_import_per_name() {
    let toks = lex("crate::a::{self, b::{c as d, *}, e, f::{self as g}}; use ::std::x;");
    let mut out = Vec::new();
    let end = use_tree(&toks, 0, &[], &mut out);
    assert_eq!(text(&toks, end), ";");
    let got: Vec<(String, Option<&str>)> = out
        .iter()
        .map(|i| (i.segs.join("::"), i.bind.as_deref()))
        .collect();
    let want = [
        ("crate::a", Some("a")),
        ("crate::a::b::c", Some("d")),
        ("crate::a::b", None),
        ("crate::a::e", Some("e")),
        ("crate::a::f", Some("g")),
    ];
    assert_eq!(got, want.map(|(s, b)| (s.to_string(), b)));
    let mut out = Vec::new();
    use_tree(&toks, end + 2, &[], &mut out);
    assert_eq!(
        out[0].segs,
        ["::", "std", "x"],
        "a leading `::` marks another crate"
    );
}

/// A small crate in memory: re-exports, globs, inline modules, `#[path]`,
/// a parent with its children, an arrow up and a circle.
fn mini_crate() -> Graph {
    let files = [
        ("src/lib.rs", "pub mod low; pub mod high; pub mod a; pub mod b; pub use high::Up;"),
        (
            "src/low/mod.rs",
            "mod error; mod part; mod deep; pub use error::Error; pub use part::*;
             pub(crate) use crate::high::Up as Raised; pub fn helper() {}
             impl Error { fn method() {} }",
        ),
        ("src/low/error.rs", "pub struct Error; // crate::high::Up in a comment\n fn s() { let _ = \"crate::b::B\"; }"),
        (
            "src/low/part.rs",
            "pub struct Part; fn f() { super::helper(); }
             #[cfg(test)] mod tests { use super::*; use super::super::Error; fn t() -> Part { Part } }",
        ),
        ("src/low/deep.rs", "use super::*; fn f(_: Error) {}"),
        (
            "src/high.rs",
            "use crate::low; pub struct Up; fn f() { low::Part; crate::low::Error; }
             mod inner { use super::super::low::Error as E; fn g() { self::super::Up; } }",
        ),
        ("src/a.rs", "use crate::b::B; pub struct A; #[path = \"odd/c_file.rs\"] pub mod c;"),
        ("src/odd/c_file.rs", "pub fn c() { let _ = crate::b::B; }"),
        (
            "src/b.rs",
            "pub struct B; fn f() -> crate::a::A { crate::a::c::c(); crate::low::Missing; todo!() }",
        ),
        ("src/orphan.rs", "pub struct Lost;"),
    ];
    let sources = files
        .iter()
        .map(|(p, s)| (p.to_string(), s.to_string()))
        .collect();
    reader::graph(&sources, ROOTS)
}

#[test]
fn the_reader_resolves_names_to_their_defining_file() {
    let g = mini_crate();
    let mut got = BTreeSet::new();
    for (&(from, to), names) in &g.edges {
        for (label, _) in names {
            got.insert(format!("{} -> {}: {label}", g.files[from], g.files[to]));
        }
    }
    let want: BTreeSet<String> = [
        "src/low/mod.rs -> src/low/error.rs: Error",
        "src/low/mod.rs -> src/low/part.rs: mod part",
        "src/low/mod.rs -> src/high.rs: Up",
        "src/low/part.rs -> src/low/mod.rs: helper",
        "src/low/part.rs -> src/low/error.rs: Error",
        "src/low/deep.rs -> src/low/mod.rs: mod low",
        "src/low/deep.rs -> src/low/error.rs: Error",
        "src/high.rs -> src/low/mod.rs: mod low",
        "src/high.rs -> src/low/part.rs: Part",
        "src/high.rs -> src/low/error.rs: Error",
        "src/a.rs -> src/b.rs: B",
        "src/odd/c_file.rs -> src/b.rs: B",
        "src/b.rs -> src/a.rs: A",
        "src/b.rs -> src/odd/c_file.rs: c",
        "src/b.rs -> src/low/mod.rs: Missing",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(got, want);
    assert!(
        g.notes.iter().any(|n| n.starts_with("src/orphan.rs")),
        "{:?}",
        g.notes
    );
    assert_eq!(
        g.unresolved,
        ["low::Missing"],
        "a name defined nowhere is listed"
    );
}

#[test]
fn the_rules_find_the_arrow_up_and_the_circle() {
    let g = mini_crate();
    let floors = [("high", 2), ("low", 1), ("a", 1), ("b", 1), ("odd", 1)];
    let (up, off_table) = up_arrows(&g, &floors);
    let up: Vec<(&str, &str)> = up
        .iter()
        .map(|&(a, b)| (g.files[a].as_str(), g.files[b].as_str()))
        .collect();
    assert_eq!(up, [("src/low/mod.rs", "src/high.rs")]);
    assert!(off_table.is_empty());
    let (_, off_table) = up_arrows(&g, &floors[1..]);
    assert_eq!(
        off_table,
        ["src/high.rs"],
        "a module on no floor is reported"
    );
    let found: Vec<Vec<&str>> = circles(&g)
        .iter()
        .map(|c| c.iter().map(|&f| g.files[f].as_str()).collect())
        .collect();
    // low/mod.rs <-> low/part.rs is a parent and its child: no circle;
    // low/mod.rs re-exports high's `Up` while high uses low: a circle.
    let want = [
        vec!["src/a.rs", "src/b.rs", "src/odd/c_file.rs"],
        vec!["src/high.rs", "src/low/mod.rs"],
    ];
    assert_eq!(found, want);
    let (count, report) = report_circles(&g);
    assert_eq!(count, 2);
    assert!(
        report.contains("src/b.rs -> src/a.rs: A (line 1)"),
        "{report}"
    );
    assert!(
        !report.contains("src/a.rs -> src/odd/c_file.rs"),
        "parent and child edges are not part of a circle: {report}"
    );
}
