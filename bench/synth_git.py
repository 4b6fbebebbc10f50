"""Commit a generated tree as one deterministic commit (the synth_* scripts)."""
import os
import subprocess


def commit_all(repo, message):
    """`git init`, add every file and commit, with a fixed author and date."""
    env = dict(os.environ, GIT_AUTHOR_NAME="Synth", GIT_AUTHOR_EMAIL="synth@example.org",
               GIT_COMMITTER_NAME="Synth", GIT_COMMITTER_EMAIL="synth@example.org",
               GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", message]):
        subprocess.run(["git", "-C", repo, *args], check=True, env=env)
