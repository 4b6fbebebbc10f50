//! Another programming model's copy of a kernel directory: mini-apps and
//! BLAS libraries keep one directory per model or architecture with the
//! same file names (TeaLeaf's `src/cuda/cg.cpp`, `src/omp/cg.cpp`,
//! `src/kokkos/cg.cpp`; OpenBLAS's `kernel/x86_64/amax.c` beside
//! `kernel/arm/amax.c`). Once the scan has found the kernels of one such
//! directory, a C-family file of a sibling directory that carries a
//! kernel's name, among enough such names, and computes (a loop or inline
//! assembly) is the same kernel written for another model: it joins as
//! plain code, placed where its twin is (by its own evidence when the
//! twin's op is only its backend's).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use super::detect::{self, Kind};
use super::signals::{self, Candidate, Signals};
use super::{computes, not_kernels_yet, on_cores, parent_dir, Found, Reread};

/// How many kernel names two sibling directories must share: one or two
/// are a coincidence of common names (`utils`, `common`).
const SHARED_NAMES: usize = 3;

/// Directory names of one programming model or architecture each: the
/// directories twins sit in. A sibling of another name (MatX's
/// `operators/` beside `transforms/`) wraps the kernels rather than
/// copies them.
fn model_dir(dir: &str) -> bool {
    let name = dir.rsplit('/').next().unwrap_or(dir).to_ascii_lowercase();
    const MODELS: &[&str] = &[
        "cuda",
        "hip",
        "rocm",
        "omp",
        "openmp",
        "kokkos",
        "serial",
        "cpu",
        "gpu",
        "opencl",
        "ocl",
        "openacc",
        "acc",
        "tbb",
        "raja",
        "metal",
        "vulkan",
        "x86",
        "x86_64",
        "x64",
        "arm",
        "arm64",
        "aarch64",
        "neon",
        "mips",
        "power",
        "ppc",
        "zarch",
        "riscv",
        "riscv64",
        "loongarch",
        "loongarch64",
        "generic",
        "scalar",
        "ref",
        "reference",
        "naive",
    ];
    const PREFIXES: &[&str] = &["sycl", "std", "omp", "openmp", "acc"];
    MODELS.contains(&name.as_str()) || PREFIXES.iter().any(|p| name.starts_with(p))
}

/// The kernels of each directory with [`SHARED_NAMES`] of them, by stem:
/// the kind and placement of the first with that stem.
fn kernel_dirs(found: &[Found]) -> HashMap<&str, BTreeMap<&str, Option<Candidate>>> {
    let mut dirs: HashMap<&str, BTreeMap<&str, Option<Candidate>>> = HashMap::new();
    for f in found
        .iter()
        .filter(|f| f.kind.is_some() && f.path.contains('/'))
    {
        dirs.entry(parent_dir(&f.path))
            .or_default()
            .entry(signals::stem(&f.path))
            .or_insert_with(|| f.best.clone());
    }
    dirs.retain(|dir, stems| stems.len() >= SHARED_NAMES && model_dir(dir));
    dirs
}

/// Join the twins of the scan's kernel directories (see the module doc).
pub(super) fn adopt(root: &Path, found: &mut Vec<Found>, candidates: &[&str], signals: &Signals) {
    let dirs = kernel_dirs(found);
    if dirs.is_empty() {
        return;
    }
    // The kernel directories under each parent.
    let mut by_parent: HashMap<&str, Vec<&str>> = HashMap::new();
    for &dir in dirs.keys() {
        if dir.contains('/') {
            by_parent.entry(parent_dir(dir)).or_default().push(dir);
        }
    }
    let c_family = |p: &str| {
        (detect::is_c_source(p) || detect::is_header(p)) && detect::infrastructure(p).is_none()
    };
    let in_model_dir = |p: &str| c_family(p) && model_dir(parent_dir(p));
    let unmarked = not_kernels_yet(found, candidates, |f| f.kind.is_none(), in_model_dir);
    // A file's twin: the placement of the kernel of its name in a sibling
    // directory that shares enough names with the file's own.
    let mut stems_by_dir: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    for p in found
        .iter()
        .map(|f| f.path.as_str())
        .chain(unmarked.iter().copied())
    {
        stems_by_dir
            .entry(parent_dir(p))
            .or_default()
            .insert(signals::stem(p));
    }
    // Of several, the sibling sharing the most names is the twin, then
    // the first by name (ppl-cv's `riscv/` beside `arm/` and `x86/`).
    let twin = |path: &str| -> Option<Option<Candidate>> {
        let dir = parent_dir(path);
        let siblings = by_parent.get(parent_dir(dir))?;
        let own = &stems_by_dir[dir];
        let stem = signals::stem(path);
        siblings
            .iter()
            .filter(|&&kernel_dir| kernel_dir != dir && dirs[kernel_dir].contains_key(stem))
            .map(|&kernel_dir| {
                let kernels = &dirs[kernel_dir];
                let shared = own.iter().filter(|s| kernels.contains_key(*s)).count();
                (shared, kernel_dir)
            })
            .filter(|&(shared, _)| shared >= SHARED_NAMES)
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(a.1)))
            .map(|(_, kernel_dir)| dirs[kernel_dir][stem].clone())
    };
    let named: Vec<(&str, Option<Candidate>)> = unmarked
        .iter()
        .filter(|p| p.contains('/'))
        .filter_map(|&p| twin(p).map(|best| (p, best)))
        .collect();
    if named.is_empty() {
        return;
    }
    // The twin's op, unless it says how the twin is written (its ISA,
    // its language): then the file's own evidence places it.
    let mut adopted: BTreeMap<String, Option<Candidate>> = on_cores(&named, |part| {
        let mut reread = Reread::new(root);
        part.iter()
            .filter_map(|(path, best)| {
                let prefix = reread.prefix(path);
                computes(prefix)
                    .then(|| match best {
                        Some(b) if !b.backend => Some(b.clone()),
                        _ => signals.best(path, Some(Kind::Scalar), prefix),
                    })
                    .map(|best| ((*path).to_owned(), best))
            })
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect();
    for f in found.iter_mut() {
        if let Some(best) = adopted.remove(&f.path) {
            f.kind = Some(Kind::Scalar);
            f.best = best;
            f.plain_kind = None;
            f.entry = true;
        }
    }
    found.extend(
        adopted
            .into_iter()
            .map(|(path, best)| Found::adopted(path, Kind::Scalar, best)),
    );
}
