"""A key a user's override sets that the configuration does not read is said beside the prediction
(model.unread): each body's claim is checked by changing the key and finding the prediction the
same, and the same key is shown to move the prediction where the claim says it is read."""

import dataclasses
import json

import pytest

from model import scenario as scenario_module
from model import unread
from model.network.spec import DB_UNREAD, WAN_UNREAD
from model.servers.spec import DOWNLOAD_UNREAD, INGEST_UNREAD
from model.simulate import simulate
from model.storage.spec import STORAGE_UNREAD
from model.sweep import grid as grid_module
from model.sweep import point as point_module
from model.sweep import specs as specs_module

NFS_READ = [
    "clients.protocol=nfs",
    "workload.op=read",
    "clients.count=1",
    "clients.rtt_ms=1",
    "workload.total_MB=2000",
]
# eah_download's connections are an unknown (per_file reads a new connection's window): given
KEPT_ALIVE = ["server.connections=keep_alive"]
# (scenario, the overrides that make the key unread, the key, two values, words of the reason,
# the overrides that make it read): each rule of the bodies' tables at least once
CASES = [
    (
        "atlas_lightpath",
        [],
        "workload.rate_Mbps",
        300,
        900,
        "protocol is bbftp",
        ["variant=tsunami"],
    ),
    (
        "atlas_lightpath",
        [],
        "workload.block_B",
        1024,
        60000,
        "a Tsunami session's",
        ["variant=tsunami", "loss_rate=0.001"],
    ),
    ("atlas_lightpath", ["variant=tsunami"], "tcp.tcp_adv_win_scale", 1, 3, "UDP flow", []),
    (
        "atlas_lightpath",
        ["variant=tsunami"],
        "workload.socket_buffer_B",
        100000,
        4000000,
        "no TCP socket",
        [],
    ),
    (
        "atlas_lightpath",
        [],
        "tcp.core_rmem_max_B",
        1000,
        100000000,
        "workload.socket_buffer_B is unset",
        ["workload.socket_buffer_B=4000000"],
    ),
    ("atlas_lightpath", [], "tcp.core_rmem_default_B", 1000, 1000000, "net.core's defaults", None),
    ("atlas_lightpath", ["variant=tsunami"], "workload.threads", "null", 1, "UDP flow", None),
    ("atlas_lightpath", [], "workload.threads", 1, 16, None, []),
    (
        "atlas_lightpath",
        [],
        "tcp.core_wmem_max_B",
        1000,
        100000000,
        "workload.socket_buffer_B is unset",
        ["workload.socket_buffer_B=4000000"],
    ),
    ("atlas_lightpath", [], "tcp.core_wmem_default_B", 1000, 1000000, "net.core's defaults", None),
    (
        "mdsplus",
        [],
        "tcp.tcp_wmem_B",
        "[4096,4096,4096]",
        "[4096,16384,131072]",
        "mdsip asks",
        ["socket_buffer_B=null"],
    ),
    *(
        (
            "mdsplus",
            ["workload.test=tcp_tuned"],
            f"tcp_tuned.{key}",
            "[4096,4096,4096]",
            "[4096,87380,4194304]",
            "mdsip asks",
            ["workload.test=tcp_tuned", "socket_buffer_B=null"],
        )
        for key in ("tcp_rmem_B", "tcp_wmem_B")
    ),
    (
        "mdsplus",
        ["socket_buffer_B=null"],
        "tcp.core_wmem_max_B",
        4000,
        100000000,
        "socket_buffer_B is unset",
        [],
    ),
    (
        "mdsplus",
        ["workload.test=tcp_tuned", "socket_buffer_B=null"],
        "tcp_tuned.core_wmem_max_B",
        4000,
        100000000,
        "socket_buffer_B is unset",
        ["workload.test=tcp_tuned"],
    ),
    (
        "mdsplus",
        [],
        "workload.indirection_levels",
        1,
        50,
        "baseline",
        ["workload.test=indirection"],
    ),
    (
        "mdsplus",
        [],
        "workload.reference_record_B",
        64,
        100000,
        "indirection test only",
        ["workload.test=indirection"],
    ),
    ("mdsplus", [], "workload.values_per_read", 1000, 4000000, "math test", ["workload.test=math"]),
    (
        "mdsplus",
        [],
        "tcp_tuned.core_rmem_max_B",
        4000,
        1000000,
        "tcp_tuned test only",
        ["workload.test=tcp_tuned"],
    ),
    ("mdsplus", ["workload.test=tcp_tuned"], "tcp.core_rmem_max_B", 4000, 1000000, "instead", []),
    (
        "mdsplus",
        [],
        "tcp.tcp_rmem_B",
        "[4096,4096,4096]",
        "[4096,87380,174760]",
        "mdsip asks",
        ["socket_buffer_B=null"],
    ),
    (
        "mdsplus",
        ["socket_buffer_B=null"],
        "tcp.core_rmem_max_B",
        4000,
        1000000,
        "socket_buffer_B is unset",
        [],
    ),
    ("mdsplus", ["workload.test=ptdata"], "compression_ratio", 1, 5, "PTDATA server", []),
    (
        "mdsplus",
        ["compression_ratio=1"],
        "decompress_cycles_per_byte",
        1,
        1000,
        "nothing to expand",
        [],
    ),
    (
        "eah_download",
        KEPT_ALIVE,
        "tcp.initial_window_segments",
        1,
        100,
        "keep_alive",
        ["server.connections=per_file"],
    ),
    (
        "eah_download",
        KEPT_ALIVE,
        "tcp.slow_start_growth",
        "per_ack",
        "per_segment",
        "keep_alive",
        ["server.connections=per_file"],
    ),
    (
        "eah_download",
        [],
        "server.accept_mutex",
        "false",
        "true",
        "workers is 1",
        ["server.workers=4", "server.accept_mutex_delay_ms=5000"],
    ),
    (
        "eah_download",
        ["server.workers=4", "server.accept_mutex=false"],
        "server.accept_mutex_delay_ms",
        1,
        5000,
        "accept_mutex is false",
        ["server.workers=4"],
    ),
    (
        "eah_download",
        ["server.read_ahead_KiB=256"],
        "kernel.read_ahead_KiB",
        64,
        1024,
        "the window instead",
        [],
    ),
    (
        "eah_download",
        ["variant=r6_opt"],
        "kernel.read_ahead_KiB",
        64,
        1024,
        "deadline_optimized",
        ["variant=r6_def"],
    ),
    (
        "eah_download",
        ["variant=r6_def"],
        "mirror_reads",
        "balanced",
        "primary",
        "level is raid6",
        ["variant=r10_def"],
    ),
    (
        "em_ingest_microscopes",
        ["assignment=[0,1,0,1,0,1,0,1]"],
        "hashing",
        "balanced",
        "collide",
        "assignment gives",
        [],
    ),
    (
        "atlas_cern_receive",
        [],
        "kernel.ext3_write_ratio",
        0.3,
        0.9,
        "filesystem.type is",
        ["variant=ext3"],
    ),
    ("atlas_x330", [], "kernel.ext3_write_ratio", 0.3, 0.9, "workload.op is read", None),
    ("atlas_x330", [], "kernel.page_B", 4096, 65536, "workload.io is buffered", None),
    ("psu_mmap", [], "kernel.page_B", 4096, 65536, None, []),
    (
        "purchase_hdd_md",
        [],
        "clients.read_ahead_KiB",
        16,
        4096,
        "clients.protocol is smb",
        ["clients.protocol=nfs", *NFS_READ[1:]],
    ),
    ("purchase_hdd_md", NFS_READ[:2], "clients.read_ahead_KiB", 16, 4096, None, []),
    (
        "purchase_hdd_md",
        ["clients.protocol=nfs"],
        "clients.read_ahead_KiB",
        16,
        4096,
        "workload.op is write",
        NFS_READ,
    ),
    (
        "atlas_x330",
        [],
        "volumes.disk.drive_write_cache",
        "enabled",
        "disabled",
        "a drive's write cache",
        None,
    ),
    ("atlas_cern_receive", [], "volumes.md0.drive_write_cache", "enabled", "disabled", None, []),
    (
        "purchase_hdd_md",
        ["workload.op=read"],
        "volumes.data.md_group_thread_cnt",
        0,
        4,
        "raid5d's workers",
        [],
    ),
    (
        "em_ingest",
        ["workload.op=read"],
        "volumes.lv.cache_block_KiB",
        8,
        32,
        "cache blocks",
        [],
    ),
    (
        "psu_write",
        ["variant=raid", "workload.op=read"],
        "controllers.iop332.write_back",
        "true",
        "false",
        "write-back cache",
        None,
    ),
    ("psu_mmap", [], "controllers.iop332.write_back", "true", "false", None, []),
    (
        "atlas_cern_receive",
        [],
        "workload.runs",
        1,
        3,
        "workload.op is write",
        ["workload.op=read", "workload.total_MB=100"],
    ),
    (
        "atlas_cern_receive",
        ["volumes.md0.filesystem.type=xfs"],
        "volumes.md0.filesystem.block_KiB",
        1,
        4,
        "xfs: the block sizes",
        None,
    ),
    (
        "atlas_cern_receive",
        ["volumes.md0.filesystem.type=raw"],
        "volumes.md0.filesystem.block_KiB",
        1,
        4,
        "raw: no file system maps its blocks",
        None,
    ),
    (
        "atlas_lightpath",
        ["variant=memory_to_memory"],
        "receiver_storage.volumes.md0.chunk_KiB",
        64,
        256,
        "workload.sink is memory",
        None,
    ),
    (
        "atlas_lightpath",
        [],
        "receiver_storage.workload.total_MB",
        2000,
        50000,
        "the transfer moves its own workload.total_MB",
        None,
    ),
    (
        "atlas_lightpath",
        ["variant=memory_to_memory"],
        "sender_storage.kernel.read_ahead_KiB",
        16,
        4096,
        "workload.source is memory",
        None,
    ),
]


