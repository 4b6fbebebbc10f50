//! The one place that runs `git`. Every call uses `-z` (or a NUL-separated
//! format) and reads bytes, so spaces, newlines and non-UTF-8 bytes in path
//! names survive; nothing here parses human-oriented output. Commit
//! messages and file names are untrusted (docs/SECURITY.md): no byte of
//! them can end or start a record, and user-given revisions are never read
//! as options (`--end-of-options`, [`check_revision`]).
//!
//! The child inherits the environment on purpose: inside a hook, git's own
//! `GIT_DIR` / `GIT_INDEX_FILE` (a temporary index during `git commit -a`)
//! must be followed.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::repo::objects::{contains_ignore_ascii_case, Blob, LooseObjects};

/// Why a git call failed.
#[derive(Debug)]
pub enum GitError {
    /// No `git` executable on PATH.
    Missing,
    /// git ran and refused (not a repository, bad revision, …).
    Failed {
        args: String,
        stderr: String,
    },
    Io(std::io::Error),
}

impl std::fmt::Display for GitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GitError::Missing => f.write_str("git is not installed or not on PATH"),
            GitError::Failed { args, stderr } => {
                let first = stderr
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .unwrap_or("");
                let first = first
                    .trim_start_matches("fatal: ")
                    .trim_start_matches("error: ");
                let cmd: String = args
                    .split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ");
                // git echoes revisions and names it was given: quote them.
                write!(f, "`git {cmd}` failed: {}", crate::quote::quote(first))
            }
            GitError::Io(e) => write!(f, "running git: {e}"),
        }
    }
}

impl std::error::Error for GitError {}

/// How much of history `git log` walks, beyond the revision range.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogLimits {
    /// Only commits more recent than this (anything `git log --since` takes).
    pub since: Option<String>,
    /// At most this many commits.
    pub max_count: Option<usize>,
    /// Follow only the first parent of merges.
    pub first_parent: bool,
}

impl LogLimits {
    /// The `git log` / `git rev-list` options these limits stand for.
    pub fn args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(since) = &self.since {
            args.push(format!("--since={since}"));
        }
        if let Some(n) = self.max_count {
            args.push(format!("--max-count={n}"));
        }
        if self.first_parent {
            args.push("--first-parent".into());
        }
        args
    }
}

/// A path as git printed it: raw bytes, relative to the directory git ran in.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GitPath(Vec<u8>);

impl GitPath {
    pub fn from_bytes(bytes: &[u8]) -> Self {
        GitPath(bytes.to_vec())
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// For display: lossy UTF-8.
    pub fn display(&self) -> String {
        String::from_utf8_lossy(&self.0).into_owned()
    }
}

/// What the index holds that HEAD does not.
#[derive(Debug, Default)]
pub struct Staged {
    /// Every path touched: added, modified, deleted; a rename as its old and
    /// its new path. Relative to the directory git ran in.
    pub paths: Vec<GitPath>,
    /// Whether an added line of the staged diff mentions `Prior-art:`.
    pub adds_prior_art: bool,
    /// Per entry of `paths`: the staged blob id (`None` for a deleted or
    /// unmerged path or a submodule).
    pub blobs: Vec<Option<String>>,
    /// Per entry of `paths`: the first line its first hunk touches in the
    /// staged file (`None` for a deleted or binary file, a mode change, or
    /// when git's patch did not line up one section per path).
    pub first_lines: Vec<Option<usize>>,
}

/// One commit of a range.
#[derive(Debug, Clone)]
pub struct Commit {
    pub hash: String,
    /// Author date, YYYY-MM-DD, or [`UNKNOWN_DATE`] when the commit
    /// object has none git can format.
    pub date: String,
    pub subject: String,
    /// The whole raw message (subject, blank line, body).
    pub message: String,
    /// `Prior-art` values as git's own trailer parser sees them.
    pub git_trailers: Vec<String>,
    /// Files touched (merges: none). Relative to the directory git ran in.
    pub paths: Vec<GitPath>,
    /// Per entry of `paths`: whether the commit deleted it (`D`).
    pub deleted: Vec<bool>,
}

/// `git diff --cached`, the same for both ways of reading it. A submodule
/// is one `Subproject commit` line whatever `diff.submodule` says (with
/// `diff`, git would show the submodule's own changes as added lines).
const STAGED_ARGS: [&str; 12] = [
    "diff",
    "--cached",
    "--relative",
    "--no-renames",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--ignore-submodules=none",
    "--submodule=short",
    "--no-abbrev",
    "-z",
    "--raw",
];

/// Added to [`STAGED_ARGS`] when the patch itself is read.
const PATCH_ARGS: [&str; 2] = ["-U0", "--patch-with-raw"];

/// The arguments of the `git diff --cached` run for `detail`.
fn staged_args(detail: StagedDetail) -> Vec<&'static str> {
    let mut args = STAGED_ARGS.to_vec();
    if detail == StagedDetail::FirstLines {
        args.extend(PATCH_ARGS);
    }
    args
}

