//! Installing and removing the git hooks that run the PRIOR_ART gate:
//! pre-commit, prepare-commit-msg and commit-msg, in the hooks directory git
//! really uses.
//!
//! Where no hook exists, sota writes a whole file. Where a user's hook
//! exists, sota never moves or renames it (hook managers dispatch on the
//! hook's own path: Husky's runner uses `basename "$0"` and
//! `dirname "$0"`, the pre-commit framework `dirname "$0"`): it inserts a
//! marked block right after the shebang of a POSIX-shell hook, so the hook
//! keeps its name, directory, mode and arguments, and whatever it blocks
//! stays blocked. Hooks it cannot safely edit (symlinks, other languages,
//! not executable) are refused with the lines to add by hand.
//!
//! Ownership is exact: a file is sota's only when it is byte for byte what
//! some version of sota writes, and a block only when its lines are exactly
//! sota's block. A user's text that merely mentions the marker is foreign.
//! Install plans every hook first and writes nothing when one is refused.

use std::path::{Path, PathBuf};

use crate::repo::write;

/// The hooks sota installs, in install order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::EnumIter, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Hook {
    PreCommit,
    PrepareCommitMsg,
    CommitMsg,
}

impl Hook {
    /// The hook's file name, as git knows it.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The line to add by hand where sota cannot edit a hook.
    fn by_hand(self) -> &'static str {
        match self {
            Hook::PreCommit => "sota gate --staged || true",
            Hook::PrepareCommitMsg => "sota gate --prepare-msg \"$1\" || true",
            Hook::CommitMsg => "sota gate --commit-msg \"$1\" || true",
        }
    }
}

impl std::fmt::Display for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The marker of the whole-file hooks older sota versions wrote (they
/// renamed a user's hook to `<hook>.sota-chained`). Only an exact legacy
/// script counts as sota's; the text alone proves nothing.
pub const LEGACY_MARKER: &str = "# sota-hook v1";

/// Suffix the legacy install gave a user's renamed hook.
pub const LEGACY_CHAINED: &str = ".sota-chained";

/// First words of the line that opens sota's block.
const BEGIN: &str = "# >>> sota-hook v2";

/// Options of `sota hook install`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InstallOptions {
    /// Make the gate block (exit 1) instead of advising.
    pub strict: bool,
    /// Refuse, instead of adding sota's lines, when a foreign hook exists.
    pub no_chain: bool,
}

/// What happened to one hook.
#[derive(Clone, Debug, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Action {
    Installed,
    Updated,
    Unchanged,
    /// sota's block was added at the top of a user's hook, which keeps its
    /// name, place and mode and runs as before.
    Chained,
    /// Nothing written; the reason and how to proceed.
    Refused(String),
    /// Would have been written, but another hook was refused: install
    /// writes all hooks or none.
    Withheld,
    Removed,
    /// sota's block removed: the user's hook is byte for byte as it was.
    Restored,
    /// Not sota's hook: left alone.
    Foreign,
    Absent,
}

#[derive(Clone, Debug)]
pub struct HookResult {
    pub hook: Hook,
    pub path: PathBuf,
    pub action: Action,
}

