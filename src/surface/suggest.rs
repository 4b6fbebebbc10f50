//! `sota suggest`: for kernel files no op covers, the best op — a row the
//! matrix already has, or one from the catalog — with the signals that
//! chose it and the exact glob edit; and applying those edits to the matrix
//! text with `toml_edit`, so every comment and every untouched byte stays.

use std::collections::BTreeMap;
use std::path::Path;

use crate::index::OpIndex;
use crate::matrix::{Date, Matrix};
use crate::repo::paths::PathList;
use crate::surface::coverage;
use crate::surface::init::detect::{self, Detector, Kind};
use crate::surface::init::globs;
use crate::surface::init::signals::{self, Evidence, Signals};

/// Everything the suggestions need besides the matrix and the catalog.
pub struct Input<'a> {
    /// The matrix root; files are read under it.
    pub root: &'a Path,
    /// Tracked paths, root-relative, sorted.
    pub tracked: &'a PathList,
    /// The files to place (root-relative); see [`uncovered`].
    pub files: &'a [String],
}

/// The op proposed for one file.
#[derive(Clone, Debug)]
pub struct Proposal {
    pub slug: String,
    pub title: String,
    /// The matrix already has this row (else it comes from the catalog).
    pub existing_row: bool,
    /// The catalog the proposed row comes from (`<built-in catalog>` or a
    /// team catalog's file); `None` for a row the matrix already has.
    pub catalog: Option<String>,
    pub score: u32,
    pub evidence: Vec<Evidence>,
    /// The glob the edit adds that matches this file.
    pub glob: String,
}

/// One file's answer.
#[derive(Clone, Debug)]
pub struct Suggestion {
    pub file: String,
    pub kind: Option<Kind>,
    /// Ops that already cover it (then there is nothing to propose).
    pub covered_by: Vec<String>,
    /// Whether the file exists under the root.
    pub exists: bool,
    pub proposal: Option<Proposal>,
}

/// One edit of the matrix: globs added to a row, or a new row.
#[derive(Clone, Debug)]
pub struct Edit {
    pub slug: String,
    pub new_row: bool,
    pub add_files: Vec<String>,
    /// For a new row, the catalog's description of the op.
    pub title: String,
    pub sota: String,
    pub link: Option<String>,
    pub papers: Vec<String>,
}

/// Every suggestion and the edits that apply them.
#[derive(Clone, Debug)]
pub struct Report {
    pub suggestions: Vec<Suggestion>,
    pub edits: Vec<Edit>,
}

/// The kernel files (the scorecard's population) no op covers.
pub fn uncovered(matrix: &Matrix, tracked: &PathList) -> Vec<String> {
    // Only the population is needed; the date does not change it.
    coverage::score(
        matrix,
        &coverage::Input {
            tracked,
            tracked_from: coverage::Tracked::GitIndex,
            today: Date::from_days_since_epoch(0),
        },
    )
    .uncovered
    .lossy()
    .map(std::borrow::Cow::into_owned)
    .collect()
}

/// Propose an op for each file.
pub fn suggest(matrix: &Matrix, catalog: &Matrix, input: &Input<'_>) -> Report {
    let signals = Signals::for_catalog(catalog);
    let detector = Detector::new();
    let mut index = OpIndex::new(matrix).ok();
    let mut suggestions = Vec::new();
    let confined = crate::matrix::Confined::new(input.root);
    let mut buf = vec![0u8; detect::PREFIX_BYTES];
    for file in input.files {
        let covered_by: Vec<String> = match index.as_mut() {
            Some(ix) => {
                let mut slugs: Vec<String> = ix
                    .matches(file)
                    .iter()
                    .map(|m| matrix.ops[m.op].slug.value.clone())
                    .collect();
                slugs.dedup();
                slugs
            }
            None => Vec::new(),
        };
        let read = super::init::read_prefix(&confined, file, &mut buf);
        let exists = read.is_some();
        let buf = &buf[..read.unwrap_or(0)];
        let kind = detector.detect(file, buf);
        // A name the matrix refuses cannot be written into it: no edit.
        let proposal = if covered_by.is_empty() && crate::matrix::can_hold(file) {
            propose(
                matrix,
                catalog,
                &signals,
                index.as_mut(),
                input.tracked,
                file,
                kind,
                buf,
            )
        } else {
            None
        };
        suggestions.push(Suggestion {
            file: file.clone(),
            kind,
            covered_by,
            exists,
            proposal,
        });
    }
    let edits = edits(matrix, catalog, input, &mut suggestions);
    Report { suggestions, edits }
}

