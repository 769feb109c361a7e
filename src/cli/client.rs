//! `glovebox client`: a minimal socket client for integrators and head-unit smoke tests. It
//! connects, says `hello` itself (its answer is not printed), sends one request (the argument)
//! or every NDJSON line of stdin as it comes, prints each answer line to stdout as it arrives,
//! and exits once every request has been answered.
//!
//! Waiting for every answer relies on the protocol's end of a connection: after the client
//! closes its sending side, the server answers every request it read and then closes its side
//! (docs/protocol.md, "Ending a connection"). The ids of the requests sent are matched against
//! the answers, so that a connection lost early is reported with the ids left unanswered.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;

use crate::ipc::protocol::{self, Incoming, Message, PROTOCOL_VERSION};

/// The id of the client's own `hello`; answered before any request of the user is sent, so it
/// never mixes with theirs.
const HELLO_ID: u64 = 0;

/// What to send: one request given on the command line, or the lines of stdin.
pub enum Input {
    One(String),
    Stdin,
}

/// Connects to `socket`, sends the input, prints every answer. Fails when the socket cannot be
/// reached, when the connection ends before every request is answered, or when any answer is an
/// error (after printing them all), so that a smoke test can rely on the exit status.
pub fn run(socket: &Path, input: Input) -> Result<()> {
    let line = match &input {
        Input::One(arg) => Some(one_request(arg)?),
        Input::Stdin => None,
    };
    let stream = connect(socket)?;
    let mut rd = BufReader::new(stream.try_clone().context("cannot use the socket")?);
    hello(&stream, &mut rd)?;
    let sending = stream.try_clone().context("cannot use the socket")?;
    let all_sent = Arc::new(AtomicBool::new(false));
    let done = all_sent.clone();
    let sender = std::thread::spawn(move || match line {
        Some(l) => send(sending, std::io::Cursor::new(l.into_bytes()), &done),
        None => send(sending, std::io::stdin().lock(), &done),
    });
    let answers = print_answers(&mut rd)?;
    if !all_sent.load(Ordering::SeqCst) {
        // The server closed the connection first (it stopped, or refused the connection): what
        // is still to be read from stdin would go nowhere.
        bail!(
            "the server closed the connection before every request was sent ({} answered)",
            answers.len()
        );
    }
    let sent = sender
        .join()
        .map_err(|_| anyhow!("the sending thread panicked"))?
        .context("cannot send to the server")?;
    check(&sent, &answers)
}

/// The request given as an argument, on one line; an object without `"id"` gets id 1.
fn one_request(arg: &str) -> Result<String> {
    let mut v: Value = serde_json::from_str(arg).with_context(|| {
        format!("the request {arg:?} is not JSON (one JSON object is expected)")
    })?;
    if let Some(obj) = v.as_object_mut() {
        obj.entry("id").or_insert(Value::from(1u64));
    }
    Ok(format!("{v}\n"))
}

fn connect(socket: &Path) -> Result<UnixStream> {
    UnixStream::connect(socket).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such socket".to_string(),
            std::io::ErrorKind::ConnectionRefused => {
                "connection refused (the socket file is there, nobody is listening)".to_string()
            }
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => e.to_string(),
        };
        anyhow!(
            "cannot connect to {}: {why}; is `glovebox serve` running there? (--socket PATH)",
            socket.display()
        )
    })
}

/// Says `hello` and checks its answer.
fn hello(mut stream: &UnixStream, rd: &mut impl BufRead) -> Result<()> {
    let hello = Incoming {
        id: HELLO_ID,
        message: Message::Hello {
            version: PROTOCOL_VERSION,
        },
    };
    let line = protocol::encode(&hello).expect("hello is a socket request");
    stream
        .write_all(format!("{line}\n").as_bytes())
        .context("cannot send hello")?;
    let mut answer = String::new();
    if rd.read_line(&mut answer).context("no answer to hello")? == 0 {
        bail!("the server closed the connection without answering hello");
    }
    let v: Value = serde_json::from_str(&answer)
        .with_context(|| format!("the server's answer to hello is not JSON: {answer:?}"))?;
    if v.get("ok").is_none() {
        bail!("the server refused hello: {}", answer.trim_end());
    }
    Ok(())
}

