//! Installing and removing the git hooks that run the PRIOR_ART gate:
//! pre-commit, prepare-commit-msg and commit-msg, in the hooks directory git
//! really uses. Never overwrites a hook sota did not write: it keeps it as
//! `<hook>.sota-chained`, runs it first and respects its exit status, and
//! `uninstall` puts it back byte for byte.

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
}

impl std::fmt::Display for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The marker that identifies a hook sota wrote.
pub const MARKER: &str = "# sota-hook v1";

/// Suffix of a foreign hook kept and chained.
pub const CHAINED: &str = ".sota-chained";

/// Options of `sota hook install`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InstallOptions {
    /// Make the gate block (exit 1) instead of advising.
    pub strict: bool,
    /// Refuse, instead of chaining, when a foreign hook exists.
    pub no_chain: bool,
}

/// What happened to one hook.
#[derive(Clone, Debug, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Action {
    Installed,
    Updated,
    Unchanged,
    /// A foreign hook was kept as `<hook>.sota-chained` and runs first.
    Chained,
    /// Nothing written; the reason and how to proceed.
    Refused(String),
    Removed,
    /// sota's hook removed and the chained hook put back.
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

/// The script for one hook.
pub fn script(hook: Hook, opts: InstallOptions) -> String {
    let strict = if opts.strict { " --strict" } else { "" };
    // What to skip before looking for sota, and how to run it.
    let (skip, missing, run) = match hook {
        // With sota's commit-msg hook present the gate runs there, where the
        // message is known; without it (pre-commit alone) it runs here.
        Hook::PreCommit => (
            format!(
                "if grep -q '{MARKER}' \"$here/commit-msg\" 2>/dev/null; then\n    exit 0\nfi\n"
            ),
            true,
            format!("exec \"$sota\" gate --staged{strict}"),
        ),
        // Only when git opens an editor: never for -m/-F, merges or squashes.
        // It only adds comments, so a missing sota is not worth a line here.
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
{MARKER} ({hook}): the PRIOR_ART gate. Written by `sota hook install`;\n\
# `sota hook uninstall` removes it and restores any hook it chained.\n\
here=$(dirname -- \"$0\")\n\
if [ -x \"$here/{hook}{CHAINED}\" ]; then\n    \"$here/{hook}{CHAINED}\" \"$@\" || exit $?\n\
fi\n\
{skip}\
sota=${{SOTA_BIN:-sota}}\n\
if ! command -v \"$sota\" >/dev/null 2>&1; then\n{say_missing}    exit 0\n\
fi\n\
{run}\n"
    )
}

fn is_ours(path: &Path) -> bool {
    std::fs::read(path)
        .map(|b| b.windows(MARKER.len()).any(|w| w == MARKER.as_bytes()))
        .unwrap_or(false)
}

fn chained_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().expect("hook file name").to_os_string();
    name.push(CHAINED);
    path.with_file_name(name)
}

/// Install the three hooks into `hooks_dir`. Idempotent.
pub fn install(hooks_dir: &Path, opts: InstallOptions) -> std::io::Result<Vec<HookResult>> {
    write::create_dir_all(hooks_dir)?;
    let mut results = Vec::new();
    for hook in <Hook as strum::IntoEnumIterator>::iter() {
        let path = hooks_dir.join(hook.name());
        let chained = chained_path(&path);
        let content = script(hook, opts);
        let action = if !path.exists() && std::fs::symlink_metadata(&path).is_err() {
            write::atomic(&path, content.as_bytes(), Some(0o755))?;
            Action::Installed
        } else if is_ours(&path) {
            if std::fs::read(&path)? == content.as_bytes() && is_executable(&path) {
                Action::Unchanged
            } else {
                write::atomic(&path, content.as_bytes(), Some(0o755))?;
                Action::Updated
            }
        } else if opts.no_chain {
            Action::Refused(format!(
                "{} exists and was not written by sota; rerun without --no-chain to keep it and run it first, or merge `sota gate` into it yourself",
                path.display()
            ))
        } else if chained.exists() {
            Action::Refused(format!(
                "both {} and {} exist; move one of them away, then install again",
                path.display(),
                chained.display()
            ))
        } else {
            write::rename_new(&path, &chained)?;
            write::atomic(&path, content.as_bytes(), Some(0o755))?;
            Action::Chained
        };
        results.push(HookResult { hook, path, action });
    }
    Ok(results)
}

/// Remove sota's hooks, restoring any chained hook exactly.
pub fn uninstall(hooks_dir: &Path) -> std::io::Result<Vec<HookResult>> {
    let mut results = Vec::new();
    for hook in <Hook as strum::IntoEnumIterator>::iter() {
        let path = hooks_dir.join(hook.name());
        let chained = chained_path(&path);
        let action = if std::fs::symlink_metadata(&path).is_err() {
            Action::Absent
        } else if !is_ours(&path) {
            Action::Foreign
        } else if chained.exists() {
            write::remove(&path)?;
            write::restore(&chained, &path)?;
            Action::Restored
        } else {
            write::remove(&path)?;
            Action::Removed
        };
        results.push(HookResult { hook, path, action });
    }
    Ok(results)
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path)
            .map(|m| m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        path.exists()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_twice_changes_nothing_and_uninstall_restores_a_chained_hook() {
        let dir = tempfile::tempdir().unwrap();
        let hooks = dir.path();
        let original = b"#!/bin/sh\necho mine\nexit 0\n";
        std::fs::write(hooks.join("pre-commit"), original).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(
                hooks.join("pre-commit"),
                std::fs::Permissions::from_mode(0o750),
            )
            .unwrap();
        }

        let first = install(hooks, InstallOptions::default()).unwrap();
        let actions: Vec<&Action> = first.iter().map(|r| &r.action).collect();
        assert_eq!(
            actions,
            [&Action::Chained, &Action::Installed, &Action::Installed]
        );
        assert_eq!(
            std::fs::read(hooks.join("pre-commit.sota-chained")).unwrap(),
            original
        );

        let second = install(hooks, InstallOptions::default()).unwrap();
        assert!(
            second.iter().all(|r| r.action == Action::Unchanged),
            "{second:?}"
        );

        let strict = install(
            hooks,
            InstallOptions {
                strict: true,
                no_chain: false,
            },
        )
        .unwrap();
        assert!(
            strict
                .iter()
                .filter(|r| r.action == Action::Updated)
                .count()
                == 2,
            "{strict:?}"
        );

        let removed = uninstall(hooks).unwrap();
        let actions: Vec<&Action> = removed.iter().map(|r| &r.action).collect();
        assert_eq!(
            actions,
            [&Action::Restored, &Action::Removed, &Action::Removed]
        );
        assert_eq!(std::fs::read(hooks.join("pre-commit")).unwrap(), original);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(hooks.join("pre-commit"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o750);
        }
        assert!(!hooks.join("commit-msg").exists());
    }

    #[test]
    fn no_chain_refuses_and_says_how() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("commit-msg"), "#!/bin/sh\n").unwrap();
        let r = install(
            dir.path(),
            InstallOptions {
                strict: false,
                no_chain: true,
            },
        )
        .unwrap();
        assert!(matches!(&r[2].action, Action::Refused(why) if why.contains("without --no-chain")));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("commit-msg")).unwrap(),
            "#!/bin/sh\n"
        );
    }
}
