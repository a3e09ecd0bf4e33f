"""Exercise checks for the course lessons (``notebooks/course/``).

An exercise cell sets ``answer_N = None``, overwrites it inside a solution block (the instructors'
lesson), and ends in ``check(answer_N, "L.N", ...)``. The value the lab expects is computed here, by
the function registered under the exercise's key ("1.2": lesson 1, Exercise 2), from what the
lesson passes it (its model results, its parameters). So neither the check line nor what it prints
shows the expected value or how it is computed. The students' hand-out (``model.handout``) removes
the solution blocks, so there the answers stay ``None`` until written.

A check prints one line and never raises: a Run-All goes on past a wrong answer, and grading a
returned copy reports on every exercise.

- ``None``: "not answered yet", with what the answer should be ("a number in MB/s").
- An answer of the wrong type, such as text for a number: that line, e.g. "'12' (str) is not a
  number in MB/s".
- A wrong answer: "wrong: ... is too high" (or low), "by less than 10 %", "by 10 to 50 %", "by
  more than 50 %" or "about N times". It gives the direction and a rough size, never the value.
- A share asked between 0 and 1 given outside it: "wrong: 99 is more than 1: give a share between
  0 and 1: 99 % is 0.99", the answer's own figure converted, never the value expected. A share
  given where a percentage is asked gets the converse hint.
- A right one: "correct: 0.2266 of the time".
- A count given with a fraction: "wrong: 163.7 clients is not a whole number of clients".
- Parameters the lesson was run with that leave the exercise no answer (an M/M/1 queue at or past
  saturation): "no answer with these parameters: ...", naming the parameter and what it needs.

The instructors' lessons still fail CI on a wrong solution. Each exercise cell is tagged
``nbval-check-output`` and committed with its "correct" line, so ``pytest --nbval-lax`` fails when
a re-run prints anything else (``tests/test_course.py`` holds every exercise cell to that).
"""

from __future__ import annotations

import json
import math
import numbers
import reprlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .network import tcp
from .result import TIED_WITH_BOTTLENECK
from .servers import availability
from .storage import disk as disk_model
from .storage import topology

NOT_ANSWERED = "not answered yet"


class NoAnswer(ValueError):
    """The lesson's parameters leave an exercise no answer; the message says which and why."""


@dataclass(frozen=True)
class Exercise:
    """What one exercise's check compares an answer with, and how it speaks of it."""

    expected: Callable[..., float | str]  # what the lab computes, from what the lesson passes
    unit: str  # printed after a number: "MB/s", "of the time", "writers"
    asks: str  # what an answer is: "a number in MB/s", "a resource's name, as the results give it"
    rel: float  # relative tolerance of a number; 0: exact (a count)
    # a share close to 1 (an availability, a utilisation near saturation) is held to ``rel`` on
    # what it leaves, 1 - share: 0.99 for an availability of 0.9988 is eight times the downtime
    near_one: bool = False
    # a share asked between 0 and 1 (a utilisation, an availability): an answer outside it, a
    # percentage most often, is refused as such rather than sized against the share
    share: bool = False

    def verdict(self, answer, expected) -> str:
        """The line a check prints for a written answer (not None)."""
        if isinstance(expected, (str, tuple)):  # a name, or the names tied for it
            if not isinstance(answer, str):
                return not_a(answer, self.asks)
            tied = (expected,) if isinstance(expected, str) else expected
            right = any(names(answer, name) for name in tied)
            return f"correct: {answer}" if right else f"wrong: {answer!r} is not it"
        if not is_number(answer):
            return not_a(answer, self.asks)
        answer = float(answer)  # a Fraction, a numpy number: one kind to print and compare
        if self.share and not 0 <= answer <= 1 and 0 <= expected <= 1:
            return outside_share(answer)
        shown = f"{figure(answer)} {self.unit}"
        if self.rel == 0 and not answer.is_integer():  # a count: whole, or not a count at all
            return f"wrong: {shown} is not {self.asks}"
        if self.near_one:  # judged, and sized, on what the share leaves
            if math.isclose(1 - answer, 1 - expected, rel_tol=self.rel):
                return f"correct: {shown}"
            side = "high" if answer > expected else "low"
            return f"wrong: {shown} is too {side}: 1 - it is {_off(1 - answer, 1 - expected)}"
        if answer == expected or (self.rel and math.isclose(answer, expected, rel_tol=self.rel)):
            return f"correct: {shown}"
        hint = ""
        if self.unit == "%" and 0 < answer <= 1:  # a share where a percentage is asked
            percent = figure(100 * answer)
            hint = f": asked as a percentage, a share of {figure(answer)} is {percent} %"
        return f"wrong: {shown} is {_off(answer, expected)}{hint}"


