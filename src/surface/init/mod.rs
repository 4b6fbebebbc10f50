//! `sota init`: find the kernel files among the tracked files, group them
//! into catalog ops, and draft a `sota.toml` that loads — with the routes
//! and oracles left for the team to decide (they show up as debt).
//!
//! The plan is a function of the tracked paths, the file contents under the
//! root (a bounded prefix of each candidate) and the catalog; the CLI passes
//! the date and the project name in and writes the result.

mod attributes;
mod call_args;
mod copied_libraries;
mod cores;
mod cpu_entries;
pub mod declarations;
pub mod detect;
mod device_macros;
pub mod emit;
pub mod globs;
mod host_units;
mod isa_families;
mod lanes;
mod macro_defs;
pub mod name_groups;
mod numba;
mod one_pass;
pub mod reference;
mod scalar_defaults;
mod siblings;
pub mod signals;
mod simd_layer;
mod templates;
mod twins;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use serde::Serialize;

use crate::matrix::{Date, Matrix};
use crate::repo::confined::{Confined, Opened};
use crate::repo::paths::PathList;
use cores::on_cores;
use detect::{ByExtension, Detector, Kind, Role};
use one_pass::{OnePass, PassBuffers};
use signals::{Evidence, Signals};

/// Everything the plan needs besides the catalog.
pub struct Input<'a> {
    /// The directory the matrix will live in; paths are relative to it.
    pub root: &'a Path,
    /// Tracked paths, root-relative, sorted.
    pub tracked: &'a PathList,
    /// `[project] name`.
    pub name: &'a str,
    /// `[project] reviewed`.
    pub today: Date,
    /// The repository's remote URL (`remote.origin.url`), when it has one:
    /// an op never names the repository itself as its prior art.
    pub remote: Option<&'a str>,
}

impl Input<'_> {
    fn identity(&self) -> reference::Identity {
        reference::Identity::new(self.name, self.remote)
    }
}

/// One kernel file and where it went.
#[derive(Clone, Debug, Serialize)]
pub struct KernelFile {
    pub path: String,
    pub kind: Kind,
    /// The op's slug, when one had enough evidence.
    pub op: Option<String>,
    pub evidence: Vec<Evidence>,
}

/// A file that looks like a kernel but plays another role (test, vendored…).
#[derive(Clone, Debug, Serialize)]
pub struct Skipped {
    pub path: String,
    pub role: Role,
    /// For infrastructure: what the file is (`memory allocator`, …); for
    /// host code, when it is no GPU source, what it is; for vendored code,
    /// when the repository's own attributes said so.
    pub reason: Option<&'static str>,
}

/// One op of the drafted matrix.
#[derive(Clone, Debug, Serialize)]
pub struct PlannedOp {
    pub slug: String,
    pub title: String,
    pub files: Vec<String>,
    pub at: Vec<String>,
    pub sota: String,
    pub link: Option<String>,
    pub papers: Vec<String>,
    /// The catalog's suggestion, written as a comment: the team decides.
    pub suggested_route: Option<String>,
    pub suggested_oracle: Option<String>,
    /// The catalog's `check` list, written as the op's own so `sota prove
    /// SLUG` runs on the draft; the team may tighten or replace it.
    #[serde(skip)]
    pub check: Vec<crate::matrix::CheckEntry>,
    /// How many kernel files the op holds.
    pub file_count: usize,
    /// The signals that placed its files, most frequent first: (signal, files).
    pub signals: Vec<(String, usize)>,
    /// The catalog's reference is the repository being initialised: its
    /// link, which the draft replaced by the next reference (or dropped).
    pub self_reference: Option<String>,
    /// Files placed on weak evidence only (a directory, a backend default):
    /// the draft says so, for the team to check.
    pub weak: usize,
    /// For a family of the tree's own (see [`name_groups`]): the word its
    /// files' names share. Such an op has no catalog row behind it.
    pub family: Option<String>,
}

/// A catalog ladder the draft brings in: its rungs rank an op the draft
/// holds. `reached` and `witness` are left for the team.
#[derive(Clone, Debug)]
pub struct PlannedLadder {
    pub ladder: crate::matrix::Ladder,
    /// The draft's ops the ladder names in the catalog (its `ops` order).
    pub brought_by: Vec<String>,
}

/// The drafted matrix and how it was reached.
#[derive(Clone, Debug)]
pub struct Plan {
    pub name: String,
    pub today: Date,
    pub tracked_files: usize,
    /// The population: kernel files found, sorted by path.
    pub kernels: Vec<KernelFile>,
    /// Kernel-looking files left out of the population, by role.
    pub skipped: Vec<Skipped>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub ops: Vec<PlannedOp>,
    /// Catalog ladders whose `ops` name a drafted op, in catalog order.
    pub ladders: Vec<PlannedLadder>,
    /// Kernel files no op took (they stay uncovered: debt to decide).
    pub unclassified: Vec<String>,
    /// Files per kind.
    pub kinds: BTreeMap<Kind, usize>,
    /// The tree is a collection of samples: its examples were kept as its
    /// kernels, and this many example sources outnumbered the rest.
    pub examples_ship: Option<usize>,
}

impl Plan {
    pub fn covered(&self) -> usize {
        self.kernels.len() - self.unclassified.len()
    }
}

