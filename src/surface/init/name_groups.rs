//! Kernel files no op took, grouped by a name they share: two or more such
//! files whose names carry a word that no placed file's name carries
//! (`ssim_fwd.cu`, `ssim_bwd.cu`; `seidel_smoother.cu`, `seidel_solve.cu`)
//! are a family of this tree's own that the catalog does not name. The
//! draft gives each family one custom op (`x-ssim`) with no reference,
//! route or oracle: the team names it and says what to read (until then
//! it is debt in `sota coverage`), instead of finding the family scattered
//! through a list of uncovered files.
//!
//! A word a placed file also carries is not a family's (`conv_relu.cu`
//! beside a placed `conv_direct.cu` is a convolution the evidence missed,
//! not a new op), nor is a word that says how a file is written rather
//! than what it computes (`cuda`, `kernel`, `avx2`).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet};

use super::detect::tokens;
use super::scalar_defaults::ISA_WORDS;
use super::signals::{stem, Evidence};
use super::KernelFile;

/// One family: the shared word and how many files it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameGroup {
    pub word: String,
    pub files: usize,
}

impl NameGroup {
    /// The custom op's slug.
    pub fn slug(&self) -> String {
        format!("x-{}", self.word)
    }
}

/// A family needs this many files: one file's name is no shared name.
const AT_LEAST: usize = 2;

/// Words that say how or where a file is written, not what it computes:
/// a language, a backend, a processor; instruction sets are
/// [`ISA_WORDS`]'s.
const HOW_WRITTEN: &[&str] = &[
    "kernel", "kernels", "shader", "shaders", "cuda", "cu", "hip", "rocm", "metal", "opencl", "cl",
    "sycl", "triton", "vulkan", "vk", "glsl", "hlsl", "wgsl", "webgpu", "spirv", "ptx", "gpu",
    "cpu", "device", "host", "riscv", "scalar", "generic",
];

pub(super) fn says_how_written(word: &str) -> bool {
    HOW_WRITTEN.contains(&word) || ISA_WORDS.contains(&word)
}

