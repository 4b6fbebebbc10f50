//! The in-process index reader against `git ls-files -z` on real
//! repositories in every index shape it claims to read, and a decline (so
//! the caller falls back to git) for the shapes it does not.

use crate::harness::Sota;

fn ls_files(p: &Sota, dir: &str) -> Vec<Vec<u8>> {
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(p.path().join(dir))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    let mut v: Vec<Vec<u8>> = out
        .stdout
        .split(|&b| b == 0)
        .filter(|s| !s.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    v.sort();
    v.dedup();
    v
}

fn read(p: &Sota, dir: &str) -> Option<Vec<Vec<u8>>> {
    let git = sota::repo::git::Git::new(p.path().join(dir));
    let loc = git.index_location().unwrap();
    let bytes = std::fs::read(&loc.index).unwrap();
    sota::repo::index_file::read_paths(&bytes, loc.hash_len, &loc.prefix)
        .map(|l| l.iter().map(<[u8]>::to_vec).collect())
}

fn populated(init: &[&str]) -> Sota {
    let mut p = Sota::new();
    p.git(init).success();
    for (path, text) in [
        ("a.cu", "1"),
        ("kernels/attn/flash.cu", "2"),
        ("kernels/attn/with space.cu", "3"),
        ("kernels/attn/ünï.cu", "4"),
        (
            "kernels/gemm/deep/er/path/that/is/long/enough/to/matter.cuh",
            "5",
        ),
        ("z.txt", "6"),
    ] {
        p = p.file(path, text);
    }
    p.git(&["add", "-A"]).success();
    p
}

#[test]
fn locating_the_index_without_git_agrees_with_rev_parse() {
    let p = populated(&["init", "-q"]);
    for dir in ["", "kernels", "kernels/attn"] {
        let plain =
            sota::repo::index_file::locate_plain(&p.path().join(dir)).expect("plain layout");
        let asked = sota::repo::git::Git::new(p.path().join(dir))
            .index_location()
            .unwrap();
        assert_eq!(
            std::fs::canonicalize(&plain.index).ok(),
            std::fs::canonicalize(&asked.index).ok()
        );
        assert_eq!(
            (plain.hash_len, &plain.prefix),
            (asked.hash_len, &asked.prefix),
            "{dir}"
        );
    }
    let sha256 = populated(&["init", "-q", "--object-format=sha256"]);
    assert!(
        sota::repo::index_file::locate_plain(sha256.path()).is_none(),
        "SHA-256 repositories ask git"
    );
}

#[test]
fn plain_v2_index_matches_ls_files_at_the_top_and_in_a_subdirectory() {
    let p = populated(&["init", "-q"]);
    assert_eq!(read(&p, ""), Some(ls_files(&p, "")));
    assert_eq!(read(&p, "kernels"), Some(ls_files(&p, "kernels")));
    assert_eq!(read(&p, "kernels/attn"), Some(ls_files(&p, "kernels/attn")));
}

#[test]
fn v3_extended_flags_and_v4_prefix_compression_read_the_same_paths() {
    let p = populated(&["init", "-q"]);
    std::fs::write(p.path().join("intent.cu"), "x").unwrap();
    p.git(&["add", "-N", "intent.cu"]).success(); // intent-to-add: an extended flag (v3)
    assert_eq!(read(&p, ""), Some(ls_files(&p, "")));
    p.git(&["update-index", "--index-version", "4"]).success();
    assert_eq!(read(&p, ""), Some(ls_files(&p, "")));
    assert_eq!(read(&p, "kernels"), Some(ls_files(&p, "kernels")));
}

#[test]
fn sha256_repositories_read_the_same_paths() {
    let p = populated(&["init", "-q", "--object-format=sha256"]);
    assert_eq!(read(&p, ""), Some(ls_files(&p, "")));
}

#[test]
fn conflicted_paths_appear_once() {
    let p = populated(&["init", "-q", "-b", "main"]);
    p.commit("base");
    p.git(&["checkout", "-q", "-b", "side"]).success();
    std::fs::write(p.path().join("a.cu"), "side").unwrap();
    p.commit("side");
    p.git(&["checkout", "-q", "main"]).success();
    std::fs::write(p.path().join("a.cu"), "main").unwrap();
    p.commit("main");
    let merge = p.git(&["merge", "-q", "side"]);
    assert_ne!(merge.code, 0, "a conflict is set up");
    assert_eq!(read(&p, ""), Some(ls_files(&p, "")));
}

#[test]
fn split_and_sparse_indexes_are_declined() {
    let p = populated(&["init", "-q"]);
    p.git(&["update-index", "--split-index"]).success();
    assert_eq!(
        read(&p, ""),
        None,
        "a split index keeps entries in another file"
    );

    let p = populated(&["init", "-q", "-b", "main"]);
    p.commit("base");
    p.git(&["sparse-checkout", "init", "--cone", "--sparse-index"])
        .success();
    p.git(&["sparse-checkout", "set", "kernels/attn"]).success();
    assert_eq!(read(&p, ""), None, "a sparse index folds directories");
    // The scorecard still sees every path, through git ls-files.
    let p = p.file("sota.toml", "[project]\nname = \"t\"\n[[op]]\nslug = \"a\"\ntitle = \"A\"\nsota = \"S\"\nfiles = [\"kernels/\"]\n");
    let v = p.run(&["coverage", "--json"]).json();
    let kernel_files: Vec<&str> = v["population"]["kernel_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(
        kernel_files.contains(&"a.cu")
            && kernel_files
                .contains(&"kernels/gemm/deep/er/path/that/is/long/enough/to/matter.cuh"),
        "{kernel_files:?}"
    );
}

/// The trailing checksum is verified as `git fsck` does: one flipped byte
/// anywhere (here in a path name, where the layout stays plausible) is
/// declined, so the caller asks git instead of trusting the damage; an
/// all-zero trailer (`index.skipHash`) is accepted, as git accepts it.
#[test]
fn a_flipped_byte_is_declined_and_a_skipped_hash_is_accepted() {
    for init in [
        &["init", "-q"][..],
        &["init", "-q", "--object-format=sha256"][..],
    ] {
        let p = populated(init);
        assert!(read(&p, "").is_some(), "{init:?}: the intact index reads");
        let git = sota::repo::git::Git::new(p.path());
        let loc = git.index_location().unwrap();
        let mut bytes = std::fs::read(&loc.index).unwrap();
        let at = bytes.windows(5).position(|w| w == b"flash").unwrap();
        bytes[at] = b'g';
        assert!(
            sota::repo::index_file::read_paths(&bytes, loc.hash_len, b"").is_none(),
            "{init:?}: `glash.cu` must not be read as a tracked path"
        );
        let n = bytes.len();
        bytes[at] = b'f';
        bytes[n - 1] ^= 1;
        assert!(
            sota::repo::index_file::read_paths(&bytes, loc.hash_len, b"").is_none(),
            "{init:?}: a flipped checksum byte is declined too"
        );
    }
    let p = populated(&["init", "-q"]);
    std::fs::remove_file(p.path().join(".git/index")).unwrap();
    p.git(&["-c", "index.skipHash=true", "add", "-A"]).success();
    let bytes = std::fs::read(p.path().join(".git/index")).unwrap();
    assert!(
        bytes[bytes.len() - 20..].iter().all(|&b| b == 0),
        "git wrote no hash"
    );
    assert_eq!(read(&p, "").unwrap(), ls_files(&p, ""));
}
