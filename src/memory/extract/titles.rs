//! Titles and credits: the names of works said in a driver's words. A title may open with a
//! word no other name does ("Here Comes the Sun", "No Woman No Cry", "Take On Me") and a work
//! is said with who made it ("Wonderwall by Oasis"); for a category whose values are works, the
//! value is the work.

use super::referents::referents;
use super::spans::{token_word, value_word, FUNCTION_WORDS, TIME_WORDS};
use crate::memory::values::idiom;
use crate::schema::Detail;

/// Longest title copied from a sentence, in words.
const MAX_TITLE_WORDS: usize = 7;

/// The titles of a sentence ([`crate::memory::values::idiom::titles`]) that hold a capitalised
/// word no other name may start or end with, in value words: "Here Comes the Sun", "No Woman
/// No Cry", "Take On Me", "The Killers" said inside a sentence are whole names, not "Comes the
/// Sun", "Woman No Cry", "Take" or "Killers". A run of times and dates is none.
pub(super) fn title_names(sentence: &str) -> Vec<String> {
    let tokens: Vec<&str> = sentence.split(' ').collect();
    idiom::titles(sentence)
        .into_iter()
        // One that opens the sentence may open with a verb ("Play Don't Stop Me Now by
        // Queen"): the work is read from what it is by ([`without_credits`]); but not one
        // said as what something is ("Don't Stop Believin' is my favourite song", "Here
        // Comes the Sun by The Beatles is my song").
        .filter(|r| {
            let next = tokens.get(r.end).map(|t| token_word(t));
            r.start > 0
                || next.as_deref().is_some_and(idiom::copula)
                || (next.as_deref() == Some("by") && idiom::credit_then_copula(&tokens, r.end + 1))
        })
        .filter_map(|r| {
            let words = run_words(&tokens[r]);
            let lower: Vec<String> = words.iter().map(|w| token_word(w)).collect();
            // A capitalised word of those: a name's own "of" or "and" are lower case
            // ("Bank of America"; "Ionity and Tesla" are two).
            let function = words.iter().zip(&lower).any(|(w, l)| {
                w.starts_with(char::is_uppercase) && FUNCTION_WORDS.contains(&l.as_str())
            });
            let time = lower.iter().any(|w| {
                crate::memory::usual::month_number(w).is_some() || TIME_WORDS.contains(&w.as_str())
            });
            let title = words.join(" ");
            (function && !time && words.len() <= MAX_TITLE_WORDS && title.len() <= 48)
                .then_some(title)
        })
        .collect()
}

/// The value words of a run of a sentence's tokens (marks off, nothing left of a mark alone).
fn run_words<'a>(run: &[&'a str]) -> Vec<&'a str> {
    run.iter()
        .map(|t| value_word(t))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether a detail's known values are works credited to someone ("Envision by Jon Lemon"):
/// most of its attributes say "by".
fn lists_credited_works(detail: &Detail) -> bool {
    let credited = detail
        .attributes
        .iter()
        .filter(|a| a.contains(" by "))
        .count();
    credited > 0 && credited * 2 > detail.attributes.len()
}

