"""How well the verifier agrees with people: its ``passed`` and ``score`` (from ``results.jsonl``)
against the labels graders gave in the viewer (``labels.jsonl``), per task template and overall.

- **accuracy**: the share of (episode, grader) judgements where the verifier's passed equals the grader's.
- **Cohen's kappa**: that agreement corrected for chance, ``(po - pe) / (1 - pe)``; undefined when
  ``pe`` is 1 (the verifier and the graders put every episode in the same class).
- **Kendall's tau** (tau-b, ``scipy.stats.kendalltau``) between the verifier's scores and the people's
  order: by rank where a grader ranked the template's episodes (each grader's latest ranking of it;
  several are combined by their number of pairs), else by the graders' scores. Overall: the rankings
  combined the same way (rank), and the scores pooled over every template (score).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable

from sandbox.trajectory import TrajectoryError, read_jsonl

from .runs import DEFAULT_URL, episode_path, load_runs


class AgreementError(ValueError):
    """Runs that cannot be compared with labels; the message says which folder and what to do."""


@dataclass
class Judgement:
    """One grader's label of one episode beside the verifier's verdict."""

    run: str  # the run's key in the viewer
    episode: str
    template: str
    seed: int
    grader: str
    verifier_passed: bool
    verifier_score: float
    human_passed: bool | None
    human_score: float | None
    rank: int | None
    ranking: str | None
    comment: str | None
    time: str
    url: str


def cohen_kappa(pairs: list[tuple[bool, bool]]) -> tuple[float | None, str | None]:
    """Kappa of (verifier, human) verdicts, or None and why it is undefined."""
    n = len(pairs)
    if not n:
        return None, "no pass/fail labels"
    po = sum(a == b for a, b in pairs) / n
    pv = sum(a for a, _ in pairs) / n
    ph = sum(b for _, b in pairs) / n
    pe = pv * ph + (1 - pv) * (1 - ph)
    if pe >= 1 - 1e-12:
        return None, f"undefined: the verifier and the graders {'passed' if pv else 'failed'} every episode (one class, no chance correction possible)"
    return (po - pe) / (1 - pe), None


def kendall(x: list[float], y: list[float]) -> tuple[float | None, str | None]:
    """Kendall's tau-b, or None and why it is undefined."""
    from scipy.stats import kendalltau

    if len(x) < 2:
        return None, "fewer than 2 episodes"
    if len(set(x)) < 2:
        return None, "undefined: the verifier gave every episode the same score"
    if len(set(y)) < 2:
        return None, "undefined: the people gave every episode the same grade"
    tau = kendalltau(x, y).statistic
    return (None, "undefined") if math.isnan(tau) else (float(tau), None)


def _pair_weighted(groups: list[tuple[float, int]]) -> float | None:
    """Mean of taus weighted by their number of pairs (one ranking of n episodes has n(n-1)/2)."""
    weights = [(tau, n * (n - 1) / 2) for tau, n in groups]
    total = sum(w for _, w in weights)
    return sum(t * w for t, w in weights) / total if total else None


def _rankings(items: list[Judgement]) -> list[list[Judgement]]:
    """Each (template, grader)'s latest ranking: the judgements that share its ranking id."""
    by_id: dict[str, list[Judgement]] = {}
    for j in items:
        if j.rank is not None:
            by_id.setdefault(j.ranking or f"{j.template}@{j.grader}", []).append(j)
    latest: dict[tuple[str, str], list[Judgement]] = {}
    for group in by_id.values():
        if len(group) < 2:
            continue
        key = (group[0].template, group[0].grader)
        when = max(j.time for j in group)
        if key not in latest or when > max(j.time for j in latest[key]):
            latest[key] = group
    return list(latest.values())


