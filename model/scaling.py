"""``python -m model.scaling``: how ``simulate()``'s wall time grows with the size of a system.

Eight curves, each one scenario with one count raised (a speed figure, never pass/fail):

- writers 1 to 10,000 on the microscope store (``em_ingest``, variant ``striped``,
  ``workload.streams``, 10 GB each so that 10,000 of them fit the 600 TB store): dd-like writers
  sharing the store's drives, SAS wires and host CPU;
- flows 1 to 10,000 on the lightpath (``atlas_lightpath``, ``workload.streams``: parallel bbftp
  TCP streams of one session over both circuits, disk to disk);
- drives 4 to 1,000 in one md RAID0 written by one dd stream: ``em_ingest``'s host with the
  drives in MD3260-class shelves of 180 drive ports each (a what-if: a controller's ports cap its
  drives, and overrides cannot add controllers, so the scenario is written out with as many
  shelves as the drives need);
- drives 4 to 1,000 in 60-bay JBODs behind expanders (``purchase_hdd_md``'s server, its clients
  left out, one md RAID0 written by one local stream): a Data60 JBOD per 60 drives, each on a wide
  port of four 12 Gb/s lanes of a 9500-8i HBA (two JBODs an HBA, an HBA a PCIe 4.0 x8 slot, the
  host given a slot for each);
- MDSplus thin clients 1 to 1,000 (``mdsplus``, ``workload.clients``, a client machine each):
  every client's reads cross the one server's core, so their flows share out together;
- acquisition servers 1 to 2,000 writing the microscope store (``em_ingest_microscopes``,
  ``clients``; an ingest takes up to 400,000 client-drive pairs, 2,222 clients on its 180 drives);
- real servers 1 to 40 behind the relay's director (``psu_relay``, ``real_servers.count``; a relay
  scenario takes up to 100, and 100,000 product-server pairs): from some 45 the director, handing
  the scenario's 30 sites' feed out, falls behind and the run ends early, which timed an
  artefact (the docs audit: 0.35 s at 30, 0.015 s at 45);
- clients 1 to 1,000 on the download server (``eah_download``, ``workload.clients``, its worker
  taking 1,024 connections): the clients share the test's fixed 2,502 file pairs, so more clients
  mean more connections at once, not more work.

Each point is the best of up to three runs of ``simulate()`` (one where a run takes over a
second), timed with ``time.perf_counter``; a curve stops before a point its own growth so far
predicts would take over ``--point-limit`` seconds, and the table says so. The table is printed and
the curves saved as a log-log plot (``reports/bench_scaling.png``) whose legend gives each curve's
fitted exponent: the least-squares slope of log time on log size over its points within two
decades of its largest size.
"""

from __future__ import annotations

import argparse
import copy
import math
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from . import paths, scenario
from .errors import UserError
from .params import calibrated
from .simulate import simulate

WHERE = "scaling"
SHELF_PORTS = 180  # drive ports of one dell_md3260 (the catalog's channels)
JBOD_BAYS = 60  # wd_ultrastar_data60
HBA_PORTS = 2  # wide ports of four lanes on a broadcom_9500_8i (its eight channels)


@dataclass
class Curve:
    """One scenario with one count raised: ``build(n)`` is its scenario at size ``n``."""

    label: str
    unit: str  # what the size counts
    sizes: tuple[int, ...]
    build: Callable[[int], scenario.Scenario]
    times_s: list[tuple[int, float]] = field(default_factory=list)
    stopped: str | None = None


def _overridden(name: str, base: list[str], key: str) -> Callable[[int], scenario.Scenario]:
    return lambda n: scenario.load(name, base + [f"{key}={n}"])


def _raid0_drives(folder: Path) -> Callable[[int], scenario.Scenario]:
    """``em_ingest``'s host writing one md RAID0 of ``n`` SAS drives in 180-port shelves."""
    raw = scenario.read_yaml(scenario.resolve("em_ingest"))

    def build(n: int) -> scenario.Scenario:
        data = copy.deepcopy(raw)
        shelves = math.ceil(n / SHELF_PORTS)
        data["name"] = f"md_raid0_{n}"
        data["description"] = f"em_ingest's host writing an md RAID0 of {n} drives (what-if)"
        data["controllers"] = {
            f"shelf{i}": {"part": "dell_md3260", "bus": "pcie_a"} for i in range(shelves)
        }
        data["volumes"] = _raid0_of(
            raw["volumes"]["lv"], [f"shelf{j % shelves}.{j // shelves}" for j in range(n)]
        )
        data["workload"]["target"] = "md0"
        return _written(folder, data)

    return build


