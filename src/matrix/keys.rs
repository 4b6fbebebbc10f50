//! The keys the format defines, per table. The loader rejects anything else,
//! and a test holds the JSON Schema to exactly these lists.

pub const TOP: &[&str] = &["project", "kernels", "op", "ladder"];
pub const PROJECT: &[&str] = &[
    "name",
    "reviewed",
    "provenance",
    "fresh-days",
    "root",
    "adopted",
    "catalog",
];
pub const KERNELS: &[&str] = &["include", "exclude"];
pub const OP: &[&str] = &[
    "slug",
    "title",
    "files",
    "at",
    "where",
    "sota",
    "link",
    "route",
    "oracle",
    "check",
    "witness",
    "papers",
    "note",
    "checked",
    "superseded",
];
pub const LADDER: &[&str] = &["axis", "reached", "witness", "next-note", "rung", "checked"];
/// A catalog's `[[ladder]]` also names the catalog ops whose rungs it
/// ranks (`ops`): `sota init` drafts the ladder when it drafts one of them.
/// A project's matrix has no use for it (its ladders are already chosen).
pub const CATALOG_LADDER: &[&str] = &[
    "axis",
    "reached",
    "witness",
    "next-note",
    "rung",
    "checked",
    "ops",
];
pub const RUNG: &[&str] = &["name", "year", "summary", "cite", "link", "order-note"];
pub const SUPERSEDED: &[&str] = &["link", "by"];
pub const CHECK: &[&str] = &["metric", "min", "max", "rtol", "atol", "dtype"];

/// Keys that bind a matrix to a project tree; the built-in catalog has none.
/// (`route` is not one: in the catalog it is the suggested route.)
pub const PROJECT_BINDINGS: &[(&str, &str)] = &[
    ("kernels", "top"),
    ("root", "project"),
    ("catalog", "project"),
    ("files", "op"),
    ("at", "op"),
    ("witness", "op"),
    ("reached", "ladder"),
    ("witness", "ladder"),
];
