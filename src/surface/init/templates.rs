//! A kernel generator's templates that name no language (`X.mako`,
//! `X.j2`, not `X.cu.j2`). The scan reads them as C-family code, so a
//! backend's template with CUDA, Metal, OpenCL or SIMD markers is a
//! kernel by itself (PyFR's `backends/cuda/kernels/axnpby.mako`). Once it
//! has, the templates that go with those kernels join them:
//!
//! - the partials of a directory of kernel templates (tract's
//!   `dispatcher.j2` and `fma_mmm_load_tile.j2` beside
//!   `fma_mmm_f32_16x6.S.j2`), in that directory's kind: a kernel's
//!   parts, as the headers a kernel includes are;
//! - in a tree whose bare templates hold kernels, the bare templates of
//!   its `kernels/` directories: kernels written in the generator's own
//!   dialect and rendered for every backend (PyFR's
//!   `solvers/euler/kernels/tflux.mako`, `<%pyfr:kernel …>`, and its
//!   OpenMP C templates, which carry no marker), in the kind of most of
//!   the tree's template kernels.

use std::collections::BTreeMap;
use std::path::Path;

use super::detect::{self, Kind};
use super::signals::Signals;
use super::{join_adopted, most_common, not_kernels_yet, parent_dir, reread_kinds, Found};

/// The kind most of `kinds` are (the first by order on a tie).
fn majority(kinds: &BTreeMap<Kind, usize>) -> Option<Kind> {
    most_common(kinds).copied()
}

/// Whether a directory is one named for kernels or a subdirectory of one
/// (PyFR's `kernels/bcs/`): not any folder below a `kernel/` far up
/// (`jupyter/kernel/templates/`).
fn under_kernel_dir(dir: &str) -> bool {
    dir.rsplit('/').take(2).any(detect::kernel_dir_name)
}

/// Whether a template composes other templates: imports, includes or
/// inherits one (`{% from "ops.j2" import per_col %}`, `<%include
/// file='…'/>`), calls a macro (`{{ per_col("per_col_min", …) }}`) or a
/// namespace's tag (`<%pyfr:alias …/>`): a generator's part made only of
/// directives, which a chat template's loops and fields are not.
fn composes(text: &str) -> bool {
    const DIRECTIVES: &[&str] = &[
        "{% from ",
        "{% import ",
        "{% include ",
        "{% extends ",
        "<%include ",
        "<%inherit ",
        "<%namespace ",
    ];
    let call = |open: &str| {
        text.match_indices(open).any(|(at, _)| {
            let rest = text[at + open.len()..].trim_start_matches(['-', ' ']);
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            end > 0 && rest[end..].starts_with(['(', ':'])
        })
    };
    DIRECTIVES.iter().any(|d| text.contains(d)) || call("{{") || call("<%")
}

/// Whether a bare template's text is code of `kind`, not markup or prose
/// (a chat template, an HTML page, a Helm helper beside the kernels): a
/// line outside the template language's own directives that is an
/// assembly instruction (`vfmadd231ps ymm0, ymm12, ymm8`) for an
/// assembly kind, or else a C statement or brace (`x0[idx] = …;`).
fn looks_like_code(text: &[u8], kind: Kind) -> bool {
    let text = String::from_utf8_lossy(text);
    let lower = text.to_ascii_lowercase();
    if [
        "<html",
        "<!doctype",
        "<body",
        "<div",
        "<p>",
        "<span",
        "<table",
    ]
    .iter()
    .any(|tag| lower.contains(tag))
    {
        return false;
    }
    let asm = matches!(kind, Kind::Asm | Kind::AsmScalar);
    composes(&text)
        || text.lines().map(str::trim).any(|line| {
            let directive = [
                "%", "<%", "</%", "{%", "{{", "{#", "#", "//", "/*", "*", "$",
            ]
            .iter()
            .any(|d| line.starts_with(d));
            if directive || line.is_empty() {
                return false;
            }
            match asm {
                true => {
                    let mut words = line.split_whitespace();
                    let mnemonic = words.next().unwrap_or("");
                    mnemonic
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.')
                        && mnemonic.starts_with(|c: char| c.is_ascii_lowercase())
                        && words.next().is_some()
                }
                false => line.ends_with([';', '{', '}']),
            }
        })
}

