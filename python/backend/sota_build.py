"""PEP 517 build backend for the `sota` wheel: maturin, plus the CLI.

maturin builds one kind of artifact per wheel: a Python extension module,
or binaries (https://github.com/PyO3/maturin/issues/368). The wheel needs
both: `sota._native` for `import sota`, and the native `sota` binary on
PATH, run by git hooks and CI without a Python interpreter in between
(a `[project.scripts]` entry point would start one on every commit).

So this backend builds the `sota` binary with cargo first — same
workspace, same target directory and profile as maturin's build of the
extension, so the library and its dependencies compile once — and copies
it into the wheel data directory (`[tool.maturin] data`), whose `scripts/`
pip installs into the environment's bin directory. Everything else is
maturin's own hook.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import maturin
from maturin import *  # noqa: F401,F403  (the hooks this module does not wrap)

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "python" / "sota.data" / "scripts"


def _profile(config_settings) -> str:
    """The cargo profile maturin will build with: `--profile P` in its
    PEP 517 arguments (config settings or $MATURIN_PEP517_ARGS), else its
    PEP 517 default, release."""
    args = maturin.get_maturin_pep517_args(config_settings)
    for i, a in enumerate(args):
        if a == "--profile" and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--profile="):
            return a.split("=", 1)[1]
    return "release"


def _build_cli(config_settings) -> None:
    cmd = [
        os.environ.get("CARGO", "cargo"),
        "build",
        "--locked",
        "--package",
        "sota",
        "--bin",
        "sota",
        "--profile",
        _profile(config_settings),
        "--message-format=json-render-diagnostics",
    ]
    print("sota_build: " + " ".join(cmd), file=sys.stderr, flush=True)
    done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"sota_build: `{' '.join(cmd)}` failed (exit {done.returncode})")
    exe = None
    for line in done.stdout.splitlines():
        msg = json.loads(line)
        if (
            msg.get("reason") == "compiler-artifact"
            and msg.get("target", {}).get("name") == "sota"
            and msg.get("executable")
        ):
            exe = Path(msg["executable"])
    if exe is None:
        raise RuntimeError("sota_build: cargo built no `sota` executable")
    SCRIPTS.mkdir(parents=True, exist_ok=True)
    dest = SCRIPTS / exe.name
    shutil.copy2(exe, dest)
    print(f"sota_build: {exe} -> {dest}", file=sys.stderr, flush=True)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _build_cli(config_settings)
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _build_cli(config_settings)
    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    # maturin checks that the data directory exists before anything is built.
    SCRIPTS.mkdir(parents=True, exist_ok=True)
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    SCRIPTS.mkdir(parents=True, exist_ok=True)
    return maturin.prepare_metadata_for_build_editable(metadata_directory, config_settings)
