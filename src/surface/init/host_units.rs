//! Host code in a GPU source file. A `.cu` / `.hip` file is a kernel by
//! its extension, but many hold only host code: an index class
//! that calls launchers declared elsewhere (faiss' `GpuIndexFlat.cu`), a
//! cuDNN or cuBLAS wrapper, a model layer, a benchmark driver. Such a file
//! has no device marker in its prefix, uses none of the library's device
//! macros, and includes no file that has device code — directly, or
//! through one header between (a dispatch unit that includes the kernel
//! headers through a registry header still builds kernels) — or whose
//! includes reach no kernel entry within three levels (device helpers
//! alone, faiss' `Tensor.cuh` accessors, build no kernel). It leaves the
//! population, and the draft says so. Headers (`.cuh`) are not judged so:
//! a marker-less one is as often a kernel library's umbrella or layout
//! header, which the corpus counts as kernel code. One that only declares
//! functions (a launcher's prototype, an index class) is the host's
//! interface: the scan keeps it as a plain header, which no directory
//! adopts (see [`interface_headers`]), and the draft says so too.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::detect::{Kind, Role};
use super::{parent_dir, Found, Reread, Skipped};

/// Leave out the bare GPU sources that reach no kernel file.
pub(super) fn leave_out(
    root: &Path,
    found: Vec<Found>,
    tracked: &[&str],
    skipped: &mut Vec<Skipped>,
) -> Vec<Found> {
    if found.iter().all(|f| f.bare.is_none()) {
        return found;
    }
    let device: Vec<&Found> = found
        .iter()
        .filter(|f| f.bare.is_none() && f.kind.is_some_and(|k| k.marks_device_code()))
        .collect();
    let files = Files {
        device: device.iter().map(|f| f.path.as_str()).collect(),
        entries: device
            .iter()
            .filter(|f| f.entry)
            .map(|f| f.path.as_str())
            .collect(),
    };
    let resolver = Resolver::new(tracked);
    let mut headers = Headers {
        reread: Reread::new(root),
        targets: HashMap::new(),
    };
    let host: HashSet<String> = found
        .iter()
        .filter_map(|f| Some((f.path.as_str(), f.bare.as_deref()?)))
        .filter(|(path, includes)| !reaches_kernel(path, includes, &files, &resolver, &mut headers))
        .map(|(path, _)| path.to_owned())
        .collect();
    let mut kept = Vec::with_capacity(found.len());
    for f in found {
        if host.contains(&f.path) {
            skipped.push(Skipped {
                path: f.path,
                role: Role::HostCode,
                reason: None,
            });
        } else {
            kept.push(f);
        }
    }
    kept
}

/// Name the GPU headers (`.cuh`) the scan kept as plain headers, the
/// host's interface to kernels built elsewhere, and the CPU SIMD headers
/// that only declare, among the files left out.
pub(super) fn interface_headers(found: &[Found], skipped: &mut Vec<Skipped>) {
    skipped.extend(found.iter().filter(|f| f.kind.is_none()).filter_map(|f| {
        let reason = if super::detect::is_gpu_header(&f.path) {
            "a GPU header that only declares functions for the host"
        } else if f.declares_only && f.plain_kind.is_some_and(Kind::is_cpu_simd) {
            "a SIMD header that only declares its kernels' functions and vector types"
        } else {
            return None;
        };
        Some(Skipped {
            path: f.path.clone(),
            role: Role::HostCode,
            reason: Some(reason),
        })
    }));
}

/// The files with device code, and those of them with a kernel entry.
struct Files<'a> {
    device: HashSet<&'a str>,
    entries: HashSet<&'a str>,
}

/// Headers followed from a unit (a unit that includes more without
/// reaching a kernel is host code all the same).
const FOLLOWED: usize = 16;

/// The tracked files each header read so far includes.
struct Headers {
    reread: Reread,
    targets: HashMap<String, Vec<String>>,
}

impl Headers {
    fn targets(&mut self, path: &str, resolver: &Resolver<'_>) -> &[String] {
        if !self.targets.contains_key(path) {
            let found = includes(self.reread.prefix(path))
                .iter()
                .filter_map(|inc| resolver.resolve(path, inc))
                .map(str::to_owned)
                .collect();
            self.targets.insert(path.to_owned(), found);
        }
        &self.targets[path]
    }
}

