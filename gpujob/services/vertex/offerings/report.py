"""What ``gpujob gpus --service vertex`` prints: with no filter, a table of the GPU types (API
name, machine types by family, counts, end of support); with filters, the ``gpujob gpus`` table
(GPU, count, machine types, regions or zones); or JSON (version 1) of the same records."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from gpujob.console import CONSOLE, dumps
from gpujob.services.offerings import Filters, report_miss, table_width
from gpujob.services.vertex.catalog import VertexCatalog
from gpujob.services.vertex.offerings import (
    Offering,
    alternatives,
    gpu_types,
    groups,
    machines_by_gpu,
    query,
    related,
    unlisted,
)
from gpujob.services.vertex.offerings.table import DEFAULT_ASK, PriceAsk
from gpujob.services.vertex.records import Accelerator, region_of
from gpujob.suggest import and_list

REPORT_VERSION = 1
PROXY = ("where Compute Engine lists the machine type or GPU (the catalog's zone proxy, read on "
         "{date}): a proxy for where Vertex AI offers it, not its own list, and no promise of "
         "quota or capacity")

Row = tuple[str, ...] | None  # None: a blank line


def _lines(rows: Sequence[Row], widths: Sequence[int]) -> list[str]:
    """Rows as columns of these widths, each cell wrapped at its column's width."""
    out = []
    for row in rows:
        if row is None:
            out.append("")
            continue
        cells = [textwrap.wrap(c, w, break_on_hyphens=False) or [""]
                 for c, w in zip(row, widths, strict=True)]
        for i in range(max(map(len, cells))):
            out.append("  ".join((c[i] if i < len(c) else "").ljust(w)
                                 for c, w in zip(cells, widths, strict=True)).rstrip())
    return out