/// `names` without those `sentence` says as the one a work is by (read for a detail whose
/// values are works, [`lists_credited_works`]): the value is the work, not who made it. "No Woman No Cry by Bob
/// Marley" is No Woman No Cry; "Wonderwall by Oasis is my favourite song" is Wonderwall, the
/// capitalised words before "by" a title though they open the sentence.
fn without_credits(sentence: &str, names: &mut Vec<String>) {
    let raw: Vec<&str> = sentence
        .split_whitespace()
        .filter(|w| !value_word(w).is_empty())
        .collect();
    let plain: Vec<String> = raw.iter().map(|w| value_word(w).to_lowercase()).collect();
    let fold = |n: &str| -> Vec<String> {
        n.split_whitespace()
            .map(|w| value_word(w).to_lowercase())
            .collect()
    };
    let capital = |w: &str| value_word(w).starts_with(char::is_uppercase);
    // A first word no name starts with ("Play") is no work's; a negation may be ("Don't").
    let verb = plain
        .first()
        .is_some_and(|w| FUNCTION_WORDS.contains(&w.as_str()) && !idiom::opens_title(w));
    // A word that opens a sentence before what it is about ("And Here Comes the Sun by ...").
    let opener = plain
        .first()
        .is_some_and(|w| idiom::OPENERS.contains(&w.as_str()));
    let joiner = |w: &str| idiom::JOINERS.contains(&w);
    let mut credited = Vec::new();
    let mut works = Vec::new();
    for (at, _) in plain.iter().enumerate().filter(|(_, w)| *w == "by") {
        let Some(b) = names.iter().find(|b| {
            let b = fold(b);
            plain.get(at + 1..at + 1 + b.len()) == Some(&b[..])
        }) else {
            continue;
        };
        // Said as what it is after whom it is by ("Here Comes the Sun by The Beatles is my
        // song"), the work opens the sentence (after an opener, "And"): no verb before it.
        let subject = idiom::credit_then_copula(&raw, at + 1);
        // The work: the capitalised words right before "by" (a mark ends the run; a first
        // word no name starts with, "Play", is not the work's, but a negation is: "Don't
        // Stop Me Now"), or a longer name said there ("Here Comes the Sun" holds a word in
        // lower case).
        let mut from = at;
        while from > 0
            && capital(raw[from - 1])
            && (from == at || !raw[from - 1].ends_with([',', '.', '!', '?', ';', ':']))
        {
            from -= 1;
            // Joiners, one or two, between capitals, where the run then opens the sentence
            // with a word a title may open with ("Can't Help Falling in Love by Elvis
            // Presley"): a request's verb there is no title's ("Put on Hello by Adele").
            let n = (1..=2).find(|&n| {
                from > n
                    && (1..=n).all(|m| joiner(&plain[from - m]))
                    && capital(raw[from - n - 1])
                    && !raw[from - n - 1].ends_with([',', '.', '!', '?', ';', ':'])
            });
            if let Some(n) = n {
                let mut start = from - n - 1;
                while start > 0 && capital(raw[start - 1]) {
                    start -= 1;
                }
                if start == 0 && (subject || idiom::opens_title(&plain[0]) || plain[0] == "the") {
                    from -= n;
                }
            }
        }
        if from == 0 && at > 1 && ((verb && !subject) || (subject && opener)) {
            from = 1;
        }
        let before: Option<&String> = names
            .iter()
            .filter(|a| {
                let a = fold(a);
                a.len() <= at && plain[at - a.len()..at] == a[..]
            })
            .max_by_key(|a| fold(a).len());
        match before {
            Some(a) if fold(a).len() >= at - from => {}
            _ if from == at => continue,
            _ => {
                // "Stop Me Now" of "Don't Stop Me Now", or "Can't Help Falling" of "Can't
                // Help Falling in Love", is not the work.
                let work = &plain[from..at];
                credited.extend(
                    names
                        .iter()
                        .filter(|n| {
                            let n = fold(n);
                            !n.is_empty()
                                && n.len() < work.len()
                                && work.windows(n.len()).any(|w| w == n)
                        })
                        .cloned(),
                );
                let work: Vec<&str> = raw[from..at].iter().map(|w| value_word(w)).collect();
                works.push(work.join(" "));
            }
        }
        credited.push(b.clone());
    }
    names.retain(|n| !credited.contains(n));
    for w in works {
        if !names.iter().any(|n| fold(n) == fold(&w)) {
            names.push(w);
        }
    }
}

/// Verbs of playing that open a request with the work right after them ("Play Born to Run").
const PLAYS: &[&str] = &["play", "queue", "blast", "shuffle"];

