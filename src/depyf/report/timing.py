"""Compile time per frame and per stage, from the ``compile_time`` torch recorded in the manifest.

torch measures cumulative times (the frame's total includes its backend call, AOTAutograd's
includes Inductor's); a reader wants to see where the time went, so each stage here is its own
share: Dynamo = total - backend, AOTAutograd = backend - Inductor, Inductor = Inductor (or, with a
backend other than Inductor, one share for the whole backend call), plus, for training, Inductor's lazy compilation of the backward graph at the first backward call.
"""
from typing import Any, Dict, List, Optional

# (key, label, colour) of each stage, in the order a compilation goes through them.
STAGES = (
    ("dynamo", "Dynamo", "#60a5fa"),
    ("aot", "AOTAutograd", "#a78bfa"),
    ("inductor", "Inductor", "#f472b6"),
    ("other_backend", "backend (not Inductor)", "#94a3b8"),
    ("backward", "backward (Inductor)", "#fb923c"),
)


def _num(phase: Dict[str, Any], key: str) -> Optional[float]:
    value = phase.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else None


class StageTimes:
    """The own seconds of each stage of one cache entry's compilation (None: not recorded)."""

    def __init__(self, compile_time: Any) -> None:
        compile_time = compile_time if isinstance(compile_time, dict) else {}
        forward = compile_time.get("forward") if isinstance(compile_time.get("forward"), dict) else {}
        backward = compile_time.get("backward") if isinstance(compile_time.get("backward"), dict) else {}
        total = _num(forward, "total_s")
        backend = _num(forward, "backend_s")
        aot = _num(forward, "aot_autograd_s")
        inductor = _num(forward, "inductor_s")
        self.stages: Dict[str, Optional[float]] = dict.fromkeys(k for k, _, _ in STAGES)
        if total is not None:
            self.stages["dynamo"] = max(total - (backend or 0.0), 0.0)
        if inductor is not None:
            # torch times the whole backend call as AOTAutograd's: its own share is what
            # Inductor, called from inside it, did not spend.
            self.stages["inductor"] = inductor
            outer = aot if aot is not None else backend
            if outer is not None:
                self.stages["aot"] = max(outer - inductor, 0.0)
        elif backend is not None:
            # No Inductor (a backend such as "eager" or "aot_eager"): one share for the backend.
            self.stages["other_backend"] = backend
        backward_total = _num(backward, "total_s")
        self.stages["backward"] = backward_total if backward_total is not None else _num(backward, "inductor_s")
        self.failure = str(forward.get("failure") or "")

    @property
    def recorded(self) -> bool:
        return any(v is not None for v in self.stages.values())

    @property
    def total(self) -> float:
        return sum(v for v in self.stages.values() if v is not None)


def seconds(value: Optional[float]) -> str:
    """``1.23 s``, ``45 ms``, ``0.3 ms``; an en dash where torch recorded nothing."""
    if value is None:
        return "\u2013"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 0.01:
        return f"{value * 1000:.0f} ms"
    return f"{value * 1000:.1f} ms"


def bar_html(times: StageTimes, scale: float) -> str:
    """A horizontal bar, one coloured part per stage, as wide as the time relative to ``scale``."""
    if scale <= 0:
        return ""
    parts = []
    for key, label, colour in STAGES:
        value = times.stages.get(key)
        if not value:
            continue
        width = 100.0 * value / scale
        parts.append(
            f'<span class="stage stage-{key}" style="width:{width:.2f}%;background:{colour}" '
            f'title="{label}: {seconds(value)}"></span>'
        )
    return f'<div class="time-bar">{"".join(parts)}</div>'


def legend_html() -> str:
    return "".join(
        f'<span class="stage-key"><span style="background:{colour}"></span>{label}</span>' for _, label, colour in STAGES
    )


def stage_cells(times: StageTimes) -> List[str]:
    return [seconds(times.stages.get(key)) for key, _, _ in STAGES]
