//! The context every command runs in, resolved once: the process facts a
//! front end gathered (working directory, `--matrix`, `$SOTA_MATRIX`,
//! `--catalog`, today, format, colour, terminal width, CI) and what follows
//! from them — which matrix answers, where its root is, how its file is
//! named to the user. The library never reads the process state itself: the
//! CLI (or the MCP server) fills [`Inputs`] and calls [`Context::resolve`].

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::matrix::{self, Date, Found, Matrix};
use crate::outcome::Failure;

/// How a command prints its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::EnumIter, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Format {
    /// Aligned text for people.
    Human,
    /// One line per item (the gate's `--format short`).
    Short,
    /// Versioned JSON for machines.
    Json,
    /// GitHub Actions workflow commands.
    Github,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
}

/// What the front end read from the process, and nothing else.
#[derive(Clone, Debug)]
pub struct Inputs {
    pub cwd: PathBuf,
    /// `--matrix PATH`.
    pub matrix_flag: Option<PathBuf>,
    /// `$SOTA_MATRIX` (empty counts as unset).
    pub matrix_env: Option<PathBuf>,
    /// `--catalog`: answer from the built-in catalog whatever the tree has.
    pub catalog: bool,
    /// `--team-catalog PATH`: a team's catalog, read beside the built-in one.
    pub team_catalog_flag: Option<PathBuf>,
    /// `$SOTA_CATALOG` (empty counts as unset).
    pub team_catalog_env: Option<PathBuf>,
    /// Today's date, for freshness, `init` and reports.
    pub today: Date,
    pub format: Format,
    /// Whether styles reach the reader (a terminal, `NO_COLOR` unset).
    pub color: bool,
    /// Terminal width in columns; `None` when stdout is not a terminal
    /// (pipes are never wrapped).
    pub width: Option<usize>,
    /// Running in CI (`$CI` or `$GITHUB_ACTIONS`): a check that could not
    /// run fails instead of being skipped.
    pub ci: bool,
    /// Whether `GIT_DIR`, `GIT_INDEX_FILE` or another variable that moves
    /// git's files is set (then git itself is asked where the index is).
    pub git_env_overrides: bool,
    /// `--allow-outside-repo`: read a matrix, or accept a `[project] root`,
    /// that resolves outside the repository (docs/SECURITY.md).
    pub allow_outside_repo: bool,
    /// `$GITHUB_STEP_SUMMARY`: the file the report commands append a
    /// Markdown summary to (GitHub Actions' job summary).
    pub step_summary: Option<PathBuf>,
}

impl Inputs {
    /// Inputs for a library caller or a test: human text, no colour, no
    /// terminal, not CI.
    pub fn new(cwd: impl Into<PathBuf>, today: Date) -> Inputs {
        Inputs {
            cwd: cwd.into(),
            matrix_flag: None,
            matrix_env: None,
            catalog: false,
            team_catalog_flag: None,
            team_catalog_env: None,
            today,
            format: Format::Human,
            color: false,
            width: None,
            ci: false,
            git_env_overrides: false,
            allow_outside_repo: false,
            step_summary: None,
        }
    }
}

/// Where the answers come from.
#[derive(Clone, Debug, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Source {
    /// `--matrix PATH` (absolute).
    Flag(PathBuf),
    /// `$SOTA_MATRIX` (absolute).
    Env(PathBuf),
    /// The nearest `sota.toml` at or above the working directory.
    Nearest(PathBuf),
    /// The built-in catalog.
    Catalog(CatalogReason),
}

/// Why the catalog answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatalogReason {
    /// `--catalog` was given.
    Asked,
    /// No `sota.toml` at or above the working directory.
    NoMatrix,
}

impl Source {
    /// The matrix file, unless the catalog answers.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::Flag(p) | Source::Env(p) | Source::Nearest(p) => Some(p),
            Source::Catalog(_) => None,
        }
    }
}

/// Where a team catalog was named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TeamCatalog {
    /// `--team-catalog PATH` (absolute).
    Flag(PathBuf),
    /// `$SOTA_CATALOG` (absolute).
    Env(PathBuf),
    /// `[project] catalog` in the matrix file `matrix`; `path` is under
    /// the matrix root.
    Matrix { matrix: PathBuf, path: PathBuf },
}

