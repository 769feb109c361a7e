//! Framing: a connection's bytes cut into request lines, each at most `server.max_line_bytes`
//! long. An over-long line is reported once and its rest skipped; a line cut off by the peer
//! closing is reported as truncated.

use tokio::io::{AsyncRead, AsyncReadExt};

/// What the reader found next on the connection.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A request line, without its line ending; never blank.
    Line(Vec<u8>),
    /// A line longer than the limit; the rest of it is skipped.
    TooLong,
    /// The peer closed the connection in the middle of a line.
    Truncated,
}

/// Reads newline-delimited request lines with a byte limit.
pub struct LineReader<R> {
    rd: R,
    buf: Vec<u8>,
    chunk: Box<[u8]>,
    max: usize,
    /// The start of an over-long line was reported; what remains of it up to its newline is
    /// dropped.
    discarding: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(rd: R, max_line_bytes: usize) -> LineReader<R> {
        LineReader {
            rd,
            buf: Vec::new(),
            chunk: vec![0u8; 16 * 1024].into_boxed_slice(),
            max: max_line_bytes,
            discarding: false,
        }
    }

    /// The next frame, or `None` once the peer has closed the connection. Cancel-safe: the only
    /// await is the socket read, and the buffer is consistent whenever it is pending.
    pub async fn next(&mut self) -> std::io::Result<Option<Frame>> {
        loop {
            if let Some(frame) = self.buffered() {
                return Ok(Some(frame));
            }
            let n = self.rd.read(&mut self.chunk).await?;
            if n == 0 {
                let truncated = !self.buf.is_empty() && !self.discarding;
                self.buf.clear();
                self.discarding = false;
                return Ok(truncated.then_some(Frame::Truncated));
            }
            self.buf.extend_from_slice(&self.chunk[..n]);
        }
    }

    /// A frame from what is already buffered, if there is one.
    fn buffered(&mut self) -> Option<Frame> {
        while let Some(pos) = self.buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=pos).collect();
            if std::mem::take(&mut self.discarding) {
                continue; // the tail of an over-long line, already reported
            }
            if line.len() > self.max + 1 {
                return Some(Frame::TooLong);
            }
            let line = line.strip_suffix(b"\n").unwrap_or(&line);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if !line.iter().all(u8::is_ascii_whitespace) {
                return Some(Frame::Line(line.to_vec()));
            }
        }
        if self.buf.len() > self.max {
            self.buf.clear();
            if !std::mem::replace(&mut self.discarding, true) {
                return Some(Frame::TooLong);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        let mut r = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Some(f) = r.next().await.unwrap() {
            out.push(f);
        }
        out
    }

    #[tokio::test]
    async fn lines_are_cut_limited_and_truncation_reported() {
        let long = format!("{}\n{{\"id\":1}}\r\n\n", "x".repeat(40));
        assert_eq!(
            frames(long.as_bytes(), 16).await,
            vec![Frame::TooLong, Frame::Line(b"{\"id\":1}".to_vec())]
        );
        assert_eq!(
            frames(b"a\n  \nbc", 16).await,
            vec![Frame::Line(b"a".to_vec()), Frame::Truncated]
        );
        // A long line arriving in several reads is reported once.
        let chunked = (&b"abcdefgh"[..])
            .chain(&b"ijklmnop"[..])
            .chain(&b"q\nok\n"[..]);
        let mut r = LineReader::new(chunked, 4);
        assert_eq!(r.next().await.unwrap(), Some(Frame::TooLong));
        assert_eq!(r.next().await.unwrap(), Some(Frame::Line(b"ok".to_vec())));
        assert_eq!(r.next().await.unwrap(), None);
        // Exactly the limit is allowed; one byte more is not.
        assert_eq!(
            frames(b"abcd\nabcde\n", 4).await,
            vec![Frame::Line(b"abcd".to_vec()), Frame::TooLong]
        );
    }
}
