//! The registry of JSON payload schemas: every payload sota prints has its
//! own id here, and no id names two shapes. A payload's `schema` field is a
//! [`SchemaId`]; the ids are `sota.<payload>/v<N>`, and a shape changes only
//! with a new version.

use serde::{Serialize, Serializer};

/// One JSON payload shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::EnumIter)]
pub enum SchemaId {
    /// `sota list`.
    List,
    /// `sota <slug>`.
    Op,
    /// `sota <file>`.
    File,
    /// `sota <words>`.
    Search,
    /// A lookup that matched nothing.
    NotFound,
    /// `sota milestones`.
    Milestones,
    /// `sota milestones <axis>`.
    Ladder,
    /// `sota milestones <axis>` for an axis with no ladder.
    UnknownAxis,
    /// `sota gate` on a change (staged, message or paths).
    Gate,
    /// `sota gate --range`.
    GateRange,
    /// `sota gate` when it could not check.
    GateUnchecked,
    /// `sota coverage`.
    Coverage,
    /// `sota audit`.
    Audit,
    /// `sota render`.
    Render,
    /// `sota hook install | uninstall`.
    Hooks,
    /// `sota prove`.
    Prove,
    /// A proof record (`sota prove SLUG --record`: `.sota/proofs/SLUG.json`).
    Proof,
    /// `sota init`.
    Init,
    /// `sota suggest`.
    Suggest,
    /// Any command that failed (exit 2).
    Error,
}

impl SchemaId {
    /// The id printed in the payload's `schema` field.
    pub const fn id(self) -> &'static str {
        match self {
            SchemaId::List => "sota.list/v1",
            SchemaId::Op => "sota.op/v1",
            SchemaId::File => "sota.file/v1",
            SchemaId::Search => "sota.search/v1",
            SchemaId::NotFound => "sota.not-found/v1",
            SchemaId::Milestones => "sota.milestones/v1",
            SchemaId::Ladder => "sota.ladder/v1",
            SchemaId::UnknownAxis => "sota.unknown-axis/v1",
            SchemaId::Gate => "sota.gate/v1",
            SchemaId::GateRange => "sota.gate-range/v1",
            SchemaId::GateUnchecked => "sota.gate-unchecked/v1",
            SchemaId::Coverage => "sota.coverage/v1",
            SchemaId::Audit => "sota.audit/v1",
            SchemaId::Render => "sota.render/v1",
            SchemaId::Hooks => "sota.hooks/v1",
            SchemaId::Prove => "sota.prove/v1",
            SchemaId::Proof => "sota.proof/v1",
            SchemaId::Init => "sota.init/v1",
            SchemaId::Suggest => "sota.suggest/v1",
            SchemaId::Error => "sota.error/v1",
        }
    }
}

impl Serialize for SchemaId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use strum::IntoEnumIterator;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for s in SchemaId::iter() {
            let id = s.id();
            assert!(seen.insert(id), "{id} names two payloads");
            let (name, version) = id
                .strip_prefix("sota.")
                .and_then(|r| r.split_once("/v"))
                .unwrap_or_else(|| panic!("{id} is not sota.<name>/v<N>"));
            assert!(!name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
            assert!(version.parse::<u32>().is_ok(), "{id}");
        }
    }
}
