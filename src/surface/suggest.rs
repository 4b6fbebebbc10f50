//! `sota suggest`: for kernel files no op covers, the best op — a row the
//! matrix already has, or one from the catalog — with the signals that
//! chose it and the exact glob edit; and applying those edits to the matrix
//! text with `toml_edit`, so every comment and every untouched byte stays.
//!
//! Fixing a draft: `--op SLUG` places the files in the op asked for (a row
//! of the matrix, one brought in from the catalog, or a custom one), moving
//! a covered file out of the rows that held it — each glob that matched it
//! is replaced by the tightest globs for what else it matched — and
//! `--ladder AXIS` brings in a catalog ladder.

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
    /// Place every file in this op, whatever the signals say (`--op`).
    pub op: Option<&'a Asked>,
}

/// The op a user asked for with `--op`, and what a new row would hold.
#[derive(Clone, Debug)]
pub struct Asked {
    pub slug: String,
    /// The row to add when neither the matrix nor the catalog has the slug
    /// (a custom op); `None` otherwise.
    pub custom: Option<CustomOp>,
}

/// A team's own op, not in the catalog.
#[derive(Clone, Debug)]
pub struct CustomOp {
    pub title: String,
    pub sota: String,
    pub link: Option<String>,
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
    /// Asked for with `--op` (no signals were weighed).
    pub asked: bool,
    /// A custom op `--op` described: neither the matrix nor the catalog
    /// has it.
    pub custom: bool,
}

/// One file's answer.
#[derive(Clone, Debug)]
pub struct Suggestion {
    pub file: String,
    pub kind: Option<Kind>,
    /// Ops that already cover it (then there is nothing to propose, unless
    /// `--op` asked for another: the file moves out of these).
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
    /// Globs the row loses (a file moved out: each is replaced by the
    /// globs in `add_files` that cover what else it matched).
    pub remove_files: Vec<String>,
    /// A new row for a custom op (`--op` with `--title`/`--sota`), not
    /// one from the catalog.
    pub custom: bool,
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
    /// Catalog ladders to bring in (`--ladder`), appended as they are in
    /// the catalog, with no rung claimed: reaching one takes a witness.
    pub ladders: Vec<crate::matrix::Ladder>,
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
            blob_ids: coverage::BlobIds::Skip,
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
    let confined = crate::repo::confined::Confined::new(input.root);
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
        let holdable = crate::matrix::can_hold(file);
        let proposal = if let Some(asked) = input.op {
            let only_there = covered_by.iter().all(|s| *s == asked.slug) && !covered_by.is_empty();
            (holdable && !only_there).then(|| asked_proposal(matrix, catalog, asked))
        } else if covered_by.is_empty() && holdable {
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
    Report {
        suggestions,
        edits,
        ladders: Vec::new(),
    }
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
    let mut weighed: BTreeMap<String, Weighed> = BTreeMap::new();
    for (order, c) in signals.rank(file, kind, prefix).into_iter().enumerate() {
        let w = Weighed {
            score: c.score,
            evidence: c.evidence,
            order,
            decided_neighbour: false,
        };
        weighed.insert(signals.ops[c.op].slug.clone(), w);
    }
    if let Some(index) = index {
        weigh_neighbours(matrix, signals, index, tracked, file, kind, &mut weighed);
    }
    let (
        slug,
        Weighed {
            score, evidence, ..
        },
    ) = weighed
        .into_iter()
        .filter(|(_, w)| w.score >= signals::THRESHOLD)
        .max_by_key(|(_, w)| (w.decided_neighbour, w.score, std::cmp::Reverse(w.order)))?;
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
        asked: false,
        custom: false,
    })
}

/// One op a file might go to, as [`propose`] weighs it.
struct Weighed {
    score: u32,
    evidence: Vec<Evidence>,
    /// Its place in the signals' ranking (`usize::MAX`: not ranked).
    order: usize,
    /// A row the team has decided covers a file beside this one.
    decided_neighbour: bool,
}