def _figures(name, overrides):
    """What a prediction says, but its scenario's name."""
    result = simulate(scenario_module.load(name, overrides))
    return {k: v for k, v in dataclasses.asdict(result).items() if k != "scenario"}


def _told(name, overrides, key, value):
    """Whether ``key`` set to ``value`` after ``overrides`` is told as unread."""
    scenario = scenario_module.load(name, [*overrides, f"{key}={value}"])
    return any(u.text == f"{key}={value}" for u in unread.not_read_at(scenario))


def _case_id(case):
    return f"{case[0]}-{case[2]}-{'-'.join(case[1]) or 'as_shipped'}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_a_key_said_unread_changes_nothing_and_moves_the_prediction_where_read(case):
    name, unread_at, key, a, b, words, read_at = case
    if words is None:  # a configuration that reads it: no word, and the key moves the figures
        assert not _told(name, unread_at, key, a)
        assert _figures(name, [*unread_at, f"{key}={a}"]) != _figures(
            name, [*unread_at, f"{key}={b}"]
        )
        return
    said = unread.not_read_at(scenario_module.load(name, [*unread_at, f"{key}={a}"]))
    assert [u.text for u in said] == [f"{key}={a}"]
    assert words in said[0].why and said[0].at == "--set"
    assert _figures(name, [*unread_at, f"{key}={a}"]) == _figures(name, [*unread_at, f"{key}={b}"])
    if read_at is not None:  # the same key, where the claim says it is read
        assert not _told(name, read_at, key, a)
        assert _figures(name, [*read_at, f"{key}={a}"]) != _figures(name, [*read_at, f"{key}={b}"])


