"""What used to raise a traceback or pass silently is one line naming the file and key, and exit
2."""

import pytest


@pytest.mark.parametrize(
    "override, message",
    [
        ("workload.total_MB=.inf", "workload.total_MB: must be a finite number, got inf"),
        ("workload.total_MB=.nan", "workload.total_MB: must be a finite number, got nan"),
        (
            "volumes.md0.disks.attach.99=promise1.0",
            "no position 99 in a list of 5; allowed: 0 to 4",
        ),
        ("volumes.md0.disks.count.x=1", "volumes.md0.disks.count.x"),
        ("variant=[a]", "has no variant ['a']"),
        ("variant=null", "has no variant null;"),  # the input audit: it read None
        (
            "volumes.md0.disks.attach=[promise1.0,promise1.0,promise1.1,promise2.0,promise2.1]",
            "attach[1]: promise1.0 is already taken by volumes.md0.disks.attach[0]",
        ),
        (  # the code review: 'promise1.00' beside 'promise1.0' was a second channel resource,
            # three drives on one UDMA33 channel reading 89.7 MB/s, three times its rate
            "volumes.md0.disks.attach=[promise1.0,promise1.00,promise1.1,promise2.0,promise2.1]",
            "attach[1]: must be CONTROLLER.CHANNEL, SHELF.BAY or nvme.SEGMENT.N with N written "
            "without leading zeros, got 'promise1.00'",
        ),
        # the code review: any parameter was read as ns a byte (a cache block's cycles held a
        # write to 0.09 MB/s), and a misspelt one passed on a read, no write crossing the card
        (
            "controllers.promise1.driver_cost=raid_cycles_per_cache_block",
            "controllers.promise1.driver_cost: must name a free parameter of a driver's host CPU "
            "a byte written (ns/B); allowed: iop332_driver_write_ns_per_byte; got "
            "'raid_cycles_per_cache_block'",
        ),
        ("controllers.promise1.driver_cost=nonesuch", "got 'nonesuch'"),
        # a RAID card's settings on a plain IDE card were accepted and moved nothing
        (
            "controllers.promise1.write_back=true",
            "controllers.promise1.write_back: only for a controller whose RAID heads a volume "
            "(engine: controller); no volume here is promise1's",
        ),
        ("controllers.promise1.mirror_reads=primary", "promise1.mirror_reads: only for"),
        ("controllers.promise2.processor_MHz=1", "promise2.processor_MHz: only for"),
        (
            "workload.total_MB=1000000000000.0",
            "workload.total_MB: 1e+09 GB of data do not fit on volume md0",
        ),
    ],
)
def test_an_override_mistake_is_one_line_naming_its_key(run_cli, override, message):
    status, out, err = run_cli("predict", "atlas_intellistation", "--set", override)
    assert status == 2 and not out and err.count("\n") == 1
    assert err.startswith("--set: ") and message in err


def test_too_many_writers_for_the_store_are_told_as_the_ingest_file_that_adds_them(run_cli):
    bigger = "storage_overrides=[variant=striped,workload.total_MB=1000000]"
    status, out, err = run_cli(
        "predict", "em_ingest_microscopes", "--set", "clients=2000", "--set", bigger, "--point"
    )
    assert status == 2 and not out and err.count("\n") == 1
    # the file, with the overrides that made its configuration (Scenario.relocated)
    assert err.startswith(
        f"data/scenarios/em_ingest_microscopes.yaml (with --set clients=2000, {bigger}): "
        "storage: 'em_ingest' with "
    )
    assert "2,000 streams of 1e+06 MB) do not fit on volume lv" in err


def test_a_model_named_by_a_list_is_one_line(run_cli, tmp_path):
    # folders, devices, binary files and YAML bombs: tests/test_yaml_safety.py
    listed = tmp_path / "model_list.yaml"
    listed.write_text("model: [storage]\nname: x\ndescription: x\nsource: x\n")
    status, out, err = run_cli("predict", str(listed))
    assert status == 2 and not out and err.count("\n") == 1
    assert "model: must be one of storage" in err


def test_a_missing_model_and_a_null_key_are_told_in_yaml_s_words(run_cli, tmp_path):
    """The input audit: Python's None leaked into messages ('got None', 'product.None')."""
    bare = tmp_path / "bare.yaml"
    bare.write_text("name: x\n")
    status, out, err = run_cli("predict", str(bare))
    assert status == 2 and not out
    assert err.endswith("got none (the file gives no model: key)\n"), err
    grid = tmp_path / "grid.yaml"
    grid.write_text("name: g\nscenario: em_ingest\nproduct:\n  null: [1]\n")
    status, out, err = run_cli("sweep", str(grid), "--out", str(tmp_path / "out"))
    assert status == 2 and not out
    assert err == (
        f"{grid}: product: a key here must be a name, got null (YAML reads null, ~, true, false, "
        "yes, no, on and off unquoted as values): quote it if it is a name\n"
    )


