//! Numba's CPU loops written through a library's own decorators:
//! numba-stats writes `@_jit(2)` where `_jit` builds `nb.njit(…)`,
//! numbagg `@ndreduce.wrap(…)` where the `ndreduce` class calls
//! `numba.guvectorize`. The modules that use such a decorator carry no
//! Numba marker of their own; once the scan has seen the definitions (in
//! a module that imports Numba), the Python files that are no kernel yet
//! are read again, and those decorated with a name they import join as
//! Numba kernels.
//!
//! Also here, the Numba code that is not the repository's kernel: a
//! framework comparison suite's Numba variant of a NumPy program
//! (NPBench's `gemm_numba_n.py` beside `gemm_numpy.py`) is one
//! implementation among the suite's, and in a tree whose kernels are
//! mostly another model's, a Numba module away from them is a CPU helper
//! (OpenPCDet's `centernet_utils.py`, vLLM-Ascend's load-balancing
//! policy), while one beside them is that kernel's CPU backend (AQLM's
//! `numba_kernel.py` beside `triton_kernel.py`).

use std::collections::BTreeSet;
use std::path::Path;

use super::detect::{self, ByExtension, Family, Kind, Role};
use super::signals::Signals;
use super::{join_adopted, not_kernels_yet, parent_dir, reread_kinds, take_out, Found, Skipped};

/// Numba's compile entry points: a call of one (bare, or on `numba.` /
/// `nb.`) compiles the function it is given.
const COMPILE_API: &[&str] = &[
    "njit",
    "jit",
    "guvectorize",
    "vectorize",
    "stencil",
    "cfunc",
    "generated_jit",
];

/// Whether a Python path may define or use such decorators.
pub fn may_hold(path: &str) -> bool {
    matches!(
        detect::by_extension(path),
        ByExtension::Ambiguous(Family::Python)
    ) && !path.ends_with("__init__.py")
}

/// Whether `line` holds an import statement's start.
fn is_import(line: &str) -> bool {
    line.starts_with("import ") || line.starts_with("from ")
}

/// Whether the module imports Numba.
fn imports_numba(text: &str) -> bool {
    !numba_aliases(text).is_empty()
}

/// The names a module binds Numba to (`numba`, `nb`, `nu` for `import
/// numba as nu`), and `""` for a `from numba import …`; empty when it
/// does not import Numba (`numbagg` and `numba_stats` are other
/// packages).
fn numba_aliases(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for statement in text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
    {
        if let Some(rest) = statement.strip_prefix("import ") {
            for item in rest.split(',') {
                let mut parts = item.split_whitespace();
                let module = parts.next().unwrap_or("");
                if module != "numba" && !module.starts_with("numba.") {
                    continue;
                }
                match (parts.next(), parts.next()) {
                    (Some("as"), Some(alias)) => out.push(alias),
                    _ => out.push("numba"),
                }
            }
        } else if let Some(rest) = statement.strip_prefix("from ") {
            let module = rest.split_whitespace().next().unwrap_or("");
            if module == "numba" || module.starts_with("numba.") {
                out.push("");
            }
        }
    }
    out
}

/// Whether a module that imports Numba under an alias of its own
/// decorates with its CPU compile API (`import numba as nu` then
/// `@nu.njit`), which the detector's fixed markers (`@nb.njit`,
/// `@numba.njit`) do not spell.
pub fn jitted_by_alias(prefix: &[u8]) -> bool {
    if memchr::memmem::find(prefix, b"numba").is_none() {
        return false;
    }
    let text = String::from_utf8_lossy(prefix);
    let aliases: Vec<&str> = numba_aliases(&text)
        .into_iter()
        .filter(|a| !a.is_empty())
        .collect();
    !aliases.is_empty()
        && text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix('@'))
            .any(|d| {
                d.split_once('.').is_some_and(|(alias, rest)| {
                    let api = rest.split(|c: char| !is_ident(c)).next().unwrap_or("");
                    aliases.contains(&alias) && COMPILE_API.contains(&api)
                })
            })
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifiers of `text`, each with the character before it.
fn words(text: &str) -> impl Iterator<Item = (&str, Option<char>, &str)> {
    let mut rest = text;
    let mut before: Option<char> = None;
    std::iter::from_fn(move || loop {
        let start = rest.find(is_ident)?;
        if start > 0 {
            before = rest[..start].chars().next_back();
        }
        let tail = &rest[start..];
        let end = tail.find(|c: char| !is_ident(c)).unwrap_or(tail.len());
        let (word, after) = tail.split_at(end);
        let prev = before;
        before = word.chars().next_back();
        rest = after;
        if !word.starts_with(|c: char| c.is_ascii_digit()) {
            return Some((word, prev, after));
        }
    })
}