def test_every_rule_is_tried():
    """Each pattern of each body's table is a key of a case of that body's model (a `*` an
    entry's name)."""
    tables = {
        "wan_transfer": WAN_UNREAD,
        "db_clients": DB_UNREAD,
        "download_server": DOWNLOAD_UNREAD,
        "ingest": INGEST_UNREAD,
        "storage": STORAGE_UNREAD,
    }
    models = {name: scenario_module.load(name).model for name in {c[0] for c in CASES}}
    untried = {
        (model, pattern)
        for model, rules in tables.items()
        for pattern, _ in rules
        if not any(
            models[case[0]] == model and unread._matched(pattern, case[2]) is not None  # noqa: SLF001
            for case in CASES
        )
    }
    # of the keys of the storage scenario an end from or to memory names, one of each end's is
    # tried: each pattern of a family is made alike (WAN_UNREAD)
    assert all(p.startswith(("sender_storage.", "receiver_storage.")) for _, p in untried), untried


def test_a_file_s_own_keys_and_its_variant_s_are_not_told():
    """mdsplus.yaml gives indirection_levels for its tests beside baseline: the file's own."""
    assert unread.not_read_at(scenario_module.load("mdsplus", [])) == []
    assert unread.not_read_at(scenario_module.load("atlas_cern_receive", [])) == []