def outside_share(answer: float) -> str:
    """The line for a share given outside 0 to 1: a percentage, most often, converted (the
    answer's own figure, never the value expected)."""
    if answer < 0:
        return f"wrong: {figure(answer)} is less than 0: give a share between 0 and 1"
    percent = f": {figure(answer)} % is {figure(answer / 100)}" if answer <= 100 else ""
    return f"wrong: {figure(answer)} is more than 1: give a share between 0 and 1{percent}"


def names(answer: str, resource: str) -> bool:
    """Whether ``answer`` names ``resource`` as the results do ("raid md3260.0"), in any case and
    with or without its index (".0", but not another one), or by its part alone ("md3260")."""

    def plain(name: str) -> tuple[str, str | None]:
        name = " ".join(name.lower().split())
        stem, _, index = name.rpartition(".")
        return (stem, index) if stem and index.isdigit() else (name, None)

    (said, said_index), (meant, meant_index) = plain(answer), plain(resource)
    if said_index is not None and said_index != meant_index:
        return False
    # the part alone only where the name is a kind and a part ("raid md3260"), not any last word
    # of a longer one ("out" of "real server 0 link out")
    kind_and_part = len(meant.split()) == 2
    return said == meant or (kind_and_part and said == meant.split()[1])


def _off(answer: float, expected: float) -> str:
    """How far ``answer`` is from ``expected``, by direction and rough size, never the value."""
    ratio = answer / expected if expected else 0.0
    side = "high" if answer > expected else "low"
    if ratio <= 0:  # opposite signs, or a zero: no size to give
        return f"too {side}"
    factor = max(ratio, 1 / ratio)
    if factor >= 2:
        return f"about {float(f'{factor:.1g}'):,.0f} times too {side}"
    off = abs(ratio - 1)
    size = "less than 10 %" if off < 0.1 else "10 to 50 %" if off < 0.5 else "more than 50 %"
    return f"too {side} by {size}"


EXERCISES: dict[str, Exercise] = {}


def exercise(
    key: str,
    unit: str,
    asks: str | None = None,
    rel: float = 0.01,
    near_one: bool = False,
    share: bool = False,
):
    """Register the decorated function as what exercise ``key`` expects."""

    def register(expected: Callable[..., float | str]) -> Callable[..., float | str]:
        asked = asks or f"a number in {unit}"
        EXERCISES[key] = Exercise(expected, unit, asked, rel, near_one, share)
        return expected

    return register


def check(answer, key: str, *given, **named) -> None:
    """Print how ``answer`` compares with what exercise ``key`` expects from ``given``."""
    task = EXERCISES[key]
    if answer is None:
        print(f"{NOT_ANSWERED}: {task.asks}")
        return
    try:
        expected = task.expected(*given, **named)
    except NoAnswer as error:
        print(f"no answer with these parameters: {error}")
        return
    except (ArithmeticError, LookupError, ValueError) as error:  # a lesson's parameter the
        # exercise cannot take (a repair time of 0, a design the sweep left out): one line, as
        # promised, not the traceback the course audit met
        print(f"no answer with these parameters: {type(error).__name__}: {error}")
        return
    print(task.verdict(answer, expected))