impl TeamCatalog {
    pub fn path(&self) -> &Path {
        match self {
            TeamCatalog::Flag(p) | TeamCatalog::Env(p) | TeamCatalog::Matrix { path: p, .. } => p,
        }
    }
}

/// The resolved context. The matrix is loaded on first use and kept, so a
/// command can start git before paying for the load.
#[derive(Debug)]
pub struct Context {
    pub inputs: Inputs,
    pub source: Source,
    matrix: OnceLock<Arc<Matrix>>,
    /// The catalog (built-in, with the team's merged over it), loaded once.
    catalog: OnceLock<Arc<Matrix>>,
    /// A long-lived front end's cache of the last matrix loaded.
    cache: Option<Arc<matrix::cache::Cache>>,
}

impl Context {
    /// Decide where the answers come from: `--catalog`, else `--matrix`,
    /// else `$SOTA_MATRIX`, else the nearest `sota.toml`, else the catalog.
    pub fn resolve(inputs: Inputs) -> Context {
        let source = if inputs.catalog {
            Source::Catalog(CatalogReason::Asked)
        } else {
            match matrix::discover(
                &inputs.cwd,
                inputs.matrix_flag.as_deref(),
                inputs.matrix_env.as_deref(),
            ) {
                Found::Flag(p) => Source::Flag(p),
                Found::Env(p) => Source::Env(p),
                Found::Nearest(p) => Source::Nearest(p),
                Found::None => Source::Catalog(CatalogReason::NoMatrix),
            }
        };
        Context {
            inputs,
            source,
            matrix: OnceLock::new(),
            catalog: OnceLock::new(),
            cache: None,
        }
    }

    /// [`Context::resolve`] for a front end that resolves a context per
    /// request (the MCP server): the matrix comes through `cache`, reused
    /// while its file's bytes are unchanged.
    pub fn resolve_cached(inputs: Inputs, cache: Arc<matrix::cache::Cache>) -> Context {
        Context {
            cache: Some(cache),
            ..Context::resolve(inputs)
        }
    }

    pub fn cwd(&self) -> &Path {
        &self.inputs.cwd
    }

    pub fn format(&self) -> Format {
        self.inputs.format
    }

    pub fn json(&self) -> bool {
        self.inputs.format == Format::Json
    }

    pub fn today(&self) -> Date {
        self.inputs.today
    }

    /// The matrix that answers: the project's, or the catalog. Loaded once.
    pub fn matrix(&self) -> Result<&Matrix, Failure> {
        if let Some(m) = self.matrix.get() {
            return Ok(m);
        }
        let loaded = match (self.source.path(), &self.cache) {
            (Some(path), Some(cache)) => {
                matrix::load_confined_with(path, self.discovered(), self.load_options(), |b| {
                    cache.load_bytes(b, path, &self.shown(path))
                })?
            }
            (Some(path), None) => Arc::new(Matrix::load_confined(
                path,
                &self.shown(path),
                self.discovered(),
                self.load_options(),
            )?),
            (None, _) => self.catalog()?,
        };
        Ok(self.matrix.get_or_init(|| loaded))
    }

    /// The team catalog to read beside the built-in one, if any:
    /// `--team-catalog`, else `$SOTA_CATALOG`, else the project matrix's
    /// `[project] catalog` (only when a project matrix answers and loads).
    pub fn team_catalog(&self) -> Option<TeamCatalog> {
        if let Some(p) = &self.inputs.team_catalog_flag {
            return Some(TeamCatalog::Flag(self.absolute(p)));
        }
        if let Some(p) = self
            .inputs
            .team_catalog_env
            .as_ref()
            .filter(|p| !p.as_os_str().is_empty())
        {
            return Some(TeamCatalog::Env(self.absolute(p)));
        }
        let file = self.source.path()?;
        let matrix = self.matrix().ok()?;
        let rel = matrix.project.catalog.as_ref()?;
        Some(TeamCatalog::Matrix {
            matrix: file.to_path_buf(),
            path: self.root(matrix).join(&rel.value),
        })
    }