/// Read at most `buf.len()` bytes of a file; the number read, or None
/// when it cannot be opened or read.
///
/// One `read` per file in the common case: a regular file that returns
/// fewer bytes than asked has ended (read_to_end would spend a second
/// syscall to learn that, on each of 100,000 files). The buffer is reused
/// as is, never cleared: only `buf[..n]` is looked at.
///
/// Opened through [`Confined`]: a tracked symlink that leads outside the
/// root, to a FIFO or to a device is not read (a FIFO would block forever).
pub(crate) fn read_prefix(root: &Confined, rel: &str, buf: &mut [u8]) -> Option<usize> {
    let Opened::File(mut f, _) = root.open(rel) else {
        return None;
    };
    let mut len = 0;
    loop {
        let asked = buf.len() - len;
        match f.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => {
                len += n;
                if n < asked || len == buf.len() {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(len)
}

/// What scanning one file found.
struct Found {
    path: String,
    /// None: a C-family header with no kernel marker (kept to be judged by
    /// its directory, see [`adopt_headers`]).
    kind: Option<Kind>,
    best: Option<signals::Candidate>,
    /// For a plain file, the kind it takes if its directory adopts it (a
    /// CuTe DSL module's; a header's one ISA include among CPU SIMD
    /// kernels, see [`adopt_headers`]); None: the directory's kernels' kind.
    plain_kind: Option<Kind>,
    /// A kernel's includes from its own directory (see
    /// [`detect::Scanned::includes`]): its parts.
    includes: Vec<String>,
    /// A scalar backend's header, or a CPU SIMD header read whole, that
    /// holds no function body (see [`declarations::declares_only`]; a
    /// source holds code even when its bodies are macros); other plain
    /// headers are judged when a directory would adopt them, so the scan
    /// lexes none.
    declares_only: bool,
    /// A GPU source file by extension (`.cu`, `.hip`; not a `.cuh` header,
    /// often a kernel library's umbrella) with no marker in its prefix: a
    /// kernel only if it uses device macros or includes a kernel file (see
    /// [`host_units`]). Such a file holds what it includes, read by the
    /// scan.
    bare: Option<Vec<String>>,
    /// It defines, launches or instantiates a kernel (see
    /// [`detect::Scanned::entry`]); a file a later pass adopts counts as
    /// one.
    entry: bool,
}

impl Found {
    /// A plain header or DSL module, judged later by its directory (see
    /// [`adopt_headers`]); `plain_kind` is the kind it would take.
    fn plain(path: &str, plain_kind: Option<Kind>) -> Found {
        Found {
            path: path.to_owned(),
            kind: None,
            best: None,
            plain_kind,
            includes: Vec::new(),
            declares_only: false,
            bare: None,
            entry: false,
        }
    }

    /// A file a later pass adopts as a kernel of this kind, placed by
    /// `best` (it has no includes or plain kind of its own to keep).
    fn adopted(path: String, kind: Kind, best: Option<signals::Candidate>) -> Found {
        Found {
            path,
            kind: Some(kind),
            best,
            plain_kind: None,
            includes: Vec::new(),
            declares_only: false,
            bare: None,
            entry: true,
        }
    }
}

/// What scanning the candidates found: the kernels and plain files, and
/// the files that host sources include (shared with the host: never a
/// kernel's part).
#[derive(Default)]
struct ScanOut {
    found: Vec<Found>,
    host_included: std::collections::HashSet<String>,
    /// The repository's names for device-code keywords (see
    /// [`device_macros`]).
    device_macros: Vec<macro_defs::DeviceMacro>,
    /// The names the repository's CPU SIMD headers define over intrinsics
    /// (see [`simd_layer`]).
    simd_layer: Vec<simd_layer::LayerName>,
    /// The names the repository's Python modules define over Numba's
    /// compile API (see [`numba`]).
    numba_decorators: Vec<(String, String)>,
    /// Host sources that launch or explicitly instantiate kernels, with
    /// what they include from their directory (see [`siblings::adopt_launch_units`]).
    launchers: Vec<(String, Vec<String>)>,
    /// The other host sources that include files of their directory, and
    /// the repository's instantiation macros: a source that calls one
    /// instantiates too (see [`device_macros::instantiating_units`]).
    includers: Vec<(String, Vec<String>)>,
    instantiation_macros: Vec<String>,
    /// Host sources that bind OpenCL kernel arguments, each with the op
    /// its own evidence says (see [`siblings::adopt_opencl_launchers`]).
    opencl_launchers: Vec<(String, Option<signals::Candidate>)>,
    /// Files left out as infrastructure, kernels or plain: still files of
    /// their directory when [`adopt_headers`] weighs it.
    infrastructure: Vec<String>,
}

/// Scan the candidates on all cores: read each prefix, detect, classify.
fn scan(root: &Path, candidates: &[&str], signals: &Signals) -> ScanOut {
    let detector = Detector::new();
    let pass = OnePass::new(&detector, signals);
    let parts = on_cores(candidates, |part| {
        let confined = Confined::new(root);
        let mut full = vec![0u8; detect::PREFIX_BYTES];
        let mut buffers = PassBuffers::default();
        let scanner = Scanner {
            detector: &detector,
            signals,
            pass: &pass,
        };
        let mut out = ScanOut::default();
        for &path in part {
            if let Some(n) = read_prefix(&confined, path, &mut full) {
                out.add(scanner, &mut buffers, path, &full[..n]);
            }
        }
        out
    });
    let mut out = ScanOut::default();
    for part in parts {
        out.merge(part);
    }
    out.device_macros.sort();
    out.device_macros.dedup();
    out.instantiation_macros.sort();
    out.instantiation_macros.dedup();
    out
}

/// What reads each file in [`scan`]: the detector and the signals, both
/// through one search of the file's prefix.
#[derive(Clone, Copy)]
struct Scanner<'a> {
    detector: &'a Detector,
    signals: &'a Signals,
    pass: &'a OnePass,
}

impl ScanOut {
    /// Take in one file's prefix: what it defines for the tree's later
    /// passes (device macros, instantiation macros, Numba decorators, SIMD
    /// layer names), then what it is.
    fn add(&mut self, scanner: Scanner<'_>, buffers: &mut PassBuffers, path: &str, buf: &[u8]) {
        let Scanner {
            detector, signals, ..
        } = scanner;
        if device_macros::may_hold(path) {
            self.device_macros
                .extend(match detect::is_gpu_source(path) {
                    true => macro_defs::defined_in_kernel_source(buf),
                    false => macro_defs::defined(buf),
                });
            self.instantiation_macros
                .extend(macro_defs::instantiation_macros(buf));
        } else if numba::may_hold(path) {
            self.numba_decorators.extend(numba::defined(path, buf));
        }
        let searched = detect::scans(path);
        let mut scanned = match searched {
            true => scanner.pass.scan((detector, signals), path, buf, buffers),
            false => detector.scan(path, buf),
        };
        let seen = searched.then_some(&buffers.seen[..]);
        if scanned.kind.is_none() && numba::may_hold(path) && numba::jitted_by_alias(buf) {
            scanned.kind = Some(Kind::Numba);
        }
        if let Some(kind) = scanned.kind.filter(|k| k.is_cpu_simd()) {
            if detect::is_header(path) {
                self.simd_layer
                    .extend(simd_layer::defined(detector, buf, kind));
            }
        }
        let best = |kind| match seen {
            Some(seen) => signals.best_seen(path, Some(kind), buf, seen),
            None => signals.best(path, Some(kind), buf),
        };
        match classify(path, buf, scanned, best) {
            Classified::Found(f) => self.found.push(f),
            Classified::Host { includes, launches } => {
                if detect::is_c_source(path) {
                    let unit = (path.to_owned(), includes.clone());
                    match launches {
                        true => self.launchers.push(unit),
                        false => self.includers.push(unit),
                    }
                }
                self.host_included.extend(includes);
            }
            Classified::OpenclLauncher { best, includes } => {
                self.opencl_launchers.push((path.to_owned(), best));
                self.host_included.extend(includes);
            }
            Classified::Nothing => {}
        }
    }

    /// Join another core's part of the scan.
    fn merge(&mut self, part: ScanOut) {
        self.found.extend(part.found);
        self.host_included.extend(part.host_included);
        self.device_macros.extend(part.device_macros);
        self.simd_layer.extend(part.simd_layer);
        self.numba_decorators.extend(part.numba_decorators);
        self.launchers.extend(part.launchers);
        self.includers.extend(part.includers);
        self.instantiation_macros.extend(part.instantiation_macros);
        self.opencl_launchers.extend(part.opencl_launchers);
        self.infrastructure.extend(part.infrastructure);
    }
}

/// What one scanned file is to the draft.
enum Classified {
    Found(Found),
    /// A host source that binds OpenCL kernel arguments (see
    /// [`detect::Scanned::sets_kernel_args`]), placed by its own evidence,
    /// with the files of its directory it includes.
    OpenclLauncher {
        best: Option<signals::Candidate>,
        includes: Vec<String>,
    },
    /// Host code: the files of its directory it includes, and whether it
    /// launches or explicitly instantiates a kernel.
    Host {
        includes: Vec<String>,
        launches: bool,
    },
    Nothing,
}

/// Whether a GPU header is the host's interface to kernels built
/// elsewhere: a `.cuh` that only declares, functions among what it
/// declares, or one whose markers are all in declarations (`__global__
/// void k(…);` with no body), read whole, whatever host helpers it
/// defines (an inline `gpuAssert`, a launcher); a plain `.h` / `.hpp`
/// marked only so (PopSift's `s_pyramid_build_aa.h`, cuSZp's kernel
/// headers) too. One of device types or an umbrella of includes stays a
/// kernel header.
fn host_interface_header(path: &str, buf: &[u8], kind: Kind, marked: bool) -> bool {
    (!marked || buf.len() < detect::PREFIX_BYTES)
        && (detect::is_gpu_header(path)
            && (declarations::declares_only(buf) || declarations::device_code_declared_only(buf))
            || kind.marks_device_code()
                && detect::is_header(path)
                && declarations::device_code_declared_only(buf))
        && declarations::declares_a_function(buf)
}

/// What one file is, from its scan; `best` places it by its evidence, read
/// as a file of the given kind.
fn classify(
    path: &str,
    buf: &[u8],
    scanned: detect::Scanned,
    best: impl Fn(Kind) -> Option<signals::Candidate>,
) -> Classified {
    match scanned.kind {
        // The host's interface to kernels built elsewhere: a plain header.
        Some(kind) if host_interface_header(path, buf, kind, scanned.marked) => {
            Classified::Found(Found::plain(path, Some(kind)))
        }
        // So is a CPU SIMD header read whole that only declares: its
        // vector types name the kernels' parameters (`VECTORTYPE *`), its
        // prototypes the kernels a source defines (swarm's `sse41.h`).
        Some(kind @ (Kind::SimdX86 | Kind::SimdArm | Kind::SimdOther))
            if buf.len() < detect::PREFIX_BYTES
                && detect::is_header(path)
                && declarations::declares_only(buf)
                && declarations::declares_a_function(buf) =>
        {
            Classified::Found(Found {
                declares_only: true,
                ..Found::plain(path, Some(kind))
            })
        }
        Some(kind) => {
            let bare = (!scanned.marked
                && matches!(detect::source_extension(path), Some("cu" | "hip")))
            .then(|| host_units::includes(buf));
            Classified::Found(Found {
                path: path.to_owned(),
                kind: Some(kind),
                best: best(kind),
                plain_kind: None,
                includes: scanned.includes,
                declares_only: false,
                bare,
                // A file longer than the prefix read may define its
                // kernels past it (a long header of device helpers first).
                entry: scanned.entry || buf.len() >= detect::PREFIX_BYTES,
            })
        }
        // Scalar code beside SIMD kernels: judged with its siblings, see
        // [`adopt_scalar_backends`]; classified by its content now.
        None if detect::scalar_backend_dir(path).is_some() => Classified::Found(Found {
            path: path.to_owned(),
            kind: None,
            best: best(Kind::Scalar),
            plain_kind: Some(Kind::Scalar),
            includes: scanned.includes,
            declares_only: detect::is_header(path) && declarations::declares_only(buf),
            bare: None,
            entry: false,
        }),
        None if scanned.plain_dsl.is_some() || detect::is_header(path) => {
            Classified::Found(Found::plain(path, scanned.plain_dsl))
        }
        None if scanned.sets_kernel_args && detect::is_c_source(path) => {
            Classified::OpenclLauncher {
                best: best(Kind::Opencl),
                includes: scanned.includes,
            }
        }
        None if !scanned.includes.is_empty() => Classified::Host {
            includes: scanned.includes,
            launches: scanned.launches,
        },
        None => Classified::Nothing,
    }
}

/// The tracked paths sorted into what to scan and what to leave out.
struct Partition<'a> {
    paths: Vec<&'a str>,
    /// Files whose content decides (no role, a writable name).
    candidates: Vec<&'a str>,
    skipped: Vec<Skipped>,
    /// Per path: whether it plays a role that `[kernels] exclude` takes out.
    roles: Vec<bool>,
    /// What the repository's `.gitattributes` marks vendored.
    vendored: attributes::Vendored,
}

fn partition<'a>(input: &Input<'a>, examples_ship: bool) -> Partition<'a> {
    let paths: Vec<&str> = input
        .tracked
        .iter()
        .filter_map(|p| std::str::from_utf8(p).ok())
        .collect();
    let attributes_tracked = paths.binary_search(&".gitattributes").is_ok();
    let vendored = attributes::Vendored::read(input.root, attributes_tracked)
        .with_notes(&paths)
        .with_libraries(copied_libraries::dirs(&paths, &input.identity()));
    // What each path's extension and directories say, on all cores.
    let said = on_cores(&paths, |part| {
        part.iter()
            .map(|&p| {
                (
                    detect::by_extension(p),
                    detect::role(p),
                    crate::matrix::can_hold(p),
                )
            })
            .collect::<Vec<_>>()
    });
    let mut candidates = Vec::new();
    let mut skipped = Vec::new();
    let mut roles: Vec<bool> = Vec::with_capacity(paths.len());
    for (&p, (by_ext, role, writable)) in paths.iter().zip(said.into_iter().flatten()) {
        // `.gitattributes` first; a provenance note where it says nothing.
        let marked = match vendored.is_empty() {
            true => None,
            false => vendored.says(p),
        };
        let by_note = marked.is_none() && !vendored.is_empty() && vendored.noted_dir(p).is_some();
        let by_library = marked.is_none()
            && !by_note
            && !vendored.is_empty()
            && vendored.library_dir(p).is_some();
        let marked = if by_note || by_library {
            Some(true)
        } else {
            marked
        };
        let role = by_attributes(role, marked);
        // In a collection of samples (or of benchmarks: NPBench) the
        // examples and benchmarks are what it ships.
        let role = role.filter(|&r| !(examples_ship && matches!(r, Role::Example | Role::Bench)));
        roles.push(role.is_some());
        // A name the matrix would refuse cannot be written into the draft.
        let role = match writable {
            true => role,
            false => Some(Role::UnwritableName),
        };
        match (by_ext, role) {
            (ByExtension::No, _) => {}
            (ByExtension::Kernel(_), Some(role)) => skipped.push(Skipped {
                path: p.to_owned(),
                role,
                reason: match (role == Role::Vendored && marked == Some(true), by_note, by_library) {
                    (false, _, _) => None,
                    (true, true, _) => {
                        Some("a provenance note beside it (PROVENANCE.md, README.chromium) says where it was copied from")
                    }
                    (true, false, true) => {
                        Some("a directory named for a library kernel trees copy whole")
                    }
                    (true, false, false) => Some("linguist-vendored in .gitattributes"),
                },
            }),
            (_, Some(_)) => {}
            (_, None) => candidates.push(p),
        }
    }
    Partition {
        paths,
        candidates,
        skipped,
        roles,
        vendored,
    }
}

