//! The boundary to clients: the Unix-socket protocol and server, the wire types, the export
//! format.

pub mod export;
pub mod protocol;
pub mod server;
pub mod wire;
