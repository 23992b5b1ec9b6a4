//! Two threads that work at once, kept on two CPUs.
//!
//! rdmagen splits work between two threads for a few milliseconds at a time. Some kernels
//! place a new thread on its parent's CPU while another CPU idles, and later run two busy
//! threads by turns on one CPU; load tracking that would spread them takes longer than a whole
//! run (this project's 2-CPU build machine, docs/BENCHMARKS.notes.md, session 32). So
//! [`spawn_scoped`] pins the new thread to a CPU other than its parent's and the parent to its
//! own until the new thread is joined. A thread started while its parent is already pinned
//! this way may use every CPU of the process but its parent's (on two CPUs, the other one): it
//! is not kept on one CPU, so on a larger machine the scheduler spreads such threads. (Letting
//! it onto the parent's CPU too, for when the parent blocks in the join, measured 1.5-2.4 ms
//! slower on the 2-CPU machine.) Without a second CPU (the CPU mask, or the CPU quota of
//! [`std::thread::available_parallelism`]), and off Linux, it is a plain spawn.

use std::cell::Cell;
use std::marker::PhantomData;
use std::thread::{Builder, Scope, ScopedJoinHandle};

/// A thread started by [`spawn_scoped`]. Its parent stays pinned until it is joined or this is
/// dropped (and until every other [`Apart`] of the parent's is: pins nest).
pub struct Apart<'scope, T> {
    handle: ScopedJoinHandle<'scope, T>,
    _pin: Pin,
}

impl<T> Apart<'_, T> {
    /// Waits for the thread, as [`ScopedJoinHandle::join`]; the parent's CPU mask is given back
    /// when its last [`Apart`] is joined or dropped.
    pub fn join(self) -> std::thread::Result<T> {
        self.handle.join()
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
        if let Some(cpus) = child {
            cpus.apply();
        }
        f()
    })?;
    Ok(Apart {
        handle,
        _pin: Pin::hold(plan.and_then(|p| p.parent)),
    })
}

thread_local! {
    /// How many of this thread's [`Apart`]s are alive, and the CPU mask it had before the
    /// first of them pinned it.
    static PINS: Cell<(usize, Option<sys::CpuSet>)> = const { Cell::new((0, None)) };
}

/// One of the parent's pins; the mask comes back when the last one goes. Not `Send`: it acts
/// on the thread that drops it.
struct Pin(PhantomData<*const ()>);

impl Pin {
    /// Counts one more pin of the calling thread, pinning it first when `parent` says so.
    fn hold(parent: Option<ParentPin>) -> Pin {
        let (depth, before) = PINS.get();
        let before = match parent {
            Some(p) => {
                p.own.apply();
                // The new thread inherited the parent's CPUs and may be queued behind it: let
                // it run and move itself now rather than at the next load balance.
                std::thread::yield_now();
                Some(p.before)
            }
            None => before,
        };
        PINS.set((depth + 1, before));
        Pin(PhantomData)
    }
}

impl Drop for Pin {
    fn drop(&mut self) {
        let (depth, before) = PINS.get();
        if depth <= 1 {
            PINS.set((0, None));
            if let Some(allowed) = before {
                allowed.apply();
            }
        } else {
            PINS.set((depth - 1, before));
        }
    }
}

/// Where the two threads go.
struct Plan {
    /// The next CPU of the process's; when the caller is already pinned, all of them but the
    /// caller's.
    child: sys::CpuSet,
    /// How to pin the caller, unless it is already pinned.
    parent: Option<ParentPin>,
}

struct ParentPin {
    /// The caller's mask before (given back when its last pin goes).
    before: sys::CpuSet,
    /// The caller's CPU alone.
    own: sys::CpuSet,
}

#[cfg(target_os = "linux")]
mod sys {
    use super::{ParentPin, Plan};
    use std::sync::OnceLock;

