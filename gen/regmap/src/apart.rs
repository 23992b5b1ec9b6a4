//! Two threads that work at once, kept on two CPUs.
//!
//! rdmagen splits its work between two threads for a few milliseconds at a time. Some kernels
//! place a new or woken thread on a CPU that already runs one of them while another CPU idles:
//! this project's 2-CPU build machine, whose kernel packs tasks onto few virtual CPUs, started
//! 6 of a run's 7 threads on their parent's CPU and later ran the CSR thread and the main
//! thread by turns on one CPU for the last 24 ms of a 60 ms run, the other CPU idle. Load
//! tracking that would spread them takes longer than the whole run. So [`spawn_scoped`] pins
//! the new thread to a CPU other than its parent's and the parent to its own, until
//! [`Apart::join`]; with one CPU allowed (or when asking fails) it is a plain spawn.

use std::thread::{Builder, Scope, ScopedJoinHandle};

/// A thread started by [`spawn_scoped`]; its parent stays pinned until it is joined (or this is
/// dropped).
pub struct Apart<'scope, T> {
    handle: ScopedJoinHandle<'scope, T>,
    _parent: Unpin,
}

impl<T> Apart<'_, T> {
    /// Waits for the thread, as [`ScopedJoinHandle::join`], and then gives the parent back the
    /// CPUs it was allowed before.
    pub fn join(self) -> std::thread::Result<T> {
        self.handle.join()
    }
}

/// The CPUs the parent was allowed before, given back when dropped.
struct Unpin(Option<CpuSet>);

impl Drop for Unpin {
    fn drop(&mut self) {
        if let Some(allowed) = self.0.take() {
            allowed.apply();
        }
    }
}

/// [`Builder::spawn_scoped`] with the new thread on another CPU than the calling one, and the
/// calling one kept on its own until the new one is joined.
pub fn spawn_scoped<'scope, 'env, F, T>(
    s: &'scope Scope<'scope, 'env>,
    f: F,
) -> std::io::Result<Apart<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    let plan = Plan::new();
    let child = plan.as_ref().map(|p| p.child);
    let handle = Builder::new().spawn_scoped(s, move || {
        if let Some(cpu) = child {
            CpuSet::one(cpu).apply();
        }
        f()
    })?;
    let parent = plan.map(|p| {
        CpuSet::one(p.parent).apply();
        p.allowed
    });
    if parent.is_some() {
        // The new thread inherited the parent's CPUs and may have been queued behind it: let
        // it run and move itself now rather than at the next load balance.
        // SAFETY: no arguments; gives up the rest of this time slice.
        unsafe { libc::sched_yield() };
    }
    Ok(Apart {
        handle,
        _parent: Unpin(parent),
    })
}

/// Where the two threads go: the parent stays where it runs, the child goes to the next CPU
/// the parent is allowed.
struct Plan {
    allowed: CpuSet,
    parent: usize,
    child: usize,
}

impl Plan {
    fn new() -> Option<Plan> {
        // SAFETY: no arguments.
        let parent = usize::try_from(unsafe { libc::sched_getcpu() }).ok()?;
        let allowed = CpuSet::current()?;
        // A thread pinned here picks from the CPUs the first caller was allowed.
        static FIRST: std::sync::OnceLock<Option<CpuSet>> = std::sync::OnceLock::new();
        let all = (*FIRST.get_or_init(|| Some(allowed)))?;
        let n = CpuSet::SIZE;
        let child = (1..n).map(|i| (parent + i) % n).find(|&c| all.has(c))?;
        all.has(parent).then_some(Plan {
            allowed,
            parent,
            child,
        })
    }
}

/// The CPUs a thread may run on.
#[derive(Clone, Copy)]
struct CpuSet(libc::cpu_set_t);

impl CpuSet {
    const SIZE: usize = libc::CPU_SETSIZE as usize;

    fn current() -> Option<CpuSet> {
        // SAFETY: all-zero bits are the empty set; the call fills a set of the size given,
        // for the calling thread (0).
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            let size = std::mem::size_of::<libc::cpu_set_t>();
            (libc::sched_getaffinity(0, size, &mut set) == 0).then_some(CpuSet(set))
        }
    }

    fn one(cpu: usize) -> CpuSet {
        // SAFETY: all-zero bits are the empty set; `cpu` < CPU_SETSIZE (a bit of the set).
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            CpuSet(set)
        }
    }

    fn has(&self, cpu: usize) -> bool {
        // SAFETY: reads one bit of the set; `cpu` < CPU_SETSIZE.
        cpu < Self::SIZE && unsafe { libc::CPU_ISSET(cpu, &self.0) }
    }

    /// Allows the calling thread these CPUs (moving it now if it runs elsewhere). A refusal
    /// (a CPU taken offline since) leaves it where it is, which is only slower.
    fn apply(&self) {
        // SAFETY: the set is `size` bytes; 0 is the calling thread.
        unsafe {
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpus(set: &CpuSet) -> Vec<usize> {
        (0..CpuSet::SIZE).filter(|&c| set.has(c)).collect()
    }

    fn allowed() -> Vec<usize> {
        cpus(&CpuSet::current().expect("sched_getaffinity"))
    }

    #[test]
    fn the_two_threads_run_on_two_cpus_and_the_parent_gets_its_own_back() {
        let before = allowed();
        let (parent, child, result) = std::thread::scope(|s| {
            let t = spawn_scoped(s, || (allowed(), 6 * 7)).expect("a thread");
            let parent = allowed();
            let (child, result) = t.join().expect("no panic");
            (parent, child, result)
        });
        assert_eq!(result, 42);
        assert_eq!(allowed(), before, "the parent's CPUs after the join");
        if before.len() >= 2 {
            assert_eq!(parent.len(), 1, "the parent is pinned while the child runs");
            assert_eq!(child.len(), 1, "the child is pinned");
            assert_ne!(parent, child);
            assert!(before.contains(&child[0]));
        } else {
            assert_eq!((parent, child), (before.clone(), before));
        }
    }

    #[test]
    fn dropping_the_handle_unpins_the_parent() {
        let before = allowed();
        std::thread::scope(|s| {
            let t = spawn_scoped(s, || ()).expect("a thread");
            drop(t);
            assert_eq!(allowed(), before);
        });
    }
}
