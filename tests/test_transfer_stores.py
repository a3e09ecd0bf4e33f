"""A store another scenario names is read or written as that scenario does it: a transfer's own
processes (bbftp's streams, bbcp's one disk thread a side), an ingest's own clients, none of the
store's own clients or workload; and what the store alone refuses is refused through it, at the
key the user typed. Found by an audit of composite answers against their parts' own."""

import json

from grid_files import one_line

FASTERDATA = "ext_net_fasterdata_100g"
HDD_SENDER = ["--set", "sender_storage=purchase_hdd_md", "--set", "sender_host=epyc_storage_server"]
HDD_RECEIVER = [
    "--set",
    "receiver_storage=purchase_hdd_md",
    "--set",
    "receiver_host=epyc_storage_server",
]
BBCP = ["--set", "workload.protocol=bbcp"]


def _figures(run_cli, *args):
    status, out, err = run_cli("predict", *args, "--point", "--json")
    assert status == 0, err
    return json.loads(out)


def test_bbcp_reads_and_writes_a_store_in_one_thread_as_the_store_alone_would(run_cli):
    """bbcp reads its file, and writes it, in one thread a side (bbcp_File.C): from purchase_hdd_md
    it had given 4,637 MB/s with that thread's reads charged to each of its 12 streams' cores,
    where the store alone read by one stream gives 1,885; into it, 3,571 with the store's own
    eight writers where one writes 1,633. Both ends now match the store alone with one stream,
    and the bottleneck is the disk thread's core."""
    alone = {
        op: _figures(
            run_cli,
            "purchase_hdd_md",
            "--set",
            "clients=null",
            "--set",
            f"workload.op={op}",
        )["throughput_MBps"]
        for op in ("read", "write")
    }
    source = ["--set", "workload.source=disk"]
    read = _figures(run_cli, FASTERDATA, *HDD_SENDER, *BBCP, *source)
    sink = ["--set", "workload.sink=disk"]
    written = _figures(run_cli, FASTERDATA, *HDD_RECEIVER, *BBCP, *sink)
    assert abs(read["throughput_MBps"] / alone["read"] - 1) < 0.01, (read, alone)
    assert abs(written["throughput_MBps"] / alone["write"] - 1) < 0.01, (written, alone)
    assert read["bottleneck"] == "core sender.disk0", read["bottleneck"]
    assert written["bottleneck"] == "core receiver.disk0", written["bottleneck"]


def test_bbftp_s_streams_each_write_their_part_of_the_receiver_s_file(run_cli):
    """bbftpd forks a child a stream, each storing its part (bbftpd_store.c): the receiver's store
    is written by the transfer's streams, never faster than the store alone written by as many."""
    sink = ["--set", "workload.sink=disk", "--set", "workload.protocol=bbftp"]
    for streams in (1, 4):
        transfer = _figures(
            run_cli, FASTERDATA, *HDD_RECEIVER, *sink, "--set", f"workload.streams={streams}"
        )
        alone = _figures(
            run_cli,
            "purchase_hdd_md",
            "--set",
            "clients=null",
            "--set",
            f"workload.streams={streams}",
        )
        assert transfer["throughput_MBps"] <= alone["throughput_MBps"] * 1.01, (streams, transfer)


def test_the_transfer_sets_its_stores_workload_and_leaves_out_their_clients(run_cli):
    """What the transfer decides of its store is refused through it, at the key typed: the store's
    own clients (a misspelt NIC of theirs had predicted), its op, streams and pattern. A sender's
    store whose own file writes serves a transfer that reads it (it had been refused as 'must
    read', and the op the refusal asked for was then told not read)."""
    for key in (
        "receiver_storage.clients.nic=nosuchnic",
        "receiver_storage.workload.op=read",
        "receiver_storage.workload.streams=4",
        "receiver_storage.workload.pattern=random",
    ):
        one_line(
            run_cli("predict", FASTERDATA, "--point", *HDD_RECEIVER, "--set", key),
            f"--set: {key.partition('=')[0]}: this scenario sets ",
            "from its workload (the transfer alone reads or writes the store",
        )
    figures = _figures(run_cli, FASTERDATA, *HDD_SENDER)  # purchase_hdd_md's own file writes
    assert figures["throughput_MBps"] > 10_000  # memory to memory on the 100 GbE circuit