def test_an_empty_catalog_and_a_list_s_position_not_a_number_are_told_so(run_cli):
    """The input audit: --catalog '' (an unset variable) was told '.: is a folder', and a list's
    position -1 'attach is a value, not a section'."""
    status, out, err = run_cli("predict", "atlas_intellistation", "--catalog", "")
    assert (status, out) == (2, "")
    assert err == "--catalog: must name a parts file, got an empty string\n"
    status, out, err = run_cli(
        "predict", "atlas_intellistation", "--set", "volumes.md0.disks.attach.-1=promise1.0"
    )
    assert (status, out) == (2, "")
    assert err.endswith(
        "volumes.md0.disks.attach is a list: give a position 0, 1, 2 ..., got '-1'\n"
    ), err


def test_a_key_given_twice_and_a_number_in_scientific_notation(run_cli, tmp_path):
    twice = tmp_path / "twice.yaml"
    twice.write_text(scenario_text().replace("seed: 1\n", "seed: 1\nseed: 2\n", 1))
    status, _, err = run_cli("predict", str(twice))
    assert status == 2 and "seed: given twice (line" in err
    status, out, _ = run_cli(
        "predict", "atlas_intellistation", "--set", "workload.total_MB=1e3", "--json", "--point"
    )
    assert status == 0 and '"bytes_moved": 1000000000.0' in out


def scenario_text() -> str:
    from model import scenario

    return scenario.resolve("atlas_intellistation").read_text()


@pytest.mark.parametrize(
    "name, override, message",
    [
        (
            "atlas_lightpath",
            "workload.streams=10001",
            "up to 10,000 (each TCP stream is simulated)",
        ),
        ("atlas_lightpath", "workload.sessions=700", "sessions x streams must be at most 10,000"),
        ("atlas_lightpath", "circuits=1001", "up to 1,000 (one NIC each)"),
        ("mdsplus", "servers=1001", "up to 1,000 (each host is simulated)"),
        ("mdsplus", "workload.reads_per_client=10001", "up to 10,000 (each read is simulated)"),
        (
            "psu_mmap",
            "workload.runs=1001",
            "up to 1,000 (the memory-mapped test simulates each run)",
        ),
        ("psu_relay", "real_servers.count=101", "up to 100 (each machine is simulated)"),
        ("psu_relay", "feed.products=10001", "up to 10,000 (each product is followed"),
        # ipvsadm takes whole weights: 0.001 was taken (the network fuzz)
        ("psu_relay", "real_servers.weights=[1,0.001]", "a whole number from 1 to 65,535"),
        ("psu_relay", "feed.sites=10001", "up to 10,000 (each site is simulated)"),
        ("eah_download", "workload.clients=10001", "up to 10,000 (each client is simulated)"),
        ("eah_download", "chunk_KiB=1048577", "a power of two from 4 to 1,048,576 KiB"),
        # an MTU of 52 bytes was a ZeroDivisionError traceback, 40 a negative segment that ran
        ("eah_download", "mtu_B=52", "an MTU from 576 to 65,535 bytes"),
        ("mdsplus", "mtu_B=65536", "an MTU from 576 to 65,535 bytes"),
        ("atlas_lightpath", "mtu_B=100", "an MTU from 576 to 65,535 bytes"),
        ("atlas_intellistation", "kernel.page_B=9007199254740993", "at most 2^53"),
        ("psu_copy", "kernel.page_B=12288", "must be a power of two from 4,096 to 65,536"),
        ("atlas_lightpath", "tcp.page_B=3", "must be a power of two from 4,096 to 65,536"),
        ("atlas_lightpath", "tcp.tcp_adv_win_scale=40", "an integer from 1 to 31"),
        ("mdsplus", "workload.values_per_read=-9223372036854775808", "at most 2^53 in size"),
        ("mdsplus", "workload.read_MB=1e308", "read_MB: must be at most 2^53 in size"),
        ("atlas_lightpath", "rtt_ms=1e308", "rtt_ms: must be at most 2^53 in size"),
        ("eah_download", "workload.file_size_KiB=1e-9", "a file of at least one byte"),
        ("psu_mmap", "workload.total_MB=1e12", "total_MB: a mapped file of 1e+12 MB does not fit"),
        (
            "psu_mmap",
            "workload.request_KiB=9e15",
            "request_KiB: a request is at most what a stream moves",
        ),
        ("psu_mmap", "kernel.read_ahead_KiB=1e12", "read-around is modelled up to half the page"),
        # each run may be simulated (4 KiB chunks of a 4.03 GB file never repeat a page cache):
        # 1,000 runs of the 4 GB file are 131 million chunks
        ("psu_mmap", "workload.runs=1000", "with 1,000 runs, total_MB is at most 274 MB"),
        ("em_ingest_microscopes", "client_cap_MBps=1e-300", "at least 2^-53 (1.1e-16) in size"),
        # a WRITE of 1 GiB was taken: no SMB2 server offers more than 8 MiB (ksmbd's limit)
        ("em_ingest_microscopes", "smb_write_KiB=1048576", "a positive number up to 8,192 KiB"),
    ],
)
def test_a_count_or_size_past_what_the_model_takes_is_one_line(run_cli, name, override, message):
    # the counts once hung, or raised a traceback from numpy or numba, at 2**63; a page of 3 bytes
    # and a window scale of 40 once predicted silently; a number near the doubles' limit overflowed
    # to infinity, one near zero underflowed to a division by zero, and a file of no whole byte, a
    # mapped file past its volume and a read-around past memory raised tracebacks
    status, out, err = run_cli("predict", name, "--set", override, "--point")
    assert status == 2 and not out and err.count("\n") == 1
    assert message in err, err