/// sota's block for one hook: a subshell (so it changes no variable,
/// option or directory of the hook around it) that runs the gate. In
/// advisory mode it never fails, whatever sota does (missing, crashing,
/// unable to write to stderr); under `--strict` the gate's failure fails
/// the hook. Needs nothing beyond the shell itself (no `dirname`).
pub fn block(hook: Hook, strict: bool) -> String {
    let mode = if strict { "strict" } else { "advisory" };
    let (guard, missing, run) = match hook {
        // With sota's commit-msg block present the gate runs there, where
        // the message is known; without it the gate runs here.
        Hook::PreCommit => (
            format!(
                "  case $0 in */*) here=${{0%/*}} ;; *) here=. ;; esac\n  if grep -q '^{BEGIN} commit-msg ' \"$here/commit-msg\" 2>/dev/null; then exit 0; fi\n"
            ),
            true,
            "gate --staged",
        ),
        // Comments are added only when git opens an editor (git sets
        // GIT_EDITOR=: for hooks otherwise: --no-edit, -C, -F, -m) and never
        // for merges or squashes.
        Hook::PrepareCommitMsg => (
            "  case ${2-} in message|merge|squash) exit 0 ;; esac\n  if [ \"${GIT_EDITOR-}\" = : ]; then exit 0; fi\n"
                .to_owned(),
            false,
            "gate --prepare-msg \"$1\"",
        ),
        Hook::CommitMsg => (String::new(), true, "gate --commit-msg \"$1\""),
    };
    let say_missing = if missing {
        "    echo \"sota: not found on PATH; PRIOR_ART gate skipped (install it, or set SOTA_BIN)\" >&2\n"
    } else {
        ""
    };
    let (run, close) = if strict && hook != Hook::PrepareCommitMsg {
        (format!("  exec \"$sota\" {run} --strict\n"), ") || exit $?")
    } else {
        (
            format!("  \"$sota\" {run} || echo \"sota: the PRIOR_ART gate failed (exit $?); the commit goes on\" >&2\n"),
            ") || :",
        )
    };
    format!(
        "{BEGIN} {hook} {mode} >>>\n\
         # The PRIOR_ART gate, added by `sota hook install`; `sota hook uninstall`\n\
         # removes exactly these lines.\n\
         (\n\
         {guard}\
         \x20 sota=${{SOTA_BIN:-sota}}\n\
         \x20 if ! command -v \"$sota\" >/dev/null 2>&1; then\n\
         {say_missing}\
         \x20   exit 0\n\
         \x20 fi\n\
         {run}\
         {close}\n\
         # <<< sota-hook v2 {hook} <<<\n"
    )
}

/// The whole file sota writes where no hook exists.
pub fn standalone(hook: Hook, strict: bool) -> String {
    format!(
        "#!/bin/sh\n# Written by `sota hook install`; `sota hook uninstall` deletes this file.\n{}",
        block(hook, strict)
    )
}

/// The whole-file script of the legacy (v1) install, kept only to
/// recognise it exactly.
fn legacy_v1(hook: Hook, strict: bool) -> String {
    let strict = if strict { " --strict" } else { "" };
    let chained = LEGACY_CHAINED;
    let marker = LEGACY_MARKER;
    let (skip, missing, run) = match hook {
        Hook::PreCommit => (
            format!(
                "if grep -q '{marker}' \"$here/commit-msg\" 2>/dev/null; then\n    exit 0\nfi\n"
            ),
            true,
            format!("exec \"$sota\" gate --staged{strict}"),
        ),
        Hook::PrepareCommitMsg => (
            "case \"$2\" in\n    message|merge|squash) exit 0 ;;\nesac\n".to_owned(),
            false,
            "exec \"$sota\" gate --prepare-msg \"$1\"".to_owned(),
        ),
        Hook::CommitMsg => (
            String::new(),
            true,
            format!("exec \"$sota\" gate --commit-msg \"$1\"{strict}"),
        ),
    };
    let say_missing = if missing {
        "    echo \"sota: not found on PATH; PRIOR_ART gate skipped (install it, or set SOTA_BIN)\" >&2\n"
    } else {
        ""
    };
    format!(
        "#!/bin/sh\n\
{marker} ({hook}): the PRIOR_ART gate. Written by `sota hook install`;\n\
# `sota hook uninstall` removes it and restores any hook it chained.\n\
here=$(dirname -- \"$0\")\n\
if [ -x \"$here/{hook}{chained}\" ]; then\n    \"$here/{hook}{chained}\" \"$@\" || exit $?\n\
fi\n\
{skip}\
sota=${{SOTA_BIN:-sota}}\n\
if ! command -v \"$sota\" >/dev/null 2>&1; then\n{say_missing}    exit 0\n\
fi\n\
{run}\n"
    )
}

/// What a hook file is, as far as sota is concerned.
enum Found {
    Absent,
    /// A symlink (dangling or not) or something else that is not a
    /// regular file: never edited.
    NotAFile(&'static str),
    /// Byte for byte a whole file sota writes (`strict` as written).
    Standalone {
        strict: bool,
    },
    /// Byte for byte a legacy whole file.
    Legacy,
    /// A user's file: its bytes and Unix mode.
    Foreign {
        bytes: Vec<u8>,
        mode: u32,
    },
}

fn inspect(path: &Path, hook: Hook) -> std::io::Result<Found> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Absent),
        Err(e) => return Err(e),
    };
    if meta.file_type().is_symlink() {
        return Ok(Found::NotAFile("a symbolic link"));
    }
    if !meta.is_file() {
        return Ok(Found::NotAFile("not a regular file"));
    }
    let bytes = std::fs::read(path)?;
    for strict in [false, true] {
        if bytes == standalone(hook, strict).as_bytes() {
            return Ok(Found::Standalone { strict });
        }
        if bytes == legacy_v1(hook, strict).as_bytes() {
            return Ok(Found::Legacy);
        }
    }
    Ok(Found::Foreign {
        bytes,
        mode: mode_of(&meta),
    })
}

