"""Networks: NICs, bonded links and WAN circuits, TCP and UDP transfers, remote database clients."""