/// How much of the staged change to ask git for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StagedDetail {
    /// The paths, and whether an added line mentions `Prior-art:`. git
    /// lists the paths only; the staged blobs are searched in-process, and
    /// git's patch is read only when one of them mentions it (or cannot be
    /// read here). Producing a patch costs git 8-10% of a 100,000-file
    /// `diff --cached` even for 50 one-line edits, and more for large
    /// files.
    Paths,
    /// Also the first line each file's change touches: always the patch.
    FirstLines,
}

/// One entry of `git diff --raw -z`: `:<old mode> <new mode> <old id>
/// <new id> <status>` then the path.
struct RawEntry {
    path: GitPath,
    new_mode: Vec<u8>,
    new_id: String,
    status: u8,
}

impl RawEntry {
    /// Whether the patch can show added lines for this entry: a file that
    /// is still there afterwards (not deleted, not unmerged, not a
    /// submodule, whose patch is one `Subproject commit` line).
    fn may_add_lines(&self) -> bool {
        !matches!(self.status, b'D' | b'U')
            && self.new_mode != b"160000"
            && self.new_id.bytes().any(|b| b != b'0')
    }
}

/// `git diff --raw -z`, parsed as its bytes arrive.
#[derive(Default)]
struct RawParser {
    /// Bytes not yet parsed: a partial entry, or after the raw part, the
    /// start of the patch.
    pending: Vec<u8>,
    /// The raw part is over: the lone NUL before a patch was read.
    ended: bool,
}

impl RawParser {
    /// Take in `bytes`; push the entries they complete onto `out`.
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<RawEntry>) {
        self.pending.extend_from_slice(bytes);
        if self.ended {
            return;
        }
        let mut at = 0;
        while let Some(&first) = self.pending.get(at) {
            if first != b':' {
                // The lone NUL that separates the raw part from a patch.
                self.ended = true;
                at += usize::from(first == 0);
                break;
            }
            let rest = &self.pending[at..];
            let Some(meta_end) = memchr::memchr(0, rest) else {
                break;
            };
            let Some(path_len) = memchr::memchr(0, &rest[meta_end + 1..]) else {
                break;
            };
            let path = &rest[meta_end + 1..meta_end + 1 + path_len];
            out.push(RawEntry::parse(&rest[1..meta_end], path));
            at += meta_end + path_len + 2;
        }
        self.pending.drain(..at);
    }

    /// At the end of git's output: whether it stopped mid-entry.
    fn cut_short(&self) -> bool {
        !self.ended && !self.pending.is_empty()
    }
}

impl RawEntry {
    /// An entry from its fields: `<old mode> <new mode> <old id> <new id>
    /// <status>` (without the leading `:`) and the path.
    fn parse(meta: &[u8], path: &[u8]) -> RawEntry {
        let mut meta = meta.split(|&b| b == b' ');
        let _old_mode = meta.next();
        let new_mode = meta.next().unwrap_or_default().to_vec();
        let _old_id = meta.next();
        let new_id = String::from_utf8_lossy(meta.next().unwrap_or_default()).into_owned();
        let status = meta.next().and_then(|s| s.first().copied()).unwrap_or(b'?');
        RawEntry {
            path: GitPath(path.to_vec()),
            new_mode,
            new_id,
            status,
        }
    }

