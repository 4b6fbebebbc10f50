//! The lookup surface (SPEC 3.1): resolve what the user typed — a slug, a
//! file, or search words — against the matrix, and rank search hits.
//!
//! Pure: the working directory is passed in, nothing is printed.

use std::path::{Path, PathBuf};

use crate::index::OpIndex;
use crate::matrix::{Matrix, Op};

pub use crate::did_you_mean::did_you_mean;

/// What a query resolved to.
#[derive(Debug)]
pub enum Lookup<'m> {
    /// The query is an op's slug.
    Op(&'m Op),
    /// The query is a path that some ops' `files` match.
    File {
        path: String,
        hits: Vec<FileHit<'m>>,
    },
    /// Ranked search hits, best first.
    Search {
        query: String,
        hits: Vec<SearchHit<'m>>,
    },
    /// Nothing matched.
    NotFound(NotFound<'m>),
}

/// An op whose `files` match the looked-up path.
#[derive(Debug)]
pub struct FileHit<'m> {
    pub op: &'m Op,
    /// The glob (as written) that matched.
    pub glob: &'m str,
}

/// One search result.
#[derive(Debug)]
pub struct SearchHit<'m> {
    pub op: &'m Op,
    pub score: u32,
}

/// Nothing matched: what to suggest instead.
#[derive(Debug)]
pub struct NotFound<'m> {
    pub query: String,
    /// The root-relative path tried, when the query looked like a path.
    pub path: Option<String>,
    /// Slugs close to the query.
    pub did_you_mean: Vec<&'m str>,
    /// Every slug, sorted.
    pub slugs: Vec<&'m str>,
}

/// Resolve `query` against `matrix`; relative paths are taken from `cwd`.
pub fn lookup<'m>(matrix: &'m Matrix, query: &str, cwd: &Path) -> Lookup<'m> {
    let query = query.trim();
    if let Some(op) = matrix.op(query) {
        return Lookup::Op(op);
    }
    let candidates = path_candidates(query, cwd, &matrix.root);
    if !candidates.is_empty() && matrix.ops.iter().any(|op| !op.files.is_empty()) {
        let paths: Vec<&str> = candidates.iter().map(String::as_str).collect();
        let mut index = OpIndex::for_paths(matrix, &paths);
        for path in &candidates {
            let hits: Vec<FileHit<'m>> = index
                .matches(path)
                .into_iter()
                .map(|m| {
                    let op = &matrix.ops[m.op];
                    FileHit {
                        op,
                        glob: op.files[m.glob].value.as_str(),
                    }
                })
                .collect();
            if !hits.is_empty() {
                return Lookup::File {
                    path: path.clone(),
                    hits,
                };
            }
        }
    }
    let hits = search(matrix, query);
    if !hits.is_empty() {
        return Lookup::Search {
            query: query.to_owned(),
            hits,
        };
    }
    let mut slugs: Vec<&str> = matrix.ops.iter().map(|op| op.slug.value.as_str()).collect();
    slugs.sort_unstable();
    let looks_like_path =
        query.contains(['/', '\\']) || Path::new(strip_line_col(query)).extension().is_some();
    Lookup::NotFound(NotFound {
        query: query.to_owned(),
        path: candidates.into_iter().next().filter(|_| looks_like_path),
        did_you_mean: crate::did_you_mean::did_you_mean(query, slugs.iter().copied()),
        slugs,
    })
}

/// Drop a trailing `:LINE` or `:LINE:COL` (as editors and compilers print).
pub fn strip_line_col(query: &str) -> &str {
    let mut rest = query;
    for _ in 0..2 {
        match rest.rsplit_once(':') {
            Some((head, tail))
                if !head.is_empty()
                    && !tail.is_empty()
                    && tail.bytes().all(|b| b.is_ascii_digit()) =>
            {
                rest = head;
            }
            _ => break,
        }
    }
    rest
}

