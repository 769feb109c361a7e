//! Graceful shutdown: one broadcast tells every connection to stop reading, and a drain channel
//! (a sender clone held by every connection and request task) tells the server when everything
//! in flight has been answered.

use tokio::sync::{broadcast, mpsc};

/// The server's side: starts the shutdown and waits for the drain.
pub struct Coordinator {
    notify: broadcast::Sender<()>,
    done_tx: mpsc::Sender<()>,
    done_rx: mpsc::Receiver<()>,
}

impl Coordinator {
    pub fn new() -> Coordinator {
        let (notify, _) = broadcast::channel(1);
        let (done_tx, done_rx) = mpsc::channel(1);
        Coordinator {
            notify,
            done_tx,
            done_rx,
        }
    }

    /// What a new connection holds: the signal to listen for and its part of the drain.
    pub fn subscribe(&self) -> (Shutdown, Drain) {
        (
            Shutdown {
                notify: self.notify.subscribe(),
            },
            Drain {
                _tx: self.done_tx.clone(),
            },
        )
    }

    /// Tells every connection to stop reading, then waits until every [`Drain`] is dropped.
    pub async fn shut_down(self) {
        let Coordinator {
            notify,
            done_tx,
            mut done_rx,
        } = self;
        let _ = notify.send(());
        drop(done_tx);
        let _ = done_rx.recv().await;
    }
}

impl Default for Coordinator {
    fn default() -> Coordinator {
        Coordinator::new()
    }
}

/// A connection's view of the shutdown signal.
pub struct Shutdown {
    notify: broadcast::Receiver<()>,
}

impl Shutdown {
    /// Completes once the server is shutting down.
    pub async fn recv(&mut self) {
        let _ = self.notify.recv().await;
    }
}

/// Held while work is in flight; the server's shutdown waits for every clone to be dropped.
#[derive(Clone)]
pub struct Drain {
    _tx: mpsc::Sender<()>,
}