#[allow(clippy::too_many_arguments)]
fn propose(
    matrix: &Matrix,
    catalog: &Matrix,
    signals: &Signals,
    index: Option<&mut OpIndex<'_>>,
    tracked: &PathList,
    file: &str,
    kind: Option<Kind>,
    prefix: &[u8],
) -> Option<Proposal> {
    // slug → (score, evidence)
    let mut scores: BTreeMap<String, (u32, Vec<Evidence>, usize)> = BTreeMap::new();
    for (order, c) in signals.rank(file, kind, prefix).into_iter().enumerate() {
        scores.insert(signals.ops[c.op].slug.clone(), (c.score, c.evidence, order));
    }
    // A row that covers a file beside this one with the same first name token.
    if let Some(index) = index {
        let stem_tokens = signals::tokens(signals::stem(file));
        if let Some(first) = stem_tokens.first() {
            let dir = file.rfind('/').map_or("", |i| &file[..=i]);
            for sib in siblings(tracked, dir) {
                if sib == file || signals::tokens(signals::stem(sib)).first() != Some(first) {
                    continue;
                }
                for m in index.matches(sib) {
                    let slug = matrix.ops[m.op].slug.value.clone();
                    let e = scores.entry(slug).or_insert((0, Vec::new(), usize::MAX));
                    if !e.1.iter().any(|x| matches!(x, Evidence::Neighbour(_))) {
                        e.0 += 40;
                        e.1.push(Evidence::Neighbour(sib.to_owned()));
                    }
                }
            }
        }
    }
    let (slug, (score, evidence, _)) = scores
        .into_iter()
        .filter(|(_, (s, _, _))| *s >= signals::THRESHOLD)
        .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .2.cmp(&a.1 .2)))?;
    let (title, existing_row, from) = match matrix.op(&slug) {
        Some(op) => (op.title.clone(), true, None),
        None => {
            let op = catalog.op(&slug)?;
            let from = match &op.team {
                Some(team) => team.name.clone(),
                None => crate::catalog::PSEUDO_PATH.to_owned(),
            };
            (op.title.clone(), false, Some(from))
        }
    };
    Some(Proposal {
        slug,
        title,
        existing_row,
        catalog: from,
        score,
        evidence,
        glob: String::new(),
    })
}