def test_a_store_s_drives_are_held_to_their_bays_through_a_transfer(run_cli):
    """A drive attached past a riser's slots, or an uplink past an HBA's channels, is refused as
    the store alone refuses it, at the key typed, whether the transfer moves memory or disk: the
    riser's had predicted 12,375 MB/s, and the uplink's had been told as the transfer's file's
    shelves.jbod.uplink[0], or as one of its unknowns' design points."""
    nvme = ["--set", "receiver_storage=purchase_nvme", "--set", "receiver_host=epyc_storage_server"]
    one_line(
        run_cli(
            "predict",
            "ext_net_esnet_100g_switch",
            "--point",
            *nvme,
            "--set",
            "receiver_storage.volumes.data.disks.attach.7=nvme.riser1.9",
        ),
        "--set: receiver_storage.volumes.data.disks.attach[7]: ",
        "slots 0 to 3; got 'nvme.riser1.9'",
    )
    uplink = ["--set", "receiver_storage.shelves.jbod.uplink.0=hba.9"]
    for moved in ([], ["--point", *BBCP, "--set", "workload.sink=disk"]):
        one_line(
            run_cli("predict", FASTERDATA, *moved, *HDD_RECEIVER, *uplink),
            "--set: receiver_storage.shelves.jbod.uplink[0]: ",
            "channels 0 to 7, got 'hba.9'",
        )


def test_an_ingest_writes_its_store_with_its_own_clients_alone(run_cli):
    """A store whose file has SMB clients of its own (purchase_hdd_md) had given the ingest its
    bound and cap from those clients, not its figure: 3,571 MB/s against a bound of 941 with the
    store's clients on 1 GbE. The ingest's clients stand in for them: its figure stays within its
    bound, the store's clients are refused through it at the key typed, and fewer ingest clients
    than the store's own are taken (they had been refused as the store's streams)."""
    store = ["--set", "storage=purchase_hdd_md", "--set", "storage_overrides=[]"]
    figures = _figures(run_cli, "em_ingest_microscopes", *store)
    assert figures["throughput_MBps"] <= figures["bound_MBps"] * (1 + 1e-9), figures
    one_line(
        run_cli(
            "predict",
            "em_ingest_microscopes",
            "--point",
            *store,
            "--set",
            "storage.clients.link=lan_gbe",
        ),
        "--set: storage.clients.link: this scenario sets clients in the scenario storage names "
        "(clients=null) from its clients, one writer per client: set that",
    )
    two = _figures(run_cli, "em_ingest_microscopes", *store, "--set", "clients=2")
    assert 0 < two["throughput_MBps"] < figures["throughput_MBps"], (two, figures)


def test_a_driver_moving_the_outcome_by_rounding_alone_is_not_named(run_cli):
    """bbftp into purchase_hdd_md binds at the store, which the MTU unknown moves by 6e-5 MB/s:
    it had been named as holding "100 % of the spread: 3,571 MB/s to 3,571 MB/s"."""
    sink = ["--set", "workload.sink=disk", "--set", "workload.protocol=bbftp"]
    status, out, err = run_cli("predict", FASTERDATA, "--json", *HDD_RECEIVER, *sink)
    assert status == 0, err
    figures = json.loads(out)
    assert figures["drivers"] == {} and figures["by_option"] == {}, figures["drivers"]
    status, out, err = run_cli("predict", FASTERDATA, *HDD_RECEIVER, *sink)
    assert "no declared unknown, parameter or seed moves it" in out, out