    /// The blob to search for an added `Prior-art:` line, if the entry can
    /// add lines at all.
    fn blob(&self) -> Option<Blob> {
        self.may_add_lines().then(|| Blob {
            id: self.new_id.clone(),
            // A symlink's blob is its target, not the file it leads to.
            path: (self.new_mode != b"120000")
                .then(|| std::str::from_utf8(self.path.as_bytes()).ok())
                .flatten()
                .map(str::to_owned),
        })
    }
}

/// Read git's output into `parser` until the raw part ends (at EOF, or
/// at the patch's separator).
fn read_raw(
    stdout: &mut impl Read,
    parser: &mut RawParser,
    entries: &mut Vec<RawEntry>,
) -> Result<(), GitError> {
    let mut chunk = vec![0u8; 1 << 16];
    while !parser.ended {
        let n = match stdout.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(GitError::Io(e)),
        };
        if n == 0 {
            break;
        }
        parser.feed(&chunk[..n], entries);
    }
    Ok(())
}

/// A running `git diff --cached`; [`PendingStaged::finish`] reads it.
pub struct PendingStaged {
    child: std::process::Child,
    dir: PathBuf,
    detail: StagedDetail,
    /// The trailer whose mention in an added line the caller asks about
    /// (the gate's rule, passed down: this module knows no trailer).
    trailer_key: String,
}

impl PendingStaged {
    /// What an added line must contain to mention the trailer: the key
    /// and its colon, lowercase (compared ignoring ASCII case).
    fn mention(&self) -> Vec<u8> {
        let mut needle = self.trailer_key.to_ascii_lowercase().into_bytes();
        needle.push(b':');
        needle
    }
}

impl PendingStaged {
    /// The directory git runs in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Read git's answer. With [`StagedDetail::Paths`], the staged blobs
    /// are then searched in-process ([`LooseObjects::none_contain`]); only
    /// when one mentions the trailer, or cannot be read here, is git asked
    /// for the patch.
    pub fn finish(mut self) -> Result<Staged, GitError> {
        let mut stdout = self.child.stdout.take().expect("piped stdout");
        let mut parser = RawParser::default();
        let mut entries = Vec::new();
        let mut staged = Staged::default();
        read_raw(&mut stdout, &mut parser, &mut entries)?;
        staged.first_lines = vec![None; entries.len()];
        if parser.ended && self.detail == StagedDetail::FirstLines {
            let patch = std::io::Cursor::new(std::mem::take(&mut parser.pending));
            let reader = &mut BufReader::new(patch.chain(&mut stdout));
            scan_patch(reader, &mut staged, &self.mention())?;
        }
        // Stop reading: the answer is known (git may see a closed pipe).
        drop(stdout);
        let status = self.child.wait().map_err(GitError::Io)?;
        if !status.success() && !staged.adds_prior_art {
            let mut stderr = String::new();
            if let Some(mut e) = self.child.stderr.take() {
                let _ = e.read_to_string(&mut stderr);
            }
            if stderr.contains("--no-index") {
                // Outside a repository git falls back to `diff --no-index`.
                stderr = format!("not a git repository: {}", self.dir.display());
            }
            return Err(self.failed(stderr));
        }
        if parser.cut_short() {
            return Err(self.failed("its output ended inside an entry".to_owned()));
        }
        let no_blob_mentions = || {
            let Some(objects) = LooseObjects::discover(&self.dir) else {
                return false;
            };
            let mut seen = HashSet::new();
            let blobs = entries
                .iter()
                .filter_map(RawEntry::blob)
                .filter(|blob| seen.insert(blob.id.clone()));
            objects.none_contain(blobs, &self.mention())
        };
        if self.detail == StagedDetail::Paths && !no_blob_mentions() {
            // A staged file mentions it, or one could not be read here:
            // only git's patch can tell whether the mention is an added line.
            return Git::new(&self.dir)
                .spawn_staged(StagedDetail::FirstLines, &self.trailer_key)?
                .finish();
        }
        staged.blobs = entries
            .iter()
            .map(|e| e.may_add_lines().then(|| e.new_id.clone()))
            .collect();
        staged.paths = entries.into_iter().map(|e| e.path).collect();
        Ok(staged)
    }

    /// This run's failure, with what git (or its output) said.
    fn failed(&self, stderr: String) -> GitError {
        GitError::Failed {
            args: staged_args(self.detail).join(" "),
            stderr,
        }
    }
}

