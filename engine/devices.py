"""GPUs counted as the driver counts them: a package of several dies that each show up as a GPU.

An AMD Instinct MI250 or MI250X OAM holds 2 graphics compute dies (GCDs) with 64 GB of HBM2e each; ROCm (rocm-smi,
`torch.cuda.device_count()`) lists them as 2 devices, and every framework shards, replicates and places tensors per
device. A plan on "8x MI250" is therefore a plan on 16 devices of 64 GB, not 8 of 128 GB: one catalog row holds one
GCD (`GpuRecord.devices_per_card`), and the cards said are multiplied out here, with a note that says so.
"""

from __future__ import annotations

from catalog.records import CatalogData
from engine.models import Workload

DEVICES_NOTE = "counted in GCDs: "  # how the note opens (bot.caveats shows it in the first message)


def card_name(name: str) -> str:
    """'Instinct MI250 GCD 64GB' -> 'Instinct MI250': the package as people name it."""
    return name.split(" GCD")[0]


def as_devices(workload: Workload, data: CatalogData) -> tuple[Workload, str | None]:
    """`workload` with its GPU count in devices (GCDs) when the GPU named is a multi-die package, and the note that
    says how the cards were counted; the workload unchanged and None for any other GPU."""
    gpu = data.gpu(workload.gpu) if workload.gpu else None
    per = gpu.devices_per_card if gpu is not None else None
    if gpu is None or not per or per <= 1:
        return workload, None
    card = card_name(gpu.name)
    what = (f"each {card.removeprefix('Instinct ')} is {per} GCDs of {gpu.memory_gb:g} GB "
            f"({gpu.memory_gb * per:g} GB a card), which ROCm lists as {per} devices; shards and replicas are placed "
            "per GCD")
    if workload.gpu_count:
        devices = workload.gpu_count * per
        return (workload.model_copy(update={"gpu_count": devices}),
                f"{DEVICES_NOTE}{workload.gpu_count}× {card} = {devices} GPUs of {gpu.memory_gb:g} GB: {what}")
    return workload, f"{DEVICES_NOTE}the {card} counts below are GCDs: {what}"
