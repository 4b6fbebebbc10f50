//! One computation written once per instruction set, that nothing but its
//! backend placed: its x86 files in the x86 op, its Arm files in the Arm
//! op and its other ports in none (XNNPACK's `f32-vcmul/gen/*-neon-*.c`
//! beside `*-sse2-*.c` and `*-wasmsimd-*.c`; base64's
//! `lib/arch/{avx2,neon64,generic}/dec_loop.c`; OpenBLAS's
//! `kernel/x86/dot_sse2.S` beside `kernel/arm/dot.c`). A backend op says
//! how a file is written, not what it computes: split by it, one
//! computation reads as two ops and a list of uncovered ports.
//!
//! The files the draft left in an instruction-set backend op, or in none,
//! are grouped by their directory less its instruction-set parts
//! (`lib/arch/avx2/` → `lib/arch/`) and the first word of their name that
//! says neither an instruction set, how a file is written nor an element
//! type (`precise-sse4.c` → `precise`, `f32-vcmul-neon-u8.c` → `vcmul`).
//! A group holding files of both instruction-set ops, or of one and files
//! no op took, becomes one family of this tree's own (`x-vcmul`), drafted
//! as a custom op as [`super::name_groups`]'s families are: the team names
//! what it computes and what to read. A group inside one op changes
//! nothing, nor does a file any other evidence placed.
//!
//! Before the groups are formed, a port whose computation other evidence
//! placed follows it: QNNPACK's `precise-neon.c` joins the int-quant op
//! its `precise-scalar.c` is in (see [`join_placed_ports`]).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use super::detect::{tokens, Kind, DTYPE_PREFIXES};
use super::name_groups::{says_how_written, NameGroup};
use super::scalar_defaults::ISA_WORDS;
use super::signals::{is_weak, stem, Evidence};
use super::KernelFile;

/// Processor names written with a width or version glued on (`neon64`,
/// `mips32`, `riscv64`, `sse41`), beside [`ISA_WORDS`].
const ISA_STEMS: &[&str] = &[
    "mips",
    "riscv",
    "rv",
    "ppc",
    "arm",
    "neon",
    "x86",
    "sse",
    "avx",
    "loongarch",
    "amd64",
    "s390x",
    "zarch",
    "armv8a",
    "armv9a",
];

/// What may follow an instruction set in one word (`ppc64le`,
/// `neonfp16arith`, `avx512skx`, `wasmrelaxedsimd`), besides element types.
const ISA_SUFFIXES: &[&str] = &["le", "arith", "skx", "gfni", "relaxedsimd"];

/// Element types a name may lead with (`f32-vcmul`, `q15`, XNNPACK's
/// `qs8-`), beyond the glued prefixes tokens already split off.
const ELEMENT_TYPES: &[&str] = &[
    "float", "double", "half", "bfloat16", "float16", "float32", "q7", "q15", "q31", "f64", "qs8",
    "qu8", "qd8", "qc8", "qp8", "qs16", "qc4w", "qb4w", "x24", "int16", "int32", "int64", "uint8",
    "uint16", "uint32",
];

/// Whether a word names an instruction set: one of [`ISA_WORDS`] or
/// [`ISA_STEMS`], with a width or version glued on (`neon64`, `mips32`),
/// or several glued together (`arm64simd`, `armv7neon`, `arm64fp16` — an
/// element type may follow an instruction set).
fn is_isa_word(word: &str) -> bool {
    let mut rest = word;
    let mut isa = false;
    while !rest.is_empty() {
        let longest = |list: &[&'static str]| {
            list.iter()
                .filter(|p| rest.starts_with(**p))
                .max_by_key(|p| p.len())
                .map(|p| p.len())
        };
        let at = match longest(ISA_WORDS).max(longest(ISA_STEMS)) {
            Some(n) => {
                isa = true;
                n
            }
            None if isa => match longest(DTYPE_PREFIXES).max(longest(ISA_SUFFIXES)) {
                Some(n) => n,
                None => return false,
            },
            None => return false,
        };
        rest = rest[at..].trim_start_matches(|c: char| c.is_ascii_digit() || c == '_');
    }
    isa
}

