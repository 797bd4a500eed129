"""paperbot as a wheel: built from the repository, installed without -e into a fresh virtualenv,
and run from a folder outside the checkout, so its seeds and prompts must come from the wheel.

The fresh virtualenv gets paperbot's dependencies from this test run's environment through a .pth
line (installing torch and chromadb again would take minutes and the network); paperbot itself is
the wheel's copy, which the test checks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _clean_env() -> dict[str, str]:
    """This environment without PYTHONPATH (which would put the checkout's paperbot first) or PAPERBOT_*."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("PAPERBOT_", "PYTHONPATH"))}


def test_every_package_on_disk_is_in_the_wheel_list() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    inits = [p for top in ("bot", "ingest") for p in (ROOT / top).rglob("__init__.py")]
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in inits}
    assert on_disk <= listed, f"add {sorted(on_disk - listed)} to [tool.setuptools] packages in pyproject.toml"
    assert listed - on_disk == {"bot.bundled.prompts", "bot.bundled.seeds"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Built from a copy, so the build's own folders (build/, *.egg-info) never land in the checkout.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for name in ("bot", "ingest", "prompts", "seeds"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    run = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        env=_clean_env(),
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (found,) = out.glob("paperbot-*.whl")
    return found


def test_the_wheel_carries_the_seeds_and_the_prompts(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("seeds", "prompts"):
        expected = {f"bot/bundled/{folder}/{p.name}" for p in (ROOT / folder).glob("*.txt")}
        assert expected and expected <= names, f"{folder} missing from the wheel"
    assert not any(name.startswith(("tests/", "seeds/", "prompts/")) for name in names)


@pytest.mark.slow
def test_an_installed_wheel_ingests_its_seeds_and_answers(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
        capture_output=True,
        text=True,
        env=_clean_env(),
    )
    assert install.returncode == 0, install.stdout + install.stderr
    # paperbot's dependencies, from this environment, added after the install (pip would otherwise
    # take this environment's editable paperbot for an installed one). Not paperbot itself: its
    # editable finder is a .pth file, and .pth files are only read in site folders.
    (site / "paperbot-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = _clean_env()
    work = tmp_path / "elsewhere"
    work.mkdir()

    def paperbot(*args: str) -> subprocess.CompletedProcess[str]:
        command = [str(venv / "bin" / "paperbot"), "--store", str(work / "store"), *args]
        return subprocess.run(command, capture_output=True, text=True, cwd=work, env=env, timeout=600)

    where = subprocess.run(
        [str(python), "-c", "import bot, bot.bundled as b; print(bot.__file__); print(b.folder('prompts'))"],
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
    )
    assert where.returncode == 0, where.stderr
    module, prompts = where.stdout.split()
    assert module.startswith(str(site)), f"paperbot was imported from {module}, not from the installed wheel"
    assert prompts == str(site / "bot" / "bundled" / "prompts")

    ingested = paperbot("ingest", "--json")
    assert ingested.returncode == 0, ingested.stderr
    assert json.loads(ingested.stdout)["papers"] == 53
    asked = paperbot("ask", "What does Cal-SPI do?", "--json")
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)
    assert not answer["abstained"] and answer["citations"][0]["label"] == "Cal-SPI"
    loaded = subprocess.run(
        [str(python), "-c", "from bot.answer import prompts; print(prompts.load('answer_system').name)"],
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
    )
    assert loaded.stdout.strip() == "answer_system", loaded.stderr
