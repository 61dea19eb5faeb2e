//! A summary (`RESULTS.md`) read back from its text: its `## ` sections,
//! their headline tables, and the totals that open it.
//!
//! The totals are counted from the document as it will be written, never
//! from the runs of one command: `reproduce ID --summary FILE` replaces or
//! inserts some sections and keeps the rest (an opt-in section that
//! `reproduce all` does not run, one from an older regeneration), and the
//! file, not the command line, says what it holds. A headline table is read
//! by its header's names, so a section written before the `kind` column
//! existed still counts: every row of it as a claim, and it is flagged.
//!
//! The totals sit between two HTML comments ([`BEGIN`], [`END`]) right after
//! the summary's opening paragraph; writing them again replaces them.

use std::fmt::Write as _;

/// The line that opens the totals (an HTML comment: Markdown shows nothing).
pub const BEGIN: &str =
    "<!-- totals: counted by flashix from the headline tables below, rewritten with the file -->";
/// The line that closes them.
pub const END: &str = "<!-- /totals -->";

/// The `## ` sections of `body` (which starts with one), each with its text.
pub fn split_sections(body: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = body.match_indices("\n## ").map(|(i, _)| i + 1).collect();
    if body.starts_with("## ") {
        starts.insert(0, 0);
    }
    starts
        .iter()
        .enumerate()
        .map(|(k, &a)| &body[a..starts.get(k + 1).copied().unwrap_or(body.len())])
        .collect()
}

/// The experiment id a section is headed by (`## ID: title`).
pub fn section_id(section: &str) -> &str {
    let heading = section.lines().next().unwrap_or_default();
    let heading = heading.strip_prefix("## ").unwrap_or(heading);
    heading.split(':').next().unwrap_or_default().trim()
}

/// Where the sections of `doc` begin: its first `## ` line (or its end).
fn first_section(doc: &str) -> usize {
    if doc.starts_with("## ") {
        0
    } else {
        doc.find("\n## ").map_or(doc.len(), |i| i + 1)
    }
}

/// What one section's headline tables hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Count {
    pub claims: usize,
    pub claim_direction_misses: usize,
    /// Claims whose measured / published lies outside 1.5× ("within 1.5×":
    /// no).
    pub claim_ratio_misses: usize,
    pub variants: usize,
    pub variant_direction_misses: usize,
}

impl Count {
    fn add(&mut self, o: &Count) {
        self.claims += o.claims;
        self.claim_direction_misses += o.claim_direction_misses;
        self.claim_ratio_misses += o.claim_ratio_misses;
        self.variants += o.variants;
        self.variant_direction_misses += o.variant_direction_misses;
    }
}

/// One section of a summary, as its text gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub id: String,
    pub count: Count,
    /// It has a published-vs-measured table.
    pub headlines: bool,
    /// A headline table of it has no `kind` column (an older format): its
    /// rows are counted as claims.
    pub no_kind_column: bool,
    /// It says it was not run (a missing input).
    pub not_run: bool,
}

/// The cells of a table row: split at every `|` not escaped as `\|`.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let (mut out, mut cell) = (Vec::new(), String::new());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => out.push(std::mem::take(&mut cell)),
            c => cell.push(c),
        }
    }
    out.push(cell);
    out.iter().map(|s| s.trim().to_string()).collect()
}

/// A verdict cell that says the row misses.
fn misses(cell: Option<&String>) -> bool {
    cell.is_some_and(|c| c.starts_with("**no**"))
}

/// Reads one section: every headline table in it (a table whose header's
/// first column is `headline`), each row by its header's column names.
pub fn read_section(text: &str) -> Section {
    let mut s = Section {
        id: section_id(text).to_string(),
        count: Count::default(),
        headlines: false,
        no_kind_column: false,
        not_run: text.contains("**Not run here.**"),
    };
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if !line.starts_with("| headline |") {
            continue;
        }
        s.headlines = true;
        let header = cells(line);
        let col = |name: &str| header.iter().position(|h| h.starts_with(name));
        let (kind, direction, within) = (col("kind"), col("direction"), col("within"));
        s.no_kind_column |= kind.is_none();
        // The separator, then the rows up to the table's end.
        let rows = lines.by_ref().skip(1).take_while(|l| l.starts_with('|'));
        for row in rows {
            let row = cells(row);
            let at = |i: Option<usize>| i.and_then(|i| row.get(i));
            let direction_missed = misses(at(direction));
            if at(kind).is_some_and(|k| k == "variant") {
                s.count.variants += 1;
                s.count.variant_direction_misses += usize::from(direction_missed);
            } else {
                s.count.claims += 1;
                s.count.claim_direction_misses += usize::from(direction_missed);
                s.count.claim_ratio_misses += usize::from(misses(at(within)));
            }
        }
    }
    s
}