/// Whether a bare unit builds a kernel: it includes a file with device
/// code, directly or through one header (its includes were read by the
/// scan), and a kernel entry is among what it reaches.
fn reaches_kernel(
    unit: &str,
    unit_includes: &[String],
    files: &Files<'_>,
    resolver: &Resolver<'_>,
    headers: &mut Headers,
) -> bool {
    let direct: Vec<&str> = unit_includes
        .iter()
        .filter_map(|inc| resolver.resolve(unit, inc))
        .collect();
    let device = direct.iter().any(|t| files.device.contains(t))
        || direct.iter().take(FOLLOWED).any(|h| {
            headers
                .targets(h, resolver)
                .iter()
                .any(|t| files.device.contains(t.as_str()))
        });
    device && reaches_entry(direct, files, resolver, headers)
}

/// Include levels searched for a kernel entry (the unit's own includes,
/// then two headers between: a dispatch header, a traits header), and the
/// headers read on the way.
const ENTRY_DEPTH: usize = 3;
const ENTRY_FOLLOWED: usize = 64;

/// Whether a kernel entry (`__global__`, a launch, an instantiation) is
/// among the files a unit reaches: device helpers alone (faiss'
/// `Tensor.cuh` accessors, a functor header used by a thrust call) build
/// no kernel of the unit's.
fn reaches_entry(
    direct: Vec<&str>,
    files: &Files<'_>,
    resolver: &Resolver<'_>,
    headers: &mut Headers,
) -> bool {
    let mut seen: HashSet<String> = direct.iter().map(|&p| p.to_owned()).collect();
    let mut level: Vec<String> = direct.into_iter().map(str::to_owned).collect();
    let mut read = 0;
    for depth in 1..=ENTRY_DEPTH {
        if level.iter().any(|p| files.entries.contains(p.as_str())) {
            return true;
        }
        if depth == ENTRY_DEPTH {
            break;
        }
        let mut next = Vec::new();
        for h in &level {
            if read == ENTRY_FOLLOWED {
                break;
            }
            read += 1;
            for t in headers.targets(h, resolver) {
                if seen.insert(t.clone()) {
                    next.push(t.clone());
                }
            }
        }
        level = next;
    }
    false
}

/// The names a prefix includes (`#include "a/b.h"`, `#include <a/b.h>`).
pub(super) fn includes(prefix: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for at in memchr::memmem::find_iter(prefix, b"#include") {
        let rest = prefix[at + b"#include".len()..].trim_ascii_start();
        let close = match rest.first() {
            Some(b'"') => b'"',
            Some(b'<') => b'>',
            _ => continue,
        };
        let body = &rest[1..];
        let Some(end) = body.iter().position(|&b| b == close || b == b'\n') else {
            continue;
        };
        if body[end] == close {
            if let Ok(name) = std::str::from_utf8(&body[..end]) {
                out.push(name.to_owned());
            }
        }
    }
    out
}

/// Resolves an include to a tracked path: beside the including file, else
/// the one tracked path that ends with it (`<faiss/gpu/utils/Tensor.cuh>`
/// from the repository's include root), else, of several, the one
/// sharing the deepest directory with the includer.
struct Resolver<'a> {
    tracked: HashSet<&'a str>,
    by_name: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Resolver<'a> {
    fn new(tracked: &[&'a str]) -> Resolver<'a> {
        let mut by_name: HashMap<&str, Vec<&str>> = HashMap::new();
        for &p in tracked {
            by_name
                .entry(p.rsplit('/').next().unwrap_or(p))
                .or_default()
                .push(p);
        }
        Resolver {
            tracked: tracked.iter().copied().collect(),
            by_name,
        }
    }

    fn resolve(&self, from: &str, include: &str) -> Option<&'a str> {
        let beside = crate::lexical::lexical(&Path::new(parent_dir(from)).join(include));
        if let Some(&p) = beside.to_str().and_then(|b| self.tracked.get(b)) {
            return Some(p);
        }
        let name = include.rsplit('/').next().unwrap_or(include);
        let tail = format!("/{}", include.trim_start_matches("./"));
        let hits: Vec<&'a str> = self
            .by_name
            .get(name)?
            .iter()
            .copied()
            .filter(|p| *p == include || p.ends_with(&tail))
            .collect();
        match hits.as_slice() {
            [one] => Some(one),
            // Two files end that way: the one sharing the deepest directory
            // with the includer is the one its include path most likely
            // lists (FlashAttention's `hopper/instantiations/*.cu` include
            // `hopper/flash_bwd_launch_template.h`, not `csrc/…`'s).
            _ => deepest_shared(from, &hits),
        }
    }
}