def _fit(rows: Sequence[Row], fixed: int, shares: Sequence[int], cap: int | None = None
         ) -> list[int]:
    """Widths: the first ``fixed`` columns as wide as their widest cell, the others sharing
    what the terminal leaves in these proportions (column ``cap`` no wider than its cells)."""
    real = [r for r in rows if r is not None]
    widest = [max(len(r[i]) for r in real) for i in range(len(real[0]))]
    widths = widest[:fixed]
    rest = table_width() - sum(widths) - 2 * (len(widest) - 1)
    for i, share in enumerate(shares, start=fixed):
        width = max(20, rest * share // sum(shares[i - fixed:]) if i < len(widest) - 1 else rest)
        widths.append(min(width, widest[i]) if i == cap else width)
        rest -= widths[-1]
    return widths


def _notes(lines: Sequence[str]) -> str:
    width = table_width()
    return "\n".join(textwrap.fill(line, width, subsequent_indent="  ",
                                   break_on_hyphens=False, break_long_words=False)
                     for line in lines) + "\n"


def _support_notes(cat: VertexCatalog, shown: Sequence[Accelerator]) -> list[str]:
    out = []
    for acc in shown:
        if acc.retired:
            out.append(f"* {acc.name}: retired: {acc.retired}")
        elif acc.end_of_support:
            then = cat.accelerators.get(acc.replacement or "")
            out.append(f"* {acc.name}: end of support on {acc.end_of_support.isoformat()}"
                       + (f"; after it, gpujob suggests {then.name} ({then.api_name})"
                          if then else ""))
    return out


def _marked(acc: Accelerator) -> str:
    return acc.name + (" *" if acc.retired or acc.end_of_support else "")


def _machines(group: Sequence[Offering]) -> str:
    names = [o.machine_type for o in group]
    if len(names) <= 8 or all(o.built_in for o in group):
        return " ".join(names)
    return f"{names[0]} … {names[-1]} ({len(names)} {group[0].family} machine types)"


def render_types(cat: VertexCatalog, offerings: Sequence[Offering]) -> str:
    """The table of GPU types: one row per GPU and machine family."""
    header = ("GPU", "API NAME", "COUNT", "MACHINE TYPES")
    rows: list[Row] = [header]
    for acc in gpu_types(cat):
        families: dict[str, list[Offering]] = {}
        for o in offerings:
            if o.gpu == acc.api_name:
                families.setdefault(o.family, []).append(o)
        if not families:
            rows.append((_marked(acc), acc.api_name, "-", "none: retired" if acc.retired
                         else "none"))
        for i, group in enumerate(families.values()):
            counts = sorted({n for o in group for n in o.counts})
            rows.append((_marked(acc) if i == 0 else "", acc.api_name if i == 0 else "",
                         ", ".join(map(str, counts)), _machines(group)))
    tpus = [m.name for m in cat.machine_types.values()
            if m.tpu or any(cat.accelerators[a].kind == "tpu" for a in m.accelerators)]
    notes = [*_support_notes(cat, gpu_types(cat)),
             f"TPUs are machine types of their own: {', '.join(tpus)}.",
             "gpujob gpus --service vertex --gpu NAME shows a GPU's machine types with their "
             "counts, and the regions where Compute Engine lists them (the catalog's zone "
             f"proxy, read on {cat.sources['zones']['as_of']})."]
    return "\n".join(_lines(rows, _fit(rows, 3, [1]))) + "\n\n" + _notes(notes)


def _proxy(cat: VertexCatalog) -> str:
    return PROXY.format(date=cat.sources["zones"]["as_of"])


def _where(zones: tuple[str, ...] | None, zoned: bool) -> list[str] | None:
    if zones is None:
        return None
    return list(zones) if zoned else list(dict.fromkeys(region_of(z) for z in zones))


def _where_text(now: list[str] | None, above: list[str] | None) -> str:
    """Where (None: the proxy has no data), or how it differs from ``above``, the same GPU's
    row above (None: there is none, or it has no data)."""
    if now is None:
        return "no data"
    if above is not None:
        gone = [w for w in above if w not in now]
        if now == above:
            return "as above"
        if set(now) <= set(above) and len(gone) <= 3:
            return f"as above, without {' '.join(gone)}"
    return " ".join(now) or "-"


def render_table(cat: VertexCatalog, offerings: Sequence[Offering], f: Filters,
                 ask: PriceAsk = DEFAULT_ASK) -> str:
    """The ``gpujob gpus`` table: per GPU, the machine types grouped by the counts they take
    and the places that list them."""
    zoned = bool(f.zone or (f.region and "," not in f.region))
    rows: list[Row] = [("GPU", "COUNT", "MACHINE TYPES", "ZONES" if zoned else "REGIONS")]
    shown = [a for a in gpu_types(cat) if any(o.gpu == a.api_name for o in offerings)]
    above: list[str] | None = None
    previous = None
    for g in groups(list(offerings)):
        first = g.gpu != previous
        if first and previous:
            rows.append(None)
        now = _where(g.zones, zoned)
        rows.append((_marked(cat.accelerators[g.gpu]) if first else "",
                     ", ".join(map(str, g.counts)), " ".join(g.machine_types),
                     _where_text(now, None if first else above)))
        above, previous = now, g.gpu
    notes = _support_notes(cat, shown)
    notes.append(f"{'ZONES' if zoned else 'REGIONS'}: {_proxy(cat)}.")
    unknown = [o.machine_type for o in offerings if o.zones is None]
    if unknown:
        notes.append(f"no data: the zone proxy has no rows for {' '.join(unknown)}; where "
                     "Vertex AI offers them is not known here.")
    missing = unlisted(cat, f)
    if missing:
        notes.append("Not shown, as the zone proxy has no data for them: "
                     f"{machines_by_gpu(missing)}.")
    built_in = list(dict.fromkeys(o.family for o in offerings if o.built_in))
    example = next((a.api_name for a in shown if not a.end_of_support), shown[0].api_name)
    notes.append(f"Configs name a GPU by its API name ({example})" + (
        f"; {and_list(built_in)} machine types come with their GPUs, and a job states "
        "exactly those (acceleratorType and acceleratorCount)." if built_in else "."))
    if f.gpu:
        for acc in related(cat, f.gpu):
            names = cat.machines_for(acc.api_name)
            notes.append(f"Also: {acc.name} ({acc.api_name}) on {' '.join(names)}.")
    text = "\n".join(_lines(rows, _fit(rows, 2, [11, 9], cap=2))) + "\n\n" + _notes(notes)
    return text + _price_table(offerings, f, ask)


def _price_table(offerings: Sequence[Offering], f: Filters, ask: PriceAsk) -> str:
    """When the filters narrow it (a count, a machine type, regions or a zone): every region
    and machine type with what it costs an hour there, cheapest first; else how to see it."""
    if not ask.wanted(f):
        return _notes(["$/hour in every region that has it, cheapest first: add --count N "
                       "(or --region R[,R…] or all)."])
    from gpujob.services.vertex.offerings import table as prices_table

    table, found = prices_table.price_rows(offerings, f.count, ask.sort)
    unzoned = [o for o in offerings if o.zones is None]
    if not found:  # nothing the zone proxy places
        return _notes([prices_table.unzoned_note(unzoned)]) if unzoned else ""
    notes = prices_table.notes(table, found, ask.sort, unzoned)
    header: tuple[str, ...] = prices_table.HEADER
    cells: list[tuple[str, ...]] = prices_table.cells(found)
    if ask.advise is not None:
        from gpujob.services.vertex.quota import advice as offerings_advice

        got = ask.advise(found)
        header = (*header, *offerings_advice.HEADER)
        cells = [(*c, *got.cells(r.region, r.machine_type, r.count))
                 for c, r in zip(cells, found, strict=True)]
        notes.append(offerings_advice.note(got))
    rows: list[Row] = [header, *cells]
    return ("\n" + "\n".join(_lines(rows, _fit(rows, len(header), []))) + "\n\n"
            + _notes(notes))


def _gpu_record(cat: VertexCatalog, acc: Accelerator) -> dict[str, object]:
    return {"gpu": acc.api_name, "name": acc.name, "retired": acc.retired,
            "end_of_support": acc.end_of_support.isoformat() if acc.end_of_support else None,
            "replacement": acc.replacement, "machine_types": cat.machines_for(acc.api_name)}


def render_json(cat: VertexCatalog, offerings: Sequence[Offering], f: Filters,
                ask: PriceAsk = DEFAULT_ASK) -> str:
    """The same records as the tables: ``gpus`` (the GPU types shown; all of them, the retired
    too, with no filter) and ``offerings`` (one per GPU and machine type)."""
    shown = [a for a in gpu_types(cat)
             if not f.given() or any(o.gpu == a.api_name for o in offerings)]
    return dumps({
        "version": REPORT_VERSION,
        "service": "vertex",
        "filters": f.given(),
        "catalog": {"path": cat.path, "as_of": {k: v["as_of"] for k, v in cat.sources.items()}},
        "availability": {"proxy": True, "as_of": cat.sources["zones"]["as_of"],
                         "note": _proxy(cat)},
        "gpus": [_gpu_record(cat, a) for a in shown],
        "offerings": [o.as_dict() for o in offerings],
        **_json_prices(offerings, f),
        **_json_table(offerings, f, ask),
    }) + "\n"


def _json_table(offerings: Sequence[Offering], f: Filters, ask: PriceAsk
                ) -> dict[str, object]:
    """``price_table``, as the text shows it (when the filters narrow the offerings)."""
    if not offerings or not ask.wanted(f):
        return {}
    from gpujob.services.vertex.offerings import table as prices_table

    table, found = prices_table.price_rows(offerings, f.count, ask.sort)
    out = prices_table.as_json(table, found, ask.sort, [o for o in offerings if o.zones is None])
    if ask.advise is not None:
        from gpujob.services.vertex.quota import advice as offerings_advice

        got = ask.advise(found)
        out["advice"] = offerings_advice.as_json(got)
        for row, r in zip(out["rows"], found, strict=True):
            row["advice"] = got.as_dict(r.region, r.machine_type, r.count)
    return {"price_table": out}


def _json_prices(offerings: Sequence[Offering], f: Filters) -> dict[str, object]:
    """With a region: ``prices`` (where they come from) and each offering's ``hourly`` by
    count and strategy, which the offerings carry; without one, nothing."""
    from gpujob.services.vertex.offerings import prices as gpus_prices

    found = gpus_prices.priced(offerings, f)
    if found is None:
        return {}
    table, region, by_offering = found
    about, figures = gpus_prices.as_json(table, region, by_offering)
    return {"prices": about,
            "offerings": [{**o.as_dict(), "hourly": hourly}
                          for o, hourly in zip(offerings, figures, strict=True)]}


def run(cat: VertexCatalog, f: Filters, fmt: str, ask: PriceAsk = DEFAULT_ASK) -> int:
    """Print the offerings that match; exit 1 (with the closest alternatives) when none do."""
    found = query(cat, f)
    if fmt == "json":
        CONSOLE.json_text(render_json(cat, found, f, ask))
    elif found and not f.given() and not ask.every:
        CONSOLE.out(render_types(cat, found))
    elif found:
        CONSOLE.out(render_table(cat, found, f, ask))
    return 0 if found else report_miss(f, alternatives(cat, f))