/// Read the `-U0` patch after the raw part: only '+' lines inside hunks
/// are added text. git writes the sections in the raw part's order, one
/// per path.
fn scan_patch(
    reader: &mut impl BufRead,
    staged: &mut Staged,
    mention: &[u8],
) -> Result<(), GitError> {
    let mut in_hunk = false;
    let mut section: Option<usize> = None;
    let mut sections = 0usize;
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).map_err(GitError::Io)? == 0 {
            break;
        }
        if line.starts_with(b"diff --git ") {
            in_hunk = false;
            section = Some(sections);
            sections += 1;
        } else if line.starts_with(b"@@") {
            in_hunk = true;
            if let Some(slot) = section.and_then(|i| staged.first_lines.get_mut(i)) {
                if slot.is_none() {
                    *slot = hunk_new_start(&line);
                }
            }
        } else if in_hunk
            && line.first() == Some(&b'+')
            && contains_ignore_ascii_case(&line[1..], mention)
        {
            staged.adds_prior_art = true;
            break;
        }
    }
    if sections != staged.first_lines.len() {
        // Unmerged entries and the like: do not guess which is which.
        staged.first_lines.iter_mut().for_each(|l| *l = None);
    }
    Ok(())
}

/// The new-file start line of a `@@ -a,b +c,d @@` hunk header (`None` for
/// `+0,0`: the file is gone).
fn hunk_new_start(header: &[u8]) -> Option<usize> {
    let at = header.windows(2).position(|w| w == b" +")? + 2;
    let digits: Vec<u8> = header[at..]
        .iter()
        .copied()
        .take_while(u8::is_ascii_digit)
        .collect();
    let start: usize = std::str::from_utf8(&digits).ok()?.parse().ok()?;
    (start > 0).then_some(start)
}

/// See [`Git::index_location`].
#[derive(Clone, Debug)]
pub struct IndexLocation {
    pub index: PathBuf,
    pub hash_len: usize,
    /// e.g. `sub/dir/`, or empty at the top of the work tree.
    pub prefix: Vec<u8>,
}

/// A running `git ls-files -z`.
pub struct PendingFiles {
    child: std::process::Child,
    dir: PathBuf,
}

impl PendingFiles {
    /// The tracked paths, as git listed them.
    pub fn finish(self) -> Result<crate::repo::paths::PathList, GitError> {
        let out = self.child.wait_with_output().map_err(GitError::Io)?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            return Err(GitError::Failed {
                args: "ls-files -z".into(),
                stderr: if stderr.contains("not a git repository") {
                    format!("not a git repository: {}", self.dir.display())
                } else {
                    stderr
                },
            });
        }
        Ok(crate::repo::paths::PathList::from_nul_separated(out.stdout))
    }
}

