//! The socket front end: the line protocol (`protocol.rs`), framing (`connection.rs`), the
//! listening socket (`socket.rs`), the per-connection handler (`handler.rs`), graceful shutdown
//! (`shutdown.rs`) and the accept loop (`server.rs`). Operations themselves run in `ops`.

pub mod connection;
mod handler;
pub mod protocol;
pub mod server;
pub mod shutdown;
pub mod socket;
