"""A drive plugs into what its controller's channels or its shelf's bays take
(``model.storage.attachment.DRIVES_TAKEN``): a parallel ATA channel IDE drives, a parallel SCSI
bus SCSI drives, a SAS port or bay SAS and SATA drives, a SATA port SATA drives. The input audit
found a SAS drive on a Promise IDE card predicted at 222.8 MB/s and an IDE drive on a SAS HBA at
258.6 MB/s, both with status 0."""

import shutil

import pytest
import yaml

from model import paths

TEMPLATE = paths.PROJECT_ROOT / "data" / "templates" / "storage_server.yaml"


def _one_line(result, said):
    status, out, err = result
    assert status == 2 and not out and err.count("\n") == 1, (status, out, err)
    assert err == said + "\n", err


@pytest.mark.parametrize(
    ("name", "override", "said"),
    [
        (
            "atlas_intellistation",
            "volumes.md0.disks.part=exos_x18_st18000nm004j",
            "exos_x18_st18000nm004j is a SAS drive; promise1's channels (ATA Ultra DMA mode 5 "
            "(UDMA100)) take IDE (parallel ATA) drives only",
        ),
        (  # a flash drive too
            "atlas_intellistation",
            "volumes.md0.disks.part=samsung_pm1643_30tb",
            "samsung_pm1643_30tb is a SAS drive; promise1's channels (ATA Ultra DMA mode 5 "
            "(UDMA100)) take IDE (parallel ATA) drives only",
        ),
        (  # a shelf's bay
            "purchase_hdd_md",
            "volumes.data.disks.part=wd1200jb",
            "wd1200jb is an IDE (parallel ATA) drive; jbod's bays (SAS 12 Gb/s lane (one phy)) "
            "take SAS and SATA drives only",
        ),
    ],
    ids=["sas-on-ide", "sas-flash-on-ide", "ide-in-sas-bay"],
)
def test_a_drive_its_channel_cannot_take_is_refused(run_cli, name, override, said):
    part_key = override.partition("=")[0]
    _one_line(run_cli("predict", name, "--point", "--set", override), f"--set: {part_key}: {said}")


def test_an_ide_drive_on_a_sas_hba_is_refused_and_a_sata_one_taken(run_cli, tmp_path):
    """The starter's SAS HBA: a SATA drive tunnels through it (SAS-1's STP), an IDE one does not
    plug in."""
    scenario = shutil.copy(TEMPLATE, tmp_path / "server.yaml")
    _one_line(
        run_cli("predict", str(scenario), "--point", "--set", "volumes.data.disks.part=wd1200jb"),
        "--set: volumes.data.disks.part: wd1200jb is an IDE (parallel ATA) drive; hba's channels "
        "(SAS 12 Gb/s lane (one phy)) take SAS and SATA drives only",
    )
    sata = "volumes.data.disks.part=exos_x18_st18000nm000j"
    status, out, err = run_cli("predict", str(scenario), "--point", "--set", sata)
    assert status == 0 and "throughput" in out, err


def test_a_user_s_drive_is_held_to_its_channel_too(run_cli, tmp_path):
    """A parts file's IDE drive (``like:`` a catalog one) on the starter's SAS HBA."""
    scenario = shutil.copy(TEMPLATE, tmp_path / "server.yaml")
    parts = tmp_path / "my_parts.yaml"
    parts.write_text(
        yaml.safe_dump(
            {"disks": {"my_old_ide": {"like": "wd1200jb", "name": "an old IDE drive of ours"}}}
        )
    )
    result = run_cli(
        "predict",
        str(scenario),
        "--catalog",
        str(parts),
        "--point",
        "--set",
        "volumes.data.disks.part=my_old_ide",
    )
    _one_line(
        result,
        "--set: volumes.data.disks.part: my_old_ide is an IDE (parallel ATA) drive; hba's "
        "channels (SAS 12 Gb/s lane (one phy)) take SAS and SATA drives only",
    )


def test_a_user_s_channel_bus_names_its_protocol(run_cli, tmp_path):
    """Which drives a channel takes is its bus's protocol: a parts file's channel bus gives it."""
    scenario = shutil.copy(TEMPLATE, tmp_path / "server.yaml")
    parts = tmp_path / "my_parts.yaml"
    bus = {
        "name": "a channel of ours",
        "kind": "channel",
        "burst_rate_MBps": 100.0,
        "sources": {"burst_rate_MBps": "estimated: ours"},
    }
    parts.write_text(yaml.safe_dump({"buses": {"my_channel": bus}}))
    status, out, err = run_cli("predict", str(scenario), "--catalog", str(parts), "--point")
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "buses.my_channel: a channel bus needs protocol (ide or scsi)" in err, err