def test_a_key_an_unknown_s_option_reads_is_not_told():
    """eah_download's connections are an unknown (keep_alive or per_file): a new connection's
    first window is unread at the point, but the interval's per_file option reads it."""
    scenario = scenario_module.load("eah_download", ["tcp.initial_window_segments=10"])
    assert scenario.body.not_read("tcp.initial_window_segments") is not None
    assert unread.not_read_at(scenario) == []


def test_the_last_setting_of_a_key_is_told_once():
    scenario = scenario_module.load(
        "atlas_lightpath", ["workload.rate_Mbps=300", "workload.rate_Mbps=900"]
    )
    assert [u.text for u in unread.not_read_at(scenario)] == ["workload.rate_Mbps=900"]


def test_a_key_set_through_a_named_scenario_is_asked_of_it():
    """A WAN transfer's receiver storage, written through: its ext3 ratio on an XFS volume."""
    scenario = scenario_module.load(
        "atlas_lightpath",
        ["variant=bbftp_disk_to_disk", "receiver_storage.kernel.ext3_write_ratio=0.3"],
    )
    said = unread.not_read_at(scenario)
    assert [u.text for u in said] == ["receiver_storage.kernel.ext3_write_ratio=0.3"]
    assert said[0].why.startswith("receiver_storage (atlas_cern_receive): volumes.md0.filesystem")


def test_predict_says_it_first_in_text_and_json(run_cli):
    status, out, err = run_cli(
        "predict", "atlas_lightpath", "--point", "--set", "workload.rate_Mbps=800"
    )
    assert status == 0 and err == "", err
    lines = out.splitlines()
    assert lines[1] == (
        "  not read     workload.rate_Mbps=800 (--set): workload.protocol is bbftp: the rate "
        "paces a Tsunami session only"
    )
    status, out, _ = run_cli(
        "predict", "atlas_lightpath", "--point", "--json", "--set", "workload.rate_Mbps=800"
    )
    assert json.loads(out)["not_read"] == [
        {
            "set": "workload.rate_Mbps=800",
            "at": "--set",
            "why": "workload.protocol is bbftp: the rate paces a Tsunami session only",
        }
    ]
    status, out, _ = run_cli("predict", "atlas_lightpath", "--point", "--set", "tcp.sack=false")
    assert "not read" not in out