    impl Plan {
        pub fn new() -> Option<Plan> {
            // The CPUs the process may use: those of the first thread that asks (before any
            // pin of ours), if the CPU quota leaves at least two.
            static PROCESS: OnceLock<Option<CpuSet>> = OnceLock::new();
            let process = (*PROCESS.get_or_init(|| {
                let two = std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2);
                CpuSet::current().filter(|set| two && set.count() >= 2)
            }))?;
            // SAFETY: no arguments.
            let cpu = usize::try_from(unsafe { libc::sched_getcpu() }).ok()?;
            if super::PINS.get().0 > 0 {
                return Some(Plan {
                    child: process.without(cpu),
                    parent: None,
                });
            }
            let n = CpuSet::SIZE;
            let next = (1..n).map(|i| (cpu + i) % n).find(|&c| process.has(c))?;
            Some(Plan {
                child: CpuSet::one(next),
                parent: Some(ParentPin {
                    before: CpuSet::current()?,
                    own: CpuSet::one(cpu),
                }),
            })
        }
    }

    /// The CPUs a thread may run on.
    #[derive(Clone, Copy)]
    pub struct CpuSet(libc::cpu_set_t);

    impl CpuSet {
        pub const SIZE: usize = libc::CPU_SETSIZE as usize;

        pub fn current() -> Option<CpuSet> {
            // SAFETY: all-zero bits are the empty set; the call fills a set of the size given,
            // for the calling thread (0).
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                let size = std::mem::size_of::<libc::cpu_set_t>();
                (libc::sched_getaffinity(0, size, &mut set) == 0).then_some(CpuSet(set))
            }
        }

        fn one(cpu: usize) -> CpuSet {
            // SAFETY: all-zero bits are the empty set; `CPU_SET` ignores a CPU past the set.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu, &mut set);
                CpuSet(set)
            }
        }

        /// This set without `cpu`, unless that leaves it empty.
        fn without(mut self, cpu: usize) -> CpuSet {
            if self.has(cpu) && self.count() >= 2 {
                // SAFETY: clears one bit of the set; `cpu` < CPU_SETSIZE (it is in the set).
                unsafe { libc::CPU_CLR(cpu, &mut self.0) };
            }
            self
        }

        pub fn has(&self, cpu: usize) -> bool {
            // SAFETY: reads one bit of the set; `cpu` < CPU_SETSIZE.
            cpu < Self::SIZE && unsafe { libc::CPU_ISSET(cpu, &self.0) }
        }

        pub fn count(&self) -> usize {
            // SAFETY: reads the set.
            usize::try_from(unsafe { libc::CPU_COUNT(&self.0) }).unwrap_or(0)
        }

        /// Allows the calling thread these CPUs (moving it now if it runs elsewhere). A
        /// refusal (a CPU taken offline since) leaves it where it is, which is only slower.
        pub fn apply(&self) {
            // SAFETY: the set is `size` bytes; 0 is the calling thread.
            unsafe {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.0);
            }
        }
    }
}

/// Off Linux: no plan, a plain spawn.
#[cfg(not(target_os = "linux"))]
mod sys {
    use super::Plan;

    impl Plan {
        pub fn new() -> Option<Plan> {
            None
        }
    }

    #[derive(Clone, Copy)]
    pub struct CpuSet;

    impl CpuSet {
        pub fn apply(&self) {}
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::sys::CpuSet;
    use super::*;

    fn allowed() -> Vec<usize> {
        let set = CpuSet::current().expect("sched_getaffinity");
        (0..CpuSet::SIZE).filter(|&c| set.has(c)).collect()
    }

    /// Whether this test thread can be pinned (two CPUs allowed, `sched_getcpu` answers).
    fn pinnable() -> bool {
        // SAFETY: no arguments.
        allowed().len() >= 2 && unsafe { libc::sched_getcpu() } >= 0
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
        if pinnable() {
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
            if pinnable() {
                assert_eq!(allowed().len(), 1, "pinned before the drop");
            }
            drop(t);
            assert_eq!(allowed(), before);
        });
    }

    #[test]
    fn a_thread_started_by_a_pinned_parent_avoids_its_cpu_and_pins_nest() {
        let before = allowed();
        std::thread::scope(|s| {
            let outer = spawn_scoped(s, || ()).expect("a thread");
            let pinned = allowed();
            let inner = spawn_scoped(s, allowed).expect("a thread");
            assert_eq!(
                allowed(),
                pinned,
                "a nested spawn leaves the parent as it was"
            );
            // Joined out of order: the parent stays pinned until its last pin goes.
            outer.join().expect("no panic");
            assert_eq!(allowed(), pinned);
            let inner_cpus = inner.join().expect("no panic");
            if pinnable() {
                assert_eq!(
                    inner_cpus.len(),
                    before.len() - 1,
                    "every CPU but the parent's"
                );
                assert!(!inner_cpus.contains(&pinned[0]));
            } else {
                assert_eq!(inner_cpus, before);
            }
            assert_eq!(allowed(), before);
        });
    }

    #[test]
    fn a_panicking_thread_still_unpins_the_parent() {
        let before = allowed();
        std::thread::scope(|s| {
            let t = spawn_scoped(s, || panic!("on purpose")).expect("a thread");
            assert!(t.join().is_err());
            assert_eq!(allowed(), before);
        });
    }
}