/// A path's role once `.gitattributes` has had its say: marked vendored,
/// it is; marked not vendored, a vendor directory's name no longer counts.
fn by_attributes(role: Option<Role>, vendored: Option<bool>) -> Option<Role> {
    match (vendored, role) {
        (Some(true), _) => Some(Role::Vendored),
        (Some(false), Some(Role::Vendored)) => None,
        _ => role,
    }
}

/// Kernel files that are infrastructure (bindings, allocators, tuning
/// tables…) leave the population for `skipped`, with the reason; plain
/// headers of that kind are dropped. Both are listed in `left_out`: they
/// still count among their directory's headers (see [`adopt_headers`]).
fn leave_out_infrastructure(
    found: Vec<Found>,
    skipped: &mut Vec<Skipped>,
    left_out: &mut Vec<String>,
) -> Vec<Found> {
    let why = on_cores(&found, |part| {
        part.iter()
            .map(|f| detect::infrastructure(&f.path))
            .collect::<Vec<_>>()
    });
    let mut kept = Vec::with_capacity(found.len());
    for (f, why) in found.into_iter().zip(why.into_iter().flatten()) {
        match why {
            Some(reason) => {
                left_out.push(f.path.clone());
                if f.kind.is_some() {
                    skipped.push(Skipped {
                        path: f.path,
                        role: Role::Infrastructure,
                        reason: Some(reason),
                    });
                }
            }
            None => kept.push(f),
        }
    }
    kept
}

/// An umbrella header (`numkong/dot.h` beside `numkong/dot/`, whose files
/// are kernels) includes and dispatches to the kernels of its directory;
/// it computes nothing itself and leaves the population as infrastructure.
/// So is a header with kernel markers of its own there (NumKong's
/// dispatch over ISA variants, its includes past the prefix read). A plain
/// header named after such a directory that includes none of its files
/// describes them instead (see [`siblings::adopt_descriptor_headers`]).
fn leave_out_umbrellas(root: &Path, found: Vec<Found>, skipped: &mut Vec<Skipped>) -> Vec<Found> {
    let mut kernel_dirs: std::collections::HashSet<&str> = Default::default();
    for f in found
        .iter()
        .filter(|f| f.kind.is_some() && f.path.contains('/'))
    {
        kernel_dirs.insert(parent_dir(&f.path));
    }
    let mut reread = Reread::new(root);
    let mut umbrella = |f: &Found| {
        let path = f.path.as_str();
        let ext = detect::extension(path);
        (matches!(ext, Some("h" | "hh" | "hpp" | "hxx")) || detect::is_gpu_header(path))
            && ext.is_some_and(|e| kernel_dirs.contains(&path[..path.len() - e.len() - 1]))
            && (f.kind.is_some()
                || siblings::includes_from(reread.prefix(path), signals::stem(path)))
    };
    let flags: Vec<bool> = found.iter().map(&mut umbrella).collect();
    let mut kept = Vec::with_capacity(found.len());
    for (f, is_umbrella) in found.into_iter().zip(flags) {
        match is_umbrella {
            true if f.kind.is_some() => skipped.push(Skipped {
                path: f.path,
                role: Role::Infrastructure,
                reason: Some("umbrella header over the kernels of its directory"),
            }),
            true => {}
            false => kept.push(f),
        }
    }
    kept
}

/// A C / C++ source that holds an OpenCL kernel as a string and sits
/// beside the `.cl` file it was generated from (MNN's `argmax_buf.cl` and
/// `argmax_buf_mnn_cl.cpp`) is a copy: the `.cl` file is the kernel.
fn leave_out_string_copies(found: Vec<Found>, skipped: &mut Vec<Skipped>) -> Vec<Found> {
    let cl: std::collections::HashSet<(&str, &str)> = found
        .iter()
        .filter(|f| detect::source_extension(&f.path) == Some("cl"))
        .map(|f| (parent_dir(&f.path), signals::stem(&f.path)))
        .collect();
    if cl.is_empty() {
        return found;
    }
    let is_copy = |f: &Found| {
        f.kind == Some(Kind::Opencl) && detect::source_extension(&f.path) != Some("cl") && {
            let (dir, stem) = (parent_dir(&f.path), signals::stem(&f.path));
            stem.match_indices('_')
                .any(|(at, _)| cl.contains(&(dir, &stem[..at])))
        }
    };
    let flags: Vec<bool> = found.iter().map(is_copy).collect();
    take_out(
        found,
        &flags,
        skipped,
        Role::Infrastructure,
        "generated string copy of the .cl kernel beside it",
    )
}

/// Move the found files `out` flags into `skipped`, with one role and
/// reason, and keep the others in order.
fn take_out(
    found: Vec<Found>,
    out: &[bool],
    skipped: &mut Vec<Skipped>,
    role: Role,
    reason: &'static str,
) -> Vec<Found> {
    let mut kept = Vec::with_capacity(found.len());
    for (f, &leave) in found.into_iter().zip(out) {
        match leave {
            true => skipped.push(Skipped {
                path: f.path,
                role,
                reason: Some(reason),
            }),
            false => kept.push(f),
        }
    }
    kept
}

/// When the repository is the catalog's own reference for one op (its
/// remote or name is the op's link), its kernel files that no signal
/// placed are that op's: a weak default, which the draft says.
///
/// So are the files only a backend claimed (their ISA, DSL or language, by
/// name, kind or default, and no computation): in the repository that is
/// the reference for an op, its NEON or Triton files are that op written
/// for NEON or Triton.
fn own_op_default(signals: &Signals, kernels: &mut [KernelFile]) {
    let Some(own) = signals.own.map(|i| &signals.ops[i]) else {
        return;
    };
    let defaults = |k: &KernelFile| {
        k.op.is_none() || (backend_only(signals, k) && k.op.as_deref() != Some(&own.slug))
    };
    for k in kernels.iter_mut().filter(|k| defaults(k)) {
        k.op = Some(own.slug.clone());
        k.evidence = vec![Evidence::OwnReference(own.slug.clone())];
    }
}

/// Whether only a backend placed a file: its op says how the file is
/// written (an ISA, a DSL, a language; not a `general` op such as
/// int-quant, which says what), and no computation was found in it.
fn backend_only(signals: &Signals, k: &KernelFile) -> bool {
    k.op.as_deref()
        .and_then(|op| signals.position(op))
        .is_some_and(|i| signals.ops[i].backend && !signals.ops[i].general)
        && !k
            .evidence
            .iter()
            .any(|e| matches!(e, Evidence::Computes(_)))
}

/// A file with no evidence of its own but weak defaults (a backend default,
/// a building block) or none is a part of what its directory does: when most
/// of the files placed there on their own evidence (a name, content, a
/// computation) are in one op, at least two and a fifth of the
/// directory's kernel files are, it joins that op
/// (GEMM epilogues and tile schedulers beside the GEMMs, an attention
/// kernel's helpers beside it). Its own directory decides, else its
/// parent's; a directory whose placed files disagree decides nothing, and
/// an op bound to other kinds of code takes nothing (a MIPS file beside
/// AVX and SSE ones is not the x86 backend's). The evidence stays weak,
/// so the draft still asks the team to check it.
///
/// A backend op says how a file is written, not what it computes: a file
/// only a backend placed follows its directory too, and does not vote (a
/// NEON `conv_3x3s2.c` named by its ISA beside convolutions is one). A
/// file placed by its directory's name, or by its twin in another model's
/// directory, keeps that op: it is the file's own evidence, weak as it is
/// (OpenBLAS's plain `kernel/arm/axpy.c`, twin of `kernel/riscv64/axpy.c`,
/// among ARM GEMM kernels).
fn follow_neighbours(kernels: &mut [KernelFile], signals: &Signals) {
    let mut placed: std::collections::HashMap<&str, BTreeMap<&str, usize>> = Default::default();
    let mut files: std::collections::HashMap<&str, usize> = Default::default();
    for k in kernels.iter() {
        *files.entry(parent_dir(&k.path)).or_default() += 1;
    }
    for k in kernels.iter() {
        if let Some(op) = &k.op {
            if !signals::is_weak(&k.evidence) && !backend_only(signals, k) {
                *placed
                    .entry(parent_dir(&k.path))
                    .or_default()
                    .entry(op)
                    .or_default() += 1;
            }
        }
    }
    // A directory token is weak evidence but the file's own, as is a
    // twin of the same name in another model's directory: they stay.
    let follows = |k: &KernelFile| {
        k.op.is_none()
            || backend_only(signals, k)
            || (signals::is_weak(&k.evidence)
                && !k
                    .evidence
                    .iter()
                    .any(|e| matches!(e, Evidence::Dir(_) | Evidence::Twin(_))))
    };
    let decided: Vec<(usize, String, Evidence)> = kernels
        .iter()
        .enumerate()
        .filter(|(_, k)| follows(k))
        .filter_map(|(i, k)| {
            neighbours_op(&placed, &files, parent_dir(&k.path))
                .filter(|(op, _)| signals.admits(op, k.kind))
                .map(|(op, why)| (i, op, why))
        })
        .collect();
    for (i, op, why) in decided {
        kernels[i].op = Some(op);
        kernels[i].evidence = vec![why];
    }
}