@pytest.mark.parametrize("engine", ["inprocess", "papermill"])
def test_a_sweep_point_records_the_keys_it_does_not_read(tmp_path, engine):
    """Each point's not_read: its own keys and its grid's base keys alike, as given (the review:
    a base key had been told as the point's; a notebook's point had recorded none)."""
    path = tmp_path / "grid.yaml"
    path.write_text(
        f"name: t\nscenario: atlas_x330\nengine: {engine}\nbase: [kernel.page_B=8192]\n"
        "product: {kernel.ext3_write_ratio: [0.5], workload.total_MB: [100]}\n"
    )
    grid, points = grid_module.load(path)
    (spec,) = specs_module.specs(grid, points, tmp_path / "x")
    record = point_module.run_point(spec)
    assert record["status"] == "ok", record["error"]
    assert json.loads(record["not_read"]) == [
        {
            "key": "kernel.page_B",
            "set": "kernel.page_B=8192",
            "why": "workload.io is buffered: the page size counts a mapping's pages",
        },
        {
            "key": "kernel.ext3_write_ratio",
            "set": "kernel.ext3_write_ratio=0.5",
            "why": "workload.op is read: the ratio prices writes through ext3",
        },
    ]


def _swept(run_cli, folder, scenario: str, product: str):
    """``run_cli``'s result of an in-process sweep of ``scenario`` over ``product`` (a flow
    mapping) in ``folder``, one worker."""
    folder.mkdir(exist_ok=True)
    path = folder / "grid.yaml"
    base = "base: [workload.total_MB=1000]\n" if scenario == "atlas_lightpath" else ""
    path.write_text(f"name: t\nscenario: {scenario}\nengine: inprocess\n{base}product: {product}\n")
    return run_cli("sweep", str(path), "--out", str(folder / "out"), "--workers", "1")


def test_a_sweep_s_summary_says_which_keys_its_points_did_not_read(run_cli, tmp_path):
    """A grid's axis no point reads changed nothing: the summary says so, with how many points."""
    status, out, err = _swept(
        run_cli,
        tmp_path,
        "atlas_lightpath",
        "{workload.rate_Mbps: [300, 900], variant: [bbftp_disk_to_disk, tsunami]}",
    )
    assert status == 0, err
    assert out.splitlines()[1:] == [
        "not read, by key (each point's in the results' not_read column):",
        "  workload.rate_Mbps: at 2 of 4 points (workload.protocol is bbftp: the rate paces a "
        "Tsunami session only)",
    ]
    # said before the points run too, where the first point does not read it
    assert (
        "t: its first point does not read workload.rate_Mbps=300: workload.protocol is bbftp: the "
        "rate paces a Tsunami session only (the sweep goes on; its summary counts the points that "
        "do not)\n" in err
    ), err


def test_a_sweep_says_before_its_points_run_only_what_its_first_point_does_not_read(
    run_cli, tmp_path
):
    """The line before the points run speaks of the first point alone: with the Tsunami variant
    first, which reads the rate, nothing is said until the summary; a grid whose first point its
    scenario refuses runs, that point recorded as failed."""
    rate = "{workload.rate_Mbps: [300], variant: [tsunami, bbftp_disk_to_disk]}"
    status, out, err = _swept(run_cli, tmp_path / "a", "atlas_lightpath", rate)
    assert status == 0, err
    assert "first point" not in err, err
    assert "workload.rate_Mbps: at 1 of 2 points" in out, out
    raid6 = "{volumes.md0.level: [raid6, raid0], volumes.md0.disks.count: [3, 4]}"
    status, out, err = _swept(run_cli, tmp_path / "b", "atlas_intellistation", raid6)
    assert status == 4 and "first point" not in err, err
    assert "4 run now (1 failed)" in out, out


def _configurations():
    """Every shipped scenario as shipped and at each of its variants."""
    for name in scenario_module.shipped_names():
        for variant in [None, *scenario_module.variants_of(name)]:
            yield name, [f"variant={variant}"] if variant else []


def _each_entry(scenario, key):
    """``key``, or where it names a volume or a controller, that key of each of the scenario's."""
    mapping, _, rest = key.partition(".")
    if mapping not in ("volumes", "controllers"):
        return [key]
    below = rest.partition(".")[2]
    return [f"{mapping}.{name}.{below}" for name in getattr(scenario.body, mapping, ())]


