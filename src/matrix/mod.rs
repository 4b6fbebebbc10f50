//! The prior-art matrix: finding `sota.toml`, loading it once, validating it
//! strictly, and the typed model every surface reads.
//!
//! This is the only module that reads `sota.toml`.

pub mod cache;
mod confine;
mod diagnostic;
pub mod keys;
mod model;
mod parse;
pub mod schema;
mod text_safety;

use std::path::{Path, PathBuf};

pub use confine::{
    boundary, check_inside, load_confined_with, read_confined, read_named_by, LoadOptions,
};
pub use diagnostic::{
    line_col, Code, InvalidMatrix, LineIndex, LoadError, Problem, ProblemDiagnostic,
    MAX_MATRIX_BYTES, MAX_SHOWN_PROBLEMS,
};
pub use model::*;
pub(crate) use parse::is_kebab;

/// The file's bytes, but no more than one past [`MAX_MATRIX_BYTES`]: a
/// larger file is refused, so reading the rest would be wasted. Only a
/// regular file is read ([`crate::read_only::open_regular`]).
pub(crate) fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
    read_capped_from(crate::read_only::open_regular(path)?)
}

/// [`read_capped`] on a file already opened.
pub(crate) fn read_capped_from(file: std::fs::File) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    // Sized from the metadata, as `fs::read` does: one allocation instead
    // of doubling (and copying) up to a 2 MB matrix.
    let cap = MAX_MATRIX_BYTES as u64 + 1;
    let hint = file.metadata().map_or(0, |m| m.len().min(cap)) as usize;
    let mut bytes = Vec::with_capacity(hint);
    file.take(cap).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The located refusal of a file over [`MAX_MATRIX_BYTES`]: the problem
/// points at the first byte past the limit.
pub fn too_large(mut bytes: Vec<u8>, name: &str) -> LoadError {
    bytes.truncate(MAX_MATRIX_BYTES + 1);
    let text = String::from_utf8_lossy(&bytes);
    let at = diagnostic::MAX_MATRIX_BYTES.min(text.len());
    let at = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let problem = Problem::new(
        Code::TooLarge,
        at..at,
        format!(
            "the file is larger than {} MiB, the largest matrix sota reads",
            MAX_MATRIX_BYTES >> 20
        ),
    )
    .label("the limit is crossed here")
    .help("a matrix maps ops to files and references; keep it under the limit (a 1,000-op matrix is about 400 KB): move long notes to linked documents or split the project");
    LoadError::invalid(name, &text, vec![problem])
}

/// Whether a matrix string may hold `text`: no control, bidi or invisible
/// character (what a draft may write; the loader refuses the rest).
pub fn can_hold(text: &str) -> bool {
    text_safety::is_safe(text)
}

/// The file name searched for.
pub const FILE_NAME: &str = "sota.toml";

impl Matrix {
    /// Read and validate the matrix at `path`. Paths inside it are relative
    /// to the directory holding it (or to `[project] root`).
    pub fn load(path: impl AsRef<Path>) -> Result<Matrix, LoadError> {
        let path = path.as_ref();
        Matrix::load_named(path, &diagnostic::display_name(path))
    }