/// Sends every non-blank line of `input` (bytes as they are: the server judges them), then
/// closes the sending side (setting `all_sent` just before). Returns the id of each line sent (`None` where the client cannot
/// read one; the server then answers with a null id).
fn send(
    mut stream: UnixStream,
    mut input: impl BufRead,
    all_sent: &AtomicBool,
) -> std::io::Result<Vec<Option<u64>>> {
    let mut sent = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        // The server skips blank lines without an answer; so does the count.
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if line.last() != Some(&b'\n') {
            line.push(b'\n');
        }
        stream.write_all(&line)?;
        sent.push(
            serde_json::from_slice::<Value>(&line)
                .ok()
                .and_then(|v| v.get("id").and_then(Value::as_u64)),
        );
    }
    all_sent.store(true, Ordering::SeqCst);
    stream.shutdown(std::net::Shutdown::Write)?;
    Ok(sent)
}

/// One answer: its id (`None` when null) and whether it is an error.
struct Answer {
    id: Option<u64>,
    error: bool,
}

/// Prints answer lines as they arrive until the server closes the connection.
fn print_answers(rd: &mut impl BufRead) -> Result<Vec<Answer>> {
    let mut out = std::io::stdout().lock();
    let mut answers = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        match rd.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => return Err(e).context("cannot read the server's answers"),
        }
        out.write_all(line.as_bytes())
            .and_then(|()| out.flush())
            .context("cannot write to stdout")?;
        let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        answers.push(Answer {
            id: v.get("id").and_then(Value::as_u64),
            error: v.get("ok").is_none(),
        });
    }
    Ok(answers)
}

/// Every request answered (by id; null-id answers count for the lines without a readable id,
/// or for lines the server could not read, such as an over-long one), and none an error.
fn check(sent: &[Option<u64>], answers: &[Answer]) -> Result<()> {
    let mut waiting: HashMap<Option<u64>, usize> = HashMap::new();
    for id in sent {
        *waiting.entry(*id).or_default() += 1;
    }
    let mut null_answers = 0;
    for a in answers {
        match waiting.get_mut(&a.id) {
            Some(n) if *n > 0 => *n -= 1,
            _ if a.id.is_none() => null_answers += 1,
            _ => {}
        }
    }
    // A line with an id the server could not read (too long) is answered with a null id.
    let mut unanswered: Vec<u64> = Vec::new();
    let mut anonymous = waiting.remove(&None).unwrap_or(0);
    for (id, n) in waiting {
        for _ in 0..n {
            unanswered.push(id.expect("ids only"));
        }
    }
    unanswered.sort_unstable();
    let covered = null_answers.min(unanswered.len());
    unanswered.drain(..covered);
    anonymous = anonymous.saturating_sub(null_answers - covered);
    if !unanswered.is_empty() || anonymous > 0 {
        bail!(
            "the server closed the connection before answering {} request(s){}",
            unanswered.len() + anonymous,
            if unanswered.is_empty() {
                String::new()
            } else {
                format!(" (ids {unanswered:?})")
            }
        );
    }
    let errors = answers.iter().filter(|a| a.error).count();
    if errors > 0 {
        bail!("{errors} of {} answers were errors", answers.len());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(id: Option<u64>, error: bool) -> Answer {
        Answer { id, error }
    }

    #[test]
    fn every_request_must_be_answered() {
        assert!(check(
            &[Some(1), Some(2)],
            &[answer(Some(2), false), answer(Some(1), false)]
        )
        .is_ok());
        let e = check(&[Some(1), Some(2)], &[answer(Some(2), false)]).unwrap_err();
        assert!(e.to_string().contains("ids [1]"), "{e}");
        // A line without a readable id is answered with a null id.
        assert!(check(
            &[None, Some(3)],
            &[answer(None, true), answer(Some(3), false)]
        )
        .unwrap_err()
        .to_string()
        .contains("1 of 2 answers were errors"));
        // An over-long line with an id gets a null-id answer too.
        assert!(check(&[Some(4)], &[answer(None, true)])
            .unwrap_err()
            .to_string()
            .contains("were errors"));
        assert!(check(&[None], &[]).is_err());
    }

    #[test]
    fn an_argument_is_one_line_with_an_id() {
        let read = |s: &str| {
            let line = one_request(s).unwrap();
            assert!(
                line.ends_with('\n') && line.matches('\n').count() == 1,
                "{line:?}"
            );
            serde_json::from_str::<Value>(&line).unwrap()
        };
        assert_eq!(
            read("{\"op\": \"status\"}"),
            serde_json::json!({"id": 1, "op": "status"})
        );
        assert_eq!(
            read("{\n \"id\": 7,\n \"op\": \"status\"\n}"),
            serde_json::json!({"id": 7, "op": "status"})
        );
        assert!(one_request("{\"op\": ")
            .unwrap_err()
            .to_string()
            .contains("not JSON"));
    }
}