/// The titles of `sentence` that keep a small word in lower case between capitalised ones
/// ("Born to Run", "Dancing in the Dark", "Stairway to Heaven"), in value words: the runs of
/// [`idiom::titles`], and the run after a verb of playing that opens the sentence ("Play Born
/// to Run."). Not one joined by "and" (two works said together: "Born to Run and Thunder
/// Road"). Read only where the values are works: elsewhere such a run is as often a name and
/// where it is ("Aldi in Leeds").
fn joined_titles(sentence: &str) -> Vec<String> {
    let tokens: Vec<&str> = sentence.split(' ').collect();
    let mut runs = idiom::titles(sentence);
    for (i, t) in tokens.iter().enumerate() {
        let opens = idiom::opens_at(&tokens, i);
        let plays = PLAYS.contains(&token_word(t).as_str()) && !t.ends_with([',', '.', '!', '?']);
        if opens && plays && !runs.iter().any(|r| r.contains(&(i + 1))) {
            let end = idiom::capital_run(&tokens, i + 1);
            runs.push(i + 1..end);
        }
    }
    runs.into_iter()
        .filter_map(|r| {
            let words = run_words(&tokens[r]);
            let lower = |w: &str| w.starts_with(char::is_lowercase);
            // Inside the title: "on Hello" of "Put on Hello by Adele" is none.
            let inside =
                words.first().is_some_and(|w| !lower(w)) && words.last().is_some_and(|w| !lower(w));
            let joined = inside && words.iter().any(|w| lower(w));
            let two = words.contains(&"and");
            (joined && !two && words.len() <= MAX_TITLE_WORDS).then(|| words.join(" "))
        })
        .collect()
}

/// `names` with each title of `sentence` said with a small word in lower case
/// ([`joined_titles`]) in place of the names that are pieces of it ("Born" and "Run" of "Born
/// to Run").
fn with_joined_titles(sentence: &str, names: &mut Vec<String>) {
    let words = |n: &str| -> Vec<String> { n.split(' ').map(|w| w.to_lowercase()).collect() };
    for title in joined_titles(sentence) {
        let whole = words(&title);
        let piece = |n: &String| {
            let n = words(n);
            n.len() < whole.len() && whole.windows(n.len()).any(|w| w == n)
        };
        // Where its first piece was (the names before it all stay), else at the end.
        let at = names.iter().position(piece).unwrap_or(names.len());
        names.retain(|n| !piece(n));
        if !names.iter().any(|n| words(n) == whole) {
            names.insert(at, title);
        }
    }
}

/// [`without_credits`] over each of `texts` (the evidence sentence and the earlier ones it
/// points back to: "That's my song" after "Now playing Mr. Brightside by The Killers"), for
/// a detail whose values are works ([`lists_credited_works`]), after reading their titles
/// said with small words in lower case whole ([`with_joined_titles`]); other details keep
/// `names`.
pub(super) fn without_credits_in<'a>(
    detail: &Detail,
    texts: impl IntoIterator<Item = &'a str>,
    names: &mut Vec<String>,
) {
    if lists_credited_works(detail) {
        for s in texts {
            with_joined_titles(s, names);
            without_credits(s, names);
        }
    }
}

/// [`without_credits_in`] the evidence sentence (`sentences[at]`) and the earlier ones it
/// points back to ([`referents`], read only for a detail whose values are works).
pub fn without_credits_said(
    detail: &Detail,
    (sentences, at, before): (&[String], usize, &[Option<String>]),
    names: &mut Vec<String>,
) {
    let Some(evidence) = sentences.get(at) else {
        return;
    };
    let earlier = std::iter::once_with(|| referents(sentences, at, before)).flatten();
    without_credits_in(
        detail,
        std::iter::once(evidence.as_str()).chain(earlier),
        names,
    );
}

#[cfg(test)]
mod tests {
    use super::super::proper_names;
    use super::*;
    use crate::schema::Schema;

    #[test]
    fn a_title_said_inside_a_sentence_is_one_name() {
        assert_eq!(
            proper_names("My favourite song is Here Comes the Sun."),
            ["Here Comes the Sun"]
        );
        assert_eq!(
            proper_names("My favourite song is No Woman No Cry by Bob Marley."),
            ["No Woman No Cry", "Bob Marley"]
        );
        assert_eq!(
            proper_names("Can you put on Take On Me, please?"),
            ["Take On Me"]
        );
        assert_eq!(
            proper_names("My favourite song is I Will Survive."),
            ["I Will Survive"]
        );
        assert_eq!(
            proper_names("My favourite band is The Killers."),
            ["The Killers"]
        );
        // A run that opens the sentence is one when said as what something is; otherwise,
        // or in lower case, it is read as before.
        assert_eq!(
            proper_names("The Killers are my favourite band."),
            ["The Killers"]
        );
        assert_eq!(
            proper_names("Don't Stop Believin' is my favourite song."),
            ["Don't Stop Believin"]
        );
        assert_eq!(proper_names("Play The Killers for me."), ["Killers"]);
        // After "It's" or "That's" it is what something is.
        assert_eq!(
            proper_names("It's The Killers for me, best band ever."),
            ["The Killers"]
        );
        assert_eq!(
            proper_names("It's The Rest Is History for me."),
            ["The Rest Is History"]
        );
        assert_eq!(
            proper_names("Here Comes the Sun by The Beatles is my favourite."),
            ["Here Comes the Sun", "The Beatles"]
        );
        assert_eq!(
            proper_names("Play Here Comes the Sun by The Beatles."),
            ["Here Comes the Sun", "The Beatles"]
        );
        assert_eq!(
            proper_names("And Chargefox is my go-to network."),
            ["Chargefox"]
        );
        assert!(proper_names("my favourite song is here comes the sun").is_empty());
        // Nor is a date a title.
        assert_eq!(
            proper_names("I have a meeting at the Main Campus Library on Monday March 10th."),
            ["Main Campus Library"]
        );
    }