    /// The catalog init, suggest and catalog lookups read: the built-in
    /// one, with the team catalog ([`Context::team_catalog`]) merged over
    /// it. Loaded once; a team catalog that does not load is the run's
    /// failure, with every problem located in its file.
    pub fn catalog(&self) -> Result<Arc<Matrix>, Failure> {
        if let Some(c) = self.catalog.get() {
            return Ok(Arc::clone(c));
        }
        let builtin = match &self.cache {
            Some(cache) => cache.catalog(),
            None => Arc::new(Matrix::catalog()),
        };
        let merged = match self.team_catalog() {
            None => builtin,
            Some(team) => {
                let path = team.path();
                let bytes = match &team {
                    // Named by the user: trusted as a file, as `--matrix` is.
                    TeamCatalog::Flag(_) | TeamCatalog::Env(_) => matrix::read_named_by(
                        path,
                        path,
                        matrix::LoadOptions {
                            allow_outside_repo: true,
                        },
                    ),
                    // Named by a committed matrix: confined like its root.
                    TeamCatalog::Matrix { matrix, .. } => {
                        matrix::read_named_by(matrix, path, self.load_options())
                    }
                }
                .map_err(Failure::Matrix)?;
                let loaded = Matrix::team_catalog_from_bytes(bytes, path, &self.shown(path))
                    .map_err(Failure::Matrix)?;
                Arc::new(
                    Matrix::clone(&builtin)
                        .with_team(loaded)
                        .map_err(Failure::Matrix)?,
                )
            }
        };
        Ok(Arc::clone(self.catalog.get_or_init(|| merged)))
    }

    /// The matrix file's bytes as written, read under the same rules as
    /// [`Context::matrix`] (confined, a regular file, refused past the size
    /// cap with the loader's located problem) whether or not they load;
    /// `None` when the catalog answers.
    pub fn matrix_bytes(&self) -> Option<Result<Vec<u8>, Failure>> {
        let path = self.source.path()?;
        let read =
            matrix::read_confined(path, self.discovered(), self.load_options()).and_then(|bytes| {
                match bytes.len() > matrix::MAX_MATRIX_BYTES {
                    true => Err(matrix::too_large(bytes, &self.shown(path))),
                    false => Ok(bytes),
                }
            });
        Some(read.map_err(Failure::Matrix))
    }

    /// A discovered file is untrusted and confined to its repository
    /// (docs/SECURITY.md); one the user named is not.
    fn discovered(&self) -> bool {
        matches!(self.source, Source::Nearest(_))
    }

    fn load_options(&self) -> matrix::LoadOptions {
        matrix::LoadOptions {
            allow_outside_repo: self.inputs.allow_outside_repo,
        }
    }

    /// The project's matrix, for a command that checks a tree against it
    /// (coverage, gate, audit, render): the catalog will not do.
    pub fn project_matrix(&self, command: &'static str) -> Result<&Matrix, Failure> {
        match self.source {
            Source::Catalog(CatalogReason::Asked) => Err(Failure::CatalogNotAllowed { command }),
            Source::Catalog(CatalogReason::NoMatrix) => Err(Failure::NoMatrix {
                command,
                searched_from: self.inputs.cwd.clone(),
            }),
            _ => self.matrix(),
        }
    }

    /// The matrix root as an absolute path.
    pub fn root(&self, matrix: &Matrix) -> PathBuf {
        crate::lexical::lexical(&self.absolute(&matrix.root))
    }

    /// `path` made absolute against the working directory.
    pub fn absolute(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.inputs.cwd.join(path)
        }
    }

    /// A path as shown to the user: relative to the working directory when
    /// inside it, with `/` separators.
    pub fn shown(&self, path: &Path) -> String {
        let path = crate::lexical::lexical(&self.absolute(path));
        let cwd = crate::lexical::lexical(&self.inputs.cwd);
        let shown = path
            .strip_prefix(&cwd)
            .ok()
            .filter(|rel| !rel.as_os_str().is_empty())
            .unwrap_or(&path);
        shown.to_string_lossy().replace('\\', "/")
    }
}
