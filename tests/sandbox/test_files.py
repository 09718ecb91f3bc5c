"""The agent's files: downloads saved to the episode's folder, file choosers answered by upload_file."""

from __future__ import annotations

import pytest

from sandbox.settle import SettleBudget

pytestmark = pytest.mark.browser

ONE, MANY, SEND, GET = (200, 80), (230, 130), (100, 188), (100, 238)  # the /upload page's controls


@pytest.fixture(scope="module")
def pg(sbx_runtime):  # noqa: ANN001
    from sandbox.gym_env import SandboxEnv

    env = SandboxEnv("playground", "/upload", "upload", runtime=sbx_runtime, budget=SettleBudget(action=15))
    yield env
    env.close()


def step(env, action):  # noqa: ANN001
    obs, _r, _t, _tr, info = env.step(action)
    return obs, info


def click(env, xy):  # noqa: ANN001
    obs, info = step(env, {"action": "left_click", "x": xy[0], "y": xy[1]})
    assert obs["last_action_error"] == "", obs["last_action_error"]
    return obs, info


def received(env) -> list[str]:  # noqa: ANN001
    """What the server listed as received, one line per file."""
    return env.run(env.core.page.evaluate("[...document.querySelectorAll('#received li')].map(li => li.textContent)"))


def test_downloads_are_the_agents_files_and_an_upload_sends_them(pg) -> None:  # noqa: ANN001
    obs, info = pg.reset(seed=0)
    assert "files" not in info and "file_chooser" not in info
    folder = pg.core.episode.files.folder
    # no chooser open: the agent is told what to do first
    obs, info = step(pg, {"action": "upload_file", "files": ["data.csv"]})
    assert "no file chooser is open: click the page's upload button or file field first" in obs["last_action_error"]
    # two downloads of the same file: saved under the names a browser gives them
    _, info = click(pg, GET)
    assert info["files"] == ["data.csv"] and (folder / "data.csv").read_text() == "a,b\n1,2\n"
    _, info = click(pg, GET)
    assert info["files"] == ["data (1).csv", "data.csv"]
    # the single-file field opens a chooser; wrong names are refused with the files there are
    _, info = click(pg, ONE)
    assert info["file_chooser"] == {"multiple": False}
    obs, info = step(pg, {"action": "upload_file", "files": ["report.pdf"]})
    assert obs["last_action_error"] == "no file named 'report.pdf' among the episode's files: 'data (1).csv', 'data.csv'"
    obs, info = step(pg, {"action": "upload_file", "files": ["data.csv", "data (1).csv"]})
    assert obs["last_action_error"] == "this file chooser takes one file, not 2"
    assert info["file_chooser"] == {"multiple": False}  # still open after a refused choice
    obs, info = step(pg, {"action": "upload_file", "files": ["data.csv"]})
    assert obs["last_action_error"] == "" and "file_chooser" not in info
    # the multiple field takes both
    click(pg, MANY)
    obs, info = step(pg, {"action": "upload_file", "files": ["data (1).csv", "data.csv"]})
    assert obs["last_action_error"] == ""
    obs, _ = click(pg, SEND)
    assert obs["title"] == "Uploaded"
    assert received(pg) == ["one: data.csv (8 bytes) a,b\n1,2\n", "many: data (1).csv (8 bytes) a,b\n1,2\n",
                            "many: data.csv (8 bytes) a,b\n1,2\n"]


def test_an_empty_choice_cancels_the_chooser_and_closing_removes_the_files(pg) -> None:  # noqa: ANN001
    pg.reset(seed=0)
    files = pg.core.episode.files
    click(pg, GET)
    folder = files.folder
    click(pg, ONE)
    obs, info = step(pg, {"action": "upload_file", "files": []})
    assert obs["last_action_error"] == "" and "file_chooser" not in info
    obs, _ = click(pg, SEND)  # nothing chosen: nothing arrives
    assert obs["title"] == "Uploaded" and received(pg) == []
    pg.run(pg.core.episode.close())
    assert not folder.exists()  # the episode's files go with it


def test_a_checkpoint_keeps_the_agents_files_and_a_branch_can_upload_them(pg, sbx_runtime, tmp_path) -> None:  # noqa: ANN001
    from sandbox.gym_env import SandboxEnv

    pg.reset(seed=0)
    click(pg, GET)
    click(pg, GET)
    pg.checkpoint(tmp_path / "cp")
    assert sorted(p.name for p in (tmp_path / "cp" / "files").iterdir()) == ["data (1).csv", "data.csv"]
    branch = SandboxEnv("playground", "/upload", "upload", runtime=sbx_runtime, budget=SettleBudget(action=15))
    try:
        obs, info = branch.reset(options={"checkpoint": tmp_path / "cp"})
        assert info["files"] == ["data (1).csv", "data.csv"]
        assert branch.core.episode.files.folder != pg.core.episode.files.folder  # its own copy
        click(branch, ONE)
        obs, info = step(branch, {"action": "upload_file", "files": ["data (1).csv"]})
        assert obs["last_action_error"] == ""
        obs, _ = click(branch, SEND)
        assert received(branch) == ["one: data (1).csv (8 bytes) a,b\n1,2\n"]
    finally:
        branch.close()