/// Where sota's exact block sits in a user's hook: (start, end, strict).
fn find_block(bytes: &[u8], hook: Hook) -> Option<(usize, usize, bool)> {
    [false, true].into_iter().find_map(|strict| {
        let b = block(hook, strict);
        if let Some(at) = find(bytes, b.as_bytes()).filter(|&at| at == 0 || bytes[at - 1] == b'\n')
        {
            return Some((at, at + b.len(), strict));
        }
        // A one-line hook without a final newline (Husky's stubs): the
        // block went after a newline of sota's, without its own last one.
        let tail = format!("\n{}", b.trim_end_matches('\n'));
        let at = bytes.len().checked_sub(tail.len())?;
        (bytes.ends_with(tail.as_bytes()) && !bytes[..at].contains(&b'\n')).then_some((
            at,
            bytes.len(),
            strict,
        ))
    })
}

/// Whether a user's hook has a line opening a sota block for `hook`
/// (exact or not).
fn has_begin_line(bytes: &[u8], hook: Hook) -> bool {
    let line = format!("{BEGIN} {hook} ");
    bytes
        .split(|&b| b == b'\n')
        .any(|l| l.starts_with(line.as_bytes()))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// Whether the first line is the shebang of a POSIX-family shell, in which
/// sota's block (plain POSIX sh) can run as the hook's first command.
fn is_shell_script(bytes: &[u8]) -> bool {
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let Some(rest) = first.strip_prefix(b"#!") else {
        return false;
    };
    let rest = String::from_utf8_lossy(rest);
    let mut words = rest.split_whitespace();
    let Some(program) = words.next() else {
        return false;
    };
    let mut name = program.rsplit('/').next().unwrap_or(program);
    if name == "env" {
        match words.next() {
            Some(w) => name = w,
            None => return false,
        }
    }
    matches!(
        name,
        "sh" | "bash" | "dash" | "ksh" | "mksh" | "zsh" | "ash" | "posh" | "yash"
    )
}

fn mode_of(meta: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o7777
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0o755
    }
}

/// One planned change of an install.
struct Step {
    result: HookResult,
    write: Option<(Vec<u8>, u32)>,
}

fn refused_by_hand(path: &Path, hook: Hook, why: &str) -> Action {
    Action::Refused(format!(
        "{} {why}; sota does not edit it: add `{}` to it yourself, or remove it and install again",
        path.display(),
        hook.by_hand()
    ))
}

fn plan(path: &Path, hook: Hook, opts: InstallOptions) -> std::io::Result<Step> {
    let ours = || standalone(hook, opts.strict).into_bytes();
    let (action, write) = match inspect(path, hook)? {
        Found::Absent => (Action::Installed, Some((ours(), 0o755))),
        Found::NotAFile(what) => (refused_by_hand(path, hook, &format!("is {what}")), None),
        Found::Standalone { strict } if strict == opts.strict => {
            if std::fs::metadata(path).map(|m| mode_of(&m) & 0o111 != 0)? {
                (Action::Unchanged, None)
            } else {
                (Action::Updated, Some((ours(), 0o755)))
            }
        }
        Found::Standalone { .. } => (Action::Updated, Some((ours(), 0o755))),
        Found::Legacy => {
            let mut kept = path.as_os_str().to_os_string();
            kept.push(LEGACY_CHAINED);
            if std::fs::symlink_metadata(&kept).is_ok() {
                (
                    Action::Refused(format!(
                        "{} was written by an older sota that kept your hook as {}; run `sota hook uninstall` (it puts yours back), then install again",
                        path.display(),
                        Path::new(&kept).display()
                    )),
                    None,
                )
            } else {
                (Action::Updated, Some((ours(), 0o755)))
            }
        }
        Found::Foreign { bytes, mode } => foreign(path, hook, opts, bytes, mode),
    };
    Ok(Step {
        result: HookResult {
            hook,
            path: path.to_path_buf(),
            action,
        },
        write,
    })
}