@pytest.mark.parametrize(
    ("override", "message"),
    [
        # a traceback at loss 0.88 and over: no block arrived whole, and the transfer never ended
        ("loss_rate=0.9", "loss_rate: a 32,768 B Tsunami block arrives whole only if all 23"),
        # a block no UDP datagram carries was taken, in 676 fragments
        ("workload.block_B=1000000", "at most 65,501 bytes, got 1,000,000"),
    ],
)
def test_a_tsunami_transfer_that_cannot_end_is_one_line(run_cli, override, message):
    status, out, err = run_cli(
        "predict", "atlas_lightpath", "--set", "variant=tsunami", "--set", override, "--point"
    )
    assert status == 2 and not out and err.count("\n") == 1
    assert message in err, err
    most = float(err.split("at most ")[1].split()[0]) if "loss_rate" in override else None
    if most is not None:  # the loss it names as the most still predicts
        status, out, _ = run_cli(
            "predict",
            "atlas_lightpath",
            "--set",
            "variant=tsunami",
            "--set",
            f"loss_rate={most * 0.999}",
            "--point",
        )
        assert status == 0 and "MB/s" in out


def test_a_count_at_its_bound_still_predicts(run_cli):
    status, out, _ = run_cli("predict", "atlas_lightpath", "--set", "workload.streams=10000")
    assert status == 0 and "MB/s" in out


UP_TO_10000 = "a positive integer up to 10,000 (each client is simulated)"


@pytest.mark.parametrize(
    ("override", "message"),
    [
        # it said 'got 1000000000000.0'
        (
            "clients.count=1e12",
            f"clients.count: must be {UP_TO_10000}, got 1e+12",
        ),
        (
            "clients.count=2.5",
            f"clients.count: must be {UP_TO_10000}, got 2.5",
        ),
        (
            "clients.count=-1e-7",
            f"clients.count: must be {UP_TO_10000}, got -1e-7",
        ),
        (
            "clients.count=9007199254740993",
            "clients.count: must be at most 2^53 in size, got 9,007,199,254,740,993",
        ),
        ("workload.total_MB=1e300", "workload.total_MB: must be at most 2^53 in size, got 1e+300"),
        ("clients.protocol=nfs4", "'nfs', 'smb', got 'nfs4'"),  # text stays quoted
    ],
)
def test_a_number_in_a_message_reads_as_the_user_would_write_it(run_cli, override, message):
    status, out, err = run_cli("predict", "purchase_hdd_md", "--set", override, "--point")
    assert status == 2 and not out and err.count("\n") == 1
    assert message in err, err


def test_clients_and_reads_each_in_range_are_refused_past_what_a_run_simulates_quickly(run_cli):
    """The speed audit's 1,000 clients of 10,000 reads each, each key within its own limit: 10
    million reads, some 13 minutes. 12 clients of 1,667 reads (20,004) are refused, 1,666 run."""
    many = ["--set", "workload.clients=12", "--set", "workload.reads_per_client=1667"]
    status, out, err = run_cli("predict", "mdsplus", "--point", *many)
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "workload.reads_per_client: clients x reads_per_client must be at most 20,000" in err
    assert "got 12 x 1667" in err
    many[-1] = "workload.reads_per_client=1666"
    assert run_cli("predict", "mdsplus", "--point", *many)[0] == 0


def test_ingest_clients_are_refused_past_what_a_run_simulates_on_the_store_s_drives(run_cli):
    """The speed audit's 10,000 microscopes on the striped store's 180 drives: 10 s for the point,
    some 130 s for its interval. 2,222 clients (399,960 pairs) run; 2,223 are refused."""
    status, out, err = run_cli(
        "predict", "em_ingest_microscopes", "--point", "--set", "clients=2223"
    )
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "clients x the store's drives must be at most 400,000" in err and "2223 x 180" in err
    assert run_cli("predict", "em_ingest_microscopes", "--point", "--set", "clients=2222")[0] == 0


def test_data_past_a_drive_typed_in_tb_asks_whether_it_is(run_cli, tmp_path):
    """The vendor-quote audit: a drive's 7.68 TB typed as capacity_GB: 7.68 was told as the
    scenario's data not fitting; the refusal names the part's key and asks."""
    parts = tmp_path / "parts.yaml"
    parts.write_text(
        "ssds:\n  quoted:\n    like: samsung_pm9a3_7680\n    capacity_GB: 7.68\n"
        '    sources: {capacity_GB: "the vendor\'s quote"}\n'
    )
    status, out, err = run_cli(
        "predict", "purchase_nvme", "--point", "--catalog", str(parts),
        "--set", "volumes.data.disks.part=quoted",
    )  # fmt: skip
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert "GB of each 7.68 GB drive (quoted's capacity_GB; a TB figure typed as GB?)" in err