def is_number(value) -> bool:
    """A finite real number (an int, a float, a Fraction, a numpy number), not a bool."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except (OverflowError, TypeError, ValueError):  # an int too large for a float
        return False


def figure(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 1e4 else f"{value:.4g}"


def not_a(answer, asks: str) -> str:
    return f"{reprlib.repr(answer)} ({type(answer).__name__}) is not {asks}"


SHARE = "a share between 0 and 1"


# Lesson 1: operational laws


@exercise("1.1", "of the time", SHARE, share=True)
def wire0_busy(two_writers):
    """Wire 0's utilisation with two writers, as the model counts it."""
    return two_writers.utilization["bus sas0"]


@exercise("1.2", "MB/s")
def store_bound_MBps(store):
    """The bottleneck law's bound on the store's write rate, as the model gives it."""
    return store(16).bound_MBps


@exercise("1.3", "writers", "a whole number of writers", rel=0)
def writers_at_bound(store):
    """The fewest writers whose write rate the model puts at the bound (to 0.1 %)."""
    bound = store(16).bound_MBps
    for n in range(1, 17):
        if store(n).throughput_MBps >= 0.999 * bound:
            return n
    raise NoAnswer("the store's write rate stays under its bound up to 16 writers")


@exercise("1.4", "s")
def client_cycle_s(clients, run_s, pairs):
    """Little's law over the clients' cycles: clients = (pairs / run time) x cycle."""
    return clients * run_s / pairs


@exercise("1.5", "of the time", SHARE, share=True)
def link_busy(model_run, run_s):
    """The model's link carries the run's bytes: its busy time over the measured run time."""
    return model_run.utilization["server link"] * model_run.elapsed_s / run_s


# Lesson 2: queues


@exercise("2.1", "s")
def mm1_response_s(arrivals_per_s, completions_per_s):
    """M/M/1: the mean response time R = 1 / (mu - lambda), which holds only below saturation
    (lambda < mu): at or past it the queue grows without end and has no steady state."""
    if arrivals_per_s >= completions_per_s:
        raise NoAnswer(
            f"arrivals_per_s {arrivals_per_s:g} must be less than completions_per_s "
            f"{completions_per_s:g}: at or past saturation an M/M/1 queue has no steady state"
        )
    return 1 / (completions_per_s - arrivals_per_s)


# held on 1 - rho to 0.1 %: the common slip, the *wait* set to 100 service times (rho S / (1 - rho)
# = 100 S), gives rho = 100 / 101 = 0.990099, whose 1 - rho, 0.0099, is 1 % from 0.01, on the edge
# of a 1 % tolerance; 0.1 % refuses it and still takes the formula's value in any spelling
@exercise(
    "2.2", "of the time", "a utilisation between 0 and 1", rel=0.001, near_one=True, share=True
)
def mm1_utilisation_at(times_service):
    """M/M/1: the response time R = S / (1 - rho) is ``times_service`` S at
    rho = 1 - 1 / times_service; R is never under S, so ``times_service`` is at least 1."""
    if times_service < 1:
        raise NoAnswer(
            f"times_service must be at least 1 (R = S / (1 - rho) is never under S), got "
            f"{times_service:g}"
        )
    return 1 - 1 / times_service


@exercise("2.3", "reads/s")
def saturation_per_s(service_s):
    """A server's saturation throughput: the reciprocal of its mean service time."""
    return 1 / np.mean(service_s)


# Lesson 3: disks and RAID


@exercise("3.1", "IOPS", rel=0.003)
def random_iops(part, efficiency, request_KiB):
    """A random request's service, as the lesson asks it added up: the data sheet's average seek,
    half a turn, the drive's own time per command (the catalog's ``command_overhead_ms``) and the
    transfer at the outer zone's rate. The disk model's mean over random seeks and turns comes
    within 1 % of it (its seek curve averages to the data sheet's average seek). Held to 0.3 %: the
    4 KiB transfer is 0.75 % of the service, and leaving it out is the slip to catch (the course
    audit: 133.3 against 132.3 IOPS had passed at 1 %)."""
    service_s = (
        part.avg_seek_read_ms / 1e3
        + 0.5 * disk_model.revolution_s(part)
        + disk_model.command_overhead_s(part)
        + request_KiB * 1024 / (disk_model.outer_rate_MBps(part, efficiency) * 1e6)
    )
    return 1 / service_s