/// A user's hook: add (or update) sota's block right after the shebang.
fn foreign(
    path: &Path,
    hook: Hook,
    opts: InstallOptions,
    bytes: Vec<u8>,
    mode: u32,
) -> (Action, Option<(Vec<u8>, u32)>) {
    let want = block(hook, opts.strict);
    if let Some((start, end, strict)) = find_block(&bytes, hook) {
        if strict == opts.strict {
            return (Action::Unchanged, None);
        }
        let mut out = bytes[..start].to_vec();
        if bytes[start] == b'\n' {
            // The one-line form (see find_block).
            out.push(b'\n');
            out.extend_from_slice(want.trim_end_matches('\n').as_bytes());
        } else {
            out.extend_from_slice(want.as_bytes());
        }
        out.extend_from_slice(&bytes[end..]);
        return (Action::Updated, Some((out, mode)));
    }
    if has_begin_line(&bytes, hook) {
        return (
            Action::Refused(format!(
                "{} has a sota block that was edited by hand; delete the lines from `{BEGIN} {hook} …` to `# <<< sota-hook v2 {hook} <<<` and install again",
                path.display()
            )),
            None,
        );
    }
    if opts.no_chain {
        return (
            Action::Refused(format!(
                "{} exists and was not written by sota; rerun without --no-chain to add sota's lines at its top (it keeps its name and runs as before), or add `{}` to it yourself",
                path.display(),
                hook.by_hand()
            )),
            None,
        );
    }
    if !is_shell_script(&bytes) {
        return (
            refused_by_hand(
                path,
                hook,
                "is not a POSIX shell script (no #!/bin/sh, bash, … line)",
            ),
            None,
        );
    }
    if mode & 0o111 == 0 {
        return (
            refused_by_hand(path, hook, "is not executable, so git does not run it"),
            None,
        );
    }
    let Some(eol) = memchr::memchr(b'\n', &bytes) else {
        // One line, no newline (Husky's stubs): keep it exact for uninstall.
        let mut out = bytes;
        out.push(b'\n');
        out.extend_from_slice(want.trim_end_matches('\n').as_bytes());
        return (Action::Chained, Some((out, mode)));
    };
    let mut out = bytes[..=eol].to_vec();
    out.extend_from_slice(want.as_bytes());
    out.extend_from_slice(&bytes[eol + 1..]);
    (Action::Chained, Some((out, mode)))
}

/// Install the three hooks into `hooks_dir`: all of them or, when one is
/// refused, none. Idempotent.
pub fn install(hooks_dir: &Path, opts: InstallOptions) -> std::io::Result<Vec<HookResult>> {
    let mut steps = Vec::new();
    for hook in <Hook as strum::IntoEnumIterator>::iter() {
        steps.push(plan(&hooks_dir.join(hook.name()), hook, opts)?);
    }
    let refused = steps
        .iter()
        .any(|s| matches!(s.result.action, Action::Refused(_)));
    if refused {
        return Ok(steps
            .into_iter()
            .map(|mut s| {
                if s.write.is_some() {
                    s.result.action = Action::Withheld;
                }
                s.result
            })
            .collect());
    }
    write::create_dir_all(hooks_dir)?;
    let mut results = Vec::new();
    for step in steps {
        if let Some((bytes, mode)) = &step.write {
            write::atomic(&step.result.path, bytes, Some(*mode))?;
        }
        results.push(step.result);
    }
    Ok(results)
}

