"""The data card of a corpus folder (``card.json`` and ``CARD.md``), computed from its logs alone, so
``sandbox corpus card DIR`` regenerates it at any time (also while a build is running)."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

import orjson

from .policy import DEFAULT_FULL_SEEDS, Policy
from .files import CARD_JSON, CARD_MD, DUPLICATES, INSTANCES, CorpusDir

# A template whose instructions repeat this much (distinct instructions / proven instances at or
# below it) differs between seeds only by its world: listed on the card.
SAME_INSTRUCTION_SHARE = 0.5


def _number(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


def _counts(values: list[str]) -> dict[str, int]:
    return dict(sorted(Counter(values).items()))


def compute_card(corpus: CorpusDir) -> dict[str, Any]:
    proven = corpus.decided(INSTANCES)
    failed = corpus.failures()
    dups = corpus.decided(DUPLICATES)
    builds = corpus.builds()
    templates: dict[str, dict[str, Any]] = {}

    def row(r: dict[str, Any]) -> dict[str, Any]:
        return templates.setdefault(r["id"], {
            "app": r.get("app", ""), "category": "", "difficulty": "", "proven": 0, "failed": 0, "duplicates": 0,
            "seeds": 0, "distinct_params": 0, "distinct_instructions": 0, "full_proofs": 0, "oracle_steps_median": None,
        })  # fmt: skip

    keys: dict[str, set[str]] = {}
    instructions: dict[str, set[str]] = {}
    steps: dict[str, list[int]] = {}
    for r in proven:
        t = row(r)
        t.update(category=r["category"], difficulty=r["difficulty"])
        t["proven"] += 1
        t["full_proofs"] += r.get("proof", {}).get("level") == "full"
        keys.setdefault(r["id"], set()).add(r["key"])
        instructions.setdefault(r["id"], set()).add(r["instruction"])
        if r.get("oracle_steps") is not None:
            steps.setdefault(r["id"], []).append(int(r["oracle_steps"]))
    for r in failed:
        row(r)["failed"] += 1
        if r.get("key"):
            keys.setdefault(r["id"], set()).add(r["key"])
    for r in dups:
        row(r)["duplicates"] += 1
        keys.setdefault(r["id"], set()).add(r["key"])  # its lower seed's key (that one may still be in flight)
    for tid, t in templates.items():
        t["seeds"] = t["proven"] + t["failed"] + t["duplicates"]
        t["distinct_params"] = len(keys.get(tid, ()))
        t["distinct_instructions"] = len(instructions.get(tid, ()))
        if steps.get(tid):
            t["oracle_steps_median"] = _number(statistics.median(steps[tid]))

    small_pool = [{"id": tid, "distinct": t["distinct_params"], "seeds": t["seeds"], "duplicates": t["duplicates"]}
                  for tid, t in sorted(templates.items()) if t["duplicates"]]
    same_instruction = [{"id": tid, "distinct_instructions": t["distinct_instructions"], "proven": t["proven"]}
                        for tid, t in sorted(templates.items())
                        if t["proven"] > 1 and t["distinct_instructions"] <= SAME_INSTRUCTION_SHARE * t["proven"]]
    all_steps = [int(r["oracle_steps"]) for r in proven if r.get("oracle_steps") is not None]
    cost = {}
    for level in ("full", "core"):
        secs = [r["proof"]["seconds"] for r in proven if r.get("proof", {}).get("level") == level and "seconds" in r["proof"]]
        eps = [len(r["proof"]["solutions"]) for r in proven if r.get("proof", {}).get("level") == level]
        if secs:
            cost[level] = {"instances": len(secs), "episodes_mean": round(statistics.mean(eps), 1),
                           "episode_seconds_mean": round(statistics.mean(secs), 1)}
    policy = Policy(**builds[-1]["policy"]) if builds and builds[-1].get("policy") else Policy(DEFAULT_FULL_SEEDS)
    wall = sum(b.get("prove_s", 0) + b.get("render_s", 0) for b in builds)
    decided = sum(b.get("proven", 0) + b.get("failed", 0) for b in builds)
    return {
        "instances": len(proven),
        "failed": len(failed),
        "duplicates": len(dups),
        "templates": len(templates),
        "templates_with_instances": sum(1 for t in templates.values() if t["proven"]),
        "proof": {"policy": policy.describe(), "full_seeds": policy.full_seeds,
                  "full": sum(1 for r in proven if r.get("proof", {}).get("level") == "full"),
                  "core": sum(1 for r in proven if r.get("proof", {}).get("level") != "full"), "cost": cost},
        "by_app": _counts([r["app"] for r in proven]),
        "by_category": _counts([r["category"] for r in proven]),
        "by_difficulty": _counts([r["difficulty"] for r in proven]),
        "by_interfaces": _counts(["+".join(r["interfaces"]) for r in proven]),
        "oracle_steps": ({"min": min(all_steps), "median": _number(statistics.median(all_steps)), "max": max(all_steps)} if all_steps else None),
        "per_template": dict(sorted(templates.items())),
        "small_pool": small_pool,
        "same_instruction": same_instruction,
        "failures": [{"id": r["id"], "seed": r["seed"], "stage": r.get("stage", ""), "reasons": r.get("reasons", [])}
                     for r in sorted(failed, key=lambda r: (r["id"], r["seed"]))],
        "seeds": sorted({int(r["seed"]) for r in proven + failed + dups}),
        "worlds": [list(p) for p in sorted({(int(r["seed"]), r["world_version"]) for r in proven if r.get("world_version")})],
        "builds": {"runs": len(builds), "seconds": round(wall, 1), "decided": decided,
                   "instances_per_min": round(60 * decided / wall, 2) if wall else None},
    }  # fmt: skip


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join("" if v is None else str(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def seed_ranges(seeds: list[int]) -> str:
    """Seeds as ranges: 0-9,12."""
    parts: list[str] = []
    for s in sorted(seeds):
        if parts and "-" in parts[-1] and int(parts[-1].split("-")[1]) == s - 1:
            parts[-1] = f"{parts[-1].split('-')[0]}-{s}"
        elif parts and "-" not in parts[-1] and int(parts[-1]) == s - 1:
            parts[-1] = f"{parts[-1]}-{s}"
        else:
            parts.append(str(s))
    return ",".join(parts)


def card_markdown(card: dict[str, Any]) -> str:
    out = [
        "# Task corpus: data card", "",
        f"**{card['instances']} proven instances** of {card['templates_with_instances']} templates "
        f"(seeds {seed_ranges(card['seeds']) or 'none'}); {card['failed']} failed, {card['duplicates']} duplicates left out.", "",
        "## What \"proven\" means", "", card["proof"]["policy"], "",
        f"Instances with the full proof: {card['proof']['full']}; with the core proof: {card['proof']['core']}.", "",
        *([_table(["proof", "instances", "episodes per instance", "episode seconds per instance"],
                  [[k, v["instances"], v["episodes_mean"], v["episode_seconds_mean"]] for k, v in card["proof"]["cost"].items()]), ""]
          if card["proof"]["cost"] else []),
        "## Instances", "",
    ]  # fmt: skip
    for title, key in (("App", "by_app"), ("Category", "by_category"), ("Difficulty", "by_difficulty"), ("Interfaces", "by_interfaces")):
        out += [_table([title.lower(), "instances"], [[k, v] for k, v in card[key].items()]), ""]
    if card["oracle_steps"]:
        s = card["oracle_steps"]
        out += [f"Oracle length (environment steps): min {s['min']}, median {s['median']}, max {s['max']}.", ""]
    out += ["## Per template", "",
            _table(["template", "app", "category", "difficulty", "proven", "failed", "duplicates", "distinct params",
                    "distinct instructions", "full proofs", "oracle steps (median)"],
                   [[tid, t["app"], t["category"], t["difficulty"], t["proven"], t["failed"], t["duplicates"], t["distinct_params"],
                     t["distinct_instructions"], t["full_proofs"], t["oracle_steps_median"]] for tid, t in card["per_template"].items()]),
            ""]  # fmt: skip
    out += ["## Small parameter pools", "",
            "Templates whose seeds repeated an instance (same instruction, start page and parameters as a lower seed):", ""]
    out += [_table(["template", "distinct instances", "seeds tried", "duplicates"],
                   [[r["id"], r["distinct"], r["seeds"], r["duplicates"]] for r in card["small_pool"]]) if card["small_pool"] else "None.", ""]
    out += [f"Templates whose instruction repeats across seeds (distinct instructions at most {SAME_INSTRUCTION_SHARE:.0%} of "
            "their instances; the instances differ by their world and parameters):", ""]
    out += [_table(["template", "distinct instructions", "instances"],
                   [[r["id"], r["distinct_instructions"], r["proven"]] for r in card["same_instruction"]]) if card["same_instruction"] else "None.", ""]
    out += ["## Failures", "", "Left out of the corpus:", ""]
    if card["failures"]:
        out += [_table(["template", "seed", "stage", "reason"],
                       [[f["id"], f["seed"], f["stage"], "; ".join(f["reasons"])[:300].replace("|", "/").replace("\n", " ")] for f in card["failures"]]), ""]
    else:
        out += ["None.", ""]
    b = card["builds"]
    out += ["## Build", "", f"{b['runs']} run(s), {b['seconds']} s, {b['decided']} instances decided"
            + (f" ({b['instances_per_min']} instances/min)." if b["instances_per_min"] else "."),
            "Worlds (seed: digest): " + (", ".join(f"{s}: {d}" for s, d in card["worlds"]) or "none") + ".", ""]
    return "\n".join(out)


def write_card(corpus: CorpusDir) -> dict[str, Any]:
    card = compute_card(corpus)
    corpus.write(CARD_JSON, orjson.dumps(card, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode() + "\n")
    corpus.write(CARD_MD, card_markdown(card))
    return card
