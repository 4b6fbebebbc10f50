//! Reusing a loaded matrix while its file is unchanged, for a front end that
//! answers many requests in one process (the MCP server). Every request
//! still reads the file, and any changed byte means a fresh load, so a
//! long-lived session never serves a stale matrix; an unchanged file skips
//! the parse and validation, the costly part (~6–9 ms for 1,000 ops).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::{LoadError, Matrix};

/// The last matrix loaded through this cache (its `text` is the bytes it
/// came from).
#[derive(Debug, Default)]
pub struct Cache {
    last: Mutex<Option<Entry>>,
    catalog: OnceLock<Arc<Matrix>>,
}

#[derive(Debug)]
struct Entry {
    path: PathBuf,
    name: String,
    matrix: Arc<Matrix>,
}

impl Cache {
    pub fn new() -> Cache {
        Cache::default()
    }

    /// [`Matrix::from_bytes_named`] on the bytes just read from `path`,
    /// reusing the previous result when they are the same (and its root
    /// is still a directory, the one check validation makes outside the
    /// file).
    pub fn load_bytes(
        &self,
        bytes: Vec<u8>,
        path: &Path,
        name: &str,
    ) -> Result<Arc<Matrix>, LoadError> {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = last.as_ref() {
            let same_bytes = e.matrix.text.as_bytes() == bytes;
            if e.path == path && e.name == name && same_bytes && e.matrix.root.is_dir() {
                return Ok(e.matrix.clone());
            }
        }
        let matrix = Arc::new(Matrix::from_bytes_named(bytes, path, name)?);
        *last = Some(Entry {
            path: path.to_path_buf(),
            name: name.to_owned(),
            matrix: matrix.clone(),
        });
        Ok(matrix)
    }

    /// The built-in catalog, parsed once.
    pub fn catalog(&self) -> Arc<Matrix> {
        self.catalog
            .get_or_init(|| Arc::new(Matrix::catalog()))
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `Context::matrix` does: read under the rules, then the cache.
    fn load(cache: &Cache, path: &Path) -> Result<Arc<Matrix>, LoadError> {
        let bytes = crate::matrix::read_confined(path, false, Default::default())?;
        cache.load_bytes(bytes, path, "sota.toml")
    }

    const M: &str =
        "[project]\nname = \"a\"\n\n[[op]]\nslug = \"x\"\ntitle = \"X\"\nsota = \"S\"\n";

    #[test]
    fn unchanged_bytes_reuse_the_matrix_and_any_change_reloads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sota.toml");
        std::fs::write(&path, M).unwrap();
        let cache = Cache::new();
        let a = load(&cache, &path).unwrap();
        let b = load(&cache, &path).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        // Same length, same second: only the bytes tell.
        std::fs::write(&path, M.replace("\"X\"", "\"Y\"")).unwrap();
        let c = load(&cache, &path).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(c.ops[0].title, "Y");
        std::fs::write(&path, M.replace("sota = \"S\"", "sota = 1")).unwrap();
        assert!(matches!(load(&cache, &path), Err(LoadError::Invalid(_))));
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(load(&cache, &path), Err(LoadError::Io { .. })));
    }
}
