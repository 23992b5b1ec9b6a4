//! The global allocator: mimalloc, asked for plain `mi_malloc` blocks whenever those are aligned
//! enough, as the standard library's `System` allocator does with `malloc`.
//!
//! Why not `mimalloc::MiMalloc`: it sends every request through `mi_malloc_aligned`. mimalloc v3
//! serves an aligned request from its fast path only while the size class has a free block; when
//! the class's page runs empty and the size is not a power of two (a 24-byte `String`, most
//! syntax nodes), it over-allocates from a larger class instead of refilling the page, so that
//! size never gets its fast path back. On a 4096-register map that slow path was about a tenth
//! of all instructions.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

pub struct Allocator;

/// Turns transparent huge pages off for this process, before the generator allocates much.
///
/// A run lives for milliseconds and touches its heap once: each 2 MiB page is zeroed whole on
/// first touch, and on the common `defrag=madvise` setting the kernel may compact memory to find
/// one. mimalloc is built without its `madvise(MADV_HUGEPAGE)` on arenas (libmimalloc-sys's
/// `no_thp` feature, Cargo.toml), which is enough where THP is `madvise`; this switch covers
/// systems with THP `always`. On the flat 4096-register map both together halved peak memory
/// (about 105 MB against 51 MB) and cut the system time of a run from 79 to 27 ms
/// (docs/BENCHMARKS.gen.md).
pub fn no_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes integer arguments only and changes no memory. Failure
    // (an old kernel) leaves the default, which is only slower.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// Ends a successful run at once: flushes stdout and leaves through `_exit`, so no exit handler
/// runs.
///
/// The one handler that does work is mimalloc's own: linked statically, it frees and purges
/// (`madvise`) its whole heap at exit, for the case of a library unloaded and loaded again.
/// The kernel frees a dying process's memory anyway; on the flat 4096-register map that
/// purge was about 2 % of the run's CPU time, all of it serial after the last output was
/// written (docs/BENCHMARKS.notes.md). Every output file is written, closed and renamed by the
/// time `run` returns, and every thread has been joined.
pub fn exit_success_without_cleanup() -> ! {
    use std::io::Write;
    // A failed flush (stdout closed) is not a reason to fail a run whose outputs are written;
    // the normal exit path ignores it too.
    let _ = std::io::stdout().flush();
    // SAFETY: `_exit` takes an integer and does not return; nothing after this point needed
    // to run (see above).
    unsafe { libc::_exit(0) }
}

/// Every mimalloc block of 16 bytes or more is 16-byte aligned, and smaller blocks are aligned
/// to their (word-multiple) size: the guarantee of C's `malloc` that `System` relies on too.
const MALLOC_ALIGN: usize = 16;

fn plain(align: usize, size: usize) -> bool {
    align <= MALLOC_ALIGN && align <= size
}

/// mimalloc's `MI_SMALL_SIZE_MAX` (128 words): up to this size `mi_malloc` serves a block from
/// the same small-object path that `mi_malloc_small` enters directly. Through `mi_malloc` each
/// request also went through a call to the general `_mi_theap_malloc_zero` first; most of the
/// hundreds of thousands of requests of a big map (syntax nodes, names) are small.
const SMALL_MAX: usize = 128 * std::mem::size_of::<usize>();

// Part of the mimalloc library that `libmimalloc-sys` builds and links; the crate declares it
// only with its `extended` feature (which adds a dependency for C types).
unsafe extern "C" {
    /// A block of `size` bytes, at most [`SMALL_MAX`], aligned as `mi_malloc`'s.
    fn mi_malloc_small(size: usize) -> *mut c_void;
}

// SAFETY: every block comes from mimalloc with at least the requested size and alignment
// (`plain` or the aligned entry points) and goes back to it through `mi_free`/`mi_realloc`,
// which accept blocks from either entry point.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: FFI calls with a valid size and a power-of-two alignment.
        unsafe {
            if plain(layout.align(), layout.size()) {
                if layout.size() <= SMALL_MAX {
                    mi_malloc_small(layout.size()).cast()
                } else {
                    mi::mi_malloc(layout.size()).cast()
                }
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator (the caller's contract).
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated by this allocator with `layout` (the caller's contract).
        unsafe {
            if plain(layout.align(), new_size) {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}