def _raid0_of(volume: dict, attach: list[str]) -> dict:
    """The scenario's ``volumes``: one md RAID0 ``md0`` of ``volume``'s drives and file system,
    a drive at each point of ``attach``."""
    return {
        "md0": {
            "level": "raid0",
            "chunk_KiB": 64,
            "filesystem": volume["filesystem"],
            "disks": {"part": volume["disks"]["part"], "count": len(attach), "attach": attach},
        }
    }


def _written(folder: Path, data: dict) -> scenario.Scenario:
    """``data`` written to ``folder`` as its name's YAML file and loaded; its variants and
    unknowns go, since they name the volume the curve replaced."""
    for key in ("variants", "unknowns"):
        data.pop(key, None)
    path = folder / f"{data['name']}.yaml"
    path.write_text(yaml.safe_dump(data))
    return scenario.load(path)


def _jbod_drives(folder: Path) -> Callable[[int], scenario.Scenario]:
    """``purchase_hdd_md``'s server writing one md RAID0 of ``n`` drives in 60-bay JBODs, each
    JBOD on a four-lane wide port, two JBODs an HBA."""
    raw = scenario.read_yaml(scenario.resolve("purchase_hdd_md"))

    def build(n: int) -> scenario.Scenario:
        data = copy.deepcopy(raw)
        jbods = math.ceil(n / JBOD_BAYS)
        hbas = math.ceil(jbods / HBA_PORTS)
        data["name"] = f"jbod_raid0_{n}"
        data["description"] = f"a server writing an md RAID0 of {n} drives in {jbods} JBODs"
        data["buses"] = {f"slot{h}": {"part": "pcie4_x8"} for h in range(hbas)}
        _slots_for(data["parts"]["hosts"][data["host"]], hbas)
        data["controllers"] = {
            f"hba{h}": {"part": "broadcom_9500_8i", "bus": f"slot{h}"} for h in range(hbas)
        }
        data["shelves"] = {
            f"jbod{j}": {
                "part": "wd_ultrastar_data60",
                "uplink": [f"hba{j // HBA_PORTS}.{4 * (j % HBA_PORTS) + k}" for k in range(4)],
            }
            for j in range(jbods)
        }
        data["volumes"] = _raid0_of(
            raw["volumes"]["data"], [f"jbod{j // JBOD_BAYS}.{j % JBOD_BAYS}" for j in range(n)]
        )
        data.pop("clients", None)
        data["workload"] = {"op": "write", "target": "md0", "total_MB": 10000, "request_KiB": 1024}
        return _written(folder, data)

    return build


def _slots_for(host: dict, cards: int) -> None:
    """Give the scenario's own host a PCIe 4.0 x8 slot for each of ``cards`` HBAs beside its own
    slots (a what-if: the host's cards must fit its slots, ``model.storage.slots``), so that the
    curve times the drives, not a refusal."""
    host["buses"] = [*host["buses"], {"bus": "pcie4_x8", "count": cards}]
    host["sources"]["buses"] = (
        f"{host['sources']['buses']}; the scaling curve's what-if adds {cards} PCIe 4.0 x8 slots, "
        "one for each HBA"
    )


def curves(folder: Path) -> list[Curve]:
    decades = (1, 3, 10, 30, 100, 300, 1000, 3000, 10000)
    return [
        Curve(
            "writers, microscope store (em_ingest striped)",
            "writers",
            decades,
            _overridden(
                "em_ingest", ["variant=striped", "workload.total_MB=10000"], "workload.streams"
            ),
        ),
        Curve(
            "TCP flows, lightpath (atlas_lightpath bbftp)",
            "flows",
            decades,
            _overridden("atlas_lightpath", [], "workload.streams"),
        ),
        Curve(
            "drives, md RAID0 (em_ingest host, what-if)",
            "drives",
            (4, 10, 30, 100, 300, 1000),
            _raid0_drives(folder),
        ),
        Curve(
            "drives, 60-bay JBODs (purchase_hdd_md host)",
            "drives",
            (4, 10, 30, 100, 300, 1000),
            _jbod_drives(folder),
        ),
        Curve(
            "clients, MDSplus thin clients (mdsplus)",
            "clients",
            decades[:7],
            # one client process a machine: as many machines as clients
            lambda n: scenario.load("mdsplus", [f"client_machines={n}", f"workload.clients={n}"]),
        ),
        Curve(
            "acquisition servers, microscope ingest (em_ingest_microscopes)",
            "clients",
            (*decades[:7], 2000),
            _overridden("em_ingest_microscopes", [], "clients"),
        ),
        Curve(
            "real servers, relay cluster (psu_relay)",
            "real servers",
            (1, 3, 10, 20, 40),
            _overridden("psu_relay", [], "real_servers.count"),
        ),
        Curve(
            "clients, download server (eah_download)",
            "clients",
            decades[:7],
            # one worker's nginx worker_connections raised to hold every client at once
            _overridden("eah_download", ["server.connections_per_worker=1024"], "workload.clients"),
        ),
    ]


