//! A request to the car and what is said beside it: "Shuffle my liked songs on Spotify." asks
//! for something now and says nothing lasting, however lasting its words sound to a gate
//! ("my liked songs"); "Put on some jazz, it's what I listen to most of the time." says why,
//! and the why is what is lasting or not.

use super::mood::asking_for;
use super::spans::words;
use super::statements::said_of_the_one_before;
use crate::conversation::split_clauses;

/// Verbs a driver opens a request to the car with: the imperative of what the car does now
/// (plays, sets, switches, navigates, finds, calls). Not the verbs of a standing instruction
/// ("keep", "avoid", "use", "always", "never", "don't"), which a request and a habit share.
#[rustfmt::skip]
const COMMANDS: &[&str] = &[
    "play", "put", "stick", "pop", "throw", "chuck", "whack", "shuffle", "skip", "queue",
    "resume", "pause", "mute", "unmute", "switch", "turn", "set", "open", "close", "start",
    "change", "lower", "raise", "dim", "brighten", "bump", "crank", "tune", "flip", "navigate",
    "take", "drive", "route", "reroute", "head", "go", "stop", "find", "show", "search", "look",
    "locate", "book", "call", "ring", "dial", "text", "message", "read", "make", "give", "get",
    "bring", "add", "load", "pull",
];

/// Words a driver opens a request with before its verb ("Okay, play ...", "Um, can you dim
/// ...", "Please just put ...").
const BEFORE: &[&str] = &[
    "and", "but", "so", "then", "oh", "ok", "okay", "hey", "um", "uh", "er", "erm", "right",
    "alright", "yes", "yeah", "now", "please", "just", "actually", "also", "quickly",
];

/// Words by which a request says it holds beyond now, or says the speaker's taste: a habit
/// ("always", "constantly", "every time", "whenever", "from now on", "by default") or "my
/// favourite", "my usual". "Can we set the temperature to stay at 18 degrees constantly?" is
/// a standing wish, not a request for now.
#[rustfmt::skip]
const BEYOND_NOW: &[&str] = &[
    "always", "constantly", "usually", "normally", "generally", "every", "each", "whenever",
    "never", "ever", "usual", "regular", "regularly", "default", "future", "favourite",
    "favorite", "forever", "permanently",
];

/// Whether a clause is a request to the car to do something now: after [`BEFORE`] words, and
/// a request in a question's form ("can you", "could we", [`asking_for`]; "can we have ..."),
/// it opens with one of [`COMMANDS`], and no word of it says it holds beyond now
/// ([`BEYOND_NOW`], "from now on"). "Play Don't Stop Me Now by Queen", "Um, can you dim the
/// screen?", "Take me home but stop at the Sainsbury's on the way"; not "I always play jazz",
/// "Keep the fan low", "Always take the motorway", "Set it to 18 from now on".
pub fn commands(clause: &str) -> bool {
    let w = words(clause);
    let from_now_on = w.windows(3).any(|x| x == ["from", "now", "on"]);
    if from_now_on || w.iter().any(|x| BEYOND_NOW.contains(&x.as_str())) {
        return false;
    }
    let mut i = 0;
    while w.get(i).is_some_and(|x| BEFORE.contains(&x.as_str())) {
        i += 1;
    }
    let asked = asking_for(&w[i..]);
    match w.get(i + asked).map(String::as_str) {
        Some("have") => asked > 0,
        Some(v) => COMMANDS.contains(&v),
        None => false,
    }
}

/// What a statement that opens with a request to the car ([`commands`]) says beside its
/// requests: its other clauses, in order ("I want to catch the six o'clock news" of "Stick
/// on BBC Radio 4, I want to catch the six o'clock news."), empty when it says nothing else
/// ("Shuffle my liked songs on Spotify."). `None` when the statement opens with no request,
/// when a clause beside it points back to it (the remark is about what is asked for: "Find me
/// an Allego charger, that's the network I use."; the statement is read whole), and when the
/// statement has no marks at all: a speech recogniser's run-on turn ("put on some jazz its
/// what i listen to most") cannot be cut into its request and what is said beside it.
pub fn beside_commands(statement: &str) -> Option<String> {
    if !statement.contains([',', '.', ';', '!', '?', '\u{2014}', '\u{2013}']) {
        return None;
    }
    let clauses = split_clauses(statement);
    let (first, others) = clauses.split_first()?;
    if !commands(first) {
        return None;
    }
    let rest: Vec<&str> = others
        .iter()
        .filter(|c| !commands(c))
        .map(String::as_str)
        .collect();
    if rest.iter().any(|c| said_of_the_one_before(c)) {
        return None;
    }
    Some(rest.join(", "))
}

#[cfg(test)]
mod tests {
    use super::{beside_commands, commands};

    #[test]
    fn a_request_to_the_car_opens_with_what_it_is_to_do() {
        for c in [
            "Shuffle my liked songs on Spotify.",
            "Play Don't Stop Me Now by Queen.",
            "Um, can you dim the screen?",
            "Can we have Today's Top Hits on Spotify?",
            "Okay, just take me home but stop at the Sainsbury's on the way",
            "Stick on BBC Radio 4",
        ] {
            assert!(commands(c), "{c}");
        }
        for c in [
            "I always play jazz in the car.",
            "Keep the fan low",
            "Always take the motorway.",
            "Don't play country.",
            "Can you tell me the way?",
            "Have you got anything by Adele?",
            "Jazz is what I play most.",
            "Can we set the car's temperature to stay at a refreshing 18 degrees constantly?",
            "Set it to 21 from now on.",
            "Start playing my favorite, please",
        ] {
            assert!(!commands(c), "{c}");
        }
    }

    #[test]
    fn beside_a_request_is_what_the_statement_says_besides() {
        assert_eq!(
            beside_commands("Stick on BBC Radio 4, I want to catch the six o'clock news.")
                .as_deref(),
            Some("I want to catch the six o'clock news.")
        );
        assert_eq!(
            beside_commands("Shuffle my liked songs on Spotify.").as_deref(),
            Some("")
        );
        assert_eq!(
            beside_commands("Find a Tesco, I always fill up there for the points.").as_deref(),
            Some("I always fill up there for the points.")
        );
        // A remark pointing back to the request is about it: the statement is read whole.
        assert_eq!(
            beside_commands(
                "Take me there, and turn the radio to Absolute Radio. It's on all day in my car."
            ),
            None
        );
        assert_eq!(beside_commands("I love jazz, play some."), None);
        // A turn without marks cannot be cut.
        assert_eq!(
            beside_commands("put on some jazz its what i listen to most"),
            None
        );
    }
}
