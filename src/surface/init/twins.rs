//! Another programming model's copy of a kernel directory: mini-apps and
//! BLAS libraries keep one directory per model or architecture with the
//! same file names (TeaLeaf's `src/cuda/cg.cpp`, `src/omp/cg.cpp`,
//! `src/kokkos/cg.cpp`; OpenBLAS's `kernel/x86_64/amax.c` beside
//! `kernel/arm/amax.c`). Once the scan has found the kernels of one such
//! directory, a C-family file of a sibling directory that carries a
//! kernel's name, among enough such names, and computes (a loop or inline
//! assembly) is the same kernel written for another model: it joins as
//! plain code, in its twin's op with that as its (weak) evidence, or by
//! its own evidence when the twin's op is only its backend's.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use super::detect::{self, Kind};
use super::signals::{self, Candidate, Evidence, Signals};
use super::{computes, join_adopted, not_kernels_yet, on_cores, parent_dir, Found, Reread};

/// How many kernel names two sibling directories must share: one or two
/// are a coincidence of common names (`utils`, `common`).
const SHARED_NAMES: usize = 3;

/// Directory names of one programming model or architecture each: the
/// directories twins sit in, the scalar backends' among them (not a bare
/// `ref/`, which usually holds the tests' oracles). A sibling of another
/// name (MatX's `operators/` beside `transforms/`) wraps the kernels
/// rather than copies them.
fn model_dir(dir: &str) -> bool {
    const MODELS: &[&str] = &[
        "cuda",
        "hip",
        "rocm",
        "omp",
        "openmp",
        "kokkos",
        "cpu",
        "gpu",
        "opencl",
        "ocl",
        "openacc",
        "acc",
        "tbb",
        "raja",
        "stdpar",
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
    ];
    // A model with variants: `sycl-acc/`, `std-indices/`, `omp_target/`.
    const FAMILIES: &[&str] = &[
        "sycl", "std", "omp", "openmp", "acc", "kokkos", "cuda", "hip",
    ];
    let name = dir.rsplit('/').next().unwrap_or(dir).to_ascii_lowercase();
    let name = name.as_str();
    MODELS.contains(&name)
        || detect::SCALAR_DIRS.contains(&name)
        || name.starts_with("sycl")
        || FAMILIES.iter().any(|family| {
            name.strip_prefix(family)
                .is_some_and(|rest| rest.starts_with(['-', '_']))
        })
}

/// One kernel of a model directory, as the scan found it.
type Kernel<'a> = &'a Found;

/// The kernels of each model directory with [`SHARED_NAMES`] of them, by
/// stem (the first with that stem).
fn kernel_dirs(found: &[Found]) -> HashMap<&str, BTreeMap<&str, Kernel<'_>>> {
    let mut dirs: HashMap<&str, BTreeMap<&str, Kernel<'_>>> = HashMap::new();
    // Only model directories are tallied: most trees have none.
    for f in found
        .iter()
        .filter(|f| f.kind.is_some() && f.path.contains('/') && model_dir(parent_dir(&f.path)))
    {
        dirs.entry(parent_dir(&f.path))
            .or_default()
            .entry(signals::stem(&f.path))
            .or_insert(f);
    }
    dirs.retain(|_, stems| stems.len() >= SHARED_NAMES);
    dirs
}

/// Join the twins of the scan's kernel directories (see the module doc).
pub(super) fn adopt(root: &Path, found: &mut Vec<Found>, candidates: &[&str], signals: &Signals) {
    let named = twins(found, candidates);
    if named.is_empty() {
        return;
    }
    let adopted = placed(root, &named, signals);
    join_adopted(found, adopted);
}

/// The files no pass made a kernel that have a twin, each with it. Of
/// several, the sibling sharing the most names is the twin, then the
/// first by name (ppl-cv's `riscv/` beside `arm/` and `x86/`).
fn twins<'a>(found: &'a [Found], candidates: &[&'a str]) -> Vec<(&'a str, Kernel<'a>)> {
    let dirs = kernel_dirs(found);
    if dirs.is_empty() {
        return Vec::new();
    }
    let mut by_parent: HashMap<&str, Vec<&str>> = HashMap::new();
    for &dir in dirs.keys() {
        by_parent.entry(parent_dir(dir)).or_default().push(dir);
    }
    let eligible = |p: &str| {
        (detect::is_c_source(p) || detect::is_header(p))
            && detect::infrastructure(p).is_none()
            && p.contains('/')
            && model_dir(parent_dir(p))
    };
    let unmarked = not_kernels_yet(found, candidates, |f| f.kind.is_none(), eligible);
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
    // Names shared, once per pair of directories.
    let mut shared: HashMap<(&str, &str), usize> = HashMap::new();
    let mut twin = |path: &'a str| -> Option<Kernel<'a>> {
        let dir = parent_dir(path);
        let stem = signals::stem(path);
        let siblings = by_parent.get(parent_dir(dir))?;
        let best = siblings
            .iter()
            .filter(|&&kernel_dir| kernel_dir != dir && dirs[kernel_dir].contains_key(stem))
            .map(|&kernel_dir| {
                let n = *shared.entry((dir, kernel_dir)).or_insert_with(|| {
                    let kernels = &dirs[kernel_dir];
                    stems_by_dir[dir]
                        .iter()
                        .filter(|s| kernels.contains_key(*s))
                        .count()
                });
                (n, kernel_dir)
            })
            .filter(|&(n, _)| n >= SHARED_NAMES)
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(a.1)))?;
        Some(dirs[best.1][stem])
    };
    unmarked
        .iter()
        .filter_map(|&p| twin(p).map(|kernel| (p, kernel)))
        .collect()
}

/// Read the twins again on all cores and place those that compute: in
/// their twin's op, unless that op says how the twin is written (its
/// ISA, its language), then by their own evidence.
fn placed(
    root: &Path,
    named: &[(&str, Kernel<'_>)],
    signals: &Signals,
) -> BTreeMap<String, (Kind, Option<Candidate>)> {
    on_cores(named, |part| {
        let mut reread = Reread::new(root);
        part.iter()
            .filter_map(|(path, twin)| {
                let prefix = reread.prefix(path);
                if !computes(prefix) {
                    return None;
                }
                let best = twin_candidate(twin, path, prefix, signals);
                Some(((*path).to_owned(), (Kind::Scalar, best)))
            })
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Where the scalar copy of a kernel goes: its twin's op, with the twin as
/// evidence, unless that op only says how the twin is written (its ISA,
/// its language); then by the copy's own name and content.
pub(super) fn twin_candidate(
    twin: &Found,
    path: &str,
    prefix: &[u8],
    signals: &Signals,
) -> Option<Candidate> {
    match &twin.best {
        Some(b) if !b.backend => Some(Candidate {
            evidence: vec![Evidence::Twin(twin.path.clone())],
            ..b.clone()
        }),
        _ => signals.best(path, Some(Kind::Scalar), prefix),
    }
}