/// How many of a directory's kernel files the files that agree on an op
/// speak for, each: two `pack` files among rife-ncnn-vulkan's 22 shaders
/// do not make the directory a layout op.
const NEIGHBOUR_REACH: usize = 5;

/// The op most files placed on their own evidence in `dir` (else its
/// parent) are in, when at least two are placed there, they agree by a
/// majority, and they are a fifth of the directory's kernel files
/// ([`NEIGHBOUR_REACH`]); the first of the two directories that has
/// placed files decides, for or against.
fn neighbours_op(
    placed: &std::collections::HashMap<&str, BTreeMap<&str, usize>>,
    files: &std::collections::HashMap<&str, usize>,
    mut dir: &str,
) -> Option<(String, Evidence)> {
    // The files the vote speaks for: the directory's, and on the step to
    // the parent the parent's too.
    let mut spoken_for = 0;
    for _ in 0..2 {
        spoken_for += files.get(dir).copied().unwrap_or(0);
        if let Some(tally) = placed.get(dir) {
            let total: usize = tally.values().sum();
            let (op, n) = tally
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .expect("a tally holds an op");
            if total < 2 || 2 * n <= total {
                return None;
            }
            if n * NEIGHBOUR_REACH < spoken_for {
                return None;
            }
            let shown = if dir.is_empty() { "." } else { dir };
            let why = Evidence::Neighbours(format!("{n} of {total} in {shown}/"));
            return Some(((*op).to_owned(), why));
        }
        if dir.is_empty() {
            return None;
        }
        dir = parent_dir(dir);
    }
    None
}

/// The automaton of the detector's and the signals' own searches (the
/// detector's markers, the signals' computation patterns), every match
/// reported, overlaps too: a DFA, each byte one table lookup with no
/// failure transitions followed. `init`'s scan searches both lists at
/// once through [`lanes`] instead.
fn scan_automaton<I, P>(patterns: I) -> aho_corasick::AhoCorasick
where
    I: IntoIterator<Item = P>,
    P: AsRef<[u8]>,
{
    aho_corasick::AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(patterns)
        .expect("literal patterns, a few thousand at most")
}

/// The directory part of a path (`""` at the top).
fn parent_dir(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// Whether directory `dir` is `ancestor` or below it (`""` is the top,
/// above everything).
fn within(dir: &str, ancestor: &str) -> bool {
    ancestor.is_empty()
        || dir
            .strip_prefix(ancestor)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Reads prefixes again for the few files a later pass judges by content
/// (parts, headers a directory would adopt, plain sources among SIMD
/// kernels), with one buffer.
struct Reread {
    root: Confined,
    buf: Vec<u8>,
}

impl Reread {
    fn new(root: &Path) -> Reread {
        Reread {
            root: Confined::new(root),
            buf: vec![0u8; detect::PREFIX_BYTES],
        }
    }

    /// The file's prefix; empty when it cannot be read.
    fn prefix(&mut self, path: &str) -> &[u8] {
        let n = read_prefix(&self.root, path, &mut self.buf).unwrap_or(0);
        &self.buf[..n]
    }
}

/// The most common key of a tally, the first by order on a tie.
pub(super) fn most_common<'a, K: Ord + 'a>(
    tally: impl IntoIterator<Item = (&'a K, &'a usize)>,
) -> Option<&'a K> {
    tally
        .into_iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(k, _)| k)
}

/// The files a second pass reads again: those found with no kernel kind
/// yet that `unsettled` accepts, then the candidates the scan did not
/// find, each a path `eligible` accepts.
fn not_kernels_yet<'a>(
    found: &'a [Found],
    candidates: &[&'a str],
    unsettled: impl Fn(&Found) -> bool,
    eligible: impl Fn(&str) -> bool,
) -> Vec<&'a str> {
    let known: std::collections::HashSet<&str> = found.iter().map(|f| f.path.as_str()).collect();
    found
        .iter()
        .filter(|f| unsettled(f) && eligible(&f.path))
        .map(|f| f.path.as_str())
        .chain(
            candidates
                .iter()
                .copied()
                .filter(|p| eligible(p) && !known.contains(p)),
        )
        .collect()
}

/// Make each adopted path a kernel of its kind, placed by its candidate:
/// a file the scan found turns into one, the others join.
fn join_adopted(
    found: &mut Vec<Found>,
    mut adopted: BTreeMap<String, (Kind, Option<signals::Candidate>)>,
) {
    for f in found.iter_mut() {
        if let Some((kind, best)) = adopted.remove(&f.path) {
            f.kind = Some(kind);
            f.best = best;
            f.plain_kind = None;
            f.entry = true;
        }
    }
    found.extend(
        adopted
            .into_iter()
            .map(|(path, (kind, best))| Found::adopted(path, kind, best)),
    );
}

/// Read `paths` again on all cores and keep those `judge` gives a kind,
/// each placed by its own path and prefix.
fn reread_kinds(
    root: &Path,
    paths: &[&str],
    signals: &Signals,
    judge: impl Fn(&[u8]) -> Option<Kind> + Sync,
) -> BTreeMap<String, (Kind, Option<signals::Candidate>)> {
    on_cores(paths, |part| {
        let mut reread = Reread::new(root);
        let mut out = Vec::new();
        for &path in part {
            let prefix = reread.prefix(path);
            if let Some(kind) = judge(prefix) {
                out.push((
                    path.to_owned(),
                    (kind, signals.best(path, Some(kind), prefix)),
                ));
            }
        }
        out
    })
    .into_iter()
    .flatten()
    .collect()
}

/// The op whose catalog reference is the repository being initialised,
/// when exactly one is (by remote or project name).
fn own_op(catalog: &Matrix, signals: &Signals, input: &Input<'_>) -> Option<usize> {
    let me = input.identity();
    let own: Vec<usize> = (0..signals.ops.len())
        .filter(|&i| {
            catalog
                .op(&signals.ops[i].slug)
                .and_then(|o| o.link.as_ref())
                .is_some_and(|l| me.is_self(&l.value))
        })
        .collect();
    match own.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The tracked files partitioned, scanned, and the population's
/// leave-outs (infrastructure, umbrellas, string copies, host units)
/// taken out into `skipped`.
fn found<'a>(
    input: &Input<'a>,
    signals: &Signals,
    examples_ship: bool,
) -> (Partition<'a>, ScanOut) {
    let mut partition = partition(input, examples_ship);
    let mut scanned = scan(input.root, &partition.candidates, signals);
    let macros = std::mem::take(&mut scanned.device_macros);
    device_macros::adopt_users(
        input.root,
        &mut scanned.found,
        &partition.candidates,
        macros,
        signals,
    );
    let numba_names = std::mem::take(&mut scanned.numba_decorators);
    numba::adopt_users(
        input.root,
        &mut scanned.found,
        &partition.candidates,
        numba_names,
        signals,
    );
    let skipped = &mut partition.skipped;
    let found = leave_out_infrastructure(
        std::mem::take(&mut scanned.found),
        skipped,
        &mut scanned.infrastructure,
    );
    let found = leave_out_umbrellas(input.root, found, skipped);
    let found = leave_out_string_copies(found, skipped);
    let found = numba::leave_out_variants(found, &partition.paths, skipped);
    let found = numba::leave_out_strays(found, skipped);
    scanned.found = host_units::leave_out(input.root, found, &partition.paths, skipped);
    host_units::interface_headers(&scanned.found, skipped);
    (partition, scanned)
}

/// The count of kernel sources left out as examples, when they outnumber
/// the population found elsewhere tenfold (NVIDIA's cuda-samples: 234 to
/// 1): the tree is a collection of samples, and they are the kernels it
/// ships.
fn examples_shipped(skipped: &[Skipped], scanned: &ScanOut) -> Option<usize> {
    let examples = skipped.iter().filter(|s| s.role == Role::Example).count();
    let kernels = scanned.found.iter().filter(|f| f.kind.is_some()).count();
    (examples >= EXAMPLES_SHIP_AT_LEAST && kernels * 10 < examples).then_some(examples)
}