/// Adopt the bare templates that go with the tree's template kernels (see
/// the module's documentation), each placed by its own evidence.
pub(super) fn adopt(root: &Path, found: &mut Vec<Found>, candidates: &[&str], signals: &Signals) {
    // A bare partial read as C (tract's `fma_mmm_load_tile.j2`: its
    // `vfmadd231ps` looks like inline assembly) is in the language of the
    // templates beside it that name one (`.S.j2`: assembly).
    // One pass over the found files: the template kernels, bare or not.
    let templates: Vec<(usize, bool)> = found
        .iter()
        .enumerate()
        .filter(|(_, f)| f.kind.is_some() && detect::is_template(&f.path))
        .map(|(i, f)| (i, detect::is_bare_template(&f.path)))
        .collect();
    if templates.is_empty() {
        return;
    }
    let mut named: BTreeMap<String, BTreeMap<Kind, usize>> = BTreeMap::new();
    for &(i, bare) in &templates {
        if let (Some(kind), false) = (found[i].kind, bare) {
            *named
                .entry(parent_dir(&found[i].path).to_owned())
                .or_default()
                .entry(kind)
                .or_default() += 1;
        }
    }
    for &(i, bare) in &templates {
        if bare {
            if let Some(kind) = named.get(parent_dir(&found[i].path)).and_then(majority) {
                found[i].kind = Some(kind);
            }
        }
    }
    let mut by_dir: BTreeMap<&str, BTreeMap<Kind, usize>> = BTreeMap::new();
    let mut bare: BTreeMap<Kind, usize> = BTreeMap::new();
    for &(i, is_bare) in &templates {
        let f = &found[i];
        let Some(kind) = f.kind else { continue };
        *by_dir
            .entry(parent_dir(&f.path))
            .or_default()
            .entry(kind)
            .or_default() += 1;
        if is_bare {
            *bare.entry(kind).or_default() += 1;
        }
    }
    let generator = majority(&bare);
    let unmarked = not_kernels_yet(
        found,
        candidates,
        |f| f.kind.is_none(),
        detect::is_bare_template,
    );
    let mut groups: BTreeMap<Kind, Vec<&str>> = BTreeMap::new();
    for path in unmarked {
        let dir = parent_dir(path);
        let kind = match by_dir.get(dir) {
            Some(kinds) => majority(kinds),
            None => generator.filter(|_| under_kernel_dir(dir)),
        };
        if let Some(kind) = kind {
            groups.entry(kind).or_default().push(path);
        }
    }
    // Read each group in its kind; the reads borrow `found`, so the
    // adopted files join it after.
    let mut adopted = BTreeMap::new();
    for (kind, paths) in groups {
        adopted.extend(reread_kinds(root, &paths, signals, |prefix| {
            looks_like_code(prefix, kind).then_some(kind)
        }));
    }
    join_adopted(found, adopted);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_directory_is_the_files_own_or_its_parent() {
        assert!(under_kernel_dir("pyfr/solvers/euler/kernels/bcs"));
        assert!(under_kernel_dir("pyfr/solvers/euler/kernels"));
        assert!(under_kernel_dir("src/cuda_kernels"));
        assert!(!under_kernel_dir("docs/templates"));
        assert!(!under_kernel_dir("linalg/x86_64/fma"));
        assert!(!under_kernel_dir("share/jupyter/kernel/templates/html"));
        assert!(!under_kernel_dir(""));
    }

    #[test]
    fn code_is_told_from_markup_and_prose() {
        let c = b"<%namespace module='x' name='pyfr'/>\n% for i in range(n):\n    ur[${i}] = ul[${i}];\n% endfor\n";
        assert!(looks_like_code(c, Kind::Cuda));
        let asm =
            b".non_linear:\n    sub     r0, #20\n    cmp     r2, #{{ jump_table | length }}\n";
        assert!(looks_like_code(asm, Kind::Asm));
        let composed = b"// vim: set syntax=asm :\n{% from \"fma_ops.j2\" import per_col %}\n\n{{ per_col(\"per_col_min\", \"vminps\", mr) }}\n";
        assert!(looks_like_code(composed, Kind::Asm));
        let alias = b"<%namespace module='x' name='pyfr'/>\n<%include file='bcs.common'/>\n<%pyfr:alias name='a' func='b'/>\n";
        assert!(looks_like_code(alias, Kind::Cuda));
        let chat = b"{% for m in messages %}{{ m.content }}{% endfor %}\n";
        assert!(!looks_like_code(chat, Kind::Cuda));
        assert!(!looks_like_code(
            b"<html><body>${body}</body></html>\n",
            Kind::Cuda
        ));
        assert!(!looks_like_code(
            b"# Title\n\nInstall it with pip.\n",
            Kind::Cuda
        ));
        assert!(!looks_like_code(
            b"{{- define \"app.name\" -}}\n{{- end -}}\n",
            Kind::Asm
        ));
    }

    #[test]
    fn the_majority_kind_breaks_ties_by_order() {
        let kinds = BTreeMap::from([(Kind::Metal, 4), (Kind::Cuda, 4), (Kind::Opencl, 2)]);
        assert_eq!(majority(&kinds), Some(Kind::Cuda));
        assert_eq!(majority(&BTreeMap::new()), None);
    }
}
