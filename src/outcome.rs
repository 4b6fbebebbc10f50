//! How a run ended, and the one place that turns it into an exit code
//! (SPEC 4: 0 success, 1 nothing found or a check failed, 2 usage or
//! configuration error).

use std::path::PathBuf;

use crate::matrix::LoadError;
use crate::repo::git::GitError;

/// What a command found, as far as the exit code cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::EnumIter)]
pub enum Outcome {
    /// It did its job.
    Done,
    /// A lookup or an axis matched nothing.
    NotFound,
    /// `coverage --check` found hard debt.
    DebtFound,
    /// `render --check`: the file is not what the matrix renders.
    Stale,
    /// The gate under `--strict` found a change without its prior art.
    Blocked,
    /// The gate could not check (broken matrix, bad range, no git) and was
    /// not told to insist: it lets the commit through.
    Skipped,
    /// The gate could not check under `--strict` or in CI.
    Unchecked,
    /// The command refused part of its job and said why (e.g. a hook it
    /// would not overwrite).
    Refused,
}

impl Outcome {
    /// The process exit code for this outcome.
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Done | Outcome::Skipped => 0,
            Outcome::NotFound | Outcome::DebtFound | Outcome::Stale | Outcome::Blocked => 1,
            Outcome::Unchecked | Outcome::Refused => 2,
        }
    }
}

/// Why a command could not do its job at all (exit 2).
#[derive(Debug)]
pub enum Failure {
    /// The matrix did not load.
    Matrix(LoadError),
    /// A command that checks a tree found no `sota.toml`.
    NoMatrix {
        command: &'static str,
        searched_from: PathBuf,
    },
    /// `--catalog` given to a command that checks the project's tree.
    CatalogNotAllowed {
        command: &'static str,
    },
    /// Arguments that cannot work together, or a value that is not valid.
    Usage(String),
    /// git could not answer.
    Git(GitError),
    Io(std::io::Error),
}

impl Failure {
    /// The process exit code: always 2 (a broken pipe is the reader's
    /// choice, not an error: 0).
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Io(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
            _ => 2,
        }
    }

    /// A short kind name, for JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            Failure::Matrix(LoadError::Io { .. }) => "matrix-unreadable",
            Failure::Matrix(LoadError::Invalid(_)) => "matrix-invalid",
            Failure::Matrix(LoadError::Outside { .. }) => "matrix-outside-repo",
            Failure::NoMatrix { .. } => "no-matrix",
            Failure::CatalogNotAllowed { .. } => "catalog-not-allowed",
            Failure::Usage(_) => "usage",
            Failure::Git(_) => "git",
            Failure::Io(_) => "io",
        }
    }

    /// What to do about it, when there is something to say.
    pub fn hint(&self) -> Option<String> {
        match self {
            Failure::Matrix(LoadError::Io { .. }) => Some(
                "pass an existing file with --matrix, fix $SOTA_MATRIX, or run without them to use the nearest sota.toml".into(),
            ),
            Failure::Matrix(LoadError::Invalid(_)) => None,
            Failure::Matrix(LoadError::Outside { .. }) => None,
            Failure::NoMatrix { .. } => Some(
                "run `sota init` to write a sota.toml for this repository (or pass --matrix PATH)".into(),
            ),
            Failure::CatalogNotAllowed { .. } => Some(
                "drop --catalog: the catalog maps no files of this tree; --catalog is for lookups and milestones".into(),
            ),
            Failure::Git(GitError::Missing) => {
                Some("install git, or put it on PATH".into())
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Matrix(e) => write!(f, "{e}"),
            Failure::NoMatrix {
                command,
                searched_from,
            } => write!(
                f,
                "sota {command}: no sota.toml at or above {}; {command} needs the project's matrix",
                searched_from.display()
            ),
            Failure::CatalogNotAllowed { command } => {
                write!(
                    f,
                    "sota {command}: --catalog cannot be checked against a tree"
                )
            }
            Failure::Usage(msg) => f.write_str(msg),
            Failure::Git(e) => write!(f, "{e}"),
            Failure::Io(e) => write!(f, "{e}"),
        }
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Io(e)
    }
}

impl From<GitError> for Failure {
    fn from(e: GitError) -> Self {
        Failure::Git(e)
    }
}

impl From<LoadError> for Failure {
    fn from(e: LoadError) -> Self {
        Failure::Matrix(e)
    }
}

/// The exit code of a whole run.
pub fn exit_code(result: &Result<Outcome, Failure>) -> u8 {
    match result {
        Ok(outcome) => outcome.exit_code(),
        Err(failure) => failure.exit_code(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::IntoEnumIterator;

    #[test]
    fn every_outcome_has_a_spec_exit_code() {
        for o in Outcome::iter() {
            assert!(matches!(o.exit_code(), 0..=2), "{o:?}");
        }
        assert_eq!(Outcome::Blocked.exit_code(), 1);
        assert_eq!(Outcome::Skipped.exit_code(), 0);
        assert_eq!(Outcome::Unchecked.exit_code(), 2);
    }
}