/// The partition and scan of the tree, its examples and benchmarks
/// counted as kernels when it is a collection of samples (see
/// [`examples_shipped`]) or when they hold its kernels: nothing outside
/// them is a kernel (DiffTaichi's `@ti.kernel` scripts), or ten or more
/// of them outnumber the kernels outside tenfold, in a language whose
/// kernels only their content tells (NPBench's Triton implementations
/// under `benchmarks/`, one utility module outside). With the count of
/// kernel sources shipped.
fn found_with_examples<'a>(
    input: &Input<'a>,
    signals: &Signals,
) -> (Partition<'a>, ScanOut, Option<usize>) {
    let (partition, scanned) = found(input, signals, false);
    if let Some(n) = examples_shipped(&partition.skipped, &scanned) {
        let (partition, scanned) = found(input, signals, true);
        return (partition, scanned, Some(n));
    }
    // Few kernels outside: read the examples and benchmarks too (cheap, a
    // small tree), and keep them when they hold the tree's kernels.
    let outside = kernel_count(&scanned);
    if outside >= EXAMPLES_SHIP_AT_LEAST {
        return (partition, scanned, None);
    }
    let (with_examples, rescanned) = found(input, signals, true);
    let inside = kernel_count(&rescanned).saturating_sub(outside);
    let ship = match outside {
        0 => inside > 0,
        _ => inside >= EXAMPLES_SHIP_AT_LEAST && inside >= 10 * outside,
    };
    match ship {
        true => (with_examples, rescanned, Some(inside)),
        false => (partition, scanned, None),
    }
}

/// How many files a scan found to be kernels.
fn kernel_count(scanned: &ScanOut) -> usize {
    scanned.found.iter().filter(|f| f.kind.is_some()).count()
}

/// The fewest example kernel sources that make a tree a sample collection.
const EXAMPLES_SHIP_AT_LEAST: usize = 10;

/// Draft the matrix.
///
/// Two steps run beside others on a second core: the tree of tracked files
/// is built while the found files are adopted and assigned (it needs only
/// which paths are infrastructure, known before), and the population's
/// globs are drafted while each op's are.
pub fn plan(catalog: &Matrix, input: &Input<'_>) -> Plan {
    let mut signals = Signals::for_catalog(catalog);
    signals.own = own_op(catalog, &signals, input);
    let (partition, scanned, examples_ship) = found_with_examples(input, &signals);
    let Partition {
        paths,
        candidates,
        mut skipped,
        mut roles,
        vendored,
    } = partition;
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    let infra: std::collections::HashSet<&str> = skipped
        .iter()
        .filter(|s| s.role == Role::Infrastructure)
        .map(|s| s.path.as_str())
        .collect();
    for (&p, role) in paths.iter().zip(roles.iter_mut()) {
        *role |= infra.contains(p);
    }
    let (tree, kernels) = std::thread::scope(|s| {
        // The population: every tracked file counts, tests and vendored
        // trees may be matched (the exclude list takes them out again).
        let tree =
            s.spawn(|| globs::Tree::from_paths(paths.iter().copied().zip(roles.iter().copied())));
        let kernels = assigned(input.root, scanned, &candidates, &signals);
        (tree.join().expect("init tree thread"), kernels)
    });
    // A file left out is never also a kernel, whichever later pass would
    // adopt it again (an umbrella header a kernel includes).
    let left_out: std::collections::HashSet<&str> =
        skipped.iter().map(|s| s.path.as_str()).collect();
    let mut kernels: Vec<KernelFile> = kernels
        .into_iter()
        .filter(|k| !left_out.contains(k.path.as_str()))
        .collect();
    let mut families = name_groups::group(&mut kernels);
    group_isa_ports(&mut kernels, &mut families, &signals);
    let mut kinds = BTreeMap::new();
    for k in &kernels {
        *kinds.entry(k.kind).or_insert(0) += 1;
    }
    let ((include, exclude), ops) = std::thread::scope(|s| {
        let population = s.spawn(|| population(&tree, &kernels, &paths, &roles, &vendored));
        let cover = OpCover::new(&tree, &kernels);
        let mut ops = planned_ops(catalog, &signals, &cover, &kernels, input);
        ops.extend(family_ops(&families, &cover, &kernels));
        (population.join().expect("init population thread"), ops)
    });
    let ladders = planned_ladders(catalog, &ops);
    let unclassified = kernels
        .iter()
        .filter(|k| k.op.is_none())
        .map(|k| k.path.clone())
        .collect();
    Plan {
        name: input.name.to_owned(),
        today: input.today,
        tracked_files: paths.len(),
        kernels,
        skipped,
        include,
        exclude,
        ops,
        ladders,
        unclassified,
        kinds,
        examples_ship,
    }
}

/// The found files' kernels, each with its op: the files the scan found
/// are joined by the parts, siblings and units that go with them, then
/// assigned, weak ones following their neighbours.
fn assigned(
    root: &Path,
    scanned: ScanOut,
    candidates: &[&str],
    signals: &Signals,
) -> Vec<KernelFile> {
    let ScanOut {
        mut found,
        mut host_included,
        mut launchers,
        includers,
        instantiation_macros,
        opencl_launchers,
        infrastructure,
        simd_layer,
        ..
    } = scanned;
    launchers.extend(device_macros::instantiating_units(
        root,
        &includers,
        &instantiation_macros,
    ));
    // Headers are judged by their directory's detected kernels first, so a
    // kernel's parts do not tip a directory of host headers.
    adopt_headers(root, &mut found, &infrastructure, signals);
    siblings::adopt_descriptor_headers(root, &mut found, signals);
    adopt_scalar_backends(&mut found, &mut host_included);
    siblings::adopt_asm_entries(root, &mut found, candidates, signals);
    adopt_plain_sources(root, &mut found, candidates, signals);
    scalar_defaults::adopt(root, &mut found, candidates, signals);
    // After the directory passes: a file written with the SIMD layer is
    // placed by its own evidence and tips no directory of plain code.
    simd_layer::adopt_users(root, &mut found, candidates, simd_layer, signals);
    adopt_included(root, &mut found, candidates, &host_included, signals);
    siblings::adopt_launch_units(root, &mut found, &launchers, signals);
    siblings::adopt_isa_units(root, &mut found, &includers, signals);
    siblings::adopt_opencl_launchers(&mut found, opencl_launchers);
    templates::adopt(root, &mut found, candidates, signals);
    // Last: a file no pass made a kernel, named after one in a sibling
    // model's directory.
    twins::adopt(root, &mut found, candidates, signals);
    let mut kernels = kernel_files(found, signals);
    follow_neighbours(&mut kernels, signals);
    own_op_default(signals, &mut kernels);
    kernels
}

/// The catalog ladders that rank a drafted op (the ladder's `ops` key).
fn planned_ladders(catalog: &Matrix, ops: &[PlannedOp]) -> Vec<PlannedLadder> {
    catalog
        .ladders
        .iter()
        .filter_map(|ladder| {
            let brought_by: Vec<String> = ladder
                .ops
                .iter()
                .filter(|slug| ops.iter().any(|o| o.slug == slug.value))
                .map(|slug| slug.value.clone())
                .collect();
            (!brought_by.is_empty()).then(|| PlannedLadder {
                ladder: ladder.clone(),
                brought_by,
            })
        })
        .collect()
}

/// `[kernels]`: rules (`dir/**/*.ext` with the other files excluded) where
/// the kernels are most of a directory's files of their extension, the
/// tightest exact globs for the rest, and excludes for the tests, vendored
/// trees and infrastructure the globs reach.
fn population(
    tree: &globs::Tree,
    kernels: &[KernelFile],
    paths: &[&str],
    roles: &[bool],
    vendored: &attributes::Vendored,
) -> (Vec<String>, Vec<String>) {
    let targets: Vec<&str> = kernels.iter().map(|k| k.path.as_str()).collect();
    let rules = tree.rules(&targets, &crate::matrix::can_hold);
    let rest: Vec<&str> = rules.rest.iter().map(String::as_str).collect();
    let every = |_: &str| true;
    let mut include = rules.include;
    include.extend(tree.cover(
        &rest,
        globs::Options {
            whole_dirs: true,
            ext_globs: true,
            counts: &every,
        },
    ));
    include.sort();
    let mut exclude = excludes(&include, paths, roles, vendored);
    exclude.extend(rules.exclude);
    exclude.sort();
    exclude.dedup();
    (include, exclude)
}

/// The population's files with their op, sorted by path.
fn kernel_files(found: Vec<Found>, signals: &Signals) -> Vec<KernelFile> {
    let mut kernels: Vec<KernelFile> = found
        .into_iter()
        .filter_map(|f| {
            Some(KernelFile {
                op: f.best.as_ref().map(|c| signals.ops[c.op].slug.clone()),
                evidence: f.best.map(|c| c.evidence).unwrap_or_default(),
                kind: f.kind?,
                path: f.path,
            })
        })
        .collect();
    kernels.sort_by(|a, b| a.path.cmp(&b.path));
    kernels
}

/// One drafted op per catalog op that holds files: its globs (which must
/// not match other source files: other ops' kernels, host code; build
/// files and docs beside the kernels do not count), its evidence, and its
/// reference (never the repository itself, see [`reference`]).
fn planned_ops(
    catalog: &Matrix,
    signals: &Signals,
    cover: &OpCover<'_>,
    kernels: &[KernelFile],
    input: &Input<'_>,
) -> Vec<PlannedOp> {
    let mut by_op: BTreeMap<&str, Vec<&KernelFile>> = BTreeMap::new();
    for k in kernels {
        if let Some(op) = &k.op {
            by_op.entry(op.as_str()).or_default().push(k);
        }
    }
    let mut ops = Vec::new();
    for sig in &signals.ops {
        let Some(files) = by_op.get(sig.slug.as_str()) else {
            continue;
        };
        let cat = catalog.op(&sig.slug).expect("signals only for catalog ops");
        let reference = reference::choose(cat, &input.identity());
        ops.push(PlannedOp {
            slug: sig.slug.clone(),
            title: cat.title.clone(),
            files: cover.globs(files),
            at: at_entries(files),
            sota: reference.sota,
            link: reference.link,
            self_reference: reference.self_reference,
            papers: cat.papers.clone(),
            suggested_route: cat.route.as_ref().map(|r| r.value.name().to_owned()),
            suggested_oracle: cat.oracle.clone(),
            check: cat.check.iter().map(|c| c.value.clone()).collect(),
            file_count: files.len(),
            signals: signal_tally(files),
            weak: files
                .iter()
                .filter(|k| signals::is_weak(&k.evidence))
                .count(),
            family: None,
        });
    }
    ops
}

