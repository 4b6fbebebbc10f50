//! `sota hook install | uninstall` as a library call: find the hooks
//! directory git really uses, then install or remove sota's hooks.

use crate::context::Context;
use crate::outcome::{Failure, Outcome};
use crate::repo::git::Git;
use crate::repo::hooks::{self, Action, HookResult, InstallOptions};

/// What to do with the hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookCommand {
    Install(InstallOptions),
    Uninstall,
}

/// What happened to each hook.
#[derive(Debug)]
pub struct HookReport {
    pub command: HookCommand,
    pub results: Vec<HookResult>,
}

impl HookReport {
    pub fn outcome(&self) -> Outcome {
        if self
            .results
            .iter()
            .any(|r| matches!(r.action, Action::Refused(_)))
        {
            Outcome::Refused
        } else {
            Outcome::Done
        }
    }
}

/// Install or remove the hooks of the repository the working directory is in.
pub fn run(ctx: &Context, command: HookCommand) -> Result<HookReport, Failure> {
    let git = Git::new(ctx.cwd());
    let hooks_dir = git
        .hooks_dir()
        .map_err(|e| Failure::Usage(format!("sota hook: not inside a git repository ({e})")))?;
    let results = match command {
        HookCommand::Install(opts) => hooks::install(&hooks_dir, opts)?,
        HookCommand::Uninstall => hooks::uninstall(&hooks_dir)?,
    };
    Ok(HookReport { command, results })
}
