//! The five papers flashix reproduces, in one place: `flashix list` prints
//! them, `RESULTS.md` names them in its head, and the README lists them (a
//! test holds it to this table). Everywhere else a paper is cited by its
//! short form, first author and year, followed by the paper's own section,
//! table or figure: "Roh et al. 2009 §6.1, Fig. 6".

use std::fmt::Write as _;

/// One paper: the structure flashix builds from it and its full reference.
#[derive(Clone, Copy, Debug)]
pub struct Paper {
    /// How flashix cites it: the first author's surname, "et al.", the year.
    pub cite: &'static str,
    /// The index structure it proposes, as the README's tables name it.
    pub structure: &'static str,
    pub authors: &'static str,
    pub title: &'static str,
    /// Where it appeared, with volume and pages.
    pub venue: &'static str,
    pub year: u16,
    pub doi: Option<&'static str>,
}

impl Paper {
    /// "Authors. *Title.* Venue. doi:…" (Markdown emphasis on the title).
    pub fn reference(&self) -> String {
        let mut s = format!("{}. *{}.* {}.", self.authors, self.title, self.venue);
        if let Some(doi) = self.doi {
            let _ = write!(s, " doi:{doi}");
        }
        s
    }

    /// The same for a terminal: no Markdown emphasis.
    pub fn reference_plain(&self) -> String {
        self.reference().replace('*', "")
    }
}

/// The papers, in the order the README lists them.
pub const PAPERS: [Paper; 5] = [
    Paper {
        cite: "Wu et al. 2003",
        structure: "BFTL",
        authors: "Chin-Hsien Wu, Li-Pin Chang, Tei-Wei Kuo",
        title: "An Efficient B-Tree Layer for Flash-Memory Storage Systems",
        venue: "RTCSA 2003, LNCS 2968, Springer, 2004, pp. 409–430",
        year: 2003,
        doi: None,
    },
    Paper {
        cite: "Roh et al. 2009",
        structure: "MB-Tree",
        authors: "Hongchan Roh, Woo-Cheol Kim, Seungwoo Kim, Sanghyun Park",
        title:
            "A B-Tree index extension to enhance response time and the life cycle of flash memory",
        venue: "Information Sciences 179(18), 2009, pp. 3136–3161",
        year: 2009,
        doi: Some("10.1016/j.ins.2009.05.007"),
    },
    Paper {
        cite: "Li et al. 2009",
        structure: "FD-tree",
        authors: "Yinan Li, Bingsheng He, Qiong Luo, Ke Yi",
        title: "Tree Indexing on Flash Disks",
        venue: "ICDE 2009, pp. 1303–1306",
        year: 2009,
        doi: None,
    },
    Paper {
        cite: "Kim et al. 2014",
        structure: "AS B-tree",
        authors: "Sungho Kim, Hongchan Roh, Daewook Lee, Sanghyun Park",
        title: "AS B-tree: A Study of an Efficient B+-tree for SSDs",
        venue: "Journal of Information Science and Engineering 30(1), 2014, pp. 85–106",
        year: 2014,
        doi: None,
    },
    Paper {
        cite: "Agrawal et al. 2009",
        structure: "Buffered-B+ tree",
        authors: "Devesh Agrawal, Deepak Ganesan, Ramesh Sitaraman, Yanlei Diao, Shashi Singh",
        title: "Flash-Optimized Index Structures for Embedded Systems",
        venue:
            "University of Massachusetts Amherst; published as *Lazy-Adaptive Tree: An Optimized \
                Index Structure for Flash Devices*, PVLDB 2(1), 2009, pp. 361–372",
        year: 2009,
        doi: Some("10.14778/1687627.1687669"),
    },
];

/// The paragraph of `RESULTS.md`'s head that names the papers once, so
/// that a table cell's "Roh et al. 2009 §6.1" can stay short.
pub fn references_md() -> String {
    let mut md = String::from(
        "**The papers.** A source is cited by first author and year with the paper's own section, \
         table or figure (\"Roh et al. 2009 §6.1, Fig. 6\"):\n\n",
    );
    for p in &PAPERS {
        let _ = writeln!(md, "- {} ({}): {}", p.cite, p.structure, p.reference());
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `s` with every run of whitespace one space (the README wraps lines).
    fn one_line(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn each_short_form_is_the_first_authors_surname_and_the_year_and_names_one_paper() {
        for p in &PAPERS {
            let first = p.authors.split(',').next().unwrap_or_default();
            let surname = first.split_whitespace().last().unwrap_or_default();
            assert_eq!(p.cite, format!("{surname} et al. {}", p.year));
            assert!(p.venue.contains(&p.year.to_string()), "{}", p.cite);
            let same = PAPERS.iter().filter(|q| q.cite == p.cite).count();
            assert_eq!(same, 1, "{} names {same} papers", p.cite);
        }
    }

    #[test]
    fn the_readme_lists_each_paper_as_this_table_does() {
        let readme = one_line(include_str!("../../README.md"));
        for p in &PAPERS {
            for part in [p.cite, p.structure, p.authors, p.title] {
                assert!(readme.contains(part), "README lacks {part:?} of {}", p.cite);
            }
            assert!(
                readme.contains(&one_line(&p.reference())),
                "README: {}",
                p.cite
            );
        }
    }

    /// A source that points into a paper (a section, table or figure) says
    /// which paper by its short form; the experiments of no paper (the FTL's
    /// write amplification, the durability cost) name their models instead.
    #[test]
    fn every_section_an_experiment_quotes_names_its_paper_by_the_short_form() {
        let points = |s: &str| ["§", "Table", "Fig."].iter().any(|m| s.contains(m));
        let cites = |s: &str| PAPERS.iter().any(|p| s.contains(p.cite));
        let all = crate::experiment::experiments()
            .into_iter()
            .chain(crate::experiment::opt_in_experiments());
        let mut pointing = 0;
        for e in all {
            for source in std::iter::once(e.source).chain(e.published.iter().map(|h| h.source)) {
                if points(source) {
                    pointing += 1;
                    assert!(cites(source), "{}: {source}", e.id);
                }
            }
        }
        assert!(pointing > 0);
    }

    #[test]
    fn the_results_head_names_every_paper_once() {
        let md = references_md();
        for p in &PAPERS {
            assert_eq!(md.matches(&format!("- {} (", p.cite)).count(), 1);
            assert!(md.contains(p.title));
        }
    }
}
