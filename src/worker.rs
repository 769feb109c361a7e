//! A model that owns one OS thread: callers send it closures through a bounded queue and
//! wait for the answer, blocking or async. Inference never runs on a caller's (or tokio's)
//! thread, and the model is never shared behind a lock.
//!
//! Two lanes: a job sent with [`Lane::Urgent`] (recall's one utterance) runs before every
//! [`Lane::Bulk`] job still waiting (extraction's sentences, sent in small chunks), so a recall
//! waits for at most the one bulk job already running, never for a whole extraction.
//!
//! A job that panics answers its caller [`WorkerError::Panicked`] and the model is built
//! afresh before the next job, so one bad request never leaves the model dead for the life of
//! the process.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use tokio::sync::oneshot;

/// A job; returns whether it panicked (the model may then be in any state).
type Job<M> = Box<dyn FnOnce(&mut M) -> bool + Send>;

/// Why a job did not run.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WorkerError {
    #[error("{0} is busy: {1} requests are already waiting")]
    Busy(&'static str, usize),
    #[error("{0} has stopped")]
    Stopped(&'static str),
    #[error("internal error: {0} failed on this request (it was restarted; other requests are unaffected)")]
    Panicked(&'static str),
}

/// Which queue a job waits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// Runs before any waiting bulk job.
    Urgent,
    /// Runs in order, after the urgent jobs.
    Bulk,
}

/// The jobs waiting for the thread.
struct Lanes<M> {
    urgent: VecDeque<Job<M>>,
    bulk: VecDeque<Job<M>>,
    /// False once every handle is gone: the thread finishes what is queued and ends.
    open: bool,
    /// False once the thread has ended: nothing more is accepted.
    running: bool,
}

struct Queue<M> {
    lanes: Mutex<Lanes<M>>,
    wake: Condvar,
}

impl<M> Queue<M> {
    fn lock(&self) -> MutexGuard<'_, Lanes<M>> {
        self.lanes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next job, urgent first; `None` once closed and drained.
    fn next(&self) -> Option<Job<M>> {
        let mut l = self.lock();
        loop {
            if let Some(j) = l.urgent.pop_front().or_else(|| l.bulk.pop_front()) {
                return Some(j);
            }
            if !l.open {
                return None;
            }
            l = self.wake.wait(l).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn stop(&self) {
        let mut l = self.lock();
        l.running = false;
        l.urgent.clear();
        l.bulk.clear();
    }
}

/// Closes the queue when the last handle is dropped.
struct Handle<M> {
    queue: Arc<Queue<M>>,
}

impl<M> Drop for Handle<M> {
    fn drop(&mut self) {
        self.queue.lock().open = false;
        self.queue.wake.notify_all();
    }
}

/// Handle to a thread owning a model `M`. Cheap to clone; the thread ends with the last handle.
pub struct Worker<M> {
    name: &'static str,
    /// Most jobs waiting in each lane.
    queue: usize,
    handle: Arc<Handle<M>>,
}

impl<M> Clone for Worker<M> {
    fn clone(&self) -> Self {
        Worker {
            name: self.name,
            queue: self.queue,
            handle: self.handle.clone(),
        }
    }
}

impl<M: 'static> Worker<M> {
    /// Starts the thread, builds the model on it with `init`, and returns once that is done.
    /// `init` runs again after a job panics; if it fails then, the worker stops.
    pub fn spawn<E>(
        name: &'static str,
        queue: usize,
        init: impl Fn() -> Result<M, E> + Send + 'static,
    ) -> Result<Worker<M>, E>
    where
        E: From<WorkerError> + Send + std::fmt::Display + 'static,
    {
        let q = Arc::new(Queue {
            lanes: Mutex::new(Lanes {
                urgent: VecDeque::new(),
                bulk: VecDeque::new(),
                open: true,
                running: true,
            }),
            wake: Condvar::new(),
        });
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), E>>();
        let thread_q = q.clone();
        std::thread::Builder::new()
            .name(format!("glovebox-{name}"))
            .spawn(move || {
                let q = thread_q;
                let mut model = match init() {
                    Ok(m) => {
                        let _ = ready_tx.send(Ok(()));
                        m
                    }
                    Err(e) => {
                        q.stop();
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                while let Some(job) = q.next() {
                    if job(&mut model) {
                        tracing::error!("{name}: a request panicked; rebuilding the model");
                        model = match init() {
                            Ok(m) => m,
                            Err(e) => {
                                tracing::error!("{name}: cannot rebuild the model ({e}); stopping");
                                q.stop();
                                return;
                            }
                        };
                    }
                }
            })
            .map_err(|_| E::from(WorkerError::Stopped(name)))?;
        ready_rx
            .recv()
            .map_err(|_| E::from(WorkerError::Stopped(name)))??;
        Ok(Worker {
            name,
            queue,
            handle: Arc::new(Handle { queue: q }),
        })
    }

    fn submit<R: Send + 'static>(
        &self,
        lane: Lane,
        f: impl FnOnce(&mut M) -> R + Send + 'static,
    ) -> Result<oneshot::Receiver<Result<R, WorkerError>>, WorkerError> {
        let (tx, rx) = oneshot::channel();
        let name = self.name;
        let job: Job<M> = Box::new(move |m| {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(m)));
            let panicked = r.is_err();
            let _ = tx.send(r.map_err(|_| WorkerError::Panicked(name)));
            panicked
        });
        let q = &self.handle.queue;
        let mut l = q.lock();
        if !l.running {
            return Err(WorkerError::Stopped(self.name));
        }
        let waiting = match lane {
            Lane::Urgent => &mut l.urgent,
            Lane::Bulk => &mut l.bulk,
        };
        if waiting.len() >= self.queue {
            return Err(WorkerError::Busy(self.name, self.queue));
        }
        waiting.push_back(job);
        drop(l);
        q.wake.notify_one();
        Ok(rx)
    }

    /// Runs `f` on the model's thread in the bulk lane and blocks until it returns (not for
    /// async code).
    pub fn call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut M) -> R + Send + 'static,
    ) -> Result<R, WorkerError> {
        self.call_in(Lane::Bulk, f)
    }

    /// Runs `f` on the model's thread in `lane` and blocks until it returns.
    pub fn call_in<R: Send + 'static>(
        &self,
        lane: Lane,
        f: impl FnOnce(&mut M) -> R + Send + 'static,
    ) -> Result<R, WorkerError> {
        self.submit(lane, f)?
            .blocking_recv()
            .map_err(|_| WorkerError::Stopped(self.name))?
    }

    /// Runs `f` on the model's thread in the bulk lane without blocking the async runtime.
    pub async fn call_async<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut M) -> R + Send + 'static,
    ) -> Result<R, WorkerError> {
        self.submit(Lane::Bulk, f)?
            .await
            .map_err(|_| WorkerError::Stopped(self.name))?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct E(String);
    impl std::fmt::Display for E {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(&self.0)
        }
    }
    impl From<WorkerError> for E {
        fn from(e: WorkerError) -> Self {
            E(e.to_string())
        }
    }

    #[test]
    fn jobs_run_on_the_owning_thread_in_order() {
        let w = Worker::spawn("counter", 4, || Ok::<_, E>(0u32)).unwrap();
        let here = std::thread::current().id();
        for i in 1..=3 {
            let (n, there) = w
                .call(move |m| {
                    *m += 1;
                    (*m, std::thread::current().id())
                })
                .unwrap();
            assert_eq!(n, i);
            assert_ne!(there, here);
        }
    }

    #[test]
    fn a_panicking_job_answers_panicked_and_the_model_is_rebuilt() {
        let builds = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let b = builds.clone();
        let w = Worker::spawn("fragile", 4, move || {
            b.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok::<_, E>(0u32)
        })
        .unwrap();
        w.call(|m| *m += 5).unwrap();
        let r = w.call(|_: &mut u32| -> u32 { panic!("a bad request") });
        assert_eq!(r, Err(WorkerError::Panicked("fragile")));
        // The next request runs on a freshly built model.
        assert_eq!(w.call(|m| *m).unwrap(), 0);
        assert_eq!(builds.load(std::sync::atomic::Ordering::SeqCst), 2);
    }

    #[test]
    fn init_failure_is_returned() {
        let r = Worker::<u32>::spawn("broken", 1, || Err(E("no model".into())));
        assert_eq!(r.err().unwrap().0, "no model");
    }

    #[test]
    fn a_full_queue_answers_busy() {
        let w = Worker::spawn("slow", 1, || Ok::<_, E>(())).unwrap();
        let (gate_tx, gate_rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
        // Occupies the thread until the gate opens; then one job fits the queue, the next not.
        let _running = w
            .submit(Lane::Bulk, move |_| {
                started_tx.send(()).unwrap();
                gate_rx.recv().ok()
            })
            .unwrap();
        started_rx.recv().unwrap();
        let _queued = w.submit(Lane::Bulk, |_| ()).unwrap();
        assert_eq!(
            w.submit(Lane::Bulk, |_| ()).err(),
            Some(WorkerError::Busy("slow", 1))
        );
        gate_tx.send(()).unwrap();
    }

    #[test]
    fn an_urgent_job_runs_before_every_waiting_bulk_job() {
        let w = Worker::spawn("ordered", 8, || Ok::<_, E>(Vec::<&str>::new())).unwrap();
        let (gate_tx, gate_rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
        let _running = w
            .submit(Lane::Bulk, move |m| {
                started_tx.send(()).unwrap();
                gate_rx.recv().ok();
                m.push("running");
            })
            .unwrap();
        started_rx.recv().unwrap();
        let bulk: Vec<_> = (0..3)
            .map(|_| w.submit(Lane::Bulk, |m| m.push("bulk")).unwrap())
            .collect();
        let urgent = w.submit(Lane::Urgent, |m| m.push("urgent")).unwrap();
        gate_tx.send(()).unwrap();
        urgent.blocking_recv().unwrap().unwrap();
        for b in bulk {
            b.blocking_recv().unwrap().unwrap();
        }
        let order = w.call(|m| m.clone()).unwrap();
        assert_eq!(order, ["running", "urgent", "bulk", "bulk", "bulk"]);
    }

    #[test]
    fn the_thread_ends_with_the_last_handle() {
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        struct Signal(std::sync::mpsc::Sender<()>);
        impl Drop for Signal {
            fn drop(&mut self) {
                let _ = self.0.send(());
            }
        }
        let w = Worker::spawn("short", 1, move || Ok::<_, E>(Signal(done_tx.clone()))).unwrap();
        let w2 = w.clone();
        drop(w);
        assert!(done_rx.try_recv().is_err(), "a handle is still alive");
        drop(w2);
        done_rx.recv().unwrap();
    }
}