def best_time_s(run: Callable[[], object], repeats: int = 3) -> float:
    """The best wall time of up to ``repeats`` runs; one run when it takes over a second."""
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
        if best > 1.0:
            break
    return best


def exponent(points: list[tuple[int, float]]) -> float | None:
    """Least-squares slope of log time on log size over the points within two decades of the
    largest size; None with fewer than two such points."""
    if not points:
        return None
    top = max(n for n, _ in points)
    xs, ys = zip(*[(math.log(n), math.log(t)) for n, t in points if n * 100 >= top], strict=True)
    if len(xs) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx


def run_curve(curve: Curve, params: dict[str, float], point_limit_s: float) -> None:
    simulate(curve.build(curve.sizes[0]), params)  # warm: imports, catalog, first parse
    for n in curve.sizes:
        if len(curve.times_s) >= 2:
            slope = exponent(curve.times_s) or 1.0
            last_n, last_s = curve.times_s[-1]
            predicted_s = last_s * (n / last_n) ** max(slope, 1.0)
            if predicted_s > point_limit_s:
                curve.stopped = (
                    f"stopped before {n:,} {curve.unit}: predicted {predicted_s:.0f} s "
                    f"> {point_limit_s:g} s"
                )
                return
        built = curve.build(n)
        curve.times_s.append((n, best_time_s(lambda built=built: simulate(built, params))))


def table(all_curves: list[Curve]) -> str:
    lines = [f"{'curve':48} {'size':>8}  {'simulate() s':>12}"]
    for curve in all_curves:
        for n, seconds in curve.times_s:
            lines.append(f"{curve.label:48} {n:>8,}  {seconds:12.4f}")
        slope = exponent(curve.times_s)
        fitted = "n/a" if slope is None else f"{slope:.2f}"
        lines.append(f"{'':48} {'exponent':>8}  {fitted:>12}")
        if curve.stopped:
            lines.append(f"{'':48} {curve.stopped}")
    return "\n".join(lines)


def plot(all_curves: list[Curve], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 7))
    for curve in all_curves:
        if not curve.times_s:
            continue
        sizes, seconds = zip(*curve.times_s, strict=True)
        slope = exponent(curve.times_s)
        fitted = "" if slope is None else f" (time ~ size^{slope:.2f})"
        ax.plot(sizes, seconds, marker="o", label=f"{curve.label}{fitted}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("size (writers, flows, drives, clients or servers a curve raises; count)")
    ax.set_ylabel("simulate() wall time (s, best of up to 3 runs)")
    ax.set_title("How simulate() time grows with the system's size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(
        fontsize=8,
        title="exponent fitted over each curve's top two decades",
        title_fontsize=8,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.12),
    )
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """Run the curves, print the table, save the plot; a bad option is one line and status 2."""
    try:
        return _main(argv)
    except UserError as exc:
        print(exc.line(), file=sys.stderr)
        return exc.exit_status


def _main(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="python -m model.scaling", description=__doc__)
    parser.add_argument("--out", type=Path, default=paths.REPORTS / "bench_scaling.png")
    parser.add_argument(
        "--point-limit",
        type=float,
        default=20.0,
        help="seconds: stop a curve before a point predicted to take longer (default 20)",
    )
    args = parser.parse_args(argv)
    if not args.point_limit > 0:
        raise UserError(WHERE, "--point-limit", f"must be positive seconds, got {args.point_limit}")
    params = calibrated()
    with tempfile.TemporaryDirectory(prefix="scaling-") as folder:
        all_curves = curves(Path(folder))
        for curve in all_curves:
            run_curve(curve, params, args.point_limit)
    print(table(all_curves))
    plot(all_curves, args.out)
    print(f"plot: {paths.shown(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
