//! One connection: the peer-uid check and the connection limit, then each framed line is
//! parsed; `hello` is answered here, every other request runs as its own task through
//! `ops::execute` (model work off the async threads, under the request timeout) and its answer
//! goes back through the connection's writer task.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::UnixStream;
use tokio::sync::mpsc;

use super::connection::{Frame, LineReader};
use super::protocol::{self, Incoming, Message, PROTOCOL_VERSION};
use super::server::Shared;
use super::shutdown::{Drain, Shutdown};
use crate::ops::{self, Code, OpError, Request};

/// Serves one connection until the peer closes it or the server shuts down.
pub(crate) async fn connection(
    stream: UnixStream,
    shared: Arc<Shared>,
    mut shutdown: Shutdown,
    drain: Drain,
) -> std::io::Result<()> {
    let (rd, mut wr) = stream.into_split();
    let uid = rd.as_ref().peer_cred().map(|c| c.uid()).ok();
    if !uid.is_some_and(|u| shared.allowed_uids.contains(&u)) {
        tracing::warn!("refused a connection from uid {uid:?}: not in server.allowed_uids");
        let e = OpError::new(Code::Forbidden, "this uid may not use the glovebox socket");
        return refuse(&mut wr, &e).await;
    }
    let Ok(_conn_permit) = shared.connections.clone().try_acquire_owned() else {
        let max = shared.cfg.max_connections;
        let e = OpError::new(
            Code::Busy,
            format!("too many connections (server.max_connections = {max})"),
        );
        return refuse(&mut wr, &e).await;
    };
    let (tx, writer) = writer(wr);
    let mut lines = LineReader::new(rd, shared.cfg.max_line_bytes);
    let in_flight = Arc::new(tokio::sync::Semaphore::new(shared.cfg.max_in_flight));
    let mut hello = false;
    loop {
        let frame = tokio::select! {
            _ = shutdown.recv() => break,
            frame = lines.next() => frame?,
        };
        let line = match frame {
            None => break,
            Some(Frame::Line(line)) => line,
            Some(Frame::TooLong) => {
                let max = shared.cfg.max_line_bytes;
                let e = OpError::new(
                    Code::LineTooLong,
                    format!("request line longer than {max} bytes (server.max_line_bytes)"),
                );
                let _ = tx.send(protocol::error(None, &e)).await;
                continue;
            }
            Some(Frame::Truncated) => {
                let e = OpError::new(
                    Code::TruncatedLine,
                    "the connection closed in the middle of a request line",
                );
                let _ = tx.send(protocol::error(None, &e)).await;
                continue;
            }
        };
        let answer = match protocol::parse(&line) {
            Err((id, e)) => protocol::error(id, &e),
            Ok(Incoming {
                id,
                message: Message::Hello { version },
            }) => greet(id, version, &mut hello),
            Ok(Incoming { id, .. }) if !hello => {
                let e = OpError::new(Code::HelloRequired, format!("the first request must be {{\"id\": 0, \"op\": \"hello\", \"version\": {PROTOCOL_VERSION}}}"));
                protocol::error(Some(id), &e)
            }
            Ok(Incoming {
                id,
                message: Message::Op(req),
            }) => match in_flight.clone().try_acquire_owned() {
                Ok(permit) => {
                    let (shared, tx, drain) = (shared.clone(), tx.clone(), drain.clone());
                    tokio::spawn(async move {
                        let _ = tx.send(handle(&shared, id, req).await).await;
                        drop((permit, drain));
                    });
                    continue;
                }
                Err(_) => {
                    let max = shared.cfg.max_in_flight;
                    let e = OpError::new(
                        Code::Busy,
                        format!("{max} requests of this connection are already in flight (server.max_in_flight)"),
                    );
                    protocol::error(Some(id), &e)
                }
            },
        };
        let _ = tx.send(answer).await;
    }
    drop(tx);
    let _ = writer.await;
    drop(drain);
    Ok(())
}

/// Writes one error line to a connection that is refused.
async fn refuse(wr: &mut OwnedWriteHalf, e: &OpError) -> std::io::Result<()> {
    let _ = wr
        .write_all(format!("{}\n", protocol::error(None, e)).as_bytes())
        .await;
    Ok(())
}

/// The connection's writer task: answers go out one line each, in the order they are done.
fn writer(mut wr: OwnedWriteHalf) -> (mpsc::Sender<String>, tokio::task::JoinHandle<()>) {
    let (tx, mut rx) = mpsc::channel::<String>(64);
    let task = tokio::spawn(async move {
        while let Some(line) = rx.recv().await {
            if wr.write_all(line.as_bytes()).await.is_err() || wr.write_all(b"\n").await.is_err() {
                break;
            }
        }
        let _ = wr.shutdown().await;
    });
    (tx, task)
}

/// The answer to `hello`; a supported version opens the connection for requests.
fn greet(id: u64, version: u64, hello: &mut bool) -> String {
    if version != PROTOCOL_VERSION {
        let e = OpError::new(
            Code::UnsupportedVersion,
            format!("protocol version {version} is not supported; this server speaks {PROTOCOL_VERSION}"),
        );
        return protocol::error(Some(id), &e);
    }
    *hello = true;
    let server = json!({"version": PROTOCOL_VERSION, "server": "glovebox", "server_version": env!("CARGO_PKG_VERSION")});
    protocol::ok(id, server)
}

/// Runs one request (model work off the async threads) under the request timeout, bounded by
/// the model queue for remember; returns its answer line.
async fn handle(shared: &Arc<Shared>, id: u64, req: Request) -> String {
    let _permit = if req.uses_llm() {
        match shared.model_slots.try_acquire() {
            Ok(p) => Some(p),
            Err(_) => {
                let e = OpError::new(
                    Code::Busy,
                    format!(
                        "{} remember requests are already waiting (server.queue)",
                        shared.cfg.queue
                    ),
                );
                return protocol::error(Some(id), &e);
            }
        }
    } else {
        None
    };
    let memory = shared.memory.clone();
    let work = tokio::task::spawn_blocking(move || ops::execute(&memory, req));
    let timeout = Duration::from_millis(shared.cfg.request_timeout_ms);
    match tokio::time::timeout(timeout, work).await {
        Ok(Ok(Ok(reply))) => protocol::ok(id, reply.to_json()),
        Ok(Ok(Err(e))) => protocol::error(Some(id), &e),
        Ok(Err(join)) => protocol::error(Some(id), &OpError::new(Code::Internal, format!("request failed: {join}"))),
        Err(_) => protocol::error(
            Some(id),
            &OpError::new(Code::Timeout, format!("no answer within {} ms (server.request_timeout_ms); the work may still complete", shared.cfg.request_timeout_ms)),
        ),
    }
}