impl Drop for PendingStaged {
    fn drop(&mut self) {
        // An abandoned run (the matrix moved the root) must not linger.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// git, run in one directory.
#[derive(Clone, Debug)]
pub struct Git {
    dir: PathBuf,
}

impl Git {
    /// Run git in `dir`. With `relative`, pathspecs and output are limited
    /// to and relative to that directory.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Git { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.current_dir(&self.dir)
            .args(["-c", "core.quotePath=false", "-c", "diff.noprefix=false"])
            .args(args)
            .stdin(Stdio::null());
        cmd
    }

    /// Run to completion and return stdout.
    fn output(&self, args: &[&str]) -> Result<Vec<u8>, GitError> {
        let out = self.command(args).output().map_err(spawn_error)?;
        if !out.status.success() {
            return Err(GitError::Failed {
                args: args.join(" "),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        Ok(out.stdout)
    }

    /// The staged change, limited to and relative to this directory
    /// (`--relative`): the paths, whether an added line mentions
    /// `Prior-art:`, and with [`StagedDetail::FirstLines`] where each
    /// file's change starts.
    pub fn staged(&self, detail: StagedDetail, trailer_key: &str) -> Result<Staged, GitError> {
        self.spawn_staged(detail, trailer_key)?.finish()
    }

    /// Start [`Git::staged`] and return at once, so the caller can load the
    /// matrix while git (another process) reads the index.
    pub fn spawn_staged(
        &self,
        detail: StagedDetail,
        trailer_key: &str,
    ) -> Result<PendingStaged, GitError> {
        let child = self
            .command(&staged_args(detail))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(spawn_error)?;
        Ok(PendingStaged {
            child,
            dir: self.dir.clone(),
            detail,
            trailer_key: trailer_key.to_owned(),
        })
    }

    /// Start `git ls-files -z` here and return at once (see
    /// [`PendingFiles::finish`]): every path in the index under this
    /// directory, relative to it — sparse-checkout entries and submodules
    /// (as one path) included.
    pub fn spawn_ls_files(&self) -> Result<PendingFiles, GitError> {
        let child = self
            .command(&["ls-files", "-z"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(spawn_error)?;
        Ok(PendingFiles {
            child,
            dir: self.dir.clone(),
        })
    }

    /// Where the index file is (honouring worktrees and `GIT_INDEX_FILE`),
    /// the hash length in bytes, and this directory's path prefix inside
    /// the work tree — what reading the index in-process needs.
    pub fn index_location(&self) -> Result<IndexLocation, GitError> {
        let out = self.output(&[
            "rev-parse",
            "--path-format=absolute",
            "--git-path",
            "index",
            "--show-object-format",
            "--show-prefix",
        ])?;
        let text = String::from_utf8_lossy(&out);
        let mut lines = text.lines();
        let index = PathBuf::from(lines.next().unwrap_or_default());
        let hash_len = match lines.next().unwrap_or("sha1") {
            "sha256" => 32,
            _ => 20,
        };
        let prefix = lines.next().unwrap_or("").as_bytes().to_vec();
        Ok(IndexLocation {
            index,
            hash_len,
            prefix,
        })
    }

    /// Every commit in a revision range (`A..B`, or anything `git log`
    /// takes), newest first, with the files it touched (`--no-renames`;
    /// merges touch none) relative to this directory.
    pub fn commits(
        &self,
        range: &str,
        extra: &[&str],
        trailer_key: &str,
    ) -> Result<Vec<Commit>, GitError> {
        let mut commits = Vec::new();
        self.for_each_commit(range, extra, trailer_key, |c| commits.push(c))?;
        Ok(commits)
    }

    /// As [`Git::commits`], streamed: `each` sees every commit as git
    /// prints it (for progress on long histories).
    ///
    /// The range is checked by [`check_revision`] and passed after
    /// `--end-of-options`, so it is never read as an option.
    pub fn for_each_commit(
        &self,
        range: &str,
        extra: &[&str],
        trailer_key: &str,
        mut each: impl FnMut(Commit),
    ) -> Result<(), GitError> {
        check_revision(range)?;
        let format = log_format(trailer_key);
        let mut args = vec![
            "log",
            "--no-renames",
            "--relative",
            "--name-status",
            "-z",
            "--no-color",
            // Local config must not add text to the records either.
            "--no-show-signature",
            "--encoding=UTF-8",
            &format,
        ];
        args.extend_from_slice(extra);
        // Merges touch no files (SPEC 3.10), even under --first-parent,
        // which would otherwise diff them against their first parent.
        args.push("--diff-merges=off");
        args.push("--end-of-options");
        args.push(range);
        args.push("--");
        let mut child = self
            .command(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(spawn_error)?;
        let stdout = child.stdout.take().expect("piped stdout");
        let mut reader = BufReader::with_capacity(1 << 16, stdout);
        let parsed = read_log(&mut reader, &mut each);
        drop(reader);
        let out = child.wait_with_output().map_err(GitError::Io)?;
        // Output sota could not read ends the reading, and git then dies of
        // the closed pipe: that error is the one to tell, not git's.
        parsed?;
        if !out.status.success() {
            return Err(GitError::Failed {
                args: args.join(" "),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        Ok(())
    }

    /// How many commits a range holds (`git rev-list --count`).
    pub fn count_commits(&self, range: &str, extra: &[&str]) -> Result<usize, GitError> {
        check_revision(range)?;
        let mut args = vec!["rev-list", "--count"];
        args.extend_from_slice(extra);
        args.push("--end-of-options");
        args.push(range);
        args.push("--");
        let out = self.output(&args)?;
        Ok(String::from_utf8_lossy(&out).trim().parse().unwrap_or(0))
    }

    /// Whether HEAD exists (a repository with no commits yet has none).
    /// The commit that first added `path` (root-relative), following
    /// renames (`git log --follow`): its hash, committer date (strict ISO
    /// 8601, for `--since`) and author date (`YYYY-MM-DD`). `None` when no
    /// commit reachable from HEAD holds the file (or there is no history).
    pub fn first_commit_of(&self, path: &str) -> Option<(String, String, String)> {
        let out = self
            .output(&[
                "log",
                "--follow",
                "--no-color",
                "--format=%H%x00%cI%x00%as",
                "--end-of-options",
                "HEAD",
                "--",
                path,
            ])
            .ok()?;
        let text = String::from_utf8_lossy(&out);
        let last = text.lines().rfind(|l| !l.trim().is_empty())?;
        let mut parts = last.split('\0');
        let (hash, committed, authored) = (parts.next()?, parts.next()?, parts.next()?);
        Some((hash.to_owned(), committed.to_owned(), authored.to_owned()))
    }

    pub fn has_commits(&self) -> bool {
        self.output(&["rev-parse", "--verify", "--quiet", "HEAD"])
            .is_ok()
    }

    /// `Prior-art` values that `git interpret-trailers --parse` finds in a
    /// message (git's own, stricter trailer rules).
    pub fn parse_trailers(
        &self,
        message: &str,
        trailer_key: &str,
    ) -> Result<Vec<String>, GitError> {
        use std::io::Write;
        let mut child = self
            .command(&["interpret-trailers", "--parse"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(spawn_error)?;
        {
            let mut stdin = child.stdin.take().expect("piped stdin");
            stdin.write_all(message.as_bytes()).map_err(GitError::Io)?;
        }
        let out = child.wait_with_output().map_err(GitError::Io)?;
        if !out.status.success() {
            return Err(GitError::Failed {
                args: "interpret-trailers --parse".into(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.trim()
                    .eq_ignore_ascii_case(trailer_key)
                    .then(|| v.trim().to_owned())
            })
            .collect())
    }

    /// `git config --get KEY`, or `None` when unset.
    pub fn config(&self, key: &str) -> Option<String> {
        let out = self.command(&["config", "--get", key]).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    }

    /// The comment prefix git strips from messages (`core.commentChar`).
    pub fn comment_prefix(&self) -> String {
        match self.config("core.commentChar").as_deref() {
            None | Some("") | Some("auto") => "#".to_owned(),
            Some(c) => c.to_owned(),
        }
    }

    /// The hooks directory git really uses (honours `core.hooksPath` and
    /// worktrees), as an absolute path.
    pub fn hooks_dir(&self) -> Result<PathBuf, GitError> {
        let out = self.output(&["rev-parse", "--path-format=absolute", "--git-path", "hooks"])?;
        let path = path_from_output(out);
        Ok(if path.is_absolute() {
            path
        } else {
            self.dir.join(path)
        })
    }

    /// The top of the work tree.
    pub fn toplevel(&self) -> Result<PathBuf, GitError> {
        let out = self.output(&["rev-parse", "--show-toplevel"])?;
        Ok(path_from_output(out))
    }

    /// Whether the repository is bare (no work tree, nothing staged).
    pub fn is_bare(&self) -> bool {
        self.output(&["rev-parse", "--is-bare-repository"])
            .map(|o| o.starts_with(b"true"))
            .unwrap_or(false)
    }

    /// Whether the repository is a shallow clone.
    pub fn is_shallow(&self) -> bool {
        self.output(&["rev-parse", "--is-shallow-repository"])
            .map(|o| o.starts_with(b"true"))
            .unwrap_or(false)
    }
}

/// A path git printed on one line, as the bytes git gave (a repository
/// path need not be UTF-8): only the line end is removed.
fn path_from_output(mut out: Vec<u8>) -> PathBuf {
    if out.last() == Some(&b'\n') {
        out.pop();
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        PathBuf::from(std::ffi::OsString::from_vec(out))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(&out).into_owned())
    }
}

/// A commit's date when its object carries none git can format.
pub const UNKNOWN_DATE: &str = "unknown";

/// `git log` records, `-z`: each starts with an empty field (two NULs in a
/// row, which no path can produce: paths are never empty), then the hash,
/// the author date, git's `Prior-art` trailer values (unfolded, one per
/// line) and the raw message, each NUL-terminated; then the
/// `--name-status` entries, a status letter then a path (`--no-renames`:
/// never two), each NUL-terminated, the first preceded by a newline. No field can
/// hold a NUL: git's formatter stops a message at its first NUL byte (a
/// crafted object with one is cut there), and paths cannot contain one.
/// So no byte of a message or a file name can end a record or start one.
/// (The same framing idea as git's own `-z` for commits and `%x00`, which
/// git added for exactly this: fields no content can contain.)
fn log_format(trailer_key: &str) -> String {
    format!("--format=%x00%H%x00%as%x00%(trailers:key={trailer_key},valueonly,unfold,separator=%x0a)%x00%B")
}

/// [`read_log`] over bytes already read (the fuzz entry point).
pub(crate) fn parse_log(mut bytes: &[u8]) -> Result<Vec<Commit>, GitError> {
    let mut commits = Vec::new();
    read_log(&mut bytes, &mut |c| commits.push(c))?;
    Ok(commits)
}

/// Parse the records of [`log_format`] from `reader`, handing each commit
/// to `each` as soon as the next one starts.
fn read_log(reader: &mut impl BufRead, each: &mut impl FnMut(Commit)) -> Result<(), GitError> {
    let mut current: Option<Commit> = None;
    let mut field = Vec::new();
    loop {
        if !next_field(reader, &mut field)? {
            break;
        }
        if field.is_empty() {
            if let Some(c) = current.take() {
                each(c);
            }
            current = Some(read_header(reader)?);
            continue;
        }
        let Some(c) = current.as_mut() else {
            return Err(unexpected("output before the first commit"));
        };
        let field = if c.paths.is_empty() && c.deleted.is_empty() {
            field.strip_prefix(b"\n").unwrap_or(&field)
        } else {
            &field[..]
        };
        if c.deleted.len() == c.paths.len() {
            // The status letter (and, for `--diff-merges` output never
            // asked for here, a score): only `D` matters.
            c.deleted.push(field.first() == Some(&b'D'));
        } else {
            c.paths.push(GitPath::from_bytes(field));
        }
    }
    if let Some(c) = current {
        each(c);
    }
    Ok(())
}

/// The four fixed fields after a record's start.
fn read_header(reader: &mut impl BufRead) -> Result<Commit, GitError> {
    let mut fields: [Vec<u8>; 4] = Default::default();
    for f in &mut fields {
        if !next_field(reader, f)? {
            return Err(unexpected("a commit record cut short"));
        }
    }
    let [hash, date, trailers, message] = fields;
    let hash = String::from_utf8(hash)
        .ok()
        .filter(|h| is_object_id(h))
        .ok_or_else(|| unexpected("a commit hash that is not hexadecimal"))?;
    // A commit object may carry no readable author date (git then prints
    // the placeholder itself): the commit still counts, under `unknown`.
    let date = String::from_utf8(date)
        .ok()
        .filter(|d| crate::matrix::Date::parse(d).is_some())
        .unwrap_or_else(|| UNKNOWN_DATE.to_owned());
    let message = String::from_utf8_lossy(&message).into_owned();
    Ok(Commit {
        subject: message.lines().next().unwrap_or("").to_owned(),
        hash,
        date,
        message,
        git_trailers: String::from_utf8_lossy(&trailers)
            .split('\n')
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .collect(),
        paths: Vec::new(),
        deleted: Vec::new(),
    })
}

/// Read one NUL-terminated field into `buf` (without the NUL); `false` at
/// the end of the stream.
fn next_field(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> Result<bool, GitError> {
    buf.clear();
    let n = reader.read_until(0, buf).map_err(GitError::Io)?;
    if buf.last() == Some(&0) {
        buf.pop();
    }
    Ok(n > 0)
}

/// A full SHA-1 or SHA-256 object id in lowercase hex.
fn is_object_id(h: &str) -> bool {
    (h.len() == 40 || h.len() == 64) && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn unexpected(what: &str) -> GitError {
    GitError::Failed {
        args: "log -z".into(),
        stderr: format!("unexpected output from git: {what}"),
    }
}

/// Refuse a revision (or range) that git would read as an option: it
/// starts with `-`. Callers also pass it after `--end-of-options`, which
/// git honours since 2.24; this check keeps older gits safe too and gives
/// a clear message.
pub fn check_revision(rev: &str) -> Result<(), GitError> {
    if rev.starts_with('-') || rev.is_empty() {
        return Err(GitError::Failed {
            args: "log".into(),
            stderr: format!(
                "{} is not a revision: a revision or range (e.g. main..HEAD) cannot start with `-` or be empty",
                crate::quote::quote(rev)
            ),
        });
    }
    Ok(())
}

fn spawn_error(e: std::io::Error) -> GitError {
    if e.kind() == std::io::ErrorKind::NotFound {
        GitError::Missing
    } else {
        GitError::Io(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Raw `-z` output of three entries (a space, a newline and a
    /// non-UTF-8 byte in the paths), then a patch's separator and start.
    fn raw_then_patch() -> Vec<u8> {
        let mut out = Vec::new();
        for (meta, path) in [
            (&b":100644 100644 1111 2222 M"[..], &b"csrc/a b.cu"[..]),
            (b":000000 100644 0000 3333 A", b"new\nline.cuh"),
            (b":100644 000000 4444 0000 D", b"gone\xff.h"),
        ] {
            out.extend_from_slice(meta);
            out.push(0);
            out.extend_from_slice(path);
            out.push(0);
        }
        out.push(0);
        out.extend_from_slice(b"diff --git a/csrc/a b.cu b/csrc/a b.cu\n@@ -1 +1 @@\n");
        out
    }

    fn summary(entries: &[RawEntry]) -> Vec<(Vec<u8>, String, u8)> {
        entries
            .iter()
            .map(|e| (e.path.as_bytes().to_vec(), e.new_id.clone(), e.status))
            .collect()
    }

    #[test]
    fn entries_split_anywhere_between_reads_parse_the_same() {
        let bytes = raw_then_patch();
        let patch_at = bytes.len() - b"diff --git a/csrc/a b.cu b/csrc/a b.cu\n@@ -1 +1 @@\n".len();
        let expected = vec![
            (b"csrc/a b.cu".to_vec(), "2222".to_owned(), b'M'),
            (b"new\nline.cuh".to_vec(), "3333".to_owned(), b'A'),
            (b"gone\xff.h".to_vec(), "0000".to_owned(), b'D'),
        ];
        for piece in 1..=bytes.len() {
            let mut parser = RawParser::default();
            let mut entries = Vec::new();
            for chunk in bytes.chunks(piece) {
                parser.feed(chunk, &mut entries);
            }
            assert_eq!(summary(&entries), expected, "pieces of {piece}");
            assert!(parser.ended, "pieces of {piece}");
            assert_eq!(parser.pending, &bytes[patch_at..], "pieces of {piece}");
            assert!(!parser.cut_short());
        }
        // Each entry is handed out as soon as its path's NUL arrives.
        let mut parser = RawParser::default();
        let mut entries = Vec::new();
        let first_end = bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == 0)
            .nth(1)
            .unwrap()
            .0;
        parser.feed(&bytes[..first_end], &mut entries);
        assert!(entries.is_empty());
        parser.feed(&bytes[first_end..=first_end], &mut entries);
        assert_eq!(summary(&entries), expected[..1]);
    }

    #[test]
    fn output_that_ends_inside_an_entry_is_cut_short() {
        let whole = b":100644 100644 1111 2222 M\0k.cu\0".to_vec();
        for end in 1..whole.len() {
            let mut parser = RawParser::default();
            let mut entries = Vec::new();
            parser.feed(&whole[..end], &mut entries);
            assert!(entries.is_empty() && parser.cut_short(), "cut at {end}");
        }
        let mut parser = RawParser::default();
        let mut entries = Vec::new();
        parser.feed(&whole, &mut entries);
        assert_eq!(entries.len(), 1);
        assert!(!parser.cut_short());
        // Nothing at all is a whole (empty) answer.
        assert!(!RawParser::default().cut_short());
    }
}