/// Whether `text` names Numba's compile API: `nb.njit`, `numba.jit(`,
/// a bare `njit` (not `cuda.jit`, `torch.jit`, `np.vectorize`).
fn names_compile_api(text: &str, aliases: &[&str]) -> bool {
    let mut last = "";
    let mut hit = false;
    for (word, before, _) in words(text) {
        if COMPILE_API.contains(&word) {
            hit |= match before {
                Some('.') => aliases.contains(&last),
                _ => word != "jit" && word != "vectorize",
            };
        }
        last = word;
    }
    hit
}

/// Whether `body` calls one of `names` (`name(`).
fn calls(body: &str, names: &BTreeSet<String>) -> bool {
    words(body).any(|(word, before, after)| {
        before != Some('.') && after.starts_with('(') && names.contains(word)
    })
}

/// One top-level definition of a module: its name, the text after the
/// name on its header line (a class's bases), and its body.
struct Definition<'a> {
    name: &'a str,
    header: &'a str,
    body: String,
}

/// The module's top-level `def` / `class` blocks and `NAME = …`
/// assignments (as a definition whose body is the value).
fn definitions(text: &str) -> Vec<Definition<'_>> {
    let mut out: Vec<Definition<'_>> = Vec::new();
    let mut open = false;
    // The delimiter of a triple-quoted string open across lines: its
    // column-0 lines (a docstring's paragraph) do not end the block.
    let mut string: Option<&str> = None;
    for line in text.lines() {
        if let Some(quote) = string {
            if line.matches(quote).count() % 2 == 1 {
                string = None;
            }
            if open {
                if let Some(last) = out.last_mut() {
                    last.body.push_str(line);
                    last.body.push('\n');
                }
            }
            continue;
        }
        string = ["\"\"\"", "\'\'\'"]
            .into_iter()
            .find(|quote| line.matches(quote).count() % 2 == 1);
        let top = line.starts_with(|c: char| !c.is_whitespace());
        // A signature's closing line (`) -> int:`) and a comment stay in
        // the block.
        let continues = line.starts_with([')', ']', '}', '#']);
        if top && !continues {
            open = false;
            let head = line
                .strip_prefix("async def ")
                .or_else(|| line.strip_prefix("def "))
                .or_else(|| line.strip_prefix("class "));
            if let Some(head) = head {
                let end = head.find(|c: char| !is_ident(c)).unwrap_or(head.len());
                out.push(Definition {
                    name: &head[..end],
                    header: &head[end..],
                    body: String::new(),
                });
                open = true;
            } else if let Some((name, value)) = line.split_once('=') {
                let name = name.trim_end();
                if !name.is_empty() && name.chars().all(is_ident) && !value.starts_with('=') {
                    out.push(Definition {
                        name,
                        header: "",
                        body: value.to_owned(),
                    });
                }
            }
            continue;
        }
        if open {
            if let Some(last) = out.last_mut() {
                last.body.push_str(line);
                last.body.push('\n');
            }
        }
    }
    out
}