/// Tracked files directly in `dir` (which ends with `/`, or is empty).
fn siblings<'a>(tracked: &'a PathList, dir: &str) -> Vec<&'a str> {
    let d = dir.as_bytes();
    let (mut lo, mut hi) = (0, tracked.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if tracked.get(mid) < d {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let mut out = Vec::new();
    for i in lo..tracked.len() {
        let p = tracked.get(i);
        if !p.starts_with(d) {
            break;
        }
        if !p[d.len()..].contains(&b'/') {
            if let Ok(s) = std::str::from_utf8(p) {
                out.push(s);
            }
        }
        if out.len() > 10_000 {
            break;
        }
    }
    out
}

/// Group the proposals by op and write the tightest globs for each group.
fn edits(
    matrix: &Matrix,
    catalog: &Matrix,
    input: &Input<'_>,
    suggestions: &mut [Suggestion],
) -> Vec<Edit> {
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, s) in suggestions.iter().enumerate() {
        if let Some(p) = &s.proposal {
            groups.entry(p.slug.clone()).or_default().push(i);
        }
    }
    if groups.is_empty() {
        return Vec::new();
    }
    // Every tracked file is in the tree (and every target, tracked or not),
    // and every one counts, docs and build files too: a glob may match
    // only the group's targets and files its row already covers.
    let tracked: Vec<std::borrow::Cow<'_, str>> = input.tracked.lossy().collect();
    let mut tree = globs::Tree::default();
    let mut pending: std::collections::BTreeSet<&str> = groups
        .values()
        .flatten()
        .map(|&i| suggestions[i].file.as_str())
        .collect();
    for p in &tracked {
        tree.insert(p, false);
        pending.remove(p.as_ref());
    }
    for t in pending {
        tree.insert(t, false);
    }
    // The tracked files each row with a proposal already covers.
    let mut covered: BTreeMap<&str, Vec<&str>> = groups
        .keys()
        .filter(|slug| matrix.op(slug).is_some())
        .map(|slug| (slug.as_str(), Vec::new()))
        .collect();
    if !covered.is_empty() {
        if let Some(ix) = OpIndex::new(matrix).ok().as_mut() {
            for p in &tracked {
                for m in ix.matches(p) {
                    let slug = matrix.ops[m.op].slug.value.as_str();
                    if let Some(files) = covered.get_mut(slug) {
                        if files.last() != Some(&p.as_ref()) {
                            files.push(p);
                        }
                    }
                }
            }
        }
    }
    let every = |_: &str| true;
    let mut out = Vec::new();
    for (slug, members) in &groups {
        let mut target_refs: Vec<&str> = members
            .iter()
            .map(|&i| suggestions[i].file.as_str())
            .collect();
        target_refs.sort_unstable();
        target_refs.dedup();
        let free = covered.get(slug.as_str()).map_or(&[][..], Vec::as_slice);
        let add_files = tree.cover_beside(
            &target_refs,
            free,
            globs::Options {
                whole_dirs: true,
                ext_globs: false,
                counts: &every,
            },
        );
        for &i in members {
            let file = suggestions[i].file.clone();
            if let Some(p) = suggestions[i].proposal.as_mut() {
                p.glob = add_files
                    .iter()
                    .find(|g| crate::glob::FileGlob::new(g).is_ok_and(|g| g.is_match(&file)))
                    .cloned()
                    .unwrap_or_else(|| globs::escape(&file));
            }
        }
        let new_row = matrix.op(slug).is_none();
        let cat = catalog.op(slug);
        out.push(Edit {
            title: cat.map_or_else(|| slug.clone(), |c| c.title.clone()),
            sota: cat.map(|c| c.sota.clone()).unwrap_or_default(),
            link: cat.and_then(|c| c.link.as_ref().map(|l| l.value.clone())),
            papers: cat.map(|c| c.papers.clone()).unwrap_or_default(),
            slug: slug.clone(),
            new_row,
            add_files,
        });
    }
    out
}

/// Why the edits could not be applied.
#[derive(Debug)]
pub struct ApplyError(pub String);

/// The matrix text with the edits applied: globs appended to `files` of the
/// named rows (the array keeps its layout), new `[[op]]` rows appended at
/// the end. Everything else is left byte for byte.
pub fn apply(text: &str, edits: &[Edit]) -> Result<String, ApplyError> {
    use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, Value};
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| ApplyError(e.to_string()))?;
    for edit in edits {
        if !edit.new_row {
            let tables = doc
                .get_mut("op")
                .and_then(Item::as_array_of_tables_mut)
                .ok_or_else(|| ApplyError("the matrix has no [[op]] rows".into()))?;
            let table = tables
                .iter_mut()
                .find(|t| t.get("slug").and_then(Item::as_str) == Some(edit.slug.as_str()))
                .ok_or_else(|| ApplyError(format!("no [[op]] with slug `{}`", edit.slug)))?;
            match table.get_mut("files").and_then(Item::as_array_mut) {
                Some(files) => append(files, &edit.add_files),
                None => {
                    let mut files = Array::new();
                    for g in &edit.add_files {
                        files.push(g.as_str());
                    }
                    table.insert("files", Item::Value(Value::Array(files)));
                }
            }
            continue;
        }
        let mut t = Table::new();
        t.insert("slug", toml_edit::value(edit.slug.as_str()));
        t.insert("title", toml_edit::value(edit.title.as_str()));
        let mut files = Array::new();
        for g in &edit.add_files {
            files.push(g.as_str());
        }
        t.insert("files", Item::Value(Value::Array(files)));
        t.insert("sota", toml_edit::value(edit.sota.as_str()));
        if let Some(link) = &edit.link {
            t.insert("link", toml_edit::value(link.as_str()));
        }
        if !edit.papers.is_empty() {
            let mut papers = Array::new();
            for p in &edit.papers {
                papers.push(p.as_str());
            }
            t.insert("papers", Item::Value(Value::Array(papers)));
        }
        t.decor_mut().set_prefix(
            "\n# Proposed by `sota suggest` from the catalog: decide `route` and `oracle`.\n",
        );
        match doc.get_mut("op").and_then(Item::as_array_of_tables_mut) {
            Some(tables) => tables.push(t),
            None => {
                let mut tables = ArrayOfTables::new();
                tables.push(t);
                doc.insert("op", Item::ArrayOfTables(tables));
            }
        }
    }
    Ok(doc.to_string())
}