@exercise("3.2", "GB")
def raid6_full_stripe_GB(drives):
    """Bytes on the drives of a RAID6 group per byte a full-stripe write stores."""
    return drives * topology.drive_share("raid6", drives, "write")


@exercise("3.3", "writes/s")
def raid6_random_writes(random_per_s, drives):
    """The lab's prediction of random writes a second on ``drives`` drives as md RAID6: its request
    model charges a small write the fewer of read-modify-write and reconstruct-write, as md does
    (``requests.small_write_commands``), not a fixed penalty of 6."""
    return random_per_s("raid6", drives, "write")


@exercise("3.4", "of the time", SHARE, share=True)
def busiest_drive_busy(run, measured_s):
    """The utilisation law over the measured run: its throughput (pairs over ``measured_s``) times
    the busiest drive's demand a pair in the lab's model (its utilisation times the model's run
    time, over the pairs); the pairs cancel."""
    busiest = max(u for name, u in run.utilization.items() if name.startswith("drive "))
    return busiest * run.elapsed_s / measured_s


# Lesson 4: networks


@exercise("4.1", "MB")
def bdp_MB(circuit_Bps, rtt_ms):
    """The bandwidth-delay product: what the circuit carries in one round trip."""
    return circuit_Bps * rtt_ms / 1e3 / 1e6


@exercise("4.2", "MB/s", rel=0.01)
def one_stream_MBps(memory_to_memory):
    """The lab's model of one stream over the 193 ms double loopback (slide 34)."""
    return memory_to_memory(1, 193.0).throughput_MBps


@exercise("4.3", "streams", "a whole number of streams", rel=0)
def streams_to_fill(circuit_Bps, mtu_B, rtt_ms, buffer_B):
    """The fewest streams whose windows (three quarters of a buffer) fill both circuits with what
    TCP carries on them: each frame's payload (``tcp.mss_B``) of its wire bytes
    (``tcp.tcp_wire_per_byte``), 1448 of 1538 at a 1500-byte MTU. A stream rides one circuit (the
    bond hashes them alternately, ``model.network.wan``), so each circuit needs its own whole
    number of windows: pooled over both, 15 at the planned 200 ms leave one circuit 7 streams, 93 %
    full (the course audit), where 16 fill both."""
    payload_Bps = circuit_Bps / tcp.tcp_wire_per_byte(mtu_B)
    return 2 * math.ceil(payload_Bps / (0.75 * buffer_B / (rtt_ms / 1e3)))


@exercise("4.4", "ms")
def random_read_response_ms(random_read, request_KiB):
    """Little's law for one client with one request in flight: R = N / X, one request's bytes over
    the rate the lab gives one client reading at random."""
    return request_KiB * 1024 / (random_read(1).throughput_MBps * 1e6) * 1e3


@exercise("4.5", "clients", "a whole number of clients", rel=0)
def clients_to_bind_host(random_read):
    """The fewest clients the lab no longer holds to their own round trips: something they share
    binds (on the NVMe purchase, the bond's first port, which carries clients 0, 2, 4, ...). Found
    by bisection: more clients never give the round trips back the bottleneck."""

    def waiting(n: int) -> bool:
        return random_read(n).bottleneck.startswith("requests client")

    held, bound = 1, 2  # held: the round trips bind; bound: something shared does
    while waiting(bound):
        held, bound = bound, 2 * bound
    while bound - held > 1:
        middle = (held + bound) // 2
        held, bound = (middle, bound) if waiting(middle) else (held, middle)
    return bound


# Lesson 5: scalability


def usl_MBps(n, lam, sigma, kappa):
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