def test_a_channel_runs_only_in_a_mode_of_its_own_protocol(run_cli):
    """A mode its driver set must be of the card's own kind of channel: the IOP332's Ultra320
    SCSI set to ATA's UDMA133 (slower, so let through) had predicted as if it were an IDE
    channel."""
    _one_line(
        run_cli(
            "predict",
            "psu_write",
            "--point",
            "--set",
            "controllers.iop332.channel_mode=ide_udma133",
        ),
        "--set: controllers.iop332.channel_mode: must be a drive-channel mode of the same "
        "protocol (scsi) no faster than the Intel SE7520AF2 integrated RAID (Intel RAID "
        "Controller SROMBU42E, Intel IOP332 I/O processor with the onboard Ultra320 SCSI)'s "
        "ultra320_scsi; allowed: ultra160_scsi, ultra320_scsi",
    )


def test_the_download_server_s_drive_is_held_to_its_controller_s_ports(run_cli):
    """The download server's drives sit on its one RAID card's ports: an IDE drive on the
    Areca's SATA ports had predicted."""
    _one_line(
        run_cli("predict", "eah_download", "--point", "--set", "disk=wd1200jb"),
        "--set: disk: wd1200jb is an IDE (parallel ATA) drive; the Areca ARC-1261ML 16-port "
        "SATA II RAID controller (PCI Express x8)'s ports (Serial ATA 3 Gb/s) take SATA drives "
        "only",
    )


def test_an_idle_volume_s_drives_are_held_to_their_channels_too(run_cli):
    """The review: only the workload's volumes were checked, so psu_write's SATA drives on the
    PATA 7850 predicted while the run wrote to another volume."""
    _one_line(
        run_cli(
            "predict", "psu_write", "--point", "--set", "controllers.threeware.part=threeware_7850"
        ),
        "--set: controllers.threeware.part: wd740gd is a SATA drive; threeware's channels (ATA "
        "Ultra DMA mode 5 (UDMA100)) take IDE (parallel ATA) drives only",
    )


def test_a_shelf_s_uplink_is_cabled_to_sas_ports(run_cli, tmp_path):
    """The review: a SAS JBOD cabled to a card whose ports are SATA had predicted."""
    parts = tmp_path / "my_parts.yaml"
    card = {"like": "broadcom_9500_8i", "channel_bus": "sata_6g", "name": "a SATA card of ours"}
    parts.write_text(yaml.safe_dump({"controllers": {"my_sata_card": card}}))
    result = run_cli(
        "predict",
        "purchase_hdd_md",
        "--catalog",
        str(parts),
        "--point",
        "--set",
        "controllers.hba.part=my_sata_card",
    )
    _one_line(
        result,
        "--set: controllers.hba.part: a shelf's uplink is cabled to SAS ports; hba's channels "
        "are Serial ATA 6 Gb/s",
    )


def test_a_channel_mode_is_a_channel_s_and_a_grid_refuses_a_drive_before_its_points(
    run_cli, tmp_path
):
    """The review: a SAS lane had become a mode a card's channel could be set to; and the
    download server's drive check ran in each point, not in the grid's check."""
    status, out, err = run_cli(
        "predict",
        "atlas_intellistation",
        "--point",
        "--set",
        "controllers.promise1.channel_mode=sas_6g_lane",
    )
    assert status == 2 and "must be a drive-channel mode of the same protocol (ide)" in err
    grid = tmp_path / "grid.yaml"
    grid.write_text(
        yaml.safe_dump(
            {
                "name": "g",
                "scenario": "eah_download",
                "product": {"disk": ["wd1200jb"], "workload.clients": [1, 2]},
            }
        )
    )
    _one_line(
        run_cli("sweep", str(grid), "--out", str(tmp_path / "out")),
        f"{grid}: product.disk: wd1200jb is an IDE (parallel ATA) drive; the Areca ARC-1261ML "
        "16-port SATA II RAID controller (PCI Express x8)'s ports (Serial ATA 3 Gb/s) take SATA "
        "drives only",
    )
    assert not (tmp_path / "out").exists()
