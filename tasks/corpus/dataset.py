"""Export a corpus folder as a Hugging Face dataset: ``data/train-00000-of-00001.parquet`` (written
with pyarrow, which ``datasets`` itself depends on; JSONL when pyarrow is missing) and a ``README.md``
dataset card with the YAML header the Hub reads (licence, tags, size, the data files of the split).

Nested values (the parameters, the rendered verifier spec) are JSON strings, so every row has the
same columns whatever its template; ``json.loads`` gives them back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .card import card_markdown, write_card
from .files import INSTANCES, CorpusDir, CorpusError

FORMATS = ("hf",)
SPLIT_STEM = "train-00000-of-00001"

# (column, pyarrow type name, description) for the fixed columns; tag columns are added per tag kind.
COLUMNS: list[tuple[str, str, str]] = [
    ("id", "string", "the template, qualified by its app (`crm.opportunity-close-won`)"),
    ("task", "string", "the template's own id"),
    ("app", "string", "the app the task starts in"),
    ("seed", "int64", "the world seed: the world and the parameters are drawn from it"),
    ("title", "string", "the template's title"),
    ("instruction", "string", "what the agent is asked to do"),
    ("persona", "string", "the username the agent works as"),
    ("start_url", "string", "the page the episode starts on (a path on the app's host)"),
    ("max_steps", "int64", "the step limit of the episode"),
    ("category", "string", "the kind of task"),
    ("difficulty", "string", "easy, medium or hard"),
    ("interfaces", "list<string>", "how an agent may work: gui, tools"),
    ("params", "string", "the drawn parameters (JSON)"),
    ("verifier", "string", "the verifier spec with the parameters filled in (JSON)"),
    ("oracle_steps", "int64", "environment steps of the oracle's proven episode"),
    ("tool_oracle_steps", "int64", "tool calls of the tool oracle's episode (tasks that allow tools), else null"),
    ("proof", "string", "full (every near-miss and adversary played) or core (see the card)"),
    ("template_version", "string", "hash of the template file and its macros that was proved"),
    ("world_version", "string", "the digest of the seed's world the instance was proven in (apps_web.world.digest)"),
]


def rows(corpus: CorpusDir) -> tuple[list[dict[str, Any]], list[str]]:
    """The export's rows (one per proven instance, ordered by template and seed) and the tag kinds."""
    records = sorted(corpus.decided(INSTANCES), key=lambda r: (r["id"], int(r["seed"])))
    tag_kinds = sorted({k for r in records for k in (r.get("tags") or {})})
    out = []
    for r in records:
        row = {c: r.get(c) for c, _, _ in COLUMNS}
        row.update(params=json.dumps(r.get("params"), sort_keys=True, default=str),
                   verifier=json.dumps(r.get("verifier"), sort_keys=True, default=str),
                   proof=(r.get("proof") or {}).get("level"), interfaces=list(r.get("interfaces") or []))
        for kind in tag_kinds:
            row[f"{kind}_tags"] = list((r.get("tags") or {}).get(kind) or [])
        out.append(row)
    return out, tag_kinds


def _write_parquet(path: Path, data: list[dict[str, Any]], tag_kinds: list[str]) -> bool:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return False
    types = {"string": pa.string(), "int64": pa.int64(), "list<string>": pa.list_(pa.string())}
    fields = [pa.field(c, types[t]) for c, t, _ in COLUMNS] + [pa.field(f"{k}_tags", pa.list_(pa.string())) for k in tag_kinds]
    schema = pa.schema(fields)
    table = pa.Table.from_pylist(data, schema=schema)
    pq.write_table(table, path)
    return True


def _size_category(n: int) -> str:
    for bound, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < bound:
            return name
    return "1M<n<10M"


def dataset_readme(card: dict[str, Any], data_path: str, tag_kinds: list[str]) -> str:
    apps = sorted(card["by_app"])
    header = "\n".join([
        "---",
        "pretty_name: CUA Sandbox task corpus",
        "license: apache-2.0",
        "language:",
        "- en",
        "task_categories:",
        "- reinforcement-learning",
        "tags:",
        "- computer-use",
        "- web-agents",
        "- enterprise-apps",
        *(f"- {a}" for a in apps),
        "size_categories:",
        f"- {_size_category(card['instances'])}",
        "configs:",
        "- config_name: default",
        "  data_files:",
        "  - split: train",
        f"    path: {data_path}",
        "---",
    ])  # fmt: skip
    columns = [(c, t, d) for c, t, d in COLUMNS] + [(f"{k}_tags", "list<string>", f"the template's {k} tags") for k in tag_kinds]
    fields = "\n".join(f"| `{c}` | {t} | {d} |" for c, t, d in columns)
    body = card_markdown(card).split("\n", 1)[1]  # the card without its title
    return f"""{header}

# CUA Sandbox task corpus

Task instances for computer-use agents on the CUA Sandbox's cloned enterprise web apps
({", ".join(apps)}). Each row is one task template drawn with one world seed: the instruction, the
persona to work as, the start page, the step limit and the verifier that grades the episode. Every
instance is proven: its oracle solution passes with score 1 and its wrong solutions fail (below).
An episode of a row is started with the sandbox: `env = gym.make("sandbox/" + row["id"])`, then
`env.reset(seed=row["seed"])` (or `sandbox run -t ID -s SEED`); the world is rebuilt from the seed, so
rows hold no world data.

## Columns

| column | type | meaning |
|---|---|---|
{fields}
{body}"""


def export(corpus_dir: Path | str, out: Path | str, *, format: str = "hf") -> dict[str, Any]:
    """Write the export; returns what was written (``rows``, ``data`` file, ``format``)."""
    if format not in FORMATS:
        raise CorpusError(f"unknown export format {format!r}: use one of {', '.join(FORMATS)}")
    corpus = CorpusDir(corpus_dir)
    card = write_card(corpus)
    data, tag_kinds = rows(corpus)
    if not data:
        raise CorpusError(f"{corpus_dir} holds no proven instance to export (build it first: sandbox corpus build)")
    out = Path(out)
    (out / "data").mkdir(parents=True, exist_ok=True)
    path = out / "data" / f"{SPLIT_STEM}.parquet"
    if _write_parquet(path, data, tag_kinds):
        kind = "parquet"
    else:  # pyarrow missing: JSON lines, which the Hub and datasets read too
        kind = "jsonl"
        path = out / "data" / f"{SPLIT_STEM}.jsonl"
        path.write_text("".join(json.dumps(r, default=str) + "\n" for r in data))
    (out / "README.md").write_text(dataset_readme(card, f"data/train-*.{kind}", tag_kinds))
    return {"rows": len(data), "data": str(path), "format": kind}