@exercise("5.1", "MB/s")
def usl_four_drives_MBps(lam, sigma, kappa):
    """The USL with the RAID0 fit's parameters at 4 drives."""
    return usl_MBps(4, lam, sigma, kappa)


@exercise("5.2", "MB/s")
def usl_sixteen_clients_MBps(lam, sigma, kappa):
    """The USL with the client fit's parameters at 16 clients."""
    return usl_MBps(16, lam, sigma, kappa)


def usl_fit(n, x) -> tuple[float, float, float]:
    """The USL's lambda, sigma and kappa fitted to rates ``x`` at ``n`` units by least squares,
    from one unit's rate, sigma 0.05 and kappa 0.001, each within its bounds (lambda at least 0,
    sigma and kappa 0 to 1): the fit lesson 5 makes, done here so that its check does not take
    the lesson's own function."""
    from scipy.optimize import OptimizeWarning, curve_fit

    n, x = np.asarray(n, dtype=float), np.asarray(x, dtype=float)
    with warnings.catch_warnings():  # as many points as parameters leave no covariance to estimate
        warnings.simplefilter("ignore", OptimizeWarning)
        (lam, sigma, kappa), _ = curve_fit(
            usl_MBps, n, x, p0=[x[0], 0.05, 0.001], bounds=([0, 0, 0], [np.inf, 1, 1])
        )
    return lam, sigma, kappa


@exercise("5.3", "%", "a percentage")
def serial_share_pct(clients, rates):
    """The USL's sigma, fitted to the client curve (``usl_fit``), as a percentage."""
    return 100 * usl_fit(clients, rates)[1]


# Lesson 6: availability


@exercise("6.1", "of the time", SHARE, near_one=True, share=True)
def one_director_up(mttf_h, mttr_h):
    return availability.units(1, mttf_h, mttr_h).availability


@exercise("6.2", "min/year")
def one_director_down_min(mttf_h, mttr_h):
    return 60 * availability.units(1, mttf_h, mttr_h).downtime_h_per_year


@exercise("6.3", "of the downtime", SHARE, share=True)
def takeover_share(mttf_h, mttr_h, takeover_s):
    """Two directors, one repair crew: the chain of 0, 1 or 2 directors up, written out here (not
    through ``availability.units``); a takeover each time the active one fails with both up."""
    lam, mu = 1 / mttf_h, 1 / mttr_h
    pi = availability.steady_state(
        np.array([[-mu, mu, 0], [lam, -(lam + mu), mu], [0, 2 * lam, -2 * lam]])
    )
    takeovers = pi[2] * lam * takeover_s / 3600
    return takeovers / (pi[0] + takeovers)


# Lesson 7: capstone


@exercise("7.1", "TB/h")
def most_TBph(designs):
    """The most any swept design ingests."""
    return designs.throughput_MBps.max() * 3600 / 1e6


@exercise("7.2", "microscopes", "a whole number of microscopes", rel=0)
def most_microscopes(front, store, microscope_TBph):
    """Whole microscopes today's kit ingests end to end: the ingest model's rate through the
    network front (acquisition servers over CIFS, the host's bond, smbd), and no more than the store
    alone takes (``store``: the swept design, one row); the front binds first on today's kit."""
    store_TBph = float(store.throughput_MBps.iloc[0]) * 3600 / 1e6
    return math.floor(min(front.aggregate_TBph, store_TBph) / microscope_TBph * (1 + 1e-12))


@exercise("7.3", "", "a resource's name, as the results give it", rel=0)
def best_bottleneck(designs):
    """The resource that binds the fastest of ``designs``, or the resources tied for it (the
    MD3260's two RAID processors, each at its limit, where the model names the first): any of
    them is right (the course audit: 'raid md3260.1' had been told wrong)."""
    best = designs.loc[designs.throughput_MBps.idxmax()]
    load = json.loads(best.utilization)
    top = load[best.bottleneck]
    tied = tuple(name for name, u in load.items() if u >= top * (1 - TIED_WITH_BOTTLENECK))
    return tied if len(tied) > 1 else best.bottleneck
