//! What the repository itself says is vendored: the `linguist-vendored`
//! attribute of its `.gitattributes`, set (or unset) on path patterns and
//! read the way GitHub Linguist reads it, and the provenance notes a copy
//! keeps beside it (`README.chromium`, a `PROVENANCE.md` naming where the
//! files were copied from). A team that marks `src/OpenCL/**` or
//! `native/cuBQL/**` as another project's code, or writes down where a
//! directory came from, has said which kernels are not its own; `sota
//! init` takes its word.

use std::io::Read;
use std::path::Path;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::repo::confined::{Confined, Opened};

/// The attributes file read, at most this many bytes.
const MAX_BYTES: u64 = 256 * 1024;

/// The `linguist-vendored` rules of the root `.gitattributes`, in file order.
#[derive(Default)]
pub struct Vendored {
    /// Each pattern with whether it sets (true) or unsets the attribute.
    rules: Vec<(Gitignore, bool)>,
    /// Literal directories a `dir/**` rule marks vendored, with their `/`.
    dirs: Vec<String>,
    /// Directories holding a provenance note, with their `/`, sorted.
    copied: Vec<String>,
    /// Directories named after a library kernel trees copy whole, with
    /// their `/`, sorted (see `copied_libraries`).
    libraries: Vec<String>,
}

/// File names that record where a directory's code was copied from: the
/// Chromium and Fuchsia third-party notes and a `PROVENANCE` /
/// `UPSTREAM` / `VENDORED` file (axolotl's Marlin copy from vLLM).
const PROVENANCE_NOTES: &[&str] = &[
    "readme.chromium",
    "readme.fuchsia",
    "provenance",
    "provenance.md",
    "provenance.txt",
    "upstream",
    "upstream.md",
    "upstream.txt",
    "vendored",
    "vendored.md",
    "vendored.txt",
];

impl Vendored {
    /// The rules of `.gitattributes` at the root, when it is tracked and
    /// can be read inside the root; none otherwise.
    pub fn read(root: &Path, tracked: bool) -> Vendored {
        if !tracked {
            return Vendored::default();
        }
        let Opened::File(f, _) = Confined::new(root).open(".gitattributes") else {
            return Vendored::default();
        };
        let mut text = String::new();
        if f.take(MAX_BYTES).read_to_string(&mut text).is_err() {
            return Vendored::default();
        }
        Vendored::parse(&text)
    }

    /// The rules of an attributes file's text. Lines that set nothing about
    /// `linguist-vendored`, macro definitions and quoted patterns are
    /// skipped.
    pub fn parse(text: &str) -> Vendored {
        let mut out = Vendored::default();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with('"') {
                continue;
            }
            let mut words = line.split_whitespace();
            let Some(pattern) = words.next() else {
                continue;
            };
            if pattern.starts_with("[attr]") {
                continue;
            }
            let Some(set) = words.filter_map(vendored_value).next_back() else {
                continue;
            };
            let mut builder = GitignoreBuilder::new("");
            if builder.add_line(None, pattern).is_err() {
                continue;
            }
            let Ok(glob) = builder.build() else {
                continue;
            };
            if set {
                if let Some(dir) = literal_dir(pattern) {
                    out.dirs.push(dir);
                }
            }
            out.rules.push((glob, set));
        }
        out
    }

    /// Whether the attributes mark the path vendored (`Some(true)`), not
    /// vendored (`Some(false)`), or say nothing. The last matching line
    /// wins, as in git.
    pub fn says(&self, path: &str) -> Option<bool> {
        self.rules
            .iter()
            .rev()
            .find(|(glob, _)| glob.matched(path, false).is_ignore())
            .map(|&(_, set)| set)
    }

    /// The literal directory of the `dir/**` rule that covers the path, if
    /// one does: the draft excludes the directory, not its files one by one.
    pub fn dir_of(&self, path: &str) -> Option<&str> {
        self.dirs
            .iter()
            .find(|d| path.starts_with(d.as_str()))
            .map(String::as_str)
    }

    /// Take the provenance notes among the tracked paths: each marks its
    /// directory (not the root) as another project's copy.
    pub fn with_notes(mut self, paths: &[&str]) -> Vendored {
        for p in paths {
            // A note's name is 8 to 15 bytes: look at the path's last 16
            // only (most paths are ruled out there, without a full scan).
            let tail = &p.as_bytes()[p.len().saturating_sub(16)..];
            let Some(slash) = tail.iter().rposition(|&b| b == b'/') else {
                continue;
            };
            let cut = p.len() - tail.len() + slash;
            let (dir, name) = (&p[..cut], &p[cut + 1..]);
            let first = name.bytes().next().map(|b| b.to_ascii_lowercase());
            if !(8..=15).contains(&name.len()) || !first.is_some_and(|b| b"prvu".contains(&b)) {
                continue;
            }
            if PROVENANCE_NOTES
                .iter()
                .any(|n| name.eq_ignore_ascii_case(n))
            {
                self.copied.push(format!("{dir}/"));
            }
        }
        self.copied.sort();
        self.copied.dedup();
        self
    }

    /// The directory whose provenance note covers the path, if one does.
    pub fn noted_dir(&self, path: &str) -> Option<&str> {
        holding_dir(&self.copied, path)
    }

    /// Take the directories that hold a known copied library.
    pub fn with_libraries(mut self, dirs: Vec<String>) -> Vendored {
        self.libraries = dirs;
        self
    }

    /// The directory of a known copied library that holds the path, if one does.
    pub fn library_dir(&self, path: &str) -> Option<&str> {
        holding_dir(&self.libraries, path)
    }

    /// The directory the draft excludes whole for a vendored path: the
    /// `.gitattributes` rule's, else the provenance note's, else the
    /// copied library's.
    pub fn copied_dir(&self, path: &str) -> Option<&str> {
        self.dir_of(path)
            .or_else(|| self.noted_dir(path))
            .or_else(|| self.library_dir(path))
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty() && self.copied.is_empty() && self.libraries.is_empty()
    }
}