/// How an op's `files` globs are drafted: they match none of the tree's
/// other source files (other ops' kernels, host code; build files and docs
/// beside the kernels do not count) — and no other file with a kernel's
/// extension, for a kernel is code whatever its extension says: without
/// that, PyFR's `**/*.mako` or XNNPACK's `**/*.in` would put every other
/// op's templates in each op that has two of them.
struct OpCover<'a> {
    tree: &'a globs::Tree,
    kernel_exts: std::collections::HashSet<&'a str>,
}

impl<'a> OpCover<'a> {
    fn new(tree: &'a globs::Tree, kernels: &'a [KernelFile]) -> Self {
        let kernel_exts = kernels
            .iter()
            .filter_map(|k| detect::extension(&k.path))
            .collect();
        OpCover { tree, kernel_exts }
    }

    /// The globs of an op whose kernel files are `files`.
    fn globs(&self, files: &[&KernelFile]) -> Vec<String> {
        let counts = |ext: &str| detect::is_code_ext(ext) || self.kernel_exts.contains(ext);
        let targets: Vec<&str> = files.iter().map(|k| k.path.as_str()).collect();
        self.tree.cover(
            &targets,
            globs::Options {
                whole_dirs: true,
                ext_globs: true,
                counts: &counts,
            },
        )
    }
}

/// One custom op per family of unplaced files that share a name (see
/// [`name_groups`]): no reference, route, oracle or check — the team names
/// the family and says what to read; until then it is debt.
fn family_ops(
    families: &[name_groups::NameGroup],
    cover: &OpCover<'_>,
    kernels: &[KernelFile],
) -> Vec<PlannedOp> {
    let mut by_family: BTreeMap<&str, Vec<&KernelFile>> = BTreeMap::new();
    for k in kernels {
        if let [Evidence::SharedName(word) | Evidence::PerIsa(word)] = k.evidence.as_slice() {
            by_family.entry(word.as_str()).or_default().push(k);
        }
    }
    families
        .iter()
        .map(|family| {
            let slug = family.slug();
            let files = by_family.remove(family.word.as_str()).unwrap_or_default();
            let per_isa = files
                .iter()
                .any(|k| matches!(k.evidence.as_slice(), [Evidence::PerIsa(_)]));
            PlannedOp {
                title: format!(
                    "Files named *{}*{} (a family no catalog op names)",
                    family.word,
                    if per_isa {
                        ", written per instruction set"
                    } else {
                        ""
                    }
                ),
                files: cover.globs(&files),
                at: at_entries(&files),
                sota: FAMILY_SOTA.to_owned(),
                link: None,
                papers: Vec::new(),
                suggested_route: None,
                suggested_oracle: None,
                check: Vec::new(),
                file_count: files.len(),
                signals: signal_tally(&files),
                self_reference: None,
                weak: files.len(),
                family: Some(family.word.clone()),
                slug,
            }
        })
        .collect()
}

/// The `sota` of a family's custom op: the field is required, and nothing
/// is known to name yet.
const FAMILY_SOTA: &str = "undecided: no catalog op matched these files; name what to read first";

/// The signals that placed an op's files, most frequent first, at most four.
fn signal_tally(files: &[&KernelFile]) -> Vec<(String, usize)> {
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    for k in files {
        for e in &k.evidence {
            *tally.entry(e.to_string()).or_default() += 1;
        }
    }
    let mut seen: Vec<(String, usize)> = tally.into_iter().collect();
    seen.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    seen.truncate(4);
    seen
}

/// A file included by more kernels than this is a helper they share
/// (llm.c's `cuda_common.h`, included by ten), not a part of one. On the
/// fit corpus any cap from 1 to 1000 moves the means by 0.02 at most.
const PART_OF_AT_MOST: usize = 3;

/// A file a kernel includes from its own directory is a part of that
/// kernel (FlashMLA's `kernel.h` beside its `.cu` instantiations, BLIS's
/// asm-macro headers and the `_real.c` bodies its RISC-V kernels expand):
/// it joins the population with the includer's kind, unless it plays a
/// role, is infrastructure, is shared by more than [`PART_OF_AT_MOST`]
/// kernels, or a host source (a `.c`, `.cpp`, `.m` that is no kernel)
/// includes it too: then it is shared with the host (BitNet's
/// `ggml-bitnet.h`, calm's `model.h`). Only files scanned as candidates can
/// join.
fn adopt_included(
    root: &Path,
    found: &mut Vec<Found>,
    candidates: &[&str],
    host_included: &std::collections::HashSet<String>,
    signals: &Signals,
) {
    if found.iter().all(|f| f.includes.is_empty()) {
        return;
    }
    let candidates: std::collections::HashSet<&str> = candidates.iter().copied().collect();
    let mut parts: BTreeMap<String, (Kind, usize)> = BTreeMap::new();
    for f in found.iter() {
        let Some(kind) = f.kind else { continue };
        // The type a Swift extension extends is never a shared helper.
        let extended = detect::extended_type(&f.path);
        // A file that includes the same part again and again (TurboPFor's
        // `bitpack.c`: `bitpack_.h` once per bit width) is one sharer.
        let distinct: std::collections::BTreeSet<&String> = f.includes.iter().collect();
        for p in distinct {
            if candidates.contains(p.as_str())
                && !host_included.contains(p)
                && detect::infrastructure(p).is_none()
            {
                let sharers = &mut parts.entry(p.clone()).or_insert((kind, 0)).1;
                if extended.as_deref() != Some(p.as_str()) {
                    *sharers += 1;
                }
            }
        }
    }
    let mut parts: BTreeMap<String, Kind> = parts
        .into_iter()
        .filter(|(_, (_, n))| *n <= PART_OF_AT_MOST)
        .map(|(p, (k, _))| (p, k))
        .collect();
    // A part is classified by its own content too (few files: read again).
    let mut reread = Reread::new(root);
    // A part that declares only is the kernel's interface (a GPU kernel's
    // host API, a SIMD layer's class declaration), unless a CPU kernel's
    // part writes its code as macros (TurboPFor's `bitpack_.h`: a
    // `#define` of statements per bit width).
    let mut best_of = |path: &str, kind: Kind| {
        let part = reread.prefix(path);
        let interface = declaration_test_applies(kind, path)
            && declarations::declares_only(part)
            && !(kind.is_cpu_simd() && macro_defs::defines_statement_macros(part));
        (!interface).then(|| signals.best(path, Some(kind), part))
    };
    for f in found.iter_mut() {
        if let Some(kind) = parts.remove(&f.path) {
            if f.kind.is_none() {
                if let Some(best) = best_of(&f.path, kind) {
                    f.kind = Some(kind);
                    f.best = best;
                }
            }
        }
    }
    for (path, kind) in parts {
        let Some(best) = best_of(&path, kind) else {
            continue;
        };
        found.push(Found::adopted(path, kind, best));
    }
}

/// A plain header (`.h`, `.hpp`, …) among kernel files is part of them
/// (`static_switch.h` beside FlashAttention's `.cu` files): a header with
/// no marker of its own joins the kernels when at least three files of its
/// directory are kernels and they outnumber the other headers there; it
/// takes their most common kind and is classified by its name and path.
/// Among CPU SIMD kernels (assembly too), a header that includes one
/// ISA's intrinsics header takes that ISA's kind instead (libwebp's
/// `neon.h` beside SSE2 kernels; an `<immintrin.h>` helper beside x86
/// `.S` kernels is `simd-x86`, no longer `asm`).
fn adopt_headers(root: &Path, found: &mut [Found], infrastructure: &[String], signals: &Signals) {
    // Headers are read again to test them (few get this far).
    let mut reread = Reread::new(root);
    let mut tally: std::collections::HashMap<String, (usize, usize, BTreeMap<Kind, usize>)> =
        Default::default();
    for f in found.iter() {
        let e = tally.entry(parent_dir(&f.path).to_owned()).or_default();
        match f.kind {
            Some(k) => {
                e.0 += 1;
                *e.2.entry(k).or_default() += 1;
            }
            None => e.1 += 1,
        }
    }
    // Infrastructure left the population but not its directory: an
    // allocator or runtime wrapper is one of the headers kernels must
    // outnumber there.
    for path in infrastructure {
        tally.entry(parent_dir(path).to_owned()).or_default().1 += 1;
    }
    for f in found.iter_mut().filter(|f| f.kind.is_none()) {
        let Some((kernels, plain, kinds)) = tally.get(parent_dir(&f.path)) else {
            continue;
        };
        if *kernels >= 3 && kernels > plain {
            let majority = most_common(kinds).copied();
            // An ISA's own include decides among CPU SIMD kernels only: a
            // header including <immintrin.h> beside CUDA kernels is theirs.
            let kind = match (f.plain_kind, majority) {
                (Some(own), Some(m)) if own.is_cpu_simd() && !m.is_cpu_simd() => Some(m),
                (own, m) => own.or(m),
            };
            // A GPU header that only declares is the host's interface. A
            // shader's header (GLSL, WGSL) includes no system header: one
            // that does, beside shaders, is the host's C++
            // (rife-ncnn-vulkan's `rife.h` with `<string>`; ExecuTorch's
            // GLSL `indexing_utils.h` has none).
            let interface = kind.is_some_and(|k| declaration_test_applies(k, &f.path));
            let beside_shaders = majority.is_some_and(Kind::is_shader_language);
            if interface || beside_shaders {
                let text = reread.prefix(&f.path);
                if interface && declarations::declares_only(text)
                    || beside_shaders && includes_system(text)
                {
                    continue;
                }
            }
            f.kind = kind;
            f.best = signals.best(&f.path, kind, b"");
        }
    }
}