    /// The names a sentence gives a value of `d`.
    fn names(d: &Detail, s: &str) -> Vec<String> {
        let mut n = proper_names(s);
        without_credits_in(d, [s], &mut n);
        n
    }

    #[test]
    fn a_work_s_value_is_the_work_not_who_made_it() {
        let schema = Schema::embedded();
        let songs = schema.detail(schema.detail_by_key("favorite_songs").unwrap());
        let artists = schema.detail(schema.detail_by_key("favorite_artists_bands").unwrap());
        let s = "My favourite song is No Woman No Cry by Bob Marley.";
        assert_eq!(names(songs, s), ["No Woman No Cry"]);
        // An artist's category keeps both: which one it is about is the model's call.
        assert_eq!(names(artists, s), ["No Woman No Cry", "Bob Marley"]);
        // The work opens the sentence, or a verb does before it.
        assert_eq!(
            names(songs, "Wonderwall by Oasis is my favourite song."),
            ["Wonderwall"]
        );
        assert_eq!(
            names(songs, "Play Wonderwall by Oasis, it's my favourite."),
            ["Wonderwall"]
        );
        assert_eq!(
            names(
                songs,
                "My favourite is Sweet Child O' Mine by Guns N' Roses."
            ),
            ["Sweet Child O Mine"]
        );
        // Joiners inside the work are crossed where it opens the sentence with a word a
        // title may open with; a request's verb before them is no title's.
        assert_eq!(
            names(
                songs,
                "Can't Help Falling in Love by Elvis Presley is the song I sing along to."
            ),
            ["Can't Help Falling in Love"]
        );
        assert_eq!(
            names(songs, "Put on Hello by Adele, it's my favourite."),
            ["Hello"]
        );
        // Said as what it is after whom it is by, the work opens the sentence.
        assert_eq!(
            names(
                songs,
                "Here Comes the Sun by The Beatles is my favourite track."
            ),
            ["Here Comes the Sun"]
        );
        // Nothing capitalised before "by": no work to credit.
        assert_eq!(names(songs, "I love songs by Oasis."), ["Oasis"]);
    }

    #[test]
    fn a_work_s_title_keeps_its_small_words() {
        let schema = Schema::embedded();
        let songs = schema.detail(schema.detail_by_key("favorite_songs").unwrap());
        let stations = schema.detail(schema.detail_by_key("preferred_radio_station").unwrap());
        assert_eq!(
            names(songs, "Nothing beats Stairway to Heaven, it's my song."),
            ["Stairway to Heaven"]
        );
        assert_eq!(
            names(songs, "Born to Run is my favourite song of all time."),
            ["Born to Run"]
        );
        assert_eq!(
            names(songs, "My favourite is Born to Run by Bruce Springsteen."),
            ["Born to Run"]
        );
        // After a verb of playing that opens the sentence.
        assert_eq!(
            names(songs, "Play Dancing in the Dark."),
            ["Dancing in the Dark"]
        );
        // Two works said together stay two.
        assert_eq!(
            names(songs, "I love Thunder Road and Jungleland."),
            ["Thunder Road", "Jungleland"]
        );
        // Where the values are no works, a name and where it is stay apart.
        assert_eq!(
            names(
                stations,
                "I always listen to Heart in the mornings, and Radio X at Leeds."
            ),
            proper_names("I always listen to Heart in the mornings, and Radio X at Leeds.")
        );
    }
}
