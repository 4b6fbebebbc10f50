//! An op's prior art as the draft names it: the catalog's reference, unless
//! that reference is the repository being initialised (issue 30, item 3).
//! A kernel library is never told to read its own code: the draft names the
//! next reference the catalog gives (another link of the op's note, the
//! other names of its `sota` text) and says why in a comment.

#[cfg(test)]
use crate::matrix::Matrix;
use crate::matrix::Op;

/// Who the repository is: its project name and, when it has one, the
/// `owner/name` of its remote.
#[derive(Clone, Debug, Default)]
pub struct Identity {
    /// The project name, folded (`flash-linear-attention` → `flashlinearattention`).
    name: String,
    /// `owner/name` of the remote, lowercase, when the URL has that shape.
    remote: Option<String>,
}

/// Lowercase letters and digits only: `Liger-Kernel` and `liger_kernel` are one name.
fn fold(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// `owner/name` of a repository URL (`https://github.com/o/n(.git)`,
/// `git@github.com:o/n.git`, `https://github.com/o/n/tree/main/x`).
fn owner_repo(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .or_else(|| url.strip_prefix("ssh://"))
        .or_else(|| url.strip_prefix("git@"))?;
    let rest = rest.split_once(['/', ':'])?.1;
    let rest = rest.strip_prefix("git@").unwrap_or(rest);
    let mut parts = rest.split('/').filter(|s| !s.is_empty());
    let owner = parts.next()?;
    let name = parts.next()?;
    let name = name.strip_suffix(".git").unwrap_or(name);
    Some(format!(
        "{}/{}",
        owner.to_ascii_lowercase(),
        name.to_ascii_lowercase()
    ))
}

impl Identity {
    pub fn new(name: &str, remote: Option<&str>) -> Identity {
        Identity {
            name: fold(name),
            remote: remote.and_then(owner_repo),
        }
    }

    /// Whether `url` is this repository: the same `owner/name` as the
    /// remote, or a repository name equal to the project name.
    pub fn is_self(&self, url: &str) -> bool {
        let Some(link) = owner_repo(url) else {
            return false;
        };
        if self.remote.as_deref() == Some(link.as_str()) {
            return true;
        }
        let repo = link.rsplit('/').next().unwrap_or(&link);
        self.name.len() >= 3 && fold(repo) == self.name
    }

    /// Whether a name (a library's, a directory's) is this repository's:
    /// the project name or the remote's repository name, folded.
    pub fn is_named(&self, name: &str) -> bool {
        let name = fold(name);
        let repo = self.remote.as_deref().and_then(|r| r.rsplit('/').next());
        name == self.name || repo.is_some_and(|r| fold(r) == name)
    }

    /// Whether a piece of `sota` text names this repository.
    fn named_in(&self, text: &str) -> bool {
        let repo = self.remote.as_deref().and_then(|r| r.rsplit('/').next());
        let folded = fold(text);
        (self.name.len() >= 3 && folded.contains(&self.name))
            || repo.is_some_and(|r| fold(r).len() >= 3 && folded.contains(&fold(r)))
    }
}

/// What the draft writes for an op's prior art.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    pub sota: String,
    pub link: Option<String>,
    /// The catalog's link, when it was this repository and was replaced.
    pub self_reference: Option<String>,
}

/// The URLs a catalog note cites, in order.
fn note_links(note: &str) -> Vec<String> {
    note.split_whitespace()
        .filter_map(|w| {
            let at = w.find("https://")?;
            let url = w[at..].trim_end_matches(['.', ',', ';', ')', ':']);
            Some(url.to_owned())
        })
        .collect()
}

/// The op's reference for this repository (see the module docs).
pub fn choose(op: &Op, me: &Identity) -> Reference {
    let link = op.link.as_ref().map(|l| l.value.clone());
    let Some(own) = link.filter(|l| me.is_self(l)) else {
        return Reference {
            sota: op.sota.clone(),
            link: op.link.as_ref().map(|l| l.value.clone()),
            self_reference: None,
        };
    };
    let next = op
        .note
        .as_deref()
        .map(note_links)
        .unwrap_or_default()
        .into_iter()
        .find(|u| !me.is_self(u));
    let others: Vec<&str> = op
        .sota
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty() && !me.named_in(s))
        .collect();
    let sota = if others.is_empty() {
        format!(
            "{} (the catalog's reference is this repository: name the next one)",
            op.sota
        )
    } else {
        others.join("; ")
    };
    Reference {
        sota,
        link: next,
        self_reference: Some(own),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_is_known_by_its_remote_or_its_name() {
        let me = Identity::new("work", Some("git@github.com:thu-ml/SageAttention.git"));
        assert!(me.is_self("https://github.com/thu-ml/SageAttention"));
        assert!(!me.is_self("https://github.com/Dao-AILab/flash-attention"));
        let me = Identity::new("Liger-Kernel", None);
        assert!(me.is_self("https://github.com/linkedin/Liger-Kernel"));
        assert!(me.is_self("https://github.com/linkedin/liger_kernel/tree/main/src"));
        assert!(!me.is_self("https://github.com/NVIDIA/cutlass"));
        assert_eq!(
            owner_repo("https://github.com/o/n.git").as_deref(),
            Some("o/n")
        );
        assert_eq!(owner_repo("/local/path/repo"), None);
    }

    #[test]
    fn the_next_reference_replaces_the_repository_itself() {
        let catalog = Matrix::catalog();
        let op = catalog.op("awq-int4-gemm").unwrap();
        let r = choose(op, &Identity::new("marlin", None));
        assert_eq!(
            r.self_reference.as_deref(),
            Some("https://github.com/IST-DASLab/marlin")
        );
        let link = r.link.unwrap();
        assert!(!link.contains("IST-DASLab/marlin"), "{link}");
        assert!(!r.sota.to_lowercase().contains("marlin"), "{}", r.sota);
        // Another repository keeps the catalog's reference.
        let r = choose(op, &Identity::new("vllm", None));
        assert_eq!(r.self_reference, None);
        assert_eq!(r.sota, op.sota);
    }
}
