//! The forward pass's threads: a fork-join pool in which the calling thread works too. A job is
//! `n` numbered chunks; every thread, the caller first, takes the next chunk until none is left.
//! Helpers spin briefly between the jobs of one pass and sleep between passes. On a busy
//! machine a helper that is not scheduled costs nothing but its share of the work, which the
//! caller then does itself: the caller only ever waits for chunks already being worked on, never
//! for a thread to wake up (a general-purpose pool hands the whole pass to its own threads and
//! back, two wake-ups per pass).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long an idle helper spins for the next job before it sleeps: longer than the gaps
/// between the jobs of one pass, far shorter than the gaps between passes.
const SPIN: Duration = Duration::from_micros(200);

/// A job's body, its lifetime erased: valid while its job is posted (see `Pool::run`).
type Body = *const (dyn Fn(usize) + Sync);

struct Slot {
    body: Option<Body>,
    chunks: usize,
    epoch: u64,
    shutdown: bool,
}

// SAFETY: the body is only called while the posting `Pool::run` call is still running (it
// withdraws it and waits for every helper that took it before returning), and it is `Sync`.
unsafe impl Send for Slot {}

struct Shared {
    slot: Mutex<Slot>,
    wake: Condvar,
    /// Bumped (under `slot`) whenever a job is posted; helpers spin on it.
    epoch: AtomicU64,
    /// The next chunk to take.
    next: AtomicUsize,
    /// Helpers inside the current job.
    active: AtomicUsize,
    /// A helper's chunk panicked (its part of the output is missing).
    panicked: AtomicBool,
    stop: AtomicBool,
}

/// The pool; `threads` counts the caller.
pub struct Pool {
    shared: Arc<Shared>,
    helpers: Vec<JoinHandle<()>>,
}

impl Pool {
    /// A pool of `threads` threads in all (the caller and `threads - 1` helpers).
    pub fn new(threads: usize) -> std::io::Result<Pool> {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot {
                body: None,
                chunks: 0,
                epoch: 0,
                shutdown: false,
            }),
            wake: Condvar::new(),
            epoch: AtomicU64::new(0),
            next: AtomicUsize::new(0),
            active: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            stop: AtomicBool::new(false),
        });
        let mut helpers = Vec::new();
        for i in 1..threads.max(1) {
            let s = shared.clone();
            helpers.push(
                std::thread::Builder::new()
                    .name(format!("glovebox-embed-{i}"))
                    .spawn(move || helper(&s))?,
            );
        }
        Ok(Pool { shared, helpers })
    }

    /// Threads in all, the caller included.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// Runs `body(i)` for every `i` in `0..chunks`, on the caller and the helpers; returns when
    /// all have run.
    pub fn run(&self, chunks: usize, body: &(dyn Fn(usize) + Sync)) {
        if self.helpers.is_empty() || chunks <= 1 {
            (0..chunks).for_each(body);
            return;
        }
        let s = &*self.shared;
        {
            let mut slot = s.slot.lock().expect("embed pool lock");
            // SAFETY (of the erased lifetime): withdrawn below before this call returns.
            let erased: Body = unsafe { std::mem::transmute(body as *const _) };
            slot.body = Some(erased);
            slot.chunks = chunks;
            slot.epoch += 1;
            s.next.store(0, Ordering::Relaxed);
            s.panicked.store(false, Ordering::Relaxed);
            s.epoch.store(slot.epoch, Ordering::Release);
        }
        s.wake.notify_all();
        // Withdraws the job and waits for the helpers in it on every exit, unwinding included:
        // no helper may call the body after this call returns.
        let finish = Finish(s);
        take_chunks(s, chunks, body);
        drop(finish);
        if s.panicked.swap(false, Ordering::Relaxed) {
            panic!("an embedder helper thread panicked during a forward pass");
        }
    }
}

struct Finish<'a>(&'a Shared);

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        let s = self.0;
        match s.slot.lock() {
            Ok(mut slot) => slot.body = None,
            Err(poisoned) => poisoned.into_inner().body = None,
        }
        let mut spins = 0u32;
        while s.active.load(Ordering::Acquire) > 0 {
            spins += 1;
            if spins < 1 << 12 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

fn take_chunks(s: &Shared, chunks: usize, body: &(dyn Fn(usize) + Sync)) {
    loop {
        let i = s.next.fetch_add(1, Ordering::Relaxed);
        if i >= chunks {
            return;
        }
        body(i);
    }
}

/// Leaves the job on drop, even when a chunk panicked (then flagged for the caller), so the
/// caller never waits forever nor returns a partial result.
struct Active<'a>(&'a Shared);

impl Drop for Active<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.panicked.store(true, Ordering::Relaxed);
        }
        self.0.active.fetch_sub(1, Ordering::Release);
    }
}

fn helper(s: &Shared) {
    let mut seen = 0u64;
    loop {
        // Spin for the next job of this pass, then sleep until one is posted.
        let t0 = Instant::now();
        while s.epoch.load(Ordering::Acquire) == seen && !s.stop.load(Ordering::Relaxed) {
            if t0.elapsed() > SPIN {
                let mut slot = s.slot.lock().expect("embed pool lock");
                while slot.epoch == seen && !slot.shutdown {
                    slot = s.wake.wait(slot).expect("embed pool lock");
                }
                break;
            }
            std::hint::spin_loop();
        }
        let (body, chunks) = {
            let Ok(slot) = s.slot.lock() else { return };
            if slot.shutdown {
                return;
            }
            seen = slot.epoch;
            match slot.body {
                // Joined under the lock: the caller withdraws the body under it too, then
                // waits for `active` to drop back.
                Some(b) => {
                    s.active.fetch_add(1, Ordering::Acquire);
                    (b, slot.chunks)
                }
                None => continue,
            }
        };
        let _active = Active(s);
        // SAFETY: the body stays valid until `active` is back to zero (see `Pool::run`).
        take_chunks(s, chunks, unsafe { &*body });
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.shared.slot.lock().expect("embed pool lock").shutdown = true;
        self.shared.wake.notify_all();
        for h in self.helpers.drain(..) {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chunk_runs_exactly_once() {
        for threads in [1, 2, 4] {
            let pool = Pool::new(threads).unwrap();
            assert_eq!(pool.threads(), threads);
            for chunks in [0, 1, 3, 100] {
                let hits: Vec<AtomicUsize> = (0..chunks).map(|_| AtomicUsize::new(0)).collect();
                for _ in 0..50 {
                    pool.run(chunks, &|i| {
                        hits[i].fetch_add(1, Ordering::Relaxed);
                    });
                }
                assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 50));
            }
        }
    }

    #[test]
    fn a_panicking_chunk_reaches_the_caller_and_the_pool_goes_on() {
        let pool = Pool::new(2).unwrap();
        for _ in 0..20 {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.run(64, &|i| {
                    if i % 7 == 3 {
                        panic!("chunk {i}");
                    }
                    std::thread::sleep(Duration::from_micros(50));
                })
            }));
            assert!(r.is_err());
        }
        let hits = AtomicUsize::new(0);
        pool.run(64, &|_| {
            hits.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(hits.load(Ordering::Relaxed), 64);
    }
}