/// The names a module that imports Numba defines that compile with it: a
/// top-level function or class whose body calls Numba's compile API or
/// another such name of the module, a class derived from one, and a
/// module-level alias (`fast = nb.njit(cache=True)`); each with the
/// module's name (the file's stem), which a user imports it from.
pub fn defined(path: &str, prefix: &[u8]) -> Vec<(String, String)> {
    if memchr::memmem::find(prefix, b"numba").is_none() {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(prefix);
    if !imports_numba(&text) {
        return Vec::new();
    }
    let aliases: Vec<&str> = ["numba", "nb"]
        .into_iter()
        .chain(numba_aliases(&text))
        .filter(|a| !a.is_empty())
        .collect();
    let defs = definitions(&text);
    let mut names: BTreeSet<String> = defs
        .iter()
        .filter(|d| names_compile_api(&d.body, &aliases))
        .map(|d| d.name.to_owned())
        .collect();
    loop {
        let more: Vec<String> = defs
            .iter()
            .filter(|d| !names.contains(d.name))
            .filter(|d| {
                calls(&d.body, &names)
                    || (d.header.starts_with('(')
                        && words(d.header).any(|(w, _, _)| names.contains(w)))
            })
            .map(|d| d.name.to_owned())
            .collect();
        if more.is_empty() {
            break;
        }
        names.extend(more);
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let module = name.split('.').next().unwrap_or(name);
    names
        .into_iter()
        .filter(|n| !n.starts_with("__"))
        .map(|n| (module.to_owned(), n))
        .collect()
}

/// A name a module imports: what it is bound to, the last part of the
/// module it comes from (`_util` for `from ._util import _jit`), and the
/// name in that module (`None` when the binding is the module itself:
/// `from . import _util`, `import pkg.decorators as deco`).
struct Binding<'a> {
    bound: &'a str,
    module: &'a str,
    name: Option<&'a str>,
}

/// The module's import statements, each joined into one line: a
/// parenthesised list over several lines, a `\\` continuation.
fn import_statements(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        let code = line.split('#').next().unwrap_or("").trim();
        if !open && !is_import(code) {
            continue;
        }
        let code = code.trim_end_matches('\\');
        match open {
            true => {
                if let Some(last) = out.last_mut() {
                    last.push(' ');
                    last.push_str(code);
                }
            }
            false => out.push(code.to_owned()),
        }
        let statement = out.last().map_or("", String::as_str);
        open = statement.matches('(').count() > statement.matches(')').count()
            || line.trim_end().ends_with('\\');
    }
    out
}

/// The last dotted part of a module path (`numbagg.decorators` →
/// `decorators`, `._util` → `_util`, `.` → ``).
fn last_part(module: &str) -> &str {
    module.rsplit('.').next().unwrap_or(module).trim()
}

/// What a module's import statements bind.
fn bindings(statements: &[String]) -> Vec<Binding<'_>> {
    let mut out = Vec::new();
    for s in statements {
        if let Some(rest) = s.strip_prefix("from ") {
            let Some((module, names)) = rest.split_once(" import ") else {
                continue;
            };
            let module = module.trim();
            let names = names.trim().trim_start_matches('(').trim_end_matches(')');
            for item in names.split(',') {
                let mut parts = item.split_whitespace();
                let Some(name) = parts.next() else { continue };
                let bound = match (parts.next(), parts.next()) {
                    (Some("as"), Some(alias)) => alias,
                    _ => name,
                };
                match last_part(module) {
                    // `from . import _util`: the name is a module.
                    "" => out.push(Binding {
                        bound,
                        module: name,
                        name: None,
                    }),
                    m => out.push(Binding {
                        bound,
                        module: m,
                        name: Some(name),
                    }),
                }
            }
        } else if let Some(rest) = s.strip_prefix("import ") {
            for item in rest.split(',') {
                let mut parts = item.split_whitespace();
                let Some(path) = parts.next() else { continue };
                let bound = match (parts.next(), parts.next()) {
                    (Some("as"), Some(alias)) => alias,
                    // `import a.b` binds `a`, a package: no decorator's module.
                    _ if path.contains('.') => continue,
                    _ => path,
                };
                out.push(Binding {
                    bound,
                    module: last_part(path),
                    name: None,
                });
            }
        }
    }
    out
}

