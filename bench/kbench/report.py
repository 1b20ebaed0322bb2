"""Results: measurements, ratios, and the JSON and Markdown files under bench/results/.

Times are reported as the median of the interleaved repetitions with their min-max; the
ratio is `kestrel / other` for times (below 1.0 = KestrelDB faster) and `kestrel / other`
for throughput (above 1.0 = KestrelDB faster). Within 5 % either way is a tie. A row whose
systems do not do the same work (`compared=False`: Tier 1's native lines) shows its times but
no ratio, and is left out of the wins, the geometric mean and the slowest list.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

TIE_BAND = 0.05


@dataclass
class Measurement:
    median: float
    min: float
    max: float
    samples: list[float]
    # Tier 3 only: latency percentiles in ms.
    p50_ms: Optional[float] = None
    p99_ms: Optional[float] = None
    error: str = ""

    @staticmethod
    def of(samples: list[float]) -> "Measurement":
        return Measurement(statistics.median(samples), min(samples), max(samples), samples)

    @staticmethod
    def failed(error: str) -> "Measurement":
        return Measurement(math.nan, math.nan, math.nan, [], error=error)


@dataclass
class Row:
    name: str
    label: str
    group: str
    results: dict[str, Measurement] = field(default_factory=dict)
    verified: Optional[bool] = None
    unsupported: str = ""
    failure: str = ""
    # False: the systems' cells are not the same work, so no ratio is drawn from them.
    compared: bool = True

    def summary(self) -> str:
        return "  ".join(f"{s}={m.median:.1f}" if not m.error else f"{s}=ERROR({m.error})"
                         for s, m in self.results.items())


@dataclass
class Tier:
    key: str
    title: str
    systems: tuple[str, ...]
    unit: str  # "qps" (higher is better), or a time unit such as "ms" or "s" (lower is better)
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Named figures derived from the rows (tier 6: MB/s, ratios), kept in the JSON.
    figures: dict = field(default_factory=dict)
    # False when the tier compares KestrelDB with itself (tier 6): kept out of "furthest behind".
    against_others: bool = True

    @property
    def higher_is_better(self) -> bool:
        return self.unit == "qps"

    def ratio(self, row: Row, other: str) -> Optional[float]:
        if not row.compared:
            return None
        mine, theirs = row.results.get(self.systems[0]), row.results.get(other)
        if not mine or not theirs or mine.error or theirs.error or not theirs.median:
            return None
        return mine.median / theirs.median

    def verdict(self, ratio: float) -> str:
        if abs(ratio - 1.0) <= TIE_BAND:
            return "tie"
        faster = ratio > 1.0 if self.higher_is_better else ratio < 1.0
        return "win" if faster else "loss"

    def slowdown(self, row: Row) -> Optional[tuple[float, str]]:
        """How many times slower KestrelDB is than the best other system (>1 = we lose)."""
        worst = None
        for other in self.systems[1:]:
            r = self.ratio(row, other)
            if r is None:
                continue
            factor = 1 / r if self.higher_is_better else r
            if worst is None or factor > worst[0]:
                worst = (factor, other)
        return worst


def _fmt(value: float, unit: str) -> str:
    if math.isnan(value):
        return "—"
    if unit == "qps":
        return f"{value:,.0f}"
    return f"{value:,.1f}" if value >= 10 else f"{value:,.2f}"


def _cell(m: Optional[Measurement], unit: str) -> str:
    if m is None:
        return "—"
    if m.error:
        return f"error: {m.error[:80]}"
    text = f"{_fmt(m.median, unit)} ({_fmt(m.min, unit)}–{_fmt(m.max, unit)})"
    if m.p50_ms is not None:
        text += f"<br>p50 {m.p50_ms:.2f} / p99 {m.p99_ms:.2f} ms"
    return text


def _ratio_cell(tier: Tier, row: Row, other: str) -> str:
    if not row.compared:
        return "not compared"
    r = tier.ratio(row, other)
    return "—" if r is None else f"{r:.2f}× {tier.verdict(r)}"


def tier_markdown(tier: Tier) -> str:
    others = tier.systems[1:]
    unit = "QPS (min–max)" if tier.higher_is_better else f"{tier.unit} (min–max)"
    first = "KestrelDB" if tier.systems[0] == "kestrel" else tier.systems[0]
    direction = f"above 1.0 = {first} faster" if tier.higher_is_better else f"below 1.0 = {first} faster"
    lines = [f"## {tier.title}", ""]
    lines += [f"- {note}" for note in tier.notes]
    if others:
        lines.append(f"- Cells: median {unit}; ratio = {tier.systems[0]} / other ({direction}); ±5 % = tie.")
    else:
        lines.append(f"- Cells: median {unit}.")
    lines.append("")
    header = ["workload", *tier.systems, *(f"vs {o}" for o in others), "verified"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for row in tier.rows:
        if row.unsupported or row.failure:
            status = f"unsupported: {row.unsupported}" if row.unsupported else f"FAILED: {row.failure}"
            status = status.replace("|", "\\|").replace("\n", " ")[:300]
            lines.append(f"| {row.label} | {status} |" + " |" * (len(header) - 2))
            continue
        cells = [_cell(row.results.get(s), tier.unit) for s in tier.systems]
        ratios = [_ratio_cell(tier, row, o) for o in others]
        verified = {True: "yes", False: "NO", None: "not checked"}[row.verified]
        lines.append("| " + " | ".join([row.label, *cells, *ratios, verified]) + " |")
    lines.append("")
    lines.append(summary_markdown(tier))
    return "\n".join(lines)


def summary(tier: Tier) -> dict:
    out = {}
    for other in tier.systems[1:]:
        ratios = [r for row in tier.rows if (r := tier.ratio(row, other)) is not None]
        verdicts = [tier.verdict(r) for r in ratios]
        out[other] = {
            "compared": len(ratios),
            "wins": verdicts.count("win"),
            "ties": verdicts.count("tie"),
            "losses": verdicts.count("loss"),
            "geomean_ratio": math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else None,
        }
    out["unsupported"] = [row.name for row in tier.rows if row.unsupported]
    out["failed"] = [row.name for row in tier.rows if row.failure]
    return out


def summary_markdown(tier: Tier) -> str:
    s = summary(tier)
    lines = []
    for other in tier.systems[1:]:
        o = s[other]
        if not o["compared"]:
            continue
        lines.append(f"**vs {other}:** {o['wins']} wins, {o['ties']} ties, {o['losses']} losses of "
                     f"{o['compared']}; geometric-mean ratio {o['geomean_ratio']:.2f}×.")
    if s["unsupported"]:
        lines.append(f"**Unsupported by KestrelDB ({len(s['unsupported'])}):** {', '.join(s['unsupported'])}.")
    if s["failed"]:
        lines.append(f"**Failed ({len(s['failed'])}):** {', '.join(s['failed'])}.")
    return "\n\n".join(lines) + "\n"


def slowest(tiers: list[Tier], count: int = 3) -> list[dict]:
    """The workloads where KestrelDB is furthest behind the best other system."""
    found = []
    for tier in tiers:
        if not tier.against_others:
            continue
        for row in tier.rows:
            worst = tier.slowdown(row)
            if worst:
                found.append({"tier": tier.key, "workload": row.name, "label": row.label,
                              "times_slower": worst[0], "than": worst[1]})
    found.sort(key=lambda x: x["times_slower"], reverse=True)
    return found[:count]


def write(results_dir: Path, stamp: str, meta: dict, tiers: list[Tier]) -> tuple[Path, Path]:
    results_dir.mkdir(parents=True, exist_ok=True)
    data = {"meta": meta,
            "tiers": [{**asdict(t), "summary": summary(t)} for t in tiers],
            "slowest": slowest(tiers)}
    json_path = results_dir / f"{stamp}.json"
    json_path.write_text(json.dumps(data, indent=1, default=str) + "\n")
    md = [f"# KestrelDB benchmark run {stamp}", ""]
    md += [f"- {k}: {v}" for k, v in meta.items()]
    md.append("")
    worst = slowest(tiers)
    if worst:
        md.append("**Furthest behind the best other system:** " + "; ".join(
            f"{w['tier']} {w['workload']} ({w['times_slower']:.2f}× slower than {w['than']})" for w in worst)
            + ".")
        md.append("")
    md += [tier_markdown(t) for t in tiers]
    md_text = "\n".join(md)
    md_path = results_dir / f"{stamp}.md"
    md_path.write_text(md_text)
    return json_path, md_path