/// A file name's words: tokens of two or more characters, not all digits.
fn words_of(k: &KernelFile) -> Vec<String> {
    let mut words: Vec<String> = tokens(stem(&k.path))
        .into_iter()
        .filter(|t| t.len() >= 2 && !t.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// Each unplaced file (its index in `kernels`) with the words it may share
/// a family by: none a placed file's name has, none of how a file is
/// written, and none that only this file has — dropped before any map is
/// built (a tree of `k10000.cu` names has as many words as files and no
/// family).
fn shared_words(kernels: &[KernelFile]) -> Vec<(usize, Vec<String>)> {
    let placed: HashSet<String> = kernels
        .iter()
        .filter(|k| k.op.is_some())
        .flat_map(words_of)
        .collect();
    let mut own: Vec<(usize, Vec<String>)> = kernels
        .iter()
        .enumerate()
        .filter(|(_, k)| k.op.is_none())
        .map(|(i, k)| {
            let mut words = words_of(k);
            words.retain(|w| !placed.contains(w) && !says_how_written(w));
            (i, words)
        })
        .collect();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (_, words) in &own {
        for w in words {
            *seen.entry(w.as_str()).or_default() += 1;
        }
    }
    let shared: HashSet<String> = seen
        .into_iter()
        .filter(|&(_, n)| n >= AT_LEAST)
        .map(|(w, _)| w.to_owned())
        .collect();
    for (_, words) in &mut own {
        words.retain(|w| shared.contains(w));
    }
    own
}

/// Group the files no op took (`op == None`) by a word their names share
/// and no placed file's name carries, largest family first (ties: the word
/// first in order). Each grouped file gets the family's custom op slug and
/// [`Evidence::SharedName`]; the families are returned, largest first.
pub fn group(kernels: &mut [KernelFile]) -> Vec<NameGroup> {
    let own = shared_words(kernels);
    let mut members: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (at, (_, words)) in own.iter().enumerate() {
        for w in words {
            members.entry(w.clone()).or_default().push(at);
        }
    }
    // Greedy, largest family first: a heap of (files left, word) with
    // stale entries re-pushed at their current count (a file taken by one
    // family leaves every other word's count), so the whole pass costs
    // O(words · log words) rather than a recount per family.
    let mut left: BTreeMap<&str, usize> =
        members.iter().map(|(w, m)| (w.as_str(), m.len())).collect();
    let mut heap: BinaryHeap<(usize, Reverse<&str>)> =
        left.iter().map(|(&w, &n)| (n, Reverse(w))).collect();
    let mut taken = vec![false; own.len()];
    let mut groups = Vec::new();
    while let Some((n, Reverse(word))) = heap.pop() {
        if n < AT_LEAST {
            break;
        }
        let now = left[word];
        if now != n {
            heap.push((now, Reverse(word)));
            continue;
        }
        let group = NameGroup {
            word: word.to_owned(),
            files: now,
        };
        let slug = group.slug();
        for &at in &members[word] {
            if std::mem::replace(&mut taken[at], true) {
                continue;
            }
            for w in &own[at].1 {
                *left.get_mut(w.as_str()).expect("counted above") -= 1;
            }
            let k = &mut kernels[own[at].0];
            k.op = Some(slug.clone());
            k.evidence = vec![Evidence::SharedName(group.word.clone())];
        }
        groups.push(group);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::init::detect::Kind;

    fn file(path: &str, op: Option<&str>) -> KernelFile {
        KernelFile {
            path: path.to_owned(),
            kind: Kind::Cuda,
            op: op.map(str::to_owned),
            evidence: Vec::new(),
        }
    }

    fn ops(kernels: &[KernelFile]) -> Vec<(&str, Option<&str>)> {
        kernels
            .iter()
            .map(|k| (k.path.as_str(), k.op.as_deref()))
            .collect()
    }

    #[test]
    fn unplaced_files_sharing_a_word_become_one_family() {
        let mut kernels = vec![
            file("src/conv_direct.cu", Some("convolution")),
            file("src/ssim_bwd.cu", None),
            file("src/ssim_fwd.cu", None),
            file("src/lonely.cu", None),
        ];
        let groups = group(&mut kernels);
        assert_eq!(
            groups,
            vec![NameGroup {
                word: "ssim".into(),
                files: 2
            }]
        );
        assert_eq!(
            ops(&kernels),
            vec![
                ("src/conv_direct.cu", Some("convolution")),
                ("src/ssim_bwd.cu", Some("x-ssim")),
                ("src/ssim_fwd.cu", Some("x-ssim")),
                ("src/lonely.cu", None),
            ]
        );
        assert_eq!(
            kernels[1].evidence,
            vec![Evidence::SharedName("ssim".into())]
        );
    }

    #[test]
    fn a_word_a_placed_file_carries_makes_no_family() {
        // `conv` is the convolution op's word here: the unplaced conv files
        // are convolutions the evidence missed, not an op of their own;
        // `fwd` and `bwd` are each one file's.
        let mut kernels = vec![
            file("a/conv_direct.cu", Some("convolution")),
            file("a/conv_relu_fwd.cu", None),
            file("a/conv_relu_bwd.cu", None),
        ];
        let groups = group(&mut kernels);
        assert_eq!(groups[0].word, "relu");
        let mut kernels = vec![
            file("a/conv_relu.cu", Some("convolution")),
            file("a/conv_fwd.cu", None),
            file("a/relu_bwd.cu", None),
        ];
        assert!(group(&mut kernels).is_empty());
        assert_eq!(kernels[1].op, None);
    }

    #[test]
    fn words_of_how_a_file_is_written_make_no_family() {
        let mut kernels = vec![
            file("a/scan_cuda_kernel.cu", None),
            file("b/hash_cuda_kernel.cu", None),
            file("c/warp_avx2.c", None),
            file("d/pack_avx2.c", None),
            file("e/x_1.cu", None),
            file("f/y_1.cu", None),
        ];
        assert!(group(&mut kernels).is_empty());
    }

    #[test]
    fn the_largest_family_takes_its_files_first() {
        // `lbm` holds three files, `d3q19` two, one of them also lbm's: the
        // three go to lbm; the lone `d3q19_bounce.cu` then has no family.
        let mut kernels = vec![
            file("lbm_collide.cu", None),
            file("lbm_d3q19_init.cu", None),
            file("lbm_stream.cu", None),
            file("d3q19_bounce.cu", None),
        ];
        let groups = group(&mut kernels);
        assert_eq!(
            groups,
            vec![NameGroup {
                word: "lbm".into(),
                files: 3
            }]
        );
        assert_eq!(kernels[3].op, None);
    }
}
