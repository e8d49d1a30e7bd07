"""Compute Engine's capacity advice (``gpujob.gcp.advice``) in words, as every service's
``gpus --availability`` and ``preflight --availability`` print it: the score with its zones,
Spot's estimated uptime and preemption rate, one line per choice, the header that says for
whose VMs it is, and the one warning when it could not be had (advice never blocks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpujob.gcp.advice import Capacity


def score(c: Capacity | None) -> str:
    """``0.9 (us-central1-a)``; ``no answer`` when the advice gave no score."""
    if c is None or c.obtainability is None:
        return "no answer"
    return f"{c.obtainability:.1f}" + (f" ({', '.join(c.zones)})" if c.zones else "")


def uptime(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds / 3600:g} h" if seconds >= 3600 else f"{seconds / 60:g} min"


def warning(why: str, stopped: bool = True) -> str:
    """The one warning of a run whose advice could not (all) be had."""
    return ("warning: Compute Engine's capacity advice could not be had" +
            (" (nothing more was asked)" if stopped else " for some choices") +
            f": {why}; shown without it (the advice never blocks)")


def line(what: str, got: Capacity | None, preempted: tuple[float, str] | None = None) -> str:
    """One choice's preflight line (``what``: ``3 × a3-highgpu-8g in us-east4/SPOT``), with
    Spot's estimated uptime and the newest day's preemption rate where given."""
    if got is None or got.obtainability is None:
        return f"  capacity advice: {what}: no answer"
    extra = f", Spot uptime about {uptime(got.uptime_s)}" if got.uptime_s is not None else ""
    if preempted is not None:
        extra += f", {preempted[0]:.0%} of Spot VMs preempted on {preempted[1]}"
    return f"  capacity advice: {what}: obtainable {score(got)}{extra}"


def header(project: str, whose: str) -> str:
    """The line before a preflight's advice lines; ``whose``: for whose VMs it is."""
    return (f"Compute Engine's capacity advice (advice.capacity, in Preview) in project "
            f"{project}, 0.0 to 1.0, higher is better; {whose}; advice only, never a block:")