def test_every_claim_on_every_shipped_configuration_holds():
    """Wherever a body says a case's key is unread, in any shipped scenario and variant (a
    volume's or a controller's key of each of them), the key's two values predict the same."""
    from model.errors import NotModelled, UserError

    checked = 0
    for name, overrides in _configurations():
        scenario = scenario_module.load(name, overrides)
        for _, _, key, a, b, _, _ in CASES:
            for each in _each_entry(scenario, key):
                if unread.why_not_read(scenario, each) is None:
                    continue
                try:
                    same = _figures(name, [*overrides, f"{each}={a}"]) == _figures(
                        name, [*overrides, f"{each}={b}"]
                    )
                except (UserError, NotModelled):  # refused, or no model: nothing to compare
                    continue
                assert same, (name, overrides, each)
                # made whatever the key's own value (what a sweep's memo of them takes)
                for value in (a, b):
                    at = scenario_module.load(name, [*overrides, f"{each}={value}"])
                    assert unread.why_not_read(at, each) is not None, (name, overrides, each)
                checked += 1
    assert checked > 500, checked


def test_a_key_read_at_an_unknown_s_range_end_is_not_told(tmp_path):
    """A compression ratio of 1 has nothing to expand; a ratio the documentation allows from 1 to
    2 reads the expander's cost at 2, an end the interval meets."""
    text = (scenario_module.resolve("mdsplus")).read_text()
    path = tmp_path / "m.yaml"
    path.write_text(
        text.replace("compression_ratio: 1.3", "compression_ratio: 1")
        + "unknowns:\n  compression_ratio: {range: [1, 2], source: a test's}\n"
    )
    scenario = scenario_module.load(path, ["decompress_cycles_per_byte=5"])
    assert scenario.body.not_read("decompress_cycles_per_byte") is not None
    assert unread.not_read_at(scenario) == []
    closed = scenario_module.load(path, ["compression_ratio=1", "decompress_cycles_per_byte=5"])
    assert [u.text for u in unread.not_read_at(closed)] == ["decompress_cycles_per_byte=5"]


def test_a_store_an_end_from_memory_names_is_told_of_its_volumes_not_of_its_cards():
    """The store describes the end host whatever the transfer moves: its cards take the host's
    slots (wan._end_slots), so naming none or another, or changing its controllers, is not told
    (the review: sender_storage=null had been told unread where it freed a slot, 7,148 against
    12,372 MB/s); its volumes' keys are."""
    memory = ["variant=memory_to_memory"]
    for change in ("sender_storage=null", "receiver_storage.controllers.threeware1.bus=pcix_b"):
        scenario = scenario_module.load("atlas_lightpath", [*memory, change])
        assert unread.not_read_at(scenario) == []
    scenario = scenario_module.load(
        "atlas_lightpath", [*memory, "receiver_storage.volumes.md0.level=raid1"]
    )
    (said,) = unread.not_read_at(scenario)
    assert said.why == "workload.sink is memory: the transfer writes none of its volumes"


EAH_TWO_UNKNOWNS = """
unknowns:
  server.scheduler: {options: [deadline_optimized, deadline_default], source: a test's}
  server.read_ahead_KiB: {options: [256, null], source: a test's}
"""


def _eah_two_unknowns(tmp_path):
    """eah_download with its server's own window and tuned scheduler, and two unknowns over
    them: the kernel's window is read only where both are off (the default scheduler, no window
    of the server's)."""
    text = scenario_module.resolve("eah_download").read_text()
    head = text[: text.index("variants:")]
    path = tmp_path / "eah.yaml"
    path.write_text(
        head.replace(
            "scheduler: deadline_default", "scheduler: deadline_optimized\n  read_ahead_KiB: 256"
        )
        + EAH_TWO_UNKNOWNS
    )
    return path