/// A directory that holds one instruction set's port (`avx2`, `neon64`,
/// `x86_64`, `generic`): every word of its name says an instruction set,
/// a width, or that the code is the portable one, and one is not a width.
fn is_isa_dir(name: &str) -> bool {
    let words = tokens(name);
    let width = |w: &String| w.bytes().all(|b| b.is_ascii_digit());
    words.iter().any(|w| !width(w))
        && words
            .iter()
            .all(|w| is_isa_word(w) || width(w) || w == "generic" || w == "scalar")
}

/// The word a file's name leads with once instruction sets, element
/// types and how it is written are dropped; `None` when nothing is left.
fn leading_word(path: &str) -> Option<String> {
    tokens(stem(path))
        .into_iter()
        .find(|w| w.len() >= 2 && names_a_computation(w))
}

/// The directory less its instruction-set parts, and a width directory
/// right below one (`generic/32/`).
fn common_dir(path: &str) -> String {
    let mut dirs: Vec<&str> = path.split('/').collect();
    dirs.pop();
    let mut kept = Vec::with_capacity(dirs.len());
    let mut below_isa = false;
    for d in dirs {
        let width = below_isa && !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
        below_isa = is_isa_dir(d) || width;
        if !below_isa {
            kept.push(d);
        }
    }
    kept.join("/")
}

/// Stems that name no computation: a module root, a shared header, a
/// driver (`mod.rs`, `common.h`, `utils.c`). Ports that share only one of
/// these share a file layout, not a kernel.
const GENERIC_STEMS: &[&str] = &[
    "mod", "lib", "main", "common", "utils", "util", "helper", "helpers", "types", "defs",
    "macros", "impl", "internal", "config", "init", "core", "misc", "api", "base",
];

/// A port's name less its instruction sets, element types and how it is
/// written, with its directory less its instruction-set parts:
/// `lib/arch/avx2/dec_loop.c` and `lib/arch/neon64/dec_loop.c` are both
/// `lib/arch` `dec-loop`; `None` when no word is left, or only words of
/// [`GENERIC_STEMS`].
#[cfg(test)]
fn port_key(path: &str) -> Option<(String, String)> {
    let mut keys = PortKeys::default();
    let dir = keys.dir(path);
    keys.key(path, dir)
}

/// Whether a word of a file's name may say what it computes: not a
/// width, an instruction set, how it is written or an element type.
fn names_a_computation(word: &str) -> bool {
    !word.bytes().all(|b| b.is_ascii_digit())
        && !is_isa_word(word)
        && !says_how_written(word)
        && !DTYPE_PREFIXES.contains(&word)
        && !ELEMENT_TYPES.contains(&word)
}

/// Port keys with each word's and directory's verdict remembered: a
/// tree's names repeat a few hundred words and directories (XNNPACK's
/// 12,000 kernels), and each verdict reads several word lists.
#[derive(Default)]
struct PortKeys {
    words: HashMap<String, bool>,
    dirs: HashMap<String, Rc<str>>,
}

impl PortKeys {
    /// The directory half of a port key (see [`common_dir`]).
    fn dir(&mut self, path: &str) -> Rc<str> {
        let parent = path.rfind('/').map_or("", |i| &path[..i]);
        if let Some(dir) = self.dirs.get(parent) {
            return dir.clone();
        }
        let dir: Rc<str> = common_dir(path).into();
        self.dirs.insert(parent.to_owned(), dir.clone());
        dir
    }

    /// The key of `path` in `dir` (its [`PortKeys::dir`]).
    fn key(&mut self, path: &str, dir: Rc<str>) -> Option<(String, String)> {
        let mut kept = Vec::new();
        for word in tokens(stem(path)) {
            let names = match self.words.get(&word) {
                Some(&names) => names,
                None => {
                    let names = names_a_computation(&word);
                    self.words.insert(word.clone(), names);
                    names
                }
            };
            if names {
                kept.push(word);
            }
        }
        let generic = kept.iter().all(|w| GENERIC_STEMS.contains(&w.as_str()));
        (!generic).then(|| (dir.to_string(), kept.join("-")))
    }
}

/// CPU code: what an instruction-set port is written in (SIMD, plain C,
/// assembly). A GPU, Triton or shader file of the same name is another
/// programming model's kernel, not a port of this one.
fn cpu_code(kind: Kind) -> bool {
    kind.is_cpu_simd() || matches!(kind, Kind::Scalar | Kind::Asm | Kind::AsmScalar)
}