/// Remove sota's hooks and blocks, putting back exactly what was there.
pub fn uninstall(hooks_dir: &Path) -> std::io::Result<Vec<HookResult>> {
    let mut results = Vec::new();
    for hook in <Hook as strum::IntoEnumIterator>::iter() {
        let path = hooks_dir.join(hook.name());
        let action = match inspect(&path, hook)? {
            Found::Absent => Action::Absent,
            Found::NotAFile(_) => Action::Foreign,
            Found::Standalone { .. } => {
                write::remove(&path)?;
                Action::Removed
            }
            Found::Legacy => {
                let mut kept = path.as_os_str().to_os_string();
                kept.push(LEGACY_CHAINED);
                let kept = PathBuf::from(kept);
                write::remove(&path)?;
                // symlink_metadata: a kept dangling symlink is put back too.
                if std::fs::symlink_metadata(&kept).is_ok() {
                    write::restore(&kept, &path)?;
                    Action::Restored
                } else {
                    Action::Removed
                }
            }
            Found::Foreign { bytes, mode } => match find_block(&bytes, hook) {
                Some((start, end, _)) => {
                    let mut out = bytes[..start].to_vec();
                    out.extend_from_slice(&bytes[end..]);
                    write::atomic(&path, &out, Some(mode))?;
                    Action::Restored
                }
                None if has_begin_line(&bytes, hook) => Action::Refused(format!(
                    "{} has a sota block that was edited by hand; delete it yourself (from `{BEGIN} {hook} …` to `# <<< sota-hook v2 {hook} <<<`)",
                    path.display()
                )),
                None => Action::Foreign,
            },
        };
        results.push(HookResult { hook, path, action });
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn uninstall_of_a_legacy_install_puts_back_a_dangling_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let hooks = dir.path();
        let kept = hooks.join("pre-commit.sota-chained");
        std::os::unix::fs::symlink("/nonexistent/hook", &kept).unwrap();
        std::fs::write(hooks.join("pre-commit"), legacy_v1(Hook::PreCommit, false)).unwrap();
        let r = uninstall(hooks).unwrap();
        assert_eq!(r[0].action, Action::Restored);
        assert_eq!(
            std::fs::read_link(hooks.join("pre-commit")).unwrap(),
            Path::new("/nonexistent/hook")
        );
        assert!(std::fs::symlink_metadata(&kept).is_err());
    }

    #[test]
    fn install_over_a_legacy_hook_updates_it_or_asks_to_uninstall_first() {
        let dir = tempfile::tempdir().unwrap();
        let hooks = dir.path();
        std::fs::write(hooks.join("commit-msg"), legacy_v1(Hook::CommitMsg, true)).unwrap();
        let r = install(hooks, InstallOptions::default()).unwrap();
        assert_eq!(r[2].action, Action::Updated);
        assert_eq!(
            std::fs::read_to_string(hooks.join("commit-msg")).unwrap(),
            standalone(Hook::CommitMsg, false)
        );
        // A legacy hook with the user's renamed hook beside it: refused,
        // and nothing written (the user's hook is put back by uninstall).
        std::fs::write(hooks.join("pre-commit"), legacy_v1(Hook::PreCommit, false)).unwrap();
        std::fs::write(hooks.join("pre-commit.sota-chained"), "#!/bin/sh\nexit 1\n").unwrap();
        std::fs::remove_file(hooks.join("prepare-commit-msg")).unwrap();
        let r = install(hooks, InstallOptions::default()).unwrap();
        assert!(
            matches!(&r[0].action, Action::Refused(why) if why.contains("sota hook uninstall"))
        );
        assert_eq!(r[1].action, Action::Withheld);
        assert!(!hooks.join("prepare-commit-msg").exists());
        let r = uninstall(hooks).unwrap();
        assert_eq!(r[0].action, Action::Restored);
        assert_eq!(
            std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
            "#!/bin/sh\nexit 1\n"
        );
    }

    #[test]
    fn only_exact_text_is_sotas() {
        let dir = tempfile::tempdir().unwrap();
        let hooks = dir.path();
        // One byte off a standalone hook: the user's, never deleted.
        let almost = standalone(Hook::CommitMsg, false).replace("--commit-msg", "--commit-msg ");
        std::fs::write(hooks.join("commit-msg"), &almost).unwrap();
        let r = uninstall(hooks).unwrap();
        assert!(
            matches!(&r[2].action, Action::Refused(why) if why.contains("edited by hand")),
            "{r:?}"
        );
        assert_eq!(
            std::fs::read_to_string(hooks.join("commit-msg")).unwrap(),
            almost
        );
        // Exact: sota's, removed; strict and advisory both recognised.
        std::fs::write(hooks.join("commit-msg"), standalone(Hook::CommitMsg, true)).unwrap();
        assert_eq!(uninstall(hooks).unwrap()[2].action, Action::Removed);
        assert!(!hooks.join("commit-msg").exists());
    }

    #[test]
    fn strict_and_advisory_blocks_differ_only_in_how_they_end() {
        let advisory = block(Hook::CommitMsg, false);
        let strict = block(Hook::CommitMsg, true);
        assert!(advisory.contains(") || :\n"), "{advisory}");
        assert!(strict.contains(") || exit $?\n"), "{strict}");
        assert!(
            !advisory.contains("dirname") && !block(Hook::PreCommit, false).contains("dirname")
        );
    }
}