def test_a_key_two_unknowns_read_together_is_not_told(tmp_path):
    """The kernel's window is read only with the default scheduler and no window of the
    server's: two unknowns over those read it together, neither alone (the review: told unread
    while the interval moved, 7.31 against 18.43 MB/s at its low end)."""
    path = _eah_two_unknowns(tmp_path)
    scenario = scenario_module.load(path, ["kernel.read_ahead_KiB=16"])
    assert scenario.body.not_read("kernel.read_ahead_KiB") is not None
    assert unread.not_read_at(scenario) == []
    closed = scenario_module.load(
        path, ["server.scheduler=deadline_optimized", "kernel.read_ahead_KiB=16"]
    )
    assert [u.text for u in unread.not_read_at(closed)] == ["kernel.read_ahead_KiB=16"]


def test_a_sweep_s_memo_spares_a_point_the_combinations_another_tried(monkeypatch):
    """Points that differ only in the value of the key told share its combinations of unknowns
    (eah_download's 384): the second builds none, and says what it says without the memo."""
    built = []
    with_values = scenario_module.with_values
    monkeypatch.setattr(
        scenario_module, "with_values", lambda *a: built.append(1) or with_values(*a)
    )
    memo = {}
    for delay, clients in ((1, 2), (5, 2), (1, 4)):
        scenario = scenario_module.load(
            "eah_download",
            [
                "server.workers=1",
                f"server.accept_mutex_delay_ms={delay}",
                f"workload.clients={clients}",
            ],
        )
        built.clear()
        said = unread.column(scenario, memo)
        spent = len(built)
        assert said == unread.column(scenario)
        assert [e["key"] for e in json.loads(said)] == ["server.accept_mutex_delay_ms"]
        assert spent == (0 if (delay, clients) == (5, 2) else 383), (delay, clients, spent)


def test_a_sweep_s_memo_tries_again_the_combinations_a_point_refused(tmp_path, monkeypatch):
    """A combination of unknowns refused at one point (here, by a stand-in check, at the kernel's
    window of 16 KiB) may be met at another: the memo builds it again there, where it reads the
    key."""
    from model.errors import UserError

    path = _eah_two_unknowns(tmp_path)
    with_values = scenario_module.with_values

    def refusing(scenario, values):
        if (
            scenario.body.kernel.read_ahead_KiB == 16
            and values.get("server.read_ahead_KiB", 1) is None
        ):
            raise UserError(str(path), "kernel.read_ahead_KiB", "a test's refusal")
        return with_values(scenario, values)

    monkeypatch.setattr(scenario_module, "with_values", refusing)
    memo = {}
    first = scenario_module.load(path, ["kernel.read_ahead_KiB=16"])
    assert [u.key for u in unread.not_read_at(first, memo)] == ["kernel.read_ahead_KiB"]
    second = scenario_module.load(path, ["kernel.read_ahead_KiB=32"])
    assert unread.not_read_at(second, memo) == []
    assert unread.not_read_at(second) == []


def test_a_key_told_unread_with_unknowns_open_leaves_the_interval_as_it_was():
    """eah_download's seven open unknowns, none over the server's window: the kernel's window,
    told unread beside the server's own, moves neither end of the 90 % interval."""
    from model import uncertainty

    ends = []
    for size in (16, 4096):
        scenario = scenario_module.load(
            "eah_download", ["server.read_ahead_KiB=256", f"kernel.read_ahead_KiB={size}"]
        )
        assert [u.key for u in unread.not_read_at(scenario)] == ["kernel.read_ahead_KiB"]
        interval = uncertainty.interval(scenario)
        ends.append((interval.low, interval.high))
    assert ends[0] == ends[1]


def test_a_volume_s_key_its_level_cannot_use_is_refused_not_told(run_cli):
    """A volume's own choice that means nothing on its engine or level is refused, as its other
    such keys are (md_group_thread_cnt off parity levels); a host's or its clients' setting the
    workload does not exercise is told."""
    status, out, err = run_cli(
        "predict", "purchase_nvme", "--point", "--set", "volumes.data.md_raid6_rmw=false"
    )
    assert status == 2 and out == "", err
    assert "volumes.data.md_raid6_rmw: only for md RAID6" in err
    assert "level is raid10: remove it" in err