/// Every section of a summary, in order.
pub fn read_sections(doc: &str) -> Vec<Section> {
    let doc = without_totals(doc);
    split_sections(&doc[first_section(&doc)..])
        .into_iter()
        .map(read_section)
        .collect()
}

/// The totals block over `sections`; `opt_in` names the experiments
/// `reproduce all` does not run.
pub fn totals_md(sections: &[Section], opt_in: &[&str]) -> String {
    let mut all = Count::default();
    for s in sections {
        all.add(&s.count);
    }
    let named = |keep: &dyn Fn(&Section) -> bool| -> Vec<&str> {
        sections
            .iter()
            .filter(|s| keep(s))
            .map(|s| s.id.as_str())
            .collect()
    };
    let present_opt_in = named(&|s| opt_in.contains(&s.id.as_str()));
    let old = named(&|s| s.no_kind_column);
    let not_run = named(&|s| s.not_run);
    let mut md = format!("{BEGIN}\n");
    let _ = write!(
        md,
        "**Totals** over the {} sections below{}: **{} claims** (a paper's statement, under the setup it \
         states), of which **{} miss their direction** and **{} their ratio** (measured / published \
         outside 1.5× either way); **{} variants** (a run with a changed or unstated parameter, counted \
         apart), of which {} miss their direction.",
        sections.len(),
        if present_opt_in.is_empty() {
            String::new()
        } else {
            format!(
                ", the opt-in ones `reproduce all` does not run included ({})",
                present_opt_in.join(", ")
            )
        },
        all.claims,
        all.claim_direction_misses,
        all.claim_ratio_misses,
        all.variants,
        all.variant_direction_misses,
    );
    if !not_run.is_empty() {
        let _ = write!(md, " Not run here: {}.", not_run.join(", "));
    }
    if !old.is_empty() {
        let _ = write!(
            md,
            " Written before the `kind` column, every row counted as a claim: {}.",
            old.join(", ")
        );
    }
    md.push_str(
        "\n\n| section | claims | direction misses | ratio misses | variants | variants' direction misses | notes |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for s in sections {
        let mut notes: Vec<&str> = Vec::new();
        if opt_in.contains(&s.id.as_str()) {
            notes.push("opt-in: `reproduce all` does not run it");
        }
        if s.not_run {
            notes.push("not run here");
        } else if !s.headlines {
            notes.push("no published numbers");
        }
        if s.no_kind_column {
            notes.push("no kind column: every row counted as a claim");
        }
        let c = &s.count;
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            s.id,
            c.claims,
            c.claim_direction_misses,
            c.claim_ratio_misses,
            c.variants,
            c.variant_direction_misses,
            notes.join("; ")
        );
    }
    let _ = writeln!(
        md,
        "| **all** | **{}** | **{}** | **{}** | **{}** | **{}** | |\n\n{END}",
        all.claims,
        all.claim_direction_misses,
        all.claim_ratio_misses,
        all.variants,
        all.variant_direction_misses,
    );
    md
}

/// `doc` without its totals block (and the blank line after it).
fn without_totals(doc: &str) -> String {
    let Some(a) = doc.find(BEGIN) else {
        return doc.to_string();
    };
    let Some(e) = doc[a..].find(END).map(|e| a + e + END.len()) else {
        return doc.to_string();
    };
    let rest = &doc[e..];
    let rest = rest.strip_prefix('\n').unwrap_or(rest);
    let rest = rest.strip_prefix('\n').unwrap_or(rest);
    format!("{}{rest}", &doc[..a])
}

/// Where the totals go: after a summary's title and its opening paragraph,
/// or first in a summary with no head.
fn totals_at(doc: &str) -> usize {
    let head = &doc[..first_section(doc)];
    if !head.starts_with("# ") {
        return 0;
    }
    let title_end = head.find('\n').map_or(head.len(), |i| i + 1);
    let paragraph = head.len() - head[title_end..].trim_start().len();
    head[paragraph..]
        .find("\n\n")
        .map_or(head.len(), |i| paragraph + i + 2)
}