    /// [`Matrix::load`], naming the file `name` in messages and reports
    /// (e.g. the path relative to the user's working directory).
    pub fn load_named(path: &Path, name: &str) -> Result<Matrix, LoadError> {
        let bytes = read_capped(path).map_err(|error| LoadError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        Matrix::from_bytes_named(bytes, path, name)
    }

    /// [`Matrix::load_named`] on bytes already read from `path`.
    pub fn from_bytes_named(bytes: Vec<u8>, path: &Path, name: &str) -> Result<Matrix, LoadError> {
        Matrix::from_bytes_as(bytes, path, name, Origin::Project)
    }

    /// A team catalog's bytes, read from `path`: the built-in catalog's
    /// format and checks (no project bindings, `checked` on every row, rung
    /// order), and, being untrusted, the text-safety checks of a project's
    /// matrix.
    pub fn team_catalog_from_bytes(
        bytes: Vec<u8>,
        path: &Path,
        name: &str,
    ) -> Result<Matrix, LoadError> {
        Matrix::from_bytes_as(bytes, path, name, Origin::Catalog)
    }

    fn from_bytes_as(
        bytes: Vec<u8>,
        path: &Path,
        name: &str,
        origin: Origin,
    ) -> Result<Matrix, LoadError> {
        if bytes.len() > MAX_MATRIX_BYTES {
            return Err(too_large(bytes, name));
        }
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let problem =
                    Problem::new(Code::TomlSyntax, at..at + 1, "the file is not valid UTF-8")
                        .label("invalid byte")
                        .help("save sota.toml as UTF-8");
                return Err(LoadError::invalid(name, &text, vec![problem]));
            }
        };
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        parse::parse(text, path, name, &dir, origin, origin == Origin::Project)
    }

    /// This catalog with `team` merged over it: a team row replaces the
    /// built-in row with the same slug (a ladder, the same axis) in place,
    /// and the rest follow in the team file's order; every team row
    /// remembers the file it came from, so the output can say which
    /// catalog answered.
    ///
    /// A team ladder's `ops` must name ops of the merged catalog (the
    /// built-in one's or the team's): a name that is neither would never
    /// match, so `init` would never draft the ladder. That is a located
    /// problem in the team file, as every other of its mistakes is.
    pub fn with_team(mut self, team: Matrix) -> Result<Matrix, LoadError> {
        let problems = team.unknown_ladder_ops(&self);
        if !problems.is_empty() {
            return Err(LoadError::invalid(&team.name, &team.text, problems));
        }
        let source = std::sync::Arc::new(TeamSource {
            name: team.name.clone(),
            text: std::sync::Arc::clone(&team.text),
        });
        for mut op in team.ops {
            op.team = Some(std::sync::Arc::clone(&source));
            match self.ops.iter_mut().find(|o| o.slug.value == op.slug.value) {
                Some(slot) => *slot = op,
                None => self.ops.push(op),
            }
        }
        for mut ladder in team.ladders {
            ladder.team = Some(std::sync::Arc::clone(&source));
            match self
                .ladders
                .iter_mut()
                .find(|l| l.axis.value == ladder.axis.value)
            {
                Some(slot) => *slot = ladder,
                None => self.ladders.push(ladder),
            }
        }
        self.team = Some(source);
        Ok(self)
    }

    /// This team catalog's ladder `ops` names that are no op of it nor of
    /// `builtin`.
    fn unknown_ladder_ops(&self, builtin: &Matrix) -> Vec<Problem> {
        let known = |slug: &str| self.op(slug).is_some() || builtin.op(slug).is_some();
        let slugs = || {
            builtin
                .ops
                .iter()
                .chain(&self.ops)
                .map(|o| o.slug.value.as_str())
        };
        let mut out = Vec::new();
        for ladder in &self.ladders {
            for op in ladder.ops.iter().filter(|op| !known(&op.value)) {
                let near = crate::did_you_mean::did_you_mean(&op.value, slugs());
                let help = match near.first() {
                    Some(n) => format!("did you mean `{n}`? A ladder's `ops` name ops this catalog or the built-in one defines (`sota list --catalog`)"),
                    None => "name ops this catalog or the built-in one defines (`sota list --catalog`), or remove the name".to_owned(),
                };
                out.push(
                    Problem::new(
                        Code::UnknownLadderOp,
                        op.span.clone(),
                        format!(
                            "ladder `{}` names `{}` in `ops`, which is no op of this catalog or the built-in one",
                            ladder.axis.value, op.value
                        ),
                    )
                    .label("no such op")
                    .help(help),
                );
            }
        }
        out
    }

    /// Validate matrix text as if read from `file` (no filesystem checks).
    pub fn from_str(text: &str, file: impl AsRef<Path>) -> Result<Matrix, LoadError> {
        let file = file.as_ref();
        let dir = file.parent().unwrap_or(Path::new("."));
        parse::parse(
            text.to_owned(),
            file,
            &diagnostic::display_name(file),
            dir,
            Origin::Project,
            false,
        )
    }

    /// The built-in catalog of prior art, compiled into the binary.
    pub fn catalog() -> Matrix {
        parse::parse(
            crate::catalog::TEXT.to_owned(),
            Path::new(crate::catalog::PSEUDO_PATH),
            crate::catalog::PSEUDO_PATH,
            Path::new("."),
            Origin::Catalog,
            false,
        )
        .expect("the built-in catalog is validated by its unit test")
    }
}

#[cfg(test)]
pub(crate) fn parse_catalog_for_test(text: &str) -> Result<Matrix, LoadError> {
    parse::parse(
        text.to_owned(),
        Path::new("catalog.toml"),
        "catalog.toml",
        Path::new("."),
        Origin::Catalog,
        false,
    )
}

/// How the matrix file was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// `--matrix PATH`.
    Flag(PathBuf),
    /// `$SOTA_MATRIX`.
    Env(PathBuf),
    /// The nearest `sota.toml` at or above the working directory.
    Nearest(PathBuf),
    /// None anywhere: surfaces fall back to the built-in catalog.
    None,
}

impl Found {
    pub fn path(&self) -> Option<&Path> {
        match self {
            Found::Flag(p) | Found::Env(p) | Found::Nearest(p) => Some(p),
            Found::None => None,
        }
    }
}

/// Find the matrix: `--matrix`, then `$SOTA_MATRIX`, then the nearest
/// `sota.toml` at or above `cwd` (stopping at the filesystem root).
/// `flag` and `env` paths are taken relative to `cwd`; whether they exist is
/// for [`Matrix::load`] to say.
pub fn discover(cwd: &Path, flag: Option<&Path>, env: Option<&Path>) -> Found {
    if let Some(p) = flag {
        return Found::Flag(cwd.join(p));
    }
    if let Some(p) = env.filter(|p| !p.as_os_str().is_empty()) {
        return Found::Env(cwd.join(p));
    }
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        let candidate = d.join(FILE_NAME);
        if candidate.is_file() {
            return Found::Nearest(candidate);
        }
        dir = d.parent();
    }
    Found::None
}