/// Whether C-family text includes a system header (`#include <string>`).
fn includes_system(text: &[u8]) -> bool {
    text.split(|&b| b == b'\n').any(|line| {
        detect::preprocessor_directive(line)
            .and_then(|directive| directive.strip_prefix(b"include"))
            .is_some_and(|rest| rest.trim_ascii_start().starts_with(b"<"))
    })
}

/// Whether a header of this kind that only declares is no kernel: a GPU
/// header with no device marker (the host's interface), and a CPU
/// header (a layer's class declaration beside its SIMD sources).
fn declaration_test_applies(kind: Kind, path: &str) -> bool {
    kind.marks_device_code() || (!kind.is_gpu() && detect::is_header(path))
}

/// One computation's ports to several instruction sets, grouped by
/// [`isa_families::group`] with this catalog's ISA backend ops. A port
/// joins an op that says what code computes and holds its kind: a
/// general op (int-quant) says what a file computes, a backend only how
/// it is written.
fn group_isa_ports(
    kernels: &mut [KernelFile],
    families: &mut Vec<name_groups::NameGroup>,
    signals: &Signals,
) {
    // The ISA backend ops' slugs, looked up once (the pass asks per file).
    let isa_ops: Vec<&str> = signals
        .ops
        .iter()
        .filter(|o| o.is_isa_backend())
        .map(|o| o.slug.as_str())
        .collect();
    let joinable = |slug: &str, kind: Kind| {
        let how_written = |i: usize| signals.ops[i].backend && !signals.ops[i].general;
        signals.position(slug).is_none_or(|i| !how_written(i)) && signals.admits(slug, kind)
    };
    isa_families::group(kernels, families, |slug| isa_ops.contains(&slug), joinable);
}

/// A scalar backend (`src/scalar/` beside `src/neon/`, `src/psimd/`;
/// BLIS's `ref_kernels/` beside `kernels/`) holds the SIMD kernels beside
/// it written without vectors: its C-family files that hold code join the
/// population as [`Kind::Scalar`] when the scalar directory's parent holds
/// CPU SIMD kernels outside it. Without such siblings a `generic/` or
/// `serial/` directory is plain code, and what its sources include is
/// shared with the host.
fn adopt_scalar_backends(
    found: &mut [Found],
    host_included: &mut std::collections::HashSet<String>,
) {
    let simd_dirs: std::collections::BTreeSet<&str> = found
        .iter()
        .filter(|f| f.kind.is_some_and(Kind::is_cpu_simd))
        .map(|f| parent_dir(&f.path))
        .collect();
    let has_simd_sibling = |scalar_dir: &str| {
        let scalar_dir = scalar_dir.trim_end_matches('/');
        let parent = parent_dir(scalar_dir);
        simd_dirs
            .iter()
            .any(|d| within(d, parent) && !within(d, scalar_dir))
    };
    let adopted: Vec<usize> = found
        .iter()
        .enumerate()
        .filter(|(_, f)| f.kind.is_none() && f.plain_kind == Some(Kind::Scalar))
        // A source holds code (BLIS writes its bodies in macros); a header
        // that only declares is the backend's interface.
        .filter(|(_, f)| !f.declares_only)
        .filter(|(_, f)| detect::scalar_backend_dir(&f.path).is_some_and(&has_simd_sibling))
        .map(|(i, _)| i)
        .collect();
    for &i in &adopted {
        found[i].kind = Some(Kind::Scalar);
    }
    for f in found.iter_mut() {
        if f.kind.is_none() && f.plain_kind == Some(Kind::Scalar) && detect::is_host_source(&f.path)
        {
            host_included.extend(std::mem::take(&mut f.includes));
        }
    }
}

/// A plain C / C++ source among CPU SIMD kernels (CMSIS-NN's plain-C
/// `arm_relu_q7.c` beside its Helium and DSP kernels) is the same library's
/// kernel without vectors: it joins as [`Kind::Scalar`] when its directory
/// holds at least three CPU SIMD kernels and they outnumber its plain
/// sources. Where they do not, a plain source joins if it is named in the
/// family of one of them (`arm_convolve_f32.c` beside the Helium
/// `arm_convolve_s8.c`) and computes (a loop or inline assembly: the
/// family's `_wrapper` and `_get_buffer_sizes` files have neither). An
/// assembly source there with no SIMD instruction (OpenBLAS's x87 `.S`
/// beside its SSE kernels; libjpeg-turbo's `jccolor-avx2.asm`, whose body
/// an `%include` brings in) joins the same way as its ISA's assembly
/// kernel, [`Kind::Asm`], found on its own as [`Kind::AsmScalar`] or not.
/// Read again to be placed (few files get this far).
fn adopt_plain_sources(
    root: &Path,
    found: &mut Vec<Found>,
    candidates: &[&str],
    signals: &Signals,
) {
    let (simd, families) = simd_directories(found);
    if simd.is_empty() {
        return;
    }
    // Only the files of those directories matter: the rest is not looked up.
    // Scalar assembly found on its own is judged again here: beside SIMD
    // kernels it is their ISA's (libjpeg-turbo's `jccolor-avx2.asm`, whose
    // body an `%include` brings in).
    let known: std::collections::HashSet<&str> = found
        .iter()
        .filter(|f| simd.contains_key(parent_dir(&f.path)) && f.kind != Some(Kind::AsmScalar))
        .map(|f| f.path.as_str())
        .collect();
    let mut plain: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for &p in candidates {
        if !detect::is_c_source(p) && !detect::is_asm_source(p) {
            continue;
        }
        let dir = parent_dir(p);
        if simd.contains_key(dir) && !known.contains(p) {
            plain.entry(dir).or_default().push(p);
        }
    }
    let mut reread = Reread::new(root);
    let mut adopted = Vec::new();
    for (dir, sources) in plain {
        let kernels = simd[dir];
        if kernels < 3 {
            continue;
        }
        let outnumbered = kernels > sources.len();
        for path in sources {
            let in_family = || {
                name_family(path).is_some_and(|n| families.get(dir).is_some_and(|f| f.contains(n)))
            };
            // Left out as infrastructure (a feature probe, a timer): it
            // stays out, whatever its neighbours are (it still counts
            // among the directory's plain sources).
            if !outnumbered && !in_family() || detect::infrastructure(path).is_some() {
                continue;
            }
            let asm = detect::is_asm_source(path);
            let prefix = reread.prefix(path);
            // A family member computes: a wrapper or a buffer-size query
            // (`arm_convolve_wrapper_s8.c`) has no loop or assembly of its
            // own. So does a source that includes an ISPC kernel's generated
            // header, or it only launches that kernel (`parallel_for` over
            // `ispc::…_run`, Open Image Denoise's `cpu_pool.cpp`).
            if !asm && (!outnumbered || includes_ispc_header(prefix)) && !computes(prefix) {
                continue;
            }
            let kind = if asm { Kind::Asm } else { Kind::Scalar };
            let best = signals.best(path, Some(kind), prefix);
            adopted.push(Found::adopted(path.to_owned(), kind, best));
        }
    }
    // A scalar assembly file found on its own takes the directory's kind
    // (one lookup per found file, not a search of the adopted list).
    let mut by_path: BTreeMap<String, Found> =
        adopted.into_iter().map(|a| (a.path.clone(), a)).collect();
    for f in found.iter_mut() {
        if f.kind == Some(Kind::AsmScalar) {
            if let Some(a) = by_path.remove(&f.path) {
                *f = a;
            }
        }
    }
    found.extend(by_path.into_values());
}

/// Per directory, its CPU SIMD kernels: how many, and their name families.
type SimdDirectories<'a> = (
    std::collections::HashMap<&'a str, usize>,
    std::collections::HashMap<&'a str, std::collections::HashSet<&'a str>>,
);

fn simd_directories(found: &[Found]) -> SimdDirectories<'_> {
    let (mut simd, mut families): SimdDirectories<'_> = Default::default();
    for f in found
        .iter()
        .filter(|f| f.kind.is_some_and(Kind::is_cpu_simd))
    {
        let dir = parent_dir(&f.path);
        *simd.entry(dir).or_default() += 1;
        if let Some(family) = name_family(&f.path) {
            families.entry(dir).or_default().insert(family);
        }
    }
    (simd, families)
}

/// The first two words of a file's stem (`arm_convolve` of
/// `arm_convolve_1x1_s8.c`), the family a library names its variants by;
/// none unless more words follow (`ggml-cpu.c` names a module, not a
/// family: its `ggml-cpu.cpp` is the backend's registration).
fn name_family(path: &str) -> Option<&str> {
    let stem = signals::stem(path);
    let mut cuts = stem.match_indices(['_', '-']).map(|(at, _)| at);
    cuts.next().filter(|&at| at > 0)?;
    let end = cuts.next()?;
    (end + 1 < stem.len()).then(|| &stem[..end])
}

/// Whether C text includes the header ISPC generates for a kernel
/// (`#include "cpu_pool_f32_ispc.h"`): it calls that kernel from the host.
fn includes_ispc_header(text: &[u8]) -> bool {
    host_units::includes(text)
        .iter()
        .any(|included| included.ends_with("_ispc.h"))
}

