//! A model that owns one OS thread: callers send it closures through a bounded channel and
//! wait for the answer, blocking or async. Inference never runs on a caller's (or tokio's)
//! thread, and the model is never shared behind a lock. A job that panics answers its caller
//! [`WorkerError::Panicked`] and the model is built afresh before the next job, so one bad
//! request never leaves the model dead for the life of the process.

use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};

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

/// Handle to a thread owning a model `M`. Cheap to clone; the thread ends with the last handle.
pub struct Worker<M> {
    name: &'static str,
    queue: usize,
    tx: SyncSender<Job<M>>,
}

impl<M> Clone for Worker<M> {
    fn clone(&self) -> Self {
        Worker {
            name: self.name,
            queue: self.queue,
            tx: self.tx.clone(),
        }
    }
}

impl<M: 'static> Worker<M> {
    /// Starts the thread, builds the model on it with `init`, and returns once that is done.
    /// `init` runs again after a job panics; if it fails then, the worker stops.
    pub fn spawn<E: Send + std::fmt::Display + 'static>(
        name: &'static str,
        queue: usize,
        init: impl Fn() -> Result<M, E> + Send + 'static,
    ) -> Result<Worker<M>, E>
    where
        E: From<WorkerError>,
    {
        let (tx, rx) = sync_channel::<Job<M>>(queue);
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), E>>();
        std::thread::Builder::new()
            .name(format!("glovebox-{name}"))
            .spawn(move || {
                let mut model = match init() {
                    Ok(m) => {
                        let _ = ready_tx.send(Ok(()));
                        m
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                while let Ok(job) = rx.recv() {
                    if job(&mut model) {
                        tracing::error!("{name}: a request panicked; rebuilding the model");
                        model = match init() {
                            Ok(m) => m,
                            Err(e) => {
                                tracing::error!("{name}: cannot rebuild the model ({e}); stopping");
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
        Ok(Worker { name, queue, tx })
    }

    fn submit<R: Send + 'static>(
        &self,
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
        self.tx.try_send(job).map_err(|e| match e {
            TrySendError::Full(_) => WorkerError::Busy(self.name, self.queue),
            TrySendError::Disconnected(_) => WorkerError::Stopped(self.name),
        })?;
        Ok(rx)
    }

    /// Runs `f` on the model's thread and blocks until it returns (not for async code).
    pub fn call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut M) -> R + Send + 'static,
    ) -> Result<R, WorkerError> {
        self.submit(f)?
            .blocking_recv()
            .map_err(|_| WorkerError::Stopped(self.name))?
    }

    /// Runs `f` on the model's thread without blocking the async runtime.
    pub async fn call_async<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut M) -> R + Send + 'static,
    ) -> Result<R, WorkerError> {
        self.submit(f)?
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
            .submit(move |_| {
                started_tx.send(()).unwrap();
                gate_rx.recv().ok()
            })
            .unwrap();
        started_rx.recv().unwrap();
        let _queued = w.submit(|_| ()).unwrap();
        assert_eq!(w.submit(|_| ()).err(), Some(WorkerError::Busy("slow", 1)));
        gate_tx.send(()).unwrap();
    }
}