/// A row that covers a file beside `file` with the same first name token
/// is a neighbour. A drafted row's neighbour strengthens an op the file's
/// own evidence names and proposes nothing alone: on the files `init`
/// left for the team, it chose the hand matrix's grouping for 233 of
/// 1,092 (fit trees; a first token is as often a project's prefix,
/// `rocrand_`, `bli_`, as a kernel's name) and put scalar C in SIMD
/// backend ops. A row the team has decided (its `route` set) is the
/// team's grouping: its neighbour places the file there (when the row
/// may hold the file's kind) ahead of the catalog's signals. A file
/// taken out of a hand matrix with every route set went back to its op
/// for 947 of 1,821 (fit) and 551 of 1,082 (held out) this way; for 731
/// and 450 when a decided neighbour only added to the score
/// (`bench/suggest_corpus.py`).
fn weigh_neighbours(
    matrix: &Matrix,
    signals: &Signals,
    index: &mut OpIndex<'_>,
    tracked: &PathList,
    file: &str,
    kind: Option<Kind>,
    weighed: &mut BTreeMap<String, Weighed>,
) {
    let stem_tokens = signals::tokens(signals::stem(file));
    let Some(first) = stem_tokens.first() else {
        return;
    };
    let dir = file.rfind('/').map_or("", |i| &file[..=i]);
    for sib in siblings(tracked, dir) {
        if sib == file || signals::tokens(signals::stem(sib)).first() != Some(first) {
            continue;
        }
        for m in index.matches(sib) {
            let row = &matrix.ops[m.op];
            let slug = &row.slug.value;
            let decided = row.route.is_some() && signals.holds(slug, kind);
            if !decided && !weighed.contains_key(slug) {
                continue;
            }
            let w = weighed.entry(slug.clone()).or_insert(Weighed {
                score: 0,
                evidence: Vec::new(),
                order: usize::MAX,
                decided_neighbour: false,
            });
            w.decided_neighbour |= decided;
            if !w
                .evidence
                .iter()
                .any(|x| matches!(x, Evidence::Neighbour(_)))
            {
                w.score += 40;
                w.evidence.push(Evidence::Neighbour(sib.to_owned()));
            }
        }
    }
}

/// The proposal `--op` asked for: no signals weighed.
fn asked_proposal(matrix: &Matrix, catalog: &Matrix, asked: &Asked) -> Proposal {
    let title = matrix
        .op(&asked.slug)
        .or_else(|| catalog.op(&asked.slug))
        .map(|op| op.title.clone())
        .or_else(|| asked.custom.as_ref().map(|c| c.title.clone()))
        .unwrap_or_else(|| asked.slug.clone());
    let from = match (matrix.op(&asked.slug), catalog.op(&asked.slug)) {
        (None, Some(op)) => Some(match &op.team {
            Some(team) => team.name.clone(),
            None => crate::catalog::PSEUDO_PATH.to_owned(),
        }),
        _ => None,
    };
    Proposal {
        slug: asked.slug.clone(),
        title,
        catalog: from,
        existing_row: matrix.op(&asked.slug).is_some(),
        score: 0,
        evidence: Vec::new(),
        glob: String::new(),
        asked: true,
        custom: matrix.op(&asked.slug).is_none() && catalog.op(&asked.slug).is_none(),
    }
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
    let tracked: Vec<std::borrow::Cow<'_, str>> = input.tracked.lossy().collect();
    let tree = tree_of(&tracked, &groups, suggestions);
    let covered = covered_by_rows(matrix, &tracked, &groups);
    let mut moves = moves_out(matrix, &tree, &tracked, suggestions);
    let mut out = Vec::new();
    for (slug, members) in &groups {
        let free = covered.get(slug.as_str()).map_or(&[][..], Vec::as_slice);
        let add_files = place(&tree, slug, members, free, suggestions);
        let new_row = matrix.op(slug).is_none();
        let (remove_files, mut add_files) = match moves.remove(slug) {
            Some((remove, add)) => (remove, [add_files, add].concat()),
            None => (Vec::new(), add_files),
        };
        add_files.dedup();
        out.push(row_edit(
            catalog,
            input,
            slug,
            new_row,
            add_files,
            remove_files,
        ));
    }
    // Rows that only lose files.
    for (slug, (remove_files, add_files)) in moves {
        out.push(Edit {
            slug,
            new_row: false,
            add_files,
            remove_files,
            custom: false,
            title: String::new(),
            sota: String::new(),
            link: None,
            papers: Vec::new(),
        });
    }
    out
}

