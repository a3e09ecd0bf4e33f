"""A director's schedulers under connections that come and go: Poisson arrivals dispatched by
``model.servers.lvs.Dispatcher`` onto real servers that serve each at their own speed and release
it (the relay model's sites stay connected; this exercises ``lc`` and ``wlc`` as connections
end)."""

import simpy

from model.servers.lvs import Dispatcher, Scheduler
from model.sim.components import Station
from model.sim.rng import stream


def connection(dispatcher: Dispatcher, env, service_s_at_unit_speed: float, speeds: list[float]):
    """Process: one connection, dispatched, served by its real server at that server's speed."""
    i = dispatcher.assign()
    yield env.process(dispatcher.servers[i].serve(service_s_at_unit_speed / speeds[i]))
    dispatcher.release(i)


def run_cluster(
    seed: int,
    scheduler: Scheduler,
    speeds: list[float],
    arrival_rate_per_s: float,
    mean_service_s: float,
    connections: int,
    weights: list[float] | None = None,
) -> Dispatcher:
    """Poisson connections through a director onto real servers of relative ``speeds``."""
    env = simpy.Environment()
    servers = [Station(env, f"real server {i}") for i in range(len(speeds))]
    dispatcher = Dispatcher(servers, scheduler, weights)
    gaps = stream(seed, "arrivals").exponential(1.0 / arrival_rate_per_s, connections)
    work = stream(seed, "service").exponential(mean_service_s, connections)

    def source():
        for gap, w in zip(gaps, work, strict=True):
            yield env.timeout(gap)
            env.process(connection(dispatcher, env, w, speeds))

    env.process(source())
    env.run()
    for s in servers:
        s.elapsed_s = env.now
    return dispatcher