/// The ports of a computation that other evidence placed: a file only an
/// instruction-set op took whose [`port_key`] is that of CPU files one
/// other op holds on their own evidence (`src/softmax_neon.c` beside
/// `src/softmax_avx2.c`, which its softmax computation placed) is the
/// same computation for another instruction set, and joins that op with
/// its placed port as (weak) evidence, [`Evidence::Twin`], when
/// `joinable` says the op may hold a file of its kind and says what code
/// computes (no backend op: a backend says how a file is written). Keys
/// placed in several ops stay put.
fn join_placed_ports(
    kernels: &mut [KernelFile],
    isa_op: &impl Fn(&str) -> bool,
    joinable: &impl Fn(&str, Kind) -> bool,
) {
    let mut keys = PortKeys::default();
    // The ports first (usually the fewer): a placed file in a directory
    // none of them shares is never read for its name.
    let mut ports: Vec<(usize, (String, String))> = Vec::new();
    for (i, k) in kernels.iter().enumerate() {
        if k.op.as_deref().is_some_and(isa_op) {
            let dir = keys.dir(&k.path);
            if let Some(key) = keys.key(&k.path, dir) {
                ports.push((i, key));
            }
        }
    }
    let port_dirs: HashSet<String> = ports.iter().map(|(_, (dir, _))| dir.clone()).collect();
    // Per key: the one op (and the first file) other evidence placed it in,
    // or `None` once two ops hold it.
    let mut placed: BTreeMap<(String, String), Option<(String, String)>> = BTreeMap::new();
    for k in kernels.iter() {
        // Only a CPU file its own name, content or computation placed
        // speaks for its ports: one placed by its neighbours or a twin of
        // its own would carry a guess further.
        let Some(op) = k.op.as_deref().filter(|op| !isa_op(op)) else {
            continue;
        };
        if is_weak(&k.evidence) || !cpu_code(k.kind) {
            continue;
        }
        let dir = keys.dir(&k.path);
        if !port_dirs.contains(&*dir) {
            continue;
        }
        if let Some(key) = keys.key(&k.path, dir) {
            placed
                .entry(key)
                .and_modify(|held| {
                    if held.as_ref().is_some_and(|(o, _)| o != op) {
                        *held = None;
                    }
                })
                .or_insert_with(|| Some((op.to_owned(), k.path.clone())));
        }
    }
    for (i, key) in ports {
        let Some(Some((op, twin))) = placed.get(&key) else {
            continue;
        };
        let k = &mut kernels[i];
        if joinable(op, k.kind) {
            k.op = Some(op.clone());
            k.evidence = vec![Evidence::Twin(twin.clone())];
        }
    }
}

