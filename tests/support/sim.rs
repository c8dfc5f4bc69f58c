//! A simulator on its own runtime, for tests whose pty waits block the test thread.

use gobare_sim::{SimConfig, Simulator};

pub(crate) struct Sim {
    pub(crate) sim: Simulator,
    _rt: tokio::runtime::Runtime,
}

impl Sim {
    /// Runs `f` inside the simulator's runtime (direct calls that start its agents).
    pub(crate) fn within<T>(&self, f: impl FnOnce(&Simulator) -> T) -> T {
        let _entered = self._rt.enter();
        f(&self.sim)
    }
}

/// Starts `config` on a two-worker runtime that lives as long as the returned [`Sim`].
pub(crate) fn start(config: SimConfig) -> Sim {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let sim = rt.block_on(Simulator::start(config)).unwrap();
    Sim { sim, _rt: rt }
}