/// `doc` opened by the totals over the sections it holds (the old totals,
/// if any, replaced).
pub fn with_totals(doc: &str, opt_in: &[&str]) -> String {
    let doc = without_totals(doc);
    let block = totals_md(&read_sections(&doc), opt_in);
    let at = totals_at(&doc);
    format!("{}{block}\n{}", &doc[..at], &doc[at..])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A section written before the `kind` column: every row is counted
    /// as a claim, by its verdict columns' names, and it is flagged.
    #[test]
    fn a_section_without_a_kind_column_counts_every_row_as_a_claim() {
        let old = "## old-fig: an older regeneration\n\n\
             | headline | source | published | measured | durable | measured / published | direction holds | within 1.5× |\n\
             |---|---|---|---|---|---|---|---|\n\
             | a \\| b | s | 2 | 1.5 | = | 0.75 | yes | yes |\n\
             | c | s | 2 | 0.5 | = | 0.25 | **no** | **no** |\n\
             | d | s | 2 | 3.5 | = | 1.75 | yes | **no** |\n\n\
             **Where and why they differ.** | not | a | table |\n";
        let s = read_section(old);
        assert_eq!(s.id, "old-fig");
        assert!(s.headlines && s.no_kind_column && !s.not_run);
        let count = Count {
            claims: 3,
            claim_direction_misses: 1,
            claim_ratio_misses: 2,
            variants: 0,
            variant_direction_misses: 0,
        };
        assert_eq!(s.count, count);
        let md = totals_md(&[s], &[]);
        assert!(
            md.contains(
                "| old-fig | 3 | 1 | 2 | 0 | 0 | no kind column: every row counted as a claim |"
            ),
            "{md}"
        );
        assert!(
            md.contains("Written before the `kind` column, every row counted as a claim: old-fig."),
            "{md}"
        );
    }

    /// The kind column decides claim or variant, whatever its place; a
    /// variant's ratio miss is not a claim's.
    #[test]
    fn rows_are_read_by_their_columns_names() {
        let section = "## new-fig: t\n\n\
             | headline | kind | source | published | measured | durable | measured / published | direction holds | within 1.5× |\n\
             |---|---|---|---|---|---|---|---|---|\n\
             | a | claim | s | 2 | 0.5 | = | 0.25 | **no** (at 1, 2 of 3 points) | **no** (at 1 of 3 points) |\n\
             | b | variant | s | 2 | 0.5 | = | 0.25 | **no** | **no** |\n\
             | c | variant | s | 2 | 2 | = | 1.00 | yes (near tie: 1.000) | yes |\n\
             | d | claim | s | 2 | — (not run at --quick scale: no x run at 5) | = | — | — | — |\n";
        let s = read_section(section);
        assert!(!s.no_kind_column);
        let count = Count {
            claims: 2,
            claim_direction_misses: 1,
            claim_ratio_misses: 1,
            variants: 2,
            variant_direction_misses: 1,
        };
        assert_eq!(s.count, count);
    }

    /// The totals go after the title and the opening paragraph, once,
    /// however often they are written; a summary with no head opens
    /// with them.
    #[test]
    fn the_totals_open_the_summary_once() {
        let doc = "# Results\n\nGenerated by flashix.\nSecond line.\n\n**More.** text\n\n## a: t\n\nNothing.\n";
        let once = with_totals(doc, &[]);
        assert!(
            once.starts_with(&format!("# Results\n\nGenerated by flashix.\nSecond line.\n\n{BEGIN}\n**Totals** over the 1 sections below:")),
            "{once}"
        );
        assert!(
            once.contains(&format!("{END}\n\n**More.** text\n\n## a: t\n")),
            "{once}"
        );
        assert_eq!(with_totals(&once, &[]), once);
        assert_eq!(without_totals(&once), doc);
        let headless = with_totals("## a: t\n\nNothing.\n", &[]);
        assert!(headless.starts_with(BEGIN), "{headless}");
        assert!(
            headless.ends_with(&format!("{END}\n\n## a: t\n\nNothing.\n")),
            "{headless}"
        );
        assert_eq!(with_totals(&headless, &[]), headless);
    }
}