/// Group the files of the instruction-set backend ops (`isa_op`) and the
/// files no op took into per-instruction-set families (see the module
/// doc). Each grouped file gets the family's slug and
/// [`Evidence::PerIsa`]. Groups of one word in several directories are
/// one family (XNNPACK's `f16-vcmul/gen/` and `f32-vcmul/gen/`), as is a
/// name family of that word. `families` ends largest first (ties: the word
/// first in order), as [`super::name_groups::group`] leaves it.
pub fn group(
    kernels: &mut [KernelFile],
    families: &mut Vec<NameGroup>,
    isa_op: impl Fn(&str) -> bool,
    joinable: impl Fn(&str, Kind) -> bool,
) {
    // A tree with no file in an ISA op pays nothing (a GPU tree's
    // unplaced files are never read here).
    if !kernels.iter().any(|k| k.op.as_deref().is_some_and(&isa_op)) {
        return;
    }
    // A word a file other evidence placed carries is that op's: the ports
    // are its files the evidence missed, not a family (as in name_groups).
    let placed: HashSet<String> = kernels
        .iter()
        .filter(|k| k.op.as_deref().is_some_and(|op| !isa_op(op)))
        .flat_map(|k| tokens(stem(&k.path)))
        .collect();
    join_placed_ports(kernels, &isa_op, &joinable);
    let mut groups: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (i, k) in kernels.iter().enumerate() {
        if !k.op.as_deref().is_none_or(&isa_op) {
            continue;
        }
        if let Some(word) = leading_word(&k.path).filter(|w| !placed.contains(w)) {
            groups
                .entry((common_dir(&k.path), word))
                .or_default()
                .push(i);
        }
    }
    for ((_, word), members) in groups {
        if members.len() < 2 {
            continue;
        }
        let mut ops: Vec<Option<&str>> =
            members.iter().map(|&i| kernels[i].op.as_deref()).collect();
        ops.sort_unstable();
        ops.dedup();
        let isa_ops = ops.iter().filter(|o| o.is_some()).count();
        if !(isa_ops >= 2 || (isa_ops == 1 && ops.contains(&None))) {
            continue;
        }
        let slug = format!("x-{word}");
        match families.iter_mut().find(|f| f.word == word) {
            Some(f) => f.files += members.len(),
            None => families.push(NameGroup {
                word: word.clone(),
                files: members.len(),
            }),
        }
        for i in members {
            let k = &mut kernels[i];
            k.op = Some(slug.clone());
            k.evidence = vec![Evidence::PerIsa(word.clone())];
        }
    }
    families.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.word.cmp(&b.word)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, op: Option<&str>) -> KernelFile {
        KernelFile {
            path: path.to_owned(),
            kind: Kind::SimdX86,
            op: op.map(str::to_owned),
            evidence: Vec::new(),
        }
    }

    const X86: &str = "x86-avx512-amx";
    const ARM: &str = "arm-neon-sve";

    fn run(kernels: &mut [KernelFile]) -> Vec<NameGroup> {
        let mut families = Vec::new();
        group(
            kernels,
            &mut families,
            |op| op == X86 || op == ARM,
            |op, _| op != "vulkan-compute",
        );
        families
    }

    fn ops(kernels: &[KernelFile]) -> Vec<Option<&str>> {
        kernels.iter().map(|k| k.op.as_deref()).collect()
    }

    #[test]
    fn ports_split_between_the_isa_ops_become_one_family() {
        let mut kernels = vec![
            file("lib/arch/avx2/dec_loop.c", Some(X86)),
            file("lib/arch/neon64/dec_loop.c", Some(ARM)),
            file("lib/arch/generic/32/dec_loop.c", None),
            file("lib/arch/avx2/enc_loop.c", Some(X86)),
            file("lib/arch/ssse3/enc_loop.c", Some(X86)),
        ];
        let families = run(&mut kernels);
        assert_eq!(
            families,
            vec![NameGroup {
                word: "dec".into(),
                files: 3
            }]
        );
        // The enc ports are all x86: one op already holds them.
        assert_eq!(
            ops(&kernels),
            vec![
                Some("x-dec"),
                Some("x-dec"),
                Some("x-dec"),
                Some(X86),
                Some(X86)
            ]
        );
        assert_eq!(kernels[2].evidence, vec![Evidence::PerIsa("dec".into())]);
    }

    #[test]
    fn the_word_skips_element_types_and_instruction_sets() {
        assert_eq!(
            leading_word("src/f32-vcmul/gen/f32-vcmul-neon-u8.c").as_deref(),
            Some("vcmul")
        );
        assert_eq!(
            leading_word("src/requantization/precise-sse4.c").as_deref(),
            Some("precise")
        );
        assert_eq!(
            leading_word("kernel/x86/dot_sse2.S").as_deref(),
            Some("dot")
        );
        assert_eq!(leading_word("avx2_neon64.c"), None);
        assert_eq!(
            leading_word("arm64simd_mmm_f32_8x8_core.S").as_deref(),
            Some("mmm")
        );
        assert_eq!(leading_word("armature_pose.c").as_deref(), Some("armature"));
        assert_eq!(leading_word("vector_add.c").as_deref(), Some("vector"));
        assert_eq!(common_dir("lib/arch/neon64/x.c"), "lib/arch");
        assert_eq!(common_dir("linalg/x86_64/fma/x.S"), "linalg");
        assert_eq!(common_dir("src/dsp/x.c"), "src/dsp");
        assert_eq!(common_dir("lib/arch/generic/32/x.c"), "lib/arch");
        assert_eq!(common_dir("data/2024/x.c"), "data/2024");
        assert_eq!(common_dir("src/power/x.c"), "src/power");
        assert_eq!(leading_word("qs8-zork-avx2-u16.c").as_deref(), Some("zork"));
    }

    #[test]
    fn files_other_evidence_placed_and_groups_in_one_op_stay() {
        let mut kernels = vec![
            file("src/softmax_avx2.c", Some("softmax")),
            file("src/softmax_neon.c", Some(ARM)),
            file("src/pack_avx2.c", Some(X86)),
            file("src/pack_sse2.c", Some(X86)),
            file("src/lone_neon.c", Some(ARM)),
        ];
        assert!(run(&mut kernels).is_empty());
        assert_eq!(
            ops(&kernels),
            vec![Some("softmax"), Some(ARM), Some(X86), Some(X86), Some(ARM)]
        );
    }

    #[test]
    fn ports_join_the_op_their_own_evidence_placed_a_port_in() {
        let placed = |path: &str, op: &str, evidence: Evidence| KernelFile {
            evidence: vec![evidence],
            ..file(path, Some(op))
        };
        let mut kernels = vec![
            placed(
                "src/softmax_avx2.c",
                "softmax",
                Evidence::Computes("softmax".into()),
            ),
            file("src/softmax_neon.c", Some(ARM)),
            file("lib/arch/neon64/dec_loop.c", Some(ARM)),
            placed(
                "lib/arch/generic/dec_loop.c",
                "x-codec",
                Evidence::Name("loop".into()),
            ),
            // Placed by its neighbours only: its ports stay put.
            placed(
                "linalg/fma/dispatcher.j2",
                "elementwise",
                Evidence::Neighbours("3 of 3".into()),
            ),
            file("linalg/arm64/dispatcher.j2", Some(ARM)),
            // A key two ops hold says nothing.
            placed("src/pool_avx2.c", "pooling", Evidence::Name("pool".into())),
            placed("src/pool_sse2.c", "x-pool", Evidence::Name("pool".into())),
            file("src/pool_neon.c", Some(ARM)),
            // A CUDA file of the same name is another model's kernel, not
            // a port; a shared `common` is a layout, not a kernel; an op
            // that may not hold the port (here a backend) takes nothing.
            KernelFile {
                kind: Kind::Cuda,
                ..placed(
                    "src/blur.cu",
                    "image-filter",
                    Evidence::Computes("blur".into()),
                )
            },
            file("src/x86/blur.c", Some(X86)),
            placed(
                "src/common.c",
                "softmax",
                Evidence::Computes("softmax".into()),
            ),
            file("src/arm/common.c", Some(ARM)),
            placed(
                "shaders/blit.c",
                "vulkan-compute",
                Evidence::Name("blit".into()),
            ),
            file("shaders/neon/blit.c", Some(ARM)),
        ];
        run(&mut kernels);
        assert_eq!(
            ops(&kernels)[1..],
            [
                Some("softmax"),
                Some("x-codec"),
                Some("x-codec"),
                Some("elementwise"),
                Some(ARM),
                Some("pooling"),
                Some("x-pool"),
                Some(ARM),
                Some("image-filter"),
                Some(X86),
                Some("softmax"),
                Some(ARM),
                Some("vulkan-compute"),
                Some(ARM)
            ]
        );
        // The other port is the evidence, and it is weak.
        let twin = &kernels[1].evidence;
        assert_eq!(twin, &vec![Evidence::Twin("src/softmax_avx2.c".into())]);
        assert!(is_weak(twin));
        // `dec_loop` and `dec_head` are two steps, not ports of one.
        assert_eq!(
            port_key("lib/arch/avx2/dec_loop.c"),
            port_key("lib/arch/neon64/dec_loop.c")
        );
        assert_ne!(
            port_key("lib/arch/avx2/dec_loop.c"),
            port_key("lib/arch/generic/dec_head.c")
        );
    }

    #[test]
    fn one_word_in_two_directories_is_one_family_and_a_placed_files_word_none() {
        let mut kernels = vec![
            file("src/f32-vcmul/gen/f32-vcmul-neon-u8.c", Some(ARM)),
            file("src/f32-vcmul/gen/f32-vcmul-sse2-u8.c", Some(X86)),
            file("src/f16-vcmul/gen/f16-vcmul-neonfp16arith-u8.c", Some(ARM)),
            file("src/f16-vcmul/gen/f16-vcmul-avx2-u8.c", Some(X86)),
            file("conv/conv_direct.c", Some("convolution")),
            file("conv/conv_avx2.c", Some(X86)),
            file("conv/conv_neon.c", Some(ARM)),
        ];
        let families = run(&mut kernels);
        assert_eq!(
            families,
            vec![NameGroup {
                word: "vcmul".into(),
                files: 4
            }]
        );
        // `conv` is the convolution op's word: its ports are convolutions
        // the evidence missed, not a family.
        assert_eq!(
            ops(&kernels)[4..],
            [Some("convolution"), Some(X86), Some(ARM)]
        );
    }
}