def block(items: list[Judgement], episodes: int) -> dict[str, Any]:
    """The numbers of one template (or all of them)."""
    judged = [j for j in items if j.human_passed is not None]
    pairs = [(j.verifier_passed, bool(j.human_passed)) for j in judged]
    agree = sum(a == b for a, b in pairs)
    kappa, kappa_note = cohen_kappa(pairs)
    rank_groups, rank_notes = [], []
    for group in _rankings(items):
        tau, note = kendall([j.verifier_score for j in group], [-float(j.rank or 0) for j in group])
        if tau is None:
            rank_notes.append(note)
        else:
            rank_groups.append((tau, len(group)))
    tau_rank = _pair_weighted(rank_groups)
    scored = [j for j in items if j.human_score is not None]
    tau_score, score_note = kendall([j.verifier_score for j in scored], [float(j.human_score or 0) for j in scored])
    basis = "rank" if tau_rank is not None else "score" if tau_score is not None else None
    return {
        "episodes": episodes,
        "labelled": len({(j.run, j.episode) for j in items}),
        "judgements": len(judged),
        "agree": agree,
        "accuracy": agree / len(judged) if judged else None,
        "kappa": kappa,
        "kappa_note": kappa_note,
        "confusion": {  # verifier x human
            "both_passed": sum(1 for a, b in pairs if a and b), "both_failed": sum(1 for a, b in pairs if not a and not b),
            "verifier_only_passed": sum(1 for a, b in pairs if a and not b), "human_only_passed": sum(1 for a, b in pairs if b and not a),
        },  # fmt: skip
        "verifier_pass_rate": sum(a for a, _ in pairs) / len(pairs) if pairs else None,
        "human_pass_rate": sum(b for _, b in pairs) / len(pairs) if pairs else None,
        "tau": tau_rank if basis == "rank" else tau_score,
        "tau_basis": basis,
        "tau_rank": tau_rank,
        "tau_rank_episodes": sum(n for _, n in rank_groups),
        "tau_score": tau_score,
        "tau_score_episodes": len(scored),
        "tau_note": None if basis else (rank_notes[0] if rank_notes else score_note),
    }


def _results(path: Path) -> dict[str, dict[str, Any]]:
    """The run's results by episode id (the later line wins, as in the viewer)."""
    try:
        return {r["id"]: r for r in read_jsonl(path) if r.get("id")}
    except TrajectoryError as exc:
        raise AgreementError(str(exc)) from None


def report(paths: Iterable[Path | str], *, grader: str | None = None, base_url: str = DEFAULT_URL) -> dict[str, Any]:
    """Agreement of the runs' verifier verdicts with their human labels (a JSON-ready dict)."""
    paths = list(paths)
    if not paths:
        raise AgreementError("give at least one run folder")
    try:
        runs = load_runs(paths)
    except TrajectoryError as exc:
        raise AgreementError(f"{exc}; give a run folder written by `sandbox run`") from None
    base_url = base_url.rstrip("/")
    items: list[Judgement] = []
    episodes: dict[str, int] = {}
    unmatched = 0
    for rv in runs:
        results = _results(rv.run.results_path)
        if not results:
            raise AgreementError(f"{rv.path} has no results (no {rv.run.results_path.name} or it is empty): "
                                 "finish the run with `sandbox run ... --out` (or --resume) first")  # fmt: skip
        if not rv.labels.exists():
            raise AgreementError(f"{rv.path} has no labels ({rv.labels.path.name}): grade it with "
                                 f"`sandbox view {rv.path} --grade --grader NAME` first")  # fmt: skip
        try:
            latest = rv.labels.latest()
        except TrajectoryError as exc:
            raise AgreementError(str(exc)) from None
        graders = sorted({g for _, g in latest})
        if grader and grader not in graders:
            raise AgreementError(f"{rv.labels.path} has no labels by {grader!r}; its graders: {', '.join(graders) or 'none'}")
        for r in results.values():
            episodes[str(r.get("task"))] = episodes.get(str(r.get("task")), 0) + 1
        for (episode_id, g), label in sorted(latest.items()):
            if grader and g != grader:
                continue
            r = results.get(episode_id)
            if r is None:
                unmatched += 1
                continue
            items.append(Judgement(
                run=rv.key, episode=episode_id, template=str(r.get("task")), seed=int(r.get("seed") or 0), grader=g,
                verifier_passed=bool(r.get("passed")), verifier_score=float(r.get("score") or 0.0),
                human_passed=label.passed, human_score=label.score, rank=label.rank, ranking=label.ranking,
                comment=label.comment, time=label.time, url=base_url + episode_path(rv.key, episode_id),
            ))  # fmt: skip
    templates = sorted({j.template for j in items})
    disagreements = [j for j in items if j.human_passed is not None and j.human_passed != j.verifier_passed]
    return {
        "runs": [{"key": rv.key, "path": str(rv.path)} for rv in runs],
        "grader": grader,
        "graders": sorted({j.grader for j in items}),
        "viewer": f"sandbox view {' '.join(str(p) for p in paths)}",
        "overall": block(items, sum(episodes.values())),
        "templates": {t: block([j for j in items if j.template == t], episodes.get(t, 0)) for t in templates},
        "disagreements": [asdict(j) for j in sorted(disagreements, key=lambda j: (j.template, j.seed, j.run, j.grader))],
        "labels_without_result": unmatched,
    }