def test_a_sweep_s_summary_counts_only_the_not_read_columns_it_wrote():
    """A failed point records none; a user's notebook may write a figure of that name that is
    not the column (text, a number): neither is counted, nor breaks the summary."""
    ours = json.dumps([{"key": "kernel.page_B", "set": "kernel.page_B=8192", "why": "io"}])
    columns = [ours, "[]", None, "hello", 3.5, '{"key": 1}', '[{"key": 2}]', "a; b"]
    assert unread.sweep_lines(columns) == ["  kernel.page_B: at 1 of 2 points (io)"]
    assert unread.recorded(columns) == 2
    assert unread.recorded([None, "old text"]) == 0


def test_a_sweep_s_summary_gives_each_reason_with_its_count():
    """The review: a key unread for two reasons (bbftp's points and iperf's) was told with the
    first point's reason alone."""

    def told(why):
        return json.dumps(
            [{"key": "workload.rate_Mbps", "set": "workload.rate_Mbps=300", "why": why}]
        )

    columns = [told("bbftp"), told("iperf"), told("bbftp"), "[]"]
    assert unread.sweep_lines(columns) == [
        "  workload.rate_Mbps: at 3 of 4 points (2: bbftp; 1: iperf)"
    ]


def _with_unknown(tmp_path, name, replaced, unknown):
    """Shipped scenario ``name`` with ``replaced`` (old, new text) and its variants given way to
    ``unknown`` (YAML text under unknowns:)."""
    text = scenario_module.resolve(name).read_text()
    old, new = replaced
    path = tmp_path / f"{name}.yaml"
    head = text[: text.index("variants:")].replace(old, new)
    path.write_text(head + "unknowns:\n" + unknown)
    return path


def test_a_sweep_s_memo_keeps_a_key_s_claim_with_the_other_keys_told(tmp_path):
    """The review: the expander's cost, told unread at a ratio of 1 (nothing expanded) where the
    PTDATA test reads no ratio either, was said unread at a ratio of 1.5 too, the memo keying the
    two points alike (both keys told); the math test an unknown may meet reads it there."""
    path = _with_unknown(
        tmp_path,
        "mdsplus",
        ("test: baseline", "test: ptdata"),
        "  workload.test: {options: [ptdata, baseline], source: a test's}\n",
    )
    memo = {}
    for ratio, said in ((1.0, ["decompress_cycles_per_byte"]), (1.5, [])):
        point = scenario_module.load(
            path, [f"compression_ratio={ratio}", "decompress_cycles_per_byte=3"]
        )
        assert [u.key for u in unread.not_read_at(point)] == said
        assert [u.key for u in unread.not_read_at(point, memo)] == said


def test_a_sweep_s_memo_searches_again_where_the_combination_that_read_a_key_is_refused(
    tmp_path,
):
    """The review: an unknown over xfs and ext3 reads an xfs volume's block size at ext3; a block
    of 0.5 KiB, which ext3 refuses, leaves only xfs, which reads none, and the memo of a 4 KiB
    point had kept the ext3 combination as met."""
    path = _with_unknown(
        tmp_path,
        "ext_870_evo",
        ("filesystem: {type: raw}", "filesystem: {type: xfs}"),
        "  volumes.drive.filesystem.type: {options: [xfs, ext3], source: a test's}\n",
    )
    memo = {}
    key = "volumes.drive.filesystem.block_KiB"
    for block, said in ((4, []), (0.5, [key])):
        point = scenario_module.load(path, [f"{key}={block}"])
        assert [u.key for u in unread.not_read_at(point)] == said
        assert [u.key for u in unread.not_read_at(point, memo)] == said


def test_a_sweep_s_memo_is_kept_for_that_sweep_alone():
    """A point of another sweep (its token) finds an empty memo: that sweep may run after the
    files the first read changed."""
    first = point_module._unread_memo("first")
    first["context"] = "combinations tried"
    assert point_module._unread_memo("first") is first
    assert point_module._unread_memo("second") == {}
    assert point_module._unread_memo("first") == {}
