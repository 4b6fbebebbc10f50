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
use super::{join_adopted, not_kernels_yet, parent_dir, reread_kinds, Found};

/// The kind most of `kinds` are (the first by order on a tie).
fn majority(kinds: &BTreeMap<Kind, usize>) -> Option<Kind> {
    kinds
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(k, _)| *k)
}

/// Whether a directory path sits in a directory named for kernels.
fn under_kernel_dir(dir: &str) -> bool {
    dir.split('/').any(detect::kernel_dir_name)
}

/// Adopt the bare templates that go with the tree's template kernels (see
/// the module's documentation), each placed by its own evidence.
pub(super) fn adopt(root: &Path, found: &mut Vec<Found>, candidates: &[&str], signals: &Signals) {
    // A bare partial read as C (tract's `fma_mmm_load_tile.j2`: its
    // `vfmadd231ps` looks like inline assembly) is in the language of the
    // templates beside it that name one (`.S.j2`: assembly).
    let mut named: BTreeMap<String, BTreeMap<Kind, usize>> = BTreeMap::new();
    for f in found.iter().filter(|f| detect::is_template(&f.path)) {
        if let (Some(kind), false) = (f.kind, detect::is_bare_template(&f.path)) {
            *named
                .entry(parent_dir(&f.path).to_owned())
                .or_default()
                .entry(kind)
                .or_default() += 1;
        }
    }
    for f in found.iter_mut() {
        if f.kind.is_some() && detect::is_bare_template(&f.path) {
            if let Some(kind) = named.get(parent_dir(&f.path)).and_then(majority) {
                f.kind = Some(kind);
            }
        }
    }
    let mut by_dir: BTreeMap<&str, BTreeMap<Kind, usize>> = BTreeMap::new();
    let mut bare: BTreeMap<Kind, usize> = BTreeMap::new();
    for f in found.iter().filter(|f| detect::is_template(&f.path)) {
        let Some(kind) = f.kind else { continue };
        *by_dir
            .entry(parent_dir(&f.path))
            .or_default()
            .entry(kind)
            .or_default() += 1;
        if detect::is_bare_template(&f.path) {
            *bare.entry(kind).or_default() += 1;
        }
    }
    if by_dir.is_empty() {
        return;
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
    let groups: Vec<(Kind, Vec<String>)> = groups
        .into_iter()
        .map(|(k, paths)| (k, paths.into_iter().map(str::to_owned).collect()))
        .collect();
    for (kind, paths) in groups {
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        // Text at all: an empty placeholder is no part of a kernel.
        let adopted = reread_kinds(root, &paths, signals, |prefix| {
            (!prefix.trim_ascii().is_empty()).then_some(kind)
        });
        join_adopted(found, adopted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_directories_are_found_at_any_depth() {
        assert!(under_kernel_dir("pyfr/solvers/euler/kernels/bcs"));
        assert!(under_kernel_dir("src/cuda_kernels"));
        assert!(!under_kernel_dir("docs/templates"));
        assert!(!under_kernel_dir("linalg/x86_64/fma"));
    }

    #[test]
    fn the_majority_kind_breaks_ties_by_order() {
        let kinds = BTreeMap::from([(Kind::Metal, 4), (Kind::Cuda, 4), (Kind::Opencl, 2)]);
        assert_eq!(majority(&kinds), Some(Kind::Cuda));
        assert_eq!(majority(&BTreeMap::new()), None);
    }
}