/// Among several files an include may name, the one whose directory shares
/// the most leading directories with the includer's; none on a tie or
/// when none shares any.
fn deepest_shared<'a>(from: &str, hits: &[&'a str]) -> Option<&'a str> {
    let shared = |hit: &str| {
        parent_dir(from)
            .split('/')
            .zip(parent_dir(hit).split('/'))
            .take_while(|(a, b)| a == b && !a.is_empty())
            .count()
    };
    let depth = hits.iter().map(|h| shared(h)).max()?;
    let mut deepest = hits.iter().filter(|h| shared(h) == depth);
    let first = deepest.next()?;
    (depth > 0 && deepest.next().is_none()).then_some(*first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_read_in_both_spellings_and_resolved_beside_then_by_tail() {
        let prefix = b"#include \"IVFBase.cuh\"\n#include <faiss/gpu/utils/Tensor.cuh>\n#include <vector>\n#  include \"odd.h\"\n#include \"broken.h\n";
        assert_eq!(
            includes(prefix),
            ["IVFBase.cuh", "faiss/gpu/utils/Tensor.cuh", "vector"]
        );
        let tracked = [
            "faiss/gpu/impl/IVFBase.cuh",
            "faiss/gpu/impl/IVFFlat.cu",
            "faiss/gpu/utils/Tensor.cuh",
            "a/common.h",
            "b/common.h",
        ];
        let r = Resolver::new(&tracked);
        let from = "faiss/gpu/impl/IVFFlat.cu";
        assert_eq!(
            r.resolve(from, "IVFBase.cuh"),
            Some("faiss/gpu/impl/IVFBase.cuh")
        );
        assert_eq!(
            r.resolve(from, "faiss/gpu/utils/Tensor.cuh"),
            Some("faiss/gpu/utils/Tensor.cuh")
        );
        assert_eq!(
            r.resolve(from, "../utils/Tensor.cuh"),
            Some("faiss/gpu/utils/Tensor.cuh")
        );
        // A system header, and a name two files end with, resolve to none.
        assert_eq!(r.resolve(from, "vector"), None);
        assert_eq!(r.resolve(from, "common.h"), None);
    }

    #[test]
    fn a_name_two_files_end_with_resolves_to_the_one_sharing_the_deepest_directory() {
        let tracked = [
            "csrc/flash_attn/src/flash_bwd_launch_template.h",
            "hopper/flash_bwd_launch_template.h",
            "hopper/instantiations/flash_bwd_hdim128_bf16_sm90.cu",
            "a/common.h",
            "b/common.h",
            "c/d/unit.cu",
        ];
        let r = Resolver::new(&tracked);
        assert_eq!(
            r.resolve(
                "hopper/instantiations/flash_bwd_hdim128_bf16_sm90.cu",
                "flash_bwd_launch_template.h"
            ),
            Some("hopper/flash_bwd_launch_template.h")
        );
        assert_eq!(
            r.resolve(
                "csrc/flash_attn/src/sub/unit.cu",
                "flash_bwd_launch_template.h"
            ),
            Some("csrc/flash_attn/src/flash_bwd_launch_template.h")
        );
        // Neither candidate shares a directory with the includer: none.
        assert_eq!(r.resolve("c/d/unit.cu", "common.h"), None);
        // A header under the includer's own directory beats an ancestor's.
        let tracked = ["a/utils.cuh", "a/b/include/utils.cuh", "a/b/x.cu"];
        let r = Resolver::new(&tracked);
        assert_eq!(
            r.resolve("a/b/x.cu", "utils.cuh"),
            Some("a/b/include/utils.cuh")
        );
        // Two equally near: none.
        let tracked = ["a/b/c/k.h", "a/b/d/k.h", "a/b/x.cu"];
        let r = Resolver::new(&tracked);
        assert_eq!(r.resolve("a/b/x.cu", "k.h"), None);
    }
}