/// Append strings to an array in the layout it already has: one per line
/// when it is written one per line.
fn append(files: &mut toml_edit::Array, globs: &[String]) {
    let last_prefix = files
        .iter()
        .last()
        .and_then(|v| v.decor().prefix())
        .and_then(|p| p.as_str())
        // A comment after the previous comma lives in this prefix: keep
        // only the line break and indentation.
        .and_then(|p| p.rfind('\n').map(|i| p[i..].to_owned()));
    for g in globs {
        files.push(g.as_str());
        if let (Some(prefix), Some(v)) = (&last_prefix, files.iter_mut().last()) {
            v.decor_mut().set_prefix(prefix.as_str());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WITH_COMMENTS: &str = r#"# Our kernels.
[project]
name = "demo"   # the project
reviewed = 2026-06-26

[[op]]
slug = "fused-attention"  # attention
title = "Fused attention"
files = [
  "kernels/attn/",   # the main path
  "kernels/common.cuh",
]
sota = "FlashAttention"

# end of file
"#;

    fn edit(slug: &str, new_row: bool, files: &[&str]) -> Edit {
        Edit {
            slug: slug.into(),
            new_row,
            add_files: files.iter().map(|s| s.to_string()).collect(),
            title: "RMSNorm".into(),
            sota: "FlashInfer".into(),
            link: Some("https://github.com/flashinfer-ai/flashinfer".into()),
            papers: vec![],
        }
    }

    #[test]
    fn appending_to_a_row_keeps_every_other_byte() {
        let out = apply(
            WITH_COMMENTS,
            &[edit("fused-attention", false, &["kernels/fattn*"])],
        )
        .unwrap();
        let expected = WITH_COMMENTS.replace(
            "  \"kernels/common.cuh\",\n",
            "  \"kernels/common.cuh\",\n  \"kernels/fattn*\",\n",
        );
        assert_eq!(out, expected);
        Matrix::from_str(&out, "sota.toml").unwrap();
    }

    #[test]
    fn a_new_row_is_appended_and_loads() {
        let out = apply(
            WITH_COMMENTS,
            &[edit("normalization", true, &["kernels/norm.cu"])],
        )
        .unwrap();
        let block = "\n# Proposed by `sota suggest` from the catalog: decide `route` and `oracle`.\n\
                     [[op]]\nslug = \"normalization\"\ntitle = \"RMSNorm\"\nfiles = [\"kernels/norm.cu\"]\n\
                     sota = \"FlashInfer\"\nlink = \"https://github.com/flashinfer-ai/flashinfer\"\n";
        let expected = WITH_COMMENTS.replace(
            "sota = \"FlashAttention\"\n",
            &format!("sota = \"FlashAttention\"\n{block}"),
        );
        assert_eq!(out, expected);
        let m = Matrix::from_str(&out, "sota.toml").unwrap();
        assert_eq!(
            m.op("normalization").unwrap().files[0].as_str(),
            "kernels/norm.cu"
        );
    }
}
