"""Trajectories: the on-disk format of episodes (agents, replays, human demos), its writer and loader.

``EpisodeWriter`` writes one episode folder; ``RunDir`` a run of many with ``results.jsonl`` and
resume; ``LabelStore`` the human labels beside a run (``labels.jsonl``); ``load_episode`` /
``load_run`` read them back lazily. See ``format.py`` for the layout.
"""

from .format import (
    EPISODE_FILE,
    FORMAT,
    PARTIAL_SUFFIX,
    SCREENSHOTS_DIR,
    STEPS_FILE,
    AgentInfo,
    EpisodeRecord,
    StepRecord,
    Timings,
    episode_name,
    screenshot_name,
)
from .labels import LABELS_FILE, Label, LabelStore, rank_labels
from .loader import Episode, TrajectoryError, load_episode, read_jsonl
from .run import RESULTS_FILE, RUN_FILE, RunDir, RunExists, load_run
from .writer import EpisodeWriter, png_bytes, utc_now, write_atomic

__all__ = [
    "EPISODE_FILE", "FORMAT", "LABELS_FILE", "PARTIAL_SUFFIX", "RESULTS_FILE", "RUN_FILE", "SCREENSHOTS_DIR", "STEPS_FILE",
    "AgentInfo", "Episode", "Label", "LabelStore", "EpisodeRecord", "EpisodeWriter", "RunDir", "RunExists", "StepRecord", "Timings",
    "TrajectoryError", "episode_name", "load_episode", "load_run", "png_bytes", "rank_labels", "read_jsonl",
    "screenshot_name", "utc_now", "write_atomic",
]  # fmt: skip