/// Whether a module decorates a function with one of the repository's
/// Numba decorators (`(module, name)`, see [`defined`]) imported from the
/// module that defines it: `@_jit(2)` after `from ._util import _jit`,
/// `@ndreduce.wrap(…)` after `from numbagg.decorators import ndreduce`,
/// `@_util._jit(2)` after `from . import _util`. The same word imported
/// from elsewhere (`from jax import jit`) is another library's; the
/// module that defines a decorator uses it in its docstrings' examples,
/// and its own compiled code carries Numba's decorators.
fn decorated_with(prefix: &[u8], names: &BTreeSet<(String, String)>) -> bool {
    let text = String::from_utf8_lossy(prefix);
    let statements = import_statements(&text);
    let bound = bindings(&statements);
    let learned = |module: &str, name: &str| names.contains(&(module.to_owned(), name.to_owned()));
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix('@'))
        .any(|d| {
            let end = d.find(|c: char| !is_ident(c)).unwrap_or(d.len());
            let (first, rest) = d.split_at(end);
            let second = rest.strip_prefix('.').map(|r| {
                let end = r.find(|c: char| !is_ident(c)).unwrap_or(r.len());
                &r[..end]
            });
            bound
                .iter()
                .filter(|b| b.bound == first)
                .any(|b| match b.name {
                    Some(name) => learned(b.module, name),
                    None => second.is_some_and(|attr| learned(b.module, attr)),
                })
        })
}

/// Read again the Python files that are no kernel yet, and adopt those
/// decorated with one of the repository's Numba decorators as Numba
/// kernels, each placed by its own evidence.
pub(super) fn adopt_users(
    root: &Path,
    found: &mut Vec<Found>,
    candidates: &[&str],
    names: Vec<(String, String)>,
    signals: &Signals,
) {
    if names.is_empty() {
        return;
    }
    let names: BTreeSet<(String, String)> = names.into_iter().collect();
    let unmarked = not_kernels_yet(found, candidates, |f| f.kind.is_none(), may_hold);
    let adopted = reread_kinds(root, &unmarked, signals, |prefix| {
        decorated_with(prefix, &names).then_some(Kind::Numba)
    });
    join_adopted(found, adopted);
}

/// Take out of the found files a comparison suite's Numba variants: a
/// Numba file `<program>_numba….py` whose directory holds
/// `<program>_numpy.py`.
pub(super) fn leave_out_variants(
    found: Vec<Found>,
    paths: &[&str],
    skipped: &mut Vec<Skipped>,
) -> Vec<Found> {
    if !found.iter().any(|f| f.kind == Some(Kind::Numba)) {
        return found;
    }
    let files: std::collections::HashSet<&str> = paths.iter().copied().collect();
    let is_variant = |f: &Found| {
        f.kind == Some(Kind::Numba) && {
            let name = f.path.rsplit('/').next().unwrap_or(&f.path);
            name.find("_numba").is_some_and(|at| {
                let dir = parent_dir(&f.path);
                let numpy = format!("{}_numpy.py", &name[..at]);
                match dir {
                    "" => files.contains(numpy.as_str()),
                    _ => files.contains(format!("{dir}/{numpy}").as_str()),
                }
            })
        }
    };
    let flags: Vec<bool> = found.iter().map(is_variant).collect();
    take_out(
        found,
        &flags,
        skipped,
        Role::Bench,
        "a comparison suite's Numba variant of the NumPy program beside it",
    )
}