/// Every tracked file in one tree (and every target, tracked or not), and
/// every one counts, docs and build files too: a glob may match only the
/// group's targets and files its row already covers.
fn tree_of(
    tracked: &[std::borrow::Cow<'_, str>],
    groups: &BTreeMap<String, Vec<usize>>,
    suggestions: &[Suggestion],
) -> globs::Tree {
    let mut pending: std::collections::BTreeSet<&str> = groups
        .values()
        .flatten()
        .map(|&i| suggestions[i].file.as_str())
        .collect();
    for p in tracked {
        pending.remove(p.as_ref());
    }
    let tracked = tracked.iter().map(|p| (p.as_ref(), false));
    globs::Tree::from_paths(tracked.chain(pending.into_iter().map(|t| (t, false))))
}

/// The tracked files each existing row with a proposal already covers.
fn covered_by_rows<'t>(
    matrix: &Matrix,
    tracked: &'t [std::borrow::Cow<'_, str>],
    groups: &'t BTreeMap<String, Vec<usize>>,
) -> BTreeMap<&'t str, Vec<&'t str>> {
    let mut covered: BTreeMap<&str, Vec<&str>> = groups
        .keys()
        .filter(|slug| matrix.op(slug).is_some())
        .map(|slug| (slug.as_str(), Vec::new()))
        .collect();
    if covered.is_empty() {
        return covered;
    }
    if let Some(ix) = OpIndex::new(matrix).ok().as_mut() {
        for p in tracked {
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
    covered
}

/// The tightest globs that put one group's files in its row (`free`: what
/// the row covers already, which they may match again), and each
/// proposal's glob.
fn place(
    tree: &globs::Tree,
    slug: &str,
    members: &[usize],
    free: &[&str],
    suggestions: &mut [Suggestion],
) -> Vec<String> {
    // A file the row already covers (it only leaves other rows) needs no
    // glob here.
    let needs = |s: &Suggestion| !s.covered_by.iter().any(|c| c == slug);
    let mut targets: Vec<&str> = members
        .iter()
        .filter(|&&i| needs(&suggestions[i]))
        .map(|&i| suggestions[i].file.as_str())
        .collect();
    targets.sort_unstable();
    targets.dedup();
    if targets.is_empty() {
        return Vec::new();
    }
    let every = |_: &str| true;
    let opts = globs::Options {
        whole_dirs: true,
        ext_globs: false,
        counts: &every,
    };
    let add_files = tree.cover_beside(&targets, free, opts);
    for &i in members {
        if !needs(&suggestions[i]) {
            continue;
        }
        let file = suggestions[i].file.clone();
        if let Some(p) = suggestions[i].proposal.as_mut() {
            p.glob = add_files
                .iter()
                .find(|g| crate::glob::FileGlob::new(g).is_ok_and(|g| g.is_match(&file)))
                .cloned()
                .unwrap_or_else(|| globs::escape(&file));
        }
    }
    add_files
}

/// The edit of one row: a new row takes its text from the catalog, or from
/// the custom op `--op` described.
fn row_edit(
    catalog: &Matrix,
    input: &Input<'_>,
    slug: &str,
    new_row: bool,
    add_files: Vec<String>,
    remove_files: Vec<String>,
) -> Edit {
    let cat = catalog.op(slug);
    let custom = input
        .op
        .filter(|a| a.slug == slug)
        .and_then(|a| a.custom.as_ref());
    let (title, sota, link) = match (cat, custom) {
        (Some(c), _) => (
            c.title.clone(),
            c.sota.clone(),
            c.link.as_ref().map(|l| l.value.clone()),
        ),
        (None, Some(c)) => (c.title.clone(), c.sota.clone(), c.link.clone()),
        (None, None) => (slug.to_owned(), String::new(), None),
    };
    Edit {
        custom: cat.is_none() && custom.is_some(),
        title,
        sota,
        link,
        papers: cat.map(|c| c.papers.clone()).unwrap_or_default(),
        slug: slug.to_owned(),
        new_row,
        add_files,
        remove_files,
    }
}

/// For files `--op` moves out of the rows that cover them: per row, the
/// globs that matched a moved file (to remove) and the tightest globs for
/// everything else those globs matched (to add), so the row keeps every
/// other file it had and matches no moved one.
fn moves_out(
    matrix: &Matrix,
    tree: &globs::Tree,
    tracked: &[std::borrow::Cow<'_, str>],
    suggestions: &[Suggestion],
) -> BTreeMap<String, (Vec<String>, Vec<String>)> {
    let moved: Vec<(&str, &str)> = suggestions
        .iter()
        .filter_map(|s| Some((s.file.as_str(), s.proposal.as_ref()?)))
        .filter(|(_, p)| p.asked)
        .map(|(f, p)| (f, p.slug.as_str()))
        .collect();
    let mut out = BTreeMap::new();
    let Some(mut ix) = OpIndex::new(matrix).ok().filter(|_| !moved.is_empty()) else {
        return out;
    };
    // The (op, glob) pairs that hold a moved file in another op.
    let mut leaving: BTreeMap<(usize, usize), Vec<&str>> = BTreeMap::new();
    for &(file, to) in &moved {
        for &(op, glob) in ix.all_hits(file.as_bytes()) {
            if matrix.ops[op].slug.value != to {
                leaving.insert((op, glob), Vec::new());
            }
        }
    }
    let is_moved = |p: &str| moved.iter().any(|(f, _)| *f == p);
    let leaving_ops: std::collections::BTreeSet<usize> =
        leaving.keys().map(|(op, _)| *op).collect();
    // What each such glob matches besides moved files, and what each of
    // those rows covers through its other globs (free to match again).
    let mut kept_by_op: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for p in tracked {
        if is_moved(p) {
            continue;
        }
        for &(op, glob) in ix.all_hits(p.as_bytes()) {
            match leaving.get_mut(&(op, glob)) {
                Some(files) => files.push(p),
                None if leaving_ops.contains(&op) => kept_by_op.entry(op).or_default().push(p),
                None => {}
            }
        }
    }
    let every = |_: &str| true;
    for ((op, glob), rest) in leaving {
        let free = kept_by_op.get(&op).map_or(&[][..], Vec::as_slice);
        let replacement = if rest.is_empty() {
            Vec::new()
        } else {
            let opts = globs::Options {
                whole_dirs: true,
                ext_globs: false,
                counts: &every,
            };
            tree.cover_beside(&rest, free, opts)
        };
        let row = &matrix.ops[op];
        let entry: &mut (Vec<String>, Vec<String>) = out.entry(row.slug.value.clone()).or_default();
        entry.0.push(row.files[glob].as_str().to_owned());
        entry.1.extend(replacement);
    }
    out
}

/// Why the edits could not be applied.
#[derive(Debug)]
pub struct ApplyError(pub String);

/// The matrix text with the edits applied: globs appended to `files` of the
/// named rows (the array keeps its layout), new `[[op]]` rows appended at
/// the end. Everything else is left byte for byte.
pub fn apply(
    text: &str,
    edits: &[Edit],
    ladders: &[crate::matrix::Ladder],
) -> Result<String, ApplyError> {
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
                Some(files) => replace(files, &edit.remove_files, &edit.add_files),
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
        t.decor_mut().set_prefix(if edit.custom {
            "\n# A custom op, added by `sota suggest --op`: decide `route` and `oracle`.\n"
        } else {
            "\n# Proposed by `sota suggest` from the catalog: decide `route` and `oracle`.\n"
        });
        match doc.get_mut("op").and_then(Item::as_array_of_tables_mut) {
            Some(tables) => tables.push(t),
            None => {
                let mut tables = ArrayOfTables::new();
                tables.push(t);
                doc.insert("op", Item::ArrayOfTables(tables));
            }
        }
    }
    for ladder in ladders {
        let t = ladder_table(ladder);
        match doc.get_mut("ladder").and_then(Item::as_array_of_tables_mut) {
            Some(tables) => tables.push(t),
            None => {
                let mut tables = ArrayOfTables::new();
                tables.push(t);
                doc.insert("ladder", Item::ArrayOfTables(tables));
            }
        }
    }
    Ok(doc.to_string())
}

/// A catalog ladder as a `[[ladder]]` table of the matrix: the axis and
/// every rung, no `reached` (the team claims a rung with a witness).
pub fn ladder_table(ladder: &crate::matrix::Ladder) -> toml_edit::Table {
    use toml_edit::{value, ArrayOfTables, Item, Table};
    let mut t = Table::new();
    t.insert("axis", value(ladder.axis.value.as_str()));
    let mut rungs = ArrayOfTables::new();
    for r in &ladder.rungs {
        let mut rung = Table::new();
        rung.insert("name", value(r.name.as_str()));
        rung.insert("year", value(i64::from(r.year)));
        rung.insert("summary", value(r.summary.as_str()));
        if let Some(cite) = &r.cite {
            rung.insert("cite", value(cite.as_str()));
        }
        if let Some(link) = &r.link {
            rung.insert("link", value(link.as_str()));
        }
        rungs.push(rung);
    }
    t.insert("rung", Item::ArrayOfTables(rungs));
    t.decor_mut().set_prefix(format!(
        "\n# Brought in from the catalog by `sota suggest --ladder {}`: set `reached` and\n# its `witness` once a rung is shipped.\n",
        ladder.axis.value
    ));
    t
}

/// Remove the globs in `remove` from an array and put `add` where the
/// first removed one stood, in its layout (one per line when it was on a
/// line of its own); with nothing removed, append.
fn replace(files: &mut toml_edit::Array, remove: &[String], add: &[String]) {
    let removed = |v: &toml_edit::Value| v.as_str().is_some_and(|g| remove.iter().any(|r| r == g));
    let Some(at) = files.iter().position(removed) else {
        return append(files, add);
    };
    let prefix = files
        .get(at)
        .and_then(|v| v.decor().prefix())
        .and_then(|p| p.as_str())
        .and_then(|p| p.rfind('\n').map(|i| p[i..].to_owned()));
    files.retain(|v| !removed(v));
    for (i, g) in add.iter().enumerate() {
        files.insert(at + i, g.as_str());
        if let (Some(prefix), Some(v)) = (&prefix, files.get_mut(at + i)) {
            v.decor_mut().set_prefix(prefix.as_str());
        }
    }
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
            remove_files: vec![],
            custom: false,
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
            &[],
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
            &[],
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