def _fmt(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def render(rep: dict[str, Any], console: Any) -> None:
    """The report as rich tables: per template and overall, then every disagreement with its link."""
    from rich import box
    from rich.table import Table

    who = f"grader {rep['grader']}" if rep["grader"] else f"{len(rep['graders'])} grader(s): {', '.join(rep['graders'])}"
    table = Table(title=f"Verifier vs people ({who}; runs {', '.join(r['key'] for r in rep['runs'])})", title_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False)  # fmt: skip
    table.add_column("template", no_wrap=True)
    for col in ("episodes", "judged", "agree", "accuracy", "kappa", "tau", "verifier pass", "human pass"):
        table.add_column(col, justify="right", no_wrap=col == "tau")

    def row(name: str, b: dict[str, Any], style: str | None = None) -> None:
        tau = f"{_fmt(b['tau'])} ({b['tau_basis']})" if b["tau_basis"] else "–"
        pct = lambda v: "–" if v is None else f"{100 * v:.0f}%"  # noqa: E731
        table.add_row(name, str(b["episodes"]), str(b["judgements"]), str(b["agree"]), pct(b["accuracy"]),
                      _fmt(b["kappa"]), tau, pct(b["verifier_pass_rate"]), pct(b["human_pass_rate"]), style=style)  # fmt: skip

    for name, b in rep["templates"].items():
        row(name, b)
    table.add_section()
    row("overall", rep["overall"], style="bold")
    console.print(table)
    o = rep["overall"]
    if o["tau_rank"] is not None and o["tau_score"] is not None:
        console.print(f"tau overall: {_fmt(o['tau_rank'])} by rank ({o['tau_rank_episodes']} ranked episodes), "
                      f"{_fmt(o['tau_score'])} by score ({o['tau_score_episodes']} scored)")  # fmt: skip
    notes = [(n, b["kappa_note"]) for n, b in [*rep["templates"].items(), ("overall", o)] if b["kappa_note"] and b["judgements"]]
    for name, note in notes:
        console.print(f"[dim]kappa {name}: {note}[/]")
    for name, b in [*rep["templates"].items(), ("overall", o)]:
        if b["tau_note"]:
            console.print(f"[dim]tau {name}: {b['tau_note']}[/]")
    if rep["labels_without_result"]:
        console.print(f"[yellow]{rep['labels_without_result']} label(s) name episodes without a result line; they were left out[/]")
    if not rep["disagreements"]:
        console.print("No disagreements.")
        return
    console.print(f"Disagreements ({len(rep['disagreements'])}), to open in `{rep['viewer']}`:")
    verdict = lambda p, s: f"{'pass' if p else 'fail'}" + ("" if s is None else f" {s:.2f}")  # noqa: E731
    for d in rep["disagreements"]:
        comment = f' "{d["comment"]}"' if d["comment"] else ""
        console.print(f"  {d['template']} seed {d['seed']} ({d['run']}, {d['grader']}): verifier {verdict(d['verifier_passed'], d['verifier_score'])}, "
                      f"human {verdict(d['human_passed'], d['human_score'])}{comment}", soft_wrap=True, highlight=False)  # fmt: skip
        console.print(f"    {d['url']}", soft_wrap=True, highlight=False)
