//! The reader behind `tests/architecture.rs`: Rust source to the graph of
//! which file of `src/` references an item defined in which other file.
//!
//! Only std, so the rules cost no dependency: a lexer that drops comments
//! and literals (lifetimes are not char literals); `use` trees expanded to
//! one import per name; the module tree walked from `lib.rs` through
//! `mod x;` (with `#[path]`) and inline `mod x { … }`; and a resolver that
//! takes a path written in a module (`crate::`, `self::`, `super::`, a name
//! a `use` bound, a child module, a name a glob from another file brings)
//! to the file that defines the item, through re-exports and globs. Paths
//! into other crates are dropped. A name its module neither defines nor
//! imports is counted to the module's file and listed as unresolved, so a
//! blind spot of the reader shows instead of hiding an edge.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// How deep re-exports and `use` chains are followed (a guard against loops).
const MAX_DEPTH: usize = 32;

// ---------------------------------------------------------------- lexer --

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Punct,
    /// A string literal; its text is kept for `#[path = "…"]`.
    Str,
    /// Any other literal, or a lifetime: nothing to resolve.
    Lit,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub kind: Kind,
    pub text: String,
    pub line: usize,
}

fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Rust source to tokens, without comments (nested block comments and doc
/// comments included); `::` is one token, every other punctuation one char.
pub fn lex(src: &str) -> Vec<Token> {
    let mut lx = Lexer {
        c: src.chars().collect(),
        i: 0,
        line: 1,
        out: Vec::new(),
    };
    lx.run();
    lx.out
}

struct Lexer {
    c: Vec<char>,
    i: usize,
    line: usize,
    out: Vec<Token>,
}

impl Lexer {
    fn at(&self, k: usize) -> Option<char> {
        self.c.get(self.i + k).copied()
    }

    fn bump(&mut self) {
        if let Some(c) = self.at(0) {
            self.line += usize::from(c == '\n');
            self.i += 1;
        }
    }

    fn push(&mut self, kind: Kind, text: String, line: usize) {
        self.out.push(Token { kind, text, line });
    }

    fn run(&mut self) {
        while let Some(ch) = self.at(0) {
            let line = self.line;
            if ch.is_whitespace() {
                self.bump();
            } else if ch == '/' && self.at(1) == Some('/') {
                while self.at(0).is_some_and(|c| c != '\n') {
                    self.bump();
                }
            } else if ch == '/' && self.at(1) == Some('*') {
                self.block_comment();
            } else if ch == '"' {
                self.bump();
                let s = self.quoted();
                self.push(Kind::Str, s, line);
            } else if ch == '\'' {
                if self.at(1) == Some('\\') || self.at(2) == Some('\'') {
                    self.char_literal();
                    self.push(Kind::Lit, "'.'".into(), line);
                } else {
                    // A lifetime or a loop label, never a char literal.
                    let start = self.i;
                    self.bump();
                    while self.at(0).is_some_and(is_ident_char) {
                        self.bump();
                    }
                    let text = self.c[start..self.i].iter().collect();
                    self.push(Kind::Lit, text, line);
                }
            } else if ch.is_ascii_digit() {
                let start = self.i;
                while let Some(c) = self.at(0) {
                    let fraction = c == '.' && self.at(1).is_some_and(|d| d.is_ascii_digit());
                    if !(is_ident_char(c) || fraction) {
                        break;
                    }
                    self.bump();
                }
                let text = self.c[start..self.i].iter().collect();
                self.push(Kind::Lit, text, line);
            } else if is_ident_char(ch) {
                self.word(line);
            } else if ch == ':' && self.at(1) == Some(':') {
                self.i += 2;
                self.push(Kind::Punct, "::".into(), line);
            } else {
                self.bump();
                self.push(Kind::Punct, ch.to_string(), line);
            }
        }
    }

    fn block_comment(&mut self) {
        let mut depth = 0usize;
        while let Some(ch) = self.at(0) {
            if ch == '/' && self.at(1) == Some('*') {
                depth += 1;
                self.i += 2;
            } else if ch == '*' && self.at(1) == Some('/') {
                depth -= 1;
                self.i += 2;
                if depth == 0 {
                    return;
                }
            } else {
                self.bump();
            }
        }
    }

    /// A string's body after its opening quote, escapes kept as written;
    /// consumes the closing quote.
    fn quoted(&mut self) -> String {
        let mut s = String::new();
        while let Some(ch) = self.at(0) {
            self.bump();
            match ch {
                '"' => return s,
                '\\' => {
                    s.push(ch);
                    if let Some(escaped) = self.at(0) {
                        s.push(escaped);
                        self.bump();
                    }
                }
                _ => s.push(ch),
            }
        }
        s
    }

    /// A raw string's body after `r#…#"`; consumes the closing `"#…#`.
    fn raw(&mut self, hashes: usize) -> String {
        let mut s = String::new();
        while let Some(ch) = self.at(0) {
            if ch == '"' && (1..=hashes).all(|k| self.at(k) == Some('#')) {
                self.i += 1 + hashes;
                return s;
            }
            s.push(ch);
            self.bump();
        }
        s
    }

    /// A char literal from its opening quote: `'x'`, `'\''`, `'\u{1F600}'`.
    fn char_literal(&mut self) {
        self.bump();
        if self.at(0) == Some('\\') {
            self.bump();
        }
        self.bump();
        while self.at(0).is_some_and(|c| c != '\'') {
            self.bump();
        }
        self.bump();
    }

    /// An identifier, or a literal with a prefix: `b"…"`, `b'…'`, `c"…"`,
    /// raw strings `r"…"`, `r#"…"#`, `br#"…"#`, `cr"…"`; raw identifiers
    /// `r#type` keep their `r#`, so they are never taken for keywords.
    fn word(&mut self, line: usize) {
        let start = self.i;
        while self.at(0).is_some_and(is_ident_char) {
            self.bump();
        }
        let word: String = self.c[start..self.i].iter().collect();
        match (word.as_str(), self.at(0)) {
            ("b" | "c", Some('"')) => {
                self.bump();
                let s = self.quoted();
                self.push(Kind::Str, s, line);
            }
            ("b", Some('\'')) => {
                self.char_literal();
                self.push(Kind::Lit, "b'.'".into(), line);
            }
            ("r" | "br" | "cr", Some('"' | '#')) => {
                let hashes = (0..).take_while(|&k| self.at(k) == Some('#')).count();
                if self.at(hashes) == Some('"') {
                    self.i += hashes + 1;
                    let s = self.raw(hashes);
                    self.push(Kind::Str, s, line);
                } else if word == "r" && hashes == 1 {
                    self.i += 1;
                    let from = self.i;
                    while self.at(0).is_some_and(is_ident_char) {
                        self.bump();
                    }
                    let name: String = self.c[from..self.i].iter().collect();
                    self.push(Kind::Ident, format!("r#{name}"), line);
                } else {
                    self.push(Kind::Ident, word, line);
                }
            }
            _ => self.push(Kind::Ident, word, line),
        }
    }
}

pub fn text(toks: &[Token], i: usize) -> &str {
    toks.get(i).map_or("", |t| t.text.as_str())
}

/// The index of the bracket closing the one at `open`.
fn matching(toks: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().skip(open) {
        if t.kind != Kind::Punct {
            continue;
        }
        match t.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    toks.len()
}

// ------------------------------------------------------------ use trees --

/// One name a `use` binds: the path as written (a leading `::` kept as a
/// segment) and the name it binds, `None` for a glob.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    pub segs: Vec<String>,
    pub bind: Option<String>,
    pub line: usize,
}

/// Expands the `use` tree starting at `toks[i]` into `out` (nested braces,
/// `self`, `as` renames, globs); returns the index of the token after it.
pub fn use_tree(toks: &[Token], mut i: usize, prefix: &[String], out: &mut Vec<Import>) -> usize {
    let mut path = prefix.to_vec();
    while let Some(t) = toks.get(i) {
        match t.text.as_str() {
            "::" => {
                if path.is_empty() {
                    path.push("::".into());
                }
                i += 1;
            }
            "*" => {
                out.push(Import {
                    segs: path,
                    bind: None,
                    line: t.line,
                });
                return i + 1;
            }
            "{" => {
                i += 1;
                while let Some(t) = toks.get(i) {
                    match t.text.as_str() {
                        "}" => return i + 1,
                        "," => i += 1,
                        _ => {
                            let next = use_tree(toks, i, &path, out);
                            if next == i {
                                return i;
                            }
                            i = next;
                        }
                    }
                }
                return i;
            }
            _ if t.kind == Kind::Ident => {
                path.push(t.text.clone());
                i += 1;
                if text(toks, i) == "::" {
                    i += 1;
                    continue;
                }
                if path.last().is_some_and(|s| s == "self") {
                    path.pop();
                }
                let mut bind = path.last().cloned();
                if text(toks, i) == "as" {
                    bind = toks.get(i + 1).map(|t| t.text.clone());
                    i += 2;
                }
                if bind.is_some() {
                    out.push(Import {
                        segs: path,
                        bind,
                        line: t.line,
                    });
                }
                return i;
            }
            _ => return i,
        }
    }
    i
}

// --------------------------------------------------------- module tree --

struct Module {
    file: usize,
    /// From the crate root, inline modules included.
    path: Vec<String>,
    parent: Option<usize>,
    children: HashMap<String, usize>,
    /// Items defined at the module's own level (not in impls or bodies).
    defs: HashSet<String>,
    /// `use` at the module's level: what it makes visible to its children
    /// and, if public, to the crate.
    imports: Vec<Import>,
    /// `use` inside function bodies and blocks: for the module's own code.
    locals: Vec<Import>,
}

/// A path the code names, with the module it is written in.
struct Ref {
    module: usize,
    segs: Vec<String>,
    line: usize,
}

/// Where a name leads: the file defining it and how to show it.
struct Target {
    file: usize,
    label: String,
}

/// The file-to-file graph of the crate rooted at `src/lib.rs` in `sources`
/// (path → text); `roots` are left out of it.
pub fn graph(sources: &BTreeMap<String, String>, roots: &[&str]) -> Graph {
    Crate::read(sources, roots).graph()
}

/// The crate as read: its modules, files and the paths each one names.
#[derive(Default)]
struct Crate {
    files: Vec<String>,
    file_module: Vec<usize>,
    modules: Vec<Module>,
    refs: Vec<Ref>,
    /// Names written bare that a glob from another file may bring in, with
    /// the line they first appear on.
    bare: BTreeMap<(usize, String), usize>,
    notes: Vec<String>,
    /// Files left out of the graph (the crate roots).
    roots: Vec<String>,
    /// Names a module neither defines nor imports (macro-made, or the
    /// reader's blind spots): attributed to that module's file.
    unresolved: RefCell<BTreeSet<String>>,
}

/// Per-edge names: (label, first line).
pub type Names = Vec<(String, usize)>;

/// File-to-file references of the crate, the roots left out.
pub struct Graph {
    pub files: Vec<String>,
    pub edges: BTreeMap<(usize, usize), Names>,
    /// The file of each file's parent module, if another file.
    pub parent: Vec<Option<usize>>,
    pub notes: Vec<String>,
    pub unresolved: Vec<String>,
}

impl Crate {
    /// Reads the crate rooted at `src/lib.rs` from `sources` (path → text).
    fn read(sources: &BTreeMap<String, String>, roots: &[&str]) -> Crate {
        let mut c = Crate {
            roots: roots.iter().map(|r| r.to_string()).collect(),
            ..Crate::default()
        };
        let root = c.add_module("src/lib.rs", None, String::new());
        let mut queue = vec![root];
        while let Some(m) = queue.pop() {
            let text = &sources[&c.files[c.modules[m].file]];
            c.walk(m, text, sources, &mut queue);
        }
        for path in sources.keys() {
            let in_src = path.starts_with("src/") && !roots.contains(&path.as_str());
            if in_src && !c.files.contains(path) {
                c.notes
                    .push(format!("{path}: no `mod` reaches it, not checked"));
            }
        }
        c
    }

    /// A module with a file of its own, or an inline one (`file` empty: it
    /// lives in its parent's file).
    fn add_module(&mut self, file: &str, parent: Option<usize>, name: String) -> usize {
        let id = self.modules.len();
        let own_file = !file.is_empty();
        let file = if own_file {
            self.files.push(file.to_string());
            self.file_module.push(id);
            self.files.len() - 1
        } else {
            parent.map_or(0, |p| self.modules[p].file)
        };
        let mut path = parent.map_or(Vec::new(), |p| self.modules[p].path.clone());
        if let Some(p) = parent {
            path.push(name.clone());
            self.modules[p].children.insert(name.clone(), id);
            self.modules[p].defs.insert(name);
        }
        self.modules.push(Module {
            file,
            path,
            parent,
            children: HashMap::new(),
            defs: HashSet::new(),
            imports: Vec::new(),
            locals: Vec::new(),
        });
        id
    }

    /// Reads one file: its modules, items, `use` declarations and paths.
    fn walk(
        &mut self,
        top: usize,
        src: &str,
        sources: &BTreeMap<String, String>,
        queue: &mut Vec<usize>,
    ) {
        let toks = lex(src);
        let file = self.files[self.modules[top].file].clone();
        let dir = file.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        let stem = file
            .rsplit('/')
            .next()
            .unwrap_or("")
            .trim_end_matches(".rs");
        let own_dir = match stem {
            "mod" | "lib" | "main" => dir.clone(),
            _ => format!("{dir}/{stem}"),
        };
        // (module, brace depth of its body, folder of its `mod x;` files)
        let mut scopes = vec![(top, 0usize, own_dir)];
        let mut depth = 0usize;
        let mut path_attr: Option<String> = None;
        let mut i = 0;
        while let Some(t) = toks.get(i) {
            let (cur, body, ref mod_dir) =
                *scopes.last().expect("the file's scope is never popped");
            let mod_dir = mod_dir.clone();
            let at_module_level = depth == body;
            let prev = if i > 0 { text(&toks, i - 1) } else { "" };
            match (t.kind, t.text.as_str()) {
                (Kind::Punct, "#") => {
                    let open = if text(&toks, i + 1) == "!" {
                        i + 2
                    } else {
                        i + 1
                    };
                    if text(&toks, open) == "[" {
                        let close = matching(&toks, open);
                        let is_path =
                            text(&toks, open + 1) == "path" && text(&toks, open + 2) == "=";
                        if is_path && toks.get(open + 3).is_some_and(|t| t.kind == Kind::Str) {
                            path_attr = Some(toks[open + 3].text.clone());
                        }
                        i = close + 1;
                        continue;
                    }
                }
                (Kind::Punct, "{") => depth += 1,
                (Kind::Punct, "}") => {
                    depth = depth.saturating_sub(1);
                    if scopes.len() > 1 && depth < body {
                        scopes.pop();
                    }
                }
                (Kind::Punct, ";") => path_attr = None,
                // `pub(crate)`, `pub(in crate::x)`: a visibility, not a path.
                (Kind::Ident, "pub") if text(&toks, i + 1) == "(" => {
                    i = matching(&toks, i + 1) + 1;
                    continue;
                }
                // `use<'a>` is a precise-capture bound, not an import.
                (Kind::Ident, "use") if text(&toks, i + 1) != "<" => {
                    let mut items = Vec::new();
                    i = use_tree(&toks, i + 1, &[], &mut items);
                    for imp in items {
                        self.refs.push(Ref {
                            module: cur,
                            segs: imp.segs.clone(),
                            line: imp.line,
                        });
                        let m = &mut self.modules[cur];
                        if at_module_level {
                            &mut m.imports
                        } else {
                            &mut m.locals
                        }
                        .push(imp);
                    }
                    continue;
                }
                (Kind::Ident, "mod") if toks.get(i + 1).is_some_and(|t| t.kind == Kind::Ident) => {
                    let name = text(&toks, i + 1).to_string();
                    match text(&toks, i + 2) {
                        ";" => {
                            let candidates = match path_attr.take() {
                                Some(p) if scopes.len() == 1 => {
                                    vec![normalize(&format!("{dir}/{p}"))]
                                }
                                Some(p) => vec![normalize(&format!("{mod_dir}/{p}"))],
                                None => vec![
                                    format!("{mod_dir}/{name}.rs"),
                                    format!("{mod_dir}/{name}/mod.rs"),
                                ],
                            };
                            match candidates.iter().find(|c| sources.contains_key(*c)) {
                                Some(found) if !self.files.contains(found) => {
                                    queue.push(self.add_module(found, Some(cur), name));
                                }
                                Some(_) => {}
                                None => self
                                    .notes
                                    .push(format!("{file}: `mod {name};` has no file here")),
                            }
                        }
                        "{" => {
                            let m = self.add_module("", Some(cur), name.clone());
                            scopes.push((m, depth + 1, format!("{mod_dir}/{name}")));
                        }
                        _ => {}
                    }
                    i += 2;
                    continue;
                }
                (
                    Kind::Ident,
                    "fn" | "struct" | "enum" | "trait" | "type" | "union" | "static" | "const",
                ) if at_module_level => {
                    let k = if text(&toks, i + 1) == "mut" {
                        i + 2
                    } else {
                        i + 1
                    };
                    if let Some(n) = toks.get(k).filter(|n| n.kind == Kind::Ident) {
                        if !matches!(n.text.as_str(), "fn" | "unsafe" | "async" | "extern" | "_") {
                            self.modules[cur].defs.insert(n.text.clone());
                        }
                    }
                }
                (Kind::Ident, "macro_rules") if text(&toks, i + 1) == "!" => {
                    self.modules[cur]
                        .defs
                        .insert(text(&toks, i + 2).to_string());
                }
                (Kind::Ident, name) if prev != "::" && prev != "." => {
                    if text(&toks, i + 1) == "::" {
                        if name != "Self" {
                            let mut segs = vec![name.to_string()];
                            let mut k = i;
                            while text(&toks, k + 1) == "::"
                                && toks.get(k + 2).is_some_and(|t| t.kind == Kind::Ident)
                            {
                                segs.push(toks[k + 2].text.clone());
                                k += 2;
                            }
                            self.refs.push(Ref {
                                module: cur,
                                segs,
                                line: t.line,
                            });
                            i = k + 1;
                            continue;
                        }
                    } else {
                        // A type or constant anywhere; a function or macro by its call.
                        let upper = name.starts_with(|c: char| c.is_uppercase());
                        if upper || matches!(text(&toks, i + 1), "(" | "!") {
                            self.bare.entry((cur, name.to_string())).or_insert(t.line);
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
        if depth != 0 || scopes.len() != 1 {
            let note = format!("{file}: its braces do not balance as read; the reader misread it");
            self.notes.push(note);
        }
    }

    /// The longest prefix of `abs` that is a module: (module, its length).
    fn module_at(&self, abs: &[String]) -> (usize, usize) {
        let mut m = 0;
        for (k, seg) in abs.iter().enumerate() {
            match self.modules[m].children.get(seg) {
                Some(&c) => m = c,
                None => return (m, k),
            }
        }
        (m, abs.len())
    }

    /// `segs` as written in module `m`, from the crate root; `None` for a
    /// path into another crate.
    fn absolutize(&self, m: usize, segs: &[String], depth: usize) -> Option<Vec<String>> {
        let (first, rest) = segs.split_first()?;
        if depth > MAX_DEPTH {
            return None;
        }
        let (mut base, mut rest) = match first.as_str() {
            "::" => return None,
            "crate" | "$crate" => (Vec::new(), rest),
            "self" => (self.modules[m].path.clone(), rest),
            "super" => (self.modules[m].path.clone(), segs),
            name => (self.in_scope(m, name, depth)?.0, rest),
        };
        if matches!(first.as_str(), "self" | "super") {
            while let Some((_, more)) = rest.split_first().filter(|(s, _)| *s == "super") {
                base.pop()?;
                rest = more;
            }
        }
        base.extend_from_slice(rest);
        Some(base)
    }

    /// What a name written in module `m` stands for, from the crate root,
    /// and whether a glob from another file brought it. Inline modules see
    /// their file's names (they `use super::*`).
    fn in_scope(&self, m: usize, name: &str, depth: usize) -> Option<(Vec<String>, bool)> {
        let mut cur = Some(m);
        while let Some(x) = cur {
            let md = &self.modules[x];
            if md.defs.contains(name) {
                let mut path = md.path.clone();
                path.push(name.to_string());
                return Some((path, false));
            }
            let all = || md.imports.iter().chain(&md.locals);
            let explicit =
                all().find(|imp| imp.bind.as_deref() == Some(name) && imp.segs != [name]);
            if let Some(imp) = explicit {
                return self.absolutize(x, &imp.segs, depth + 1).map(|p| (p, false));
            }
            for glob in all().filter(|imp| imp.bind.is_none()) {
                let Some(mut t) = self.absolutize(x, &glob.segs, depth + 1) else {
                    continue;
                };
                let (tm, len) = self.module_at(&t);
                let elsewhere = self.modules[tm].file != md.file;
                if len == t.len() && elsewhere && self.provides(tm, name, depth + 1) {
                    t.push(name.to_string());
                    return Some((t, true));
                }
            }
            cur = md.parent.filter(|&p| self.modules[p].file == md.file);
        }
        None
    }

    /// Whether module `m` defines or imports `name` (what `m::*` brings).
    fn provides(&self, m: usize, name: &str, depth: usize) -> bool {
        let md = &self.modules[m];
        if md.defs.contains(name)
            || md
                .imports
                .iter()
                .any(|imp| imp.bind.as_deref() == Some(name))
        {
            return true;
        }
        depth <= MAX_DEPTH
            && md
                .imports
                .iter()
                .filter(|imp| imp.bind.is_none())
                .any(|glob| {
                    self.absolutize(m, &glob.segs, depth + 1).is_some_and(|t| {
                        let (tm, len) = self.module_at(&t);
                        len == t.len() && tm != m && self.provides(tm, name, depth + 1)
                    })
                })
    }

    /// The file defining what the crate-rooted path `abs` names.
    fn resolve(&self, abs: &[String], depth: usize) -> Option<Target> {
        if depth > MAX_DEPTH {
            return None;
        }
        let (m, len) = self.module_at(abs);
        match abs.get(len) {
            None => {
                let label = format!("mod {}", abs.last()?);
                Some(Target {
                    file: self.modules[m].file,
                    label,
                })
            }
            Some(name) => self.item(m, name, &abs[len + 1..], depth),
        }
    }

    /// The file defining `name` of module `m`: `m`'s own, or the one its
    /// `use` (re-export, glob) leads to.
    fn item(&self, m: usize, name: &str, rest: &[String], depth: usize) -> Option<Target> {
        let md = &self.modules[m];
        if md.defs.contains(name) {
            return Some(Target {
                file: md.file,
                label: self.label(m, name),
            });
        }
        let explicit = md
            .imports
            .iter()
            .find(|imp| imp.bind.as_deref() == Some(name) && imp.segs != [name]);
        if let Some(imp) = explicit {
            let mut t = self.absolutize(m, &imp.segs, depth + 1)?;
            t.extend_from_slice(rest);
            return self.resolve(&t, depth + 1);
        }
        for glob in md.imports.iter().filter(|imp| imp.bind.is_none()) {
            let Some(t) = self.absolutize(m, &glob.segs, depth + 1) else {
                continue;
            };
            let (tm, len) = self.module_at(&t);
            if len == t.len() && tm != m && self.provides(tm, name, depth + 1) {
                return self.item(tm, name, rest, depth + 1);
            }
        }
        self.unresolved
            .borrow_mut()
            .insert(format!("{}::{name}", md.path.join("::")));
        Some(Target {
            file: md.file,
            label: self.label(m, name),
        })
    }

    /// `name` of module `m` as seen from its file (`tests::helper`).
    fn label(&self, m: usize, name: &str) -> String {
        let md = &self.modules[m];
        let top = self.modules[self.file_module[md.file]].path.len();
        let mut parts = md.path[top..].to_vec();
        parts.push(name.to_string());
        parts.join("::")
    }

    fn graph(&self) -> Graph {
        let mut edges: BTreeMap<(usize, usize), Names> = BTreeMap::new();
        let is_root = |f: usize| self.roots.contains(&self.files[f]);
        let mut add = |from: usize, target: Option<Target>, line: usize| {
            let Some(t) = target else { return };
            if t.file == from || is_root(from) || is_root(t.file) {
                return;
            }
            let names = edges.entry((from, t.file)).or_default();
            if !names.iter().any(|(l, _)| *l == t.label) {
                names.push((t.label, line));
            }
        };
        for r in &self.refs {
            let abs = self.absolutize(r.module, &r.segs, 0);
            add(
                self.modules[r.module].file,
                abs.and_then(|a| self.resolve(&a, 0)),
                r.line,
            );
        }
        for ((m, name), &line) in &self.bare {
            if let Some((abs, true)) = self.in_scope(*m, name, 0) {
                add(self.modules[*m].file, self.resolve(&abs, 0), line);
            }
        }
        for names in edges.values_mut() {
            names.sort_by_key(|&(_, line)| line);
        }
        let parent = (0..self.files.len())
            .map(|f| {
                self.modules[self.file_module[f]]
                    .parent
                    .map(|p| self.modules[p].file)
            })
            .collect();
        Graph {
            files: self.files.clone(),
            edges,
            parent,
            notes: self.notes.clone(),
            unresolved: self.unresolved.borrow().iter().cloned().collect(),
        }
    }
}

/// `a/b/../c.rs` → `a/c.rs`.
fn normalize(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                out.pop();
            }
            _ => out.push(part),
        }
    }
    out.join("/")
}
