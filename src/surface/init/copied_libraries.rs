//! Libraries that kernel repositories copy into their trees whole, under
//! the library's own name and without a vendor directory, a
//! `.gitattributes` entry or a provenance note: AMGX's `include/cusp/`,
//! CMSIS-DSP's `Ne10/`, OpenMM's `libraries/asmjit/` and
//! `libraries/lbfgs/`, HIPRT's `contrib/embree/`. Each ships SIMD or GPU
//! code of its own, so without this list the copy reads as the tree's own
//! kernels. The list is GitHub Linguist's `vendor.yml` idea (well-known
//! libraries, matched by directory name) for the libraries of the kernel
//! world; a repository that *is* the library (its project or remote name)
//! keeps its directory.

use super::reference::Identity;

/// Directory names (compared without case) of libraries that are copied
/// whole. Not CUTLASS, CUB, Thrust, FlashInfer or BesTLA: their names also
/// head a project's own kernels written on them or born there (cccl's
/// `cub/`, neural-speed's `bestla/`), nor RandomX (xmrig-cuda's own CUDA
/// port sits in `src/RandomX/`).
const LIBRARIES: &[&str] = &[
    "asmjit",
    "cusp",
    "embree",
    "highwayhash",
    "kissfft",
    "lbfgs",
    "libdivsufsort",
    "liblbfgs",
    "lz4",
    "ne10",
    "pffft",
    "simde",
    "sleef",
    "vkfft",
    "xbyak",
    "xxhash",
    "yespower",
    "zlib",
    "zstd",
];

/// The directories (with their `/`, topmost first along a path, sorted and
/// without duplicates) that hold a copy of a listed library in `paths`
/// (sorted), other than the repository's own.
pub fn dirs(paths: &[&str], me: &Identity) -> Vec<String> {
    let mut out = Vec::new();
    let mut parent_seen = "";
    for p in paths {
        let parent = p.rsplit_once('/').map_or("", |(d, _)| d);
        // Paths are sorted: most share their directory with the one before.
        if parent == parent_seen {
            continue;
        }
        parent_seen = parent;
        let mut end = 0;
        for seg in parent.split('/') {
            end += seg.len() + 1;
            if library(seg).is_some_and(|lib| !me.is_named(lib)) {
                out.push(p[..end].to_owned());
                break;
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The listed library a directory name is, if it is one.
fn library(dir: &str) -> Option<&'static str> {
    LIBRARIES
        .iter()
        .find(|lib| lib.len() == dir.len() && lib.eq_ignore_ascii_case(dir))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_library_directory_is_a_copy_wherever_it_sits() {
        let me = Identity::new("amgx", Some("https://github.com/NVIDIA/AMGX"));
        let paths = [
            "contrib/Embree/include/rtcore.isph",
            "include/cusp/detail/device/spmv/coo_flat.h",
            "include/cusp/multiply.h",
            "src/amg/cusp_like.cu",
            "src/solvers/cg.cu",
        ];
        assert_eq!(dirs(&paths, &me), ["contrib/Embree/", "include/cusp/"]);
    }

    #[test]
    fn the_library_itself_keeps_its_directory() {
        // VkFFT's own `vkFFT/` and xbyak's own `xbyak/`: by remote or by name.
        let vkfft = Identity::new("vkfft", None);
        assert!(dirs(&["vkFFT/vkFFT/vkFFT_Structs.h"], &vkfft).is_empty());
        let xbyak = Identity::new("jit", Some("git@github.com:herumi/xbyak.git"));
        assert!(dirs(&["xbyak/xbyak.h"], &xbyak).is_empty());
        assert_eq!(dirs(&["third/xbyak/xbyak.h"], &vkfft), ["third/xbyak/"]);
    }
}