/// The directory of `dirs` (sorted, each with its `/`) that holds the
/// path, the innermost when they nest.
fn holding_dir<'a>(dirs: &'a [String], path: &str) -> Option<&'a str> {
    let at = dirs.partition_point(|d| d.as_str() <= path);
    dirs[..at]
        .iter()
        .rev()
        .find(|d| path.starts_with(d.as_str()))
        .map(String::as_str)
}

/// What one attribute word says about `linguist-vendored`.
fn vendored_value(word: &str) -> Option<bool> {
    match word {
        "linguist-vendored" | "linguist-vendored=true" => Some(true),
        "-linguist-vendored" | "!linguist-vendored" | "linguist-vendored=false" => Some(false),
        _ => None,
    }
}

/// `a/b/` for the pattern `a/b/**` or `/a/b/**` with no glob character in
/// `a/b`.
fn literal_dir(pattern: &str) -> Option<String> {
    let dir = pattern.strip_suffix("/**")?.trim_start_matches('/');
    let literal = !dir.is_empty() && !dir.contains(['*', '?', '[', '\\', '!']);
    literal.then(|| format!("{dir}/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linguist_vendored_marks_paths_as_git_matches_them() {
        let v = Vendored::parse(
            "# vendored\n\
             src/OpenCL/** linguist-vendored\n\
             src/lodepng.* linguist-vendored\n\
             libnsgif/*\tlinguist-vendored\n\
             *.cu text eol=lf\n\
             src/OpenCL/own/** linguist-vendored=false\n",
        );
        assert_eq!(v.says("src/OpenCL/include/CL/opencl.hpp"), Some(true));
        assert_eq!(v.says("src/lodepng.cpp"), Some(true));
        // A pattern with a slash before its end is anchored at the root;
        // one without matches the name at any depth.
        assert_eq!(v.says("lib/libnsgif/gif.c"), None);
        assert_eq!(
            Vendored::parse("lodepng.* linguist-vendored").says("a/b/lodepng.h"),
            Some(true)
        );
        assert_eq!(v.says("libnsgif/gif.c"), Some(true));
        // The last matching line wins.
        assert_eq!(v.says("src/OpenCL/own/k.cl"), Some(false));
        assert_eq!(v.says("src/kernel.cpp"), None);
        assert_eq!(v.dir_of("src/OpenCL/include/CL/cl.h"), Some("src/OpenCL/"));
        assert_eq!(v.dir_of("src/lodepng.cpp"), None);
    }

    #[test]
    fn a_provenance_note_marks_its_directory_copied() {
        let v = Vendored::default().with_notes(&[
            "PROVENANCE.md",
            "libs/marlin/_csrc/PROVENANCE.md",
            "libs/marlin/_csrc/marlin.cuh",
            "third/zlib/README.chromium",
            "libs/own/k.cu",
        ]);
        assert!(!v.is_empty());
        assert_eq!(
            v.noted_dir("libs/marlin/_csrc/moe/kernel.cu"),
            Some("libs/marlin/_csrc/")
        );
        assert_eq!(v.noted_dir("third/zlib/crc32.c"), Some("third/zlib/"));
        // The root's own note says nothing about the root.
        assert_eq!(v.noted_dir("libs/own/k.cu"), None);
        assert_eq!(v.noted_dir("libs/marlin/other.cu"), None);
    }

    #[test]
    fn other_attributes_and_macros_say_nothing() {
        let v = Vendored::parse(
            "[attr]binary -diff -merge -text\n\
             \"a b/**\" linguist-vendored\n\
             *.h linguist-language=C++\n\
             tools/** -linguist-vendored\n",
        );
        assert_eq!(v.says("x.h"), None);
        assert_eq!(v.says("a b/k.cu"), None);
        assert_eq!(v.says("tools/k.cu"), Some(false));
        assert!(v.dir_of("tools/k.cu").is_none());
    }
}