/// Take out the Numba modules of a tree whose kernels are mostly another
/// model's that sit in no directory of that model's kernels.
pub(super) fn leave_out_strays(found: Vec<Found>, skipped: &mut Vec<Skipped>) -> Vec<Found> {
    let numba = found.iter().filter(|f| f.kind == Some(Kind::Numba)).count();
    if numba == 0 {
        return found;
    }
    let mut others: std::collections::HashSet<&str> = Default::default();
    let mut other_count = 0;
    for f in found
        .iter()
        .filter(|f| f.kind.is_some_and(|k| k != Kind::Numba))
    {
        others.insert(parent_dir(&f.path));
        other_count += 1;
    }
    if numba >= other_count {
        return found;
    }
    let flags: Vec<bool> = found
        .iter()
        .map(|f| f.kind == Some(Kind::Numba) && !others.contains(parent_dir(&f.path)))
        .collect();
    take_out(
        found,
        &flags,
        skipped,
        Role::HostCode,
        "Numba CPU code away from the kernels, which are another model's",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn learned(pairs: &[(&str, &str)]) -> BTreeSet<(String, String)> {
        pairs
            .iter()
            .map(|(m, n)| ((*m).to_owned(), (*n).to_owned()))
            .collect()
    }

    fn names(defs: Vec<(String, String)>) -> Vec<String> {
        defs.into_iter().map(|(_, n)| n).collect()
    }

    #[test]
    fn a_factory_that_builds_njit_and_what_calls_it_are_decorators() {
        let util = b"import numba as nb\n\ndef _jit_custom(sigs, cache=True):\n    \"\"\"Wrap numba.njit.\"\"\"\n    return nb.njit(sigs, cache=cache)\n\n\ndef _jit(arg, cache=True):\n    sigs = []\n    return _jit_custom(sigs, cache=cache)\n\n\ndef helper(x):\n    return x + 1\n\n\n@nb.njit\ndef _trans(x, loc, scale):\n    return (x - loc) / scale\n";
        let defs = defined("src/numba_stats/_util.py", util);
        assert_eq!(
            defs,
            vec![
                ("_util".to_owned(), "_jit".to_owned()),
                ("_util".to_owned(), "_jit_custom".to_owned())
            ]
        );
    }

    #[test]
    fn a_docstring_line_at_column_zero_does_not_end_a_factory() {
        let util = b"import numba as nb\n\ndef _jit(sigs):\n    \"\"\"Build the compiled function.\n\nExamples are in the README.\n\"\"\"\n    return nb.njit(sigs, cache=True)\n\n\ndef helper(x):\n    '''One line.'''\n    return x + 1\n";
        assert_eq!(names(defined("lib/_util.py", util)), vec!["_jit"]);
    }

    #[test]
    fn a_class_that_calls_guvectorize_and_its_subclasses_are_decorators() {
        let decorators = b"import numba\n\nclass NumbaBase:\n    def __init__(self, func):\n        self.func = func\n\n    def gufunc(self, sig):\n        return numba.guvectorize(sig, self.sig)(self.func)\n\n\nclass NumbaBaseSimple(NumbaBase, metaclass=abc.ABCMeta):\n    pass\n\n\nclass ndreduce(NumbaBaseSimple):\n    @classmethod\n    def wrap(cls, *args):\n        return lambda f: cls(f, *args)\n\n\ndef ndim(arg):\n    return arg.ndim\n";
        assert_eq!(
            names(defined("numbagg/decorators.py", decorators)),
            vec!["NumbaBase", "NumbaBaseSimple", "ndreduce"]
        );
    }

    #[test]
    fn other_jits_and_modules_without_numba_define_nothing() {
        // `torch.jit` / `np.vectorize` are not Numba's CPU API; a module
        // that never imports Numba (`numbagg` is another package) defines
        // no Numba decorator.
        let torch = b"import numba\nimport torch\n\ndef script(f):\n    return torch.jit.script(f)\n\ndef vec(f):\n    return np.vectorize(f)\n";
        assert!(defined("a.py", torch).is_empty());
        let jax = b"import jax\nimport numbagg\n\ndef fast(f):\n    return numba.njit(f)\n";
        assert!(defined("b.py", jax).is_empty());
        let alias = b"import numba as nu\n\nfast = nu.njit(cache=True)\n";
        assert_eq!(names(defined("c.py", alias)), vec!["fast"]);
    }

    #[test]
    fn a_module_decorated_with_a_decorator_from_its_defining_module_is_numba_code() {
        let names = learned(&[("_util", "_jit"), ("decorators", "ndreduce")]);
        let norm = b"import numpy as np\nfrom ._util import (\n    _jit,  # the factory\n    _trans,\n)\n\n@_jit(2)\ndef _cdf(x, loc, scale):\n    return x\n";
        assert!(decorated_with(norm, &names));
        let funcs = b"from numbagg.decorators import ndreduce\n\n@ndreduce.wrap(([(float64[:], float64)], \"(n)->()\"))\ndef nansum(a, out):\n    pass\n";
        assert!(decorated_with(funcs, &names));
        let module = b"from . import _util\n\n@_util._jit(2)\ndef _pdf(x):\n    return x\n";
        assert!(decorated_with(module, &names));
        let aliased = b"from ._util import _jit as jit\n\n@jit(2)\ndef _pdf(x):\n    return x\n";
        assert!(decorated_with(aliased, &names));
    }

    #[test]
    fn the_same_word_from_another_module_is_another_librarys() {
        let names = learned(&[("fastmath", "jit"), ("fast", "cached")]);
        for other in [
            &b"from jax import jit\n\n@jit\ndef loss(x):\n    return x * 2\n"[..],
            b"import torch\nfrom torch import jit\n\n@jit.script\ndef f(x):\n    return x\n",
            b"from functools import lru_cache as cached\n\n@cached\ndef settings():\n    return {}\n",
            // Not imported at all, or only named.
            b"@jit(2)\ndef f(x):\n    return x\n",
            b"from .fastmath import jit\n\nFAST = jit\n",
            // The defining module's docstring example is no use of its own.
            b"import numba\n\ndef jit(f):\n    \"\"\"\n    >>> @jit\n    ... def g(a): pass\n    \"\"\"\n    return numba.njit(f)\n",
        ] {
            assert!(!decorated_with(other, &names), "{}", String::from_utf8_lossy(other));
        }
        let ours = b"from .fastmath import jit\n\n@jit\ndef loss(x):\n    return x * 2\n";
        assert!(decorated_with(ours, &names));
    }

    #[test]
    fn numba_under_an_alias_of_its_own_is_found() {
        assert!(jitted_by_alias(
            b"import numba as nu\n\n@nu.njit(cache=True)\ndef f(x):\n    return x\n"
        ));
        assert!(jitted_by_alias(b"import os, numba as nb2  # fast\n\n@nb2.guvectorize([], '(n)->()')\ndef g(a, out):\n    pass\n"));
        // Another package's alias, or an alias used for something else.
        assert!(!jitted_by_alias(
            b"import numbagg as nu\n\n@nu.njit\ndef f(x):\n    return x\n"
        ));
        assert!(!jitted_by_alias(
            b"import numba as nu\n\n@nu.extending.overload_method\ndef f(x):\n    return x\n"
        ));
        assert_eq!(
            numba_aliases("import os, numba\nfrom numba.core import types\n"),
            vec!["numba", ""]
        );
    }

    #[test]
    fn import_statements_are_joined_over_lines() {
        let text = "from a.b import (x,\n    y as z)  # two\nimport c.d as e, f\nfrom g \\\n    import h\n";
        let statements = import_statements(text);
        assert_eq!(statements.len(), 3, "{statements:?}");
        let b = bindings(&statements);
        let seen: Vec<(&str, &str, Option<&str>)> =
            b.iter().map(|b| (b.bound, b.module, b.name)).collect();
        assert_eq!(
            seen,
            vec![
                ("x", "b", Some("x")),
                ("z", "b", Some("y")),
                ("e", "d", None),
                ("f", "f", None),
                ("h", "g", Some("h")),
            ]
        );
    }
}
