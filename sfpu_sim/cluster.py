"""Independent jobs on a dask.distributed LocalCluster, their results in job order.

Owns: the LocalCluster's settings and :func:`in_order`, the process-parallel twin of
:func:`sfpu_sim.threads.in_order`, for work that holds Python's lock most of the time (a BF16
report: its JSON, model and Machine steps are Python, and two threads ran ``report --all``
slower than one: 70.5 against 64.4 s). Knows nothing of what a job computes.

Why processes: each worker is its own interpreter, so Python-bound jobs run side by side.
Why Dask: scale-out is Dask's job here (the FP32 sweeps' ``--scheduler dask`` too), never a
scheduler of our own.
"""
from __future__ import annotations

from sfpu_sim import threads

# One compiled thread per worker process; no dashboard, and the scheduler's HTTP server (which
# distributed starts even without one) on a free port, not 8787: a second cluster on the
# machine made distributed warn "Port 8787 is already in use".
LOCAL_CLUSTER = {"threads_per_worker": 1, "processes": True, "dashboard_address": ":0",
                 "scheduler_kwargs": {"dashboard": False}, "silence_logs": 40}
IN_FLIGHT_PER_WORKER = 2               # tasks queued per worker; each runs one at a time


def usable_workers(requested: int | None = None) -> int:
    """``requested`` (``--workers``), else one worker per CPU this process may use."""
    return requested if requested is not None else threads.max_threads()


def connect(workers: int | None = None, address: str | None = None, timeout=None):
    """``(client, cluster)``: a new LocalCluster of ``workers`` processes, or (``address``)
    the running cluster there, ``cluster`` None; an unreachable address raises OSError."""
    from distributed import Client, LocalCluster

    if address is not None:
        return Client(address, timeout=timeout), None
    cluster = LocalCluster(n_workers=workers, **LOCAL_CLUSTER)
    return Client(cluster), cluster


def in_order(client, cluster, run, items, name: str):
    """``run(item)`` of every item as a task of ``client``'s cluster, yielded in item order
    while later items run (:data:`IN_FLIGHT_PER_WORKER` queued per worker); closes the client
    and ``cluster`` (None: a running cluster, left running) at the end. ``run`` and the items
    are pickled to the workers: a module-level function (or a partial of one) and plain data.
    An error is raised where its result would have been yielded; Ctrl-C leaves without the
    graceful close, which waits for the running tasks while the workers log their lost
    connections (the command's end stops a LocalCluster's processes)."""
    from distributed import as_completed

    try:
        window = max(1, len(client.scheduler_info()["workers"])) * IN_FLIGHT_PER_WORKER
        pending = enumerate(items)
        futures = as_completed()

        def submit(count: int) -> None:
            for _, (index, item) in zip(range(count), pending):
                futures.add(client.submit(run, item, key=f"{name}-{index}", pure=False))

        submit(window)
        finished, next_index = {}, 0
        for future in futures:
            finished[int(future.key.rpartition("-")[2])] = future.result()
            future.release()
            submit(1)
            while next_index in finished:
                yield finished.pop(next_index)
                next_index += 1
    except KeyboardInterrupt:
        raise
    except BaseException:                   # an error, or the caller stopped early
        close(client, cluster)
        raise
    close(client, cluster)


def close(client, cluster) -> None:
    client.close()
    if cluster is not None:
        cluster.close()