/// Whether C text has a loop (`for (`, `while (` but not the end of a
/// `do { } while (0)` macro) or inline assembly (`__asm__ volatile (`,
/// `__ASM volatile (` in CMSIS, BLIS's micro-kernels), outside comments.
pub(super) fn computes(text: &[u8]) -> bool {
    let text = without_comments(text);
    let text = text.as_slice();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let keyword = |kw: &[u8], then: &dyn Fn(u8) -> bool, after_brace_ok: bool| {
        memchr::memmem::find_iter(text, kw).any(|at| {
            let end = at + kw.len();
            let before = at.checked_sub(1).map(|i| text[i]);
            let whole = !before.is_some_and(ident) && !text.get(end).is_some_and(|&b| ident(b));
            let next = text[end..].iter().find(|b| !b.is_ascii_whitespace());
            let prev = text[..at].iter().rev().find(|b| !b.is_ascii_whitespace());
            whole && next.is_some_and(|&b| then(b)) && (after_brace_ok || prev != Some(&b'}'))
        })
    };
    let call = |b: u8| b == b'(';
    let asm = |b: u8| matches!(b, b'(' | b'v' | b'_');
    keyword(b"for", &call, true)
        || keyword(b"while", &call, false)
        || [&b"__asm__"[..], b"__asm", b"__ASM", b"asm"]
            .iter()
            .any(|kw| keyword(kw, &asm, true))
}

/// C text with its `//` and `/* */` comments blanked (a heuristic: a
/// comment marker inside a string blanks too).
pub(super) fn without_comments(text: &[u8]) -> Vec<u8> {
    let mut out = text.to_vec();
    let mut i = 0;
    while i + 1 < out.len() {
        let end = match &out[i..i + 2] {
            b"//" => memchr::memchr(b'\n', &out[i..]).map_or(out.len(), |n| i + n),
            b"/*" => memchr::memmem::find(&out[i + 2..], b"*/").map_or(out.len(), |n| i + n + 4),
            _ => {
                i += 1;
                continue;
            }
        };
        out[i..end].fill(b' ');
        i = end;
    }
    out
}

/// Where the op is performed: its files with the strongest name evidence,
/// at most three (they exist, so `at_exists` holds from the start).
fn at_entries(files: &[&KernelFile]) -> Vec<String> {
    let mut ranked: Vec<(std::cmp::Reverse<usize>, usize, &str)> = files
        .iter()
        .map(|k| {
            let names = k
                .evidence
                .iter()
                .filter(|e| matches!(e, Evidence::Name(_)))
                .count();
            (std::cmp::Reverse(names), k.path.len(), k.path.as_str())
        })
        .collect();
    if ranked.len() > 3 {
        ranked.select_nth_unstable(2);
        ranked.truncate(3);
    }
    let mut at: Vec<String> = ranked.iter().map(|k| k.2.to_owned()).collect();
    at.sort();
    at
}

/// Exclude globs for the tests, benchmarks, examples and vendored trees the
/// include globs reach: the topmost directory of that role, or the file.
fn excludes(
    include: &[String],
    paths: &[&str],
    roles: &[bool],
    vendored: &attributes::Vendored,
) -> Vec<String> {
    let globs: Vec<crate::glob::FileGlob> = match include
        .iter()
        .map(|g| crate::glob::FileGlob::new(g))
        .collect()
    {
        Ok(globs) => globs,
        Err(_) => return Vec::new(),
    };
    let mut set = crate::index::OpIndex::from_globs(globs.iter().map(|g| ((0, 0), g)));
    let mut left_out: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (&p, _) in paths.iter().zip(roles).filter(|(_, &role)| role) {
        if set.is_match(p) {
            // The topmost of the role directory and the `.gitattributes`
            // one, so that no two nest.
            let dir = match (role_dir(p), vendored.copied_dir(p)) {
                (Some(a), Some(b)) => Some(if a.len() <= b.len() { a } else { b }),
                (a, b) => a.or(b),
            };
            left_out.entry(dir.unwrap_or(p)).or_default().push(p);
        }
    }
    // A directory that also holds kept files (a `bindings/` package with
    // a `kernels/` directory below it) is excluded file by file. The
    // topmost role directories nest in none of the others, so a path is
    // below one only if it is below the greatest that sorts before it.
    let role_dirs: std::collections::BTreeSet<&str> = left_out
        .keys()
        .copied()
        .filter(|d| d.ends_with('/'))
        .collect();
    let mut holding_kept: std::collections::HashSet<&str> = Default::default();
    if !role_dirs.is_empty() {
        for (&p, _) in paths.iter().zip(roles).filter(|(_, &role)| !role) {
            let Some(&dir) = role_dirs.range(..=p).next_back() else {
                continue;
            };
            if p.starts_with(dir) && !holding_kept.contains(dir) && set.is_match(p) {
                holding_kept.insert(dir);
            }
        }
    }
    let mut dirs: BTreeMap<String, ()> = BTreeMap::new();
    for (dir, files) in left_out {
        if role_dirs.contains(dir) && !holding_kept.contains(dir) {
            dirs.insert(globs::escape(dir), ());
        } else {
            dirs.extend(files.into_iter().map(|f| (globs::escape(f), ())));
        }
    }
    // Many `x/tests/` alike: one `**/tests/**`.
    let mut by_segment: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for d in dirs.keys() {
        if let Some(stripped) = d.strip_suffix('/') {
            let seg = stripped.rsplit('/').next().unwrap_or(stripped).to_owned();
            by_segment.entry(seg).or_default().push(d.clone());
        } else {
            by_segment.entry(String::new()).or_default().push(d.clone());
        }
    }
    let mut out = Vec::new();
    for (seg, list) in by_segment {
        if !seg.is_empty() && list.len() >= 3 {
            out.push(format!("**/{}/**", globs::escape(&seg)));
        } else {
            out.extend(list);
        }
    }
    out.sort();
    out
}

/// The topmost directory of a role on the path, with its `/`:
/// `a/tests/b/x.cu` → `a/tests/`; `k/attn_test.cu` → none.
fn role_dir(path: &str) -> Option<&str> {
    let mut end = 0;
    for seg in path.split('/').take(path.matches('/').count()) {
        end += seg.len() + 1;
        // The role of this directory in its place (`src/apps/` is not
        // `apps/`), its infrastructure by its own name.
        let here = format!("{}x", &path[..end]);
        let dir = format!("{seg}/x");
        if detect::role(&here).is_some() || detect::infrastructure(&dir).is_some() {
            return Some(&path[..end]);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exclude_never_covers_a_kept_kernel() {
        let include = vec!["pkg/".to_owned()];
        let paths = [
            "pkg/bindings/cuda/torch_ops.cu",
            "pkg/bindings/cuda/kernels/topk.cu",
            "pkg/tests/a/t.cu",
            "pkg/tests/b/t.cu",
        ];
        // The glue file and the tests are left out; the kernel below the
        // bindings package is kept.
        let roles = [true, false, true, true];
        assert_eq!(
            excludes(&include, &paths, &roles, &attributes::Vendored::default()),
            ["pkg/bindings/cuda/torch_ops.cu", "pkg/tests/"]
        );
    }

    #[test]
    fn a_family_is_the_first_two_words_of_a_longer_stem() {
        assert_eq!(name_family("S/arm_convolve_1x1_s8.c"), Some("arm_convolve"));
        assert_eq!(name_family("k/bli_gemm-armsve.c"), Some("bli_gemm"));
        // Two words name a module, not a family of variants.
        assert_eq!(name_family("k/sgemm_neon.c"), None);
        assert_eq!(name_family("ggml/src/ggml-cpu/ggml-cpu.cpp"), None);
        assert_eq!(name_family("src/mat.cpp"), None);
        assert_eq!(name_family("x/_foo_bar.c"), None);
        assert_eq!(name_family("x/a_b_.c"), None);
    }

    #[test]
    fn an_include_of_an_ispc_generated_header_is_read_as_one() {
        assert!(includes_ispc_header(
            b"#include \"cpu_pool.h\"\n#include \"cpu_pool_f32_ispc.h\"\n"
        ));
        assert!(includes_ispc_header(b"  #include <conv_ispc.h>"));
        // A mention outside an include is none.
        assert!(!includes_ispc_header(b"// see conv_ispc.h\"\n"));
        assert!(!includes_ispc_header(b"#include \"cpu_pool.h\"\n"));
    }

    #[test]
    fn code_computes_with_a_loop_or_inline_assembly() {
        assert!(computes(
            b"void f(int n) { for (int i = 0; i < n; i++) {} }"
        ));
        assert!(computes(b"while(n--) *y++ = *a++;"));
        assert!(computes(
            b"__asm__ volatile (\"fmla z0.d, p0/m, z1.d, z2.d\");"
        ));
        assert!(computes(b"__ASM volatile (\"smlad %0, %1\" : \"=r\"(r));"));
        assert!(computes(b"__asm volatile(\"nop\");"));
        assert!(computes(b"asm(\"nop\");"));
        // Words that only contain a keyword, and calls, are not loops.
        assert!(!computes(
            b"int before(int n) { return format(n) + awhile; }"
        ));
        assert!(!computes(
            b"int wrapper(int n) { return arm_convolve_s8(n); }"
        ));
        assert!(!computes(
            b"#include \"asm_utils.h\"\nint asmvalue = asm_sgemm(a, b);"
        ));
        // A macro's `do { } while (0)`, and loops in comments, are not code.
        assert!(!computes(
            b"#define CHECK(x) do { if (!(x)) return -1; } while (0)"
        ));
        assert!(!computes(
            b"/* the buffer size for (s8) */ int size(void) { return 4; } // for (;;)"
        ));
    }
}