/// Root-relative `/`-separated paths the query may denote, most likely first:
/// the path relative to `cwd` (or absolute) when it falls inside the root,
/// then the query itself as root-relative when that cwd-based path does not
/// exist.
pub fn path_candidates(query: &str, cwd: &Path, root: &Path) -> Vec<String> {
    let raw = strip_line_col(query).replace('\\', "/");
    if raw.is_empty() {
        return Vec::new();
    }
    let root_abs = absolute(root, cwd);
    let given = Path::new(&raw);
    let full = absolute(given, cwd);
    let mut out = Vec::new();
    let roots = [
        Some(root_abs.clone()),
        std::fs::canonicalize(&root_abs).ok(),
    ];
    let fulls = [Some(full.clone()), std::fs::canonicalize(&full).ok()];
    'found: for f in fulls.iter().flatten() {
        for r in roots.iter().flatten() {
            if let Ok(rel) = f.strip_prefix(r) {
                if let Some(rel) = to_slash(rel) {
                    out.push(rel);
                    break 'found;
                }
            }
        }
    }
    let is_absolute = given.is_absolute() || raw.starts_with('/');
    if !is_absolute && !full.exists() {
        if let Some(rel) = to_slash(&crate::lexical::lexical(given)) {
            if !out.contains(&rel) {
                out.push(rel);
            }
        }
    }
    out
}

fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    crate::lexical::lexical(&cwd.join(path))
}

fn to_slash(rel: &Path) -> Option<String> {
    if rel.as_os_str().is_empty() || rel.starts_with("..") {
        return None;
    }
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    parts.map(|p| p.join("/"))
}

/// Field weights for ranked search: a hit in the slug counts most.
const WEIGHTS: [(Field, u32); 7] = [
    (Field::Slug, 8),
    (Field::Title, 5),
    (Field::Sota, 4),
    (Field::Papers, 3),
    (Field::Note, 2),
    (Field::Where, 1),
    (Field::Oracle, 1),
];

#[derive(Clone, Copy)]
enum Field {
    Slug,
    Title,
    Sota,
    Papers,
    Note,
    Where,
    Oracle,
}

fn field_text(op: &Op, field: Field) -> String {
    match field {
        Field::Slug => op.slug.value.clone(),
        Field::Title => op.title.clone(),
        Field::Sota => op.sota.clone(),
        Field::Papers => op.papers.join(" "),
        Field::Note => op.note.clone().unwrap_or_default(),
        Field::Where => op.where_.clone().unwrap_or_default(),
        Field::Oracle => op.oracle.clone().unwrap_or_default(),
    }
    .to_lowercase()
}

/// Rank ops against search words. An op must match every word somewhere;
/// each word scores the weight of the best field it occurs in, doubled for a
/// whole-word match. Ties break by slug.
pub fn search<'m>(matrix: &'m Matrix, query: &str) -> Vec<SearchHit<'m>> {
    let words: Vec<String> = query
        .to_lowercase()
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    if words.is_empty() {
        return Vec::new();
    }
    let mut hits: Vec<SearchHit<'m>> = matrix
        .ops
        .iter()
        .filter_map(|op| {
            let texts: Vec<(String, u32)> = WEIGHTS
                .iter()
                .map(|&(f, w)| (field_text(op, f), w))
                .collect();
            let mut score = 0;
            for word in &words {
                let best = texts
                    .iter()
                    .filter_map(|(text, weight)| {
                        if !text.contains(word.as_str()) {
                            return None;
                        }
                        let whole = text
                            .split(|c: char| !c.is_alphanumeric() && c != '.' && c != '_')
                            .any(|t| t == word.as_str());
                        Some(if whole { weight * 2 } else { *weight })
                    })
                    .max()?;
                score += best;
            }
            Some(SearchHit { op, score })
        })
        .collect();
    hits.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then_with(|| a.op.slug.value.cmp(&b.op.slug.value))
    });
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_suffixes_are_dropped() {
        assert_eq!(strip_line_col("a/b.cu:12"), "a/b.cu");
        assert_eq!(strip_line_col("a/b.cu:12:5"), "a/b.cu");
        assert_eq!(strip_line_col("a/b.cu"), "a/b.cu");
        assert_eq!(strip_line_col("C:\\x.cu"), "C:\\x.cu");
    }

    #[test]
    fn paths_resolve_from_a_subdirectory_and_absolutely() {
        let root = Path::new("/repo");
        assert_eq!(
            path_candidates("k.cu", Path::new("/repo/src"), root)[0],
            "src/k.cu"
        );
        assert_eq!(
            path_candidates("/repo/src/k.cu:3:1", Path::new("/elsewhere"), root),
            vec!["src/k.cu"]
        );
        assert_eq!(
            path_candidates("..\\lib\\k.cu", Path::new("/repo/src"), root)[0],
            "lib/k.cu"
        );
        // Outside the root: taken as root-relative.
        assert_eq!(
            path_candidates("src/k.cu", Path::new("/other"), root),
            vec!["src/k.cu"]
        );
    }
}
