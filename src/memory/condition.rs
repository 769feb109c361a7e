//! Conditions: a preference that holds only in some situation ("at night", "when it is above
//! 25 degrees", "when I drive through the industrial district"), kept in the user's own words.
//!
//! * [`find`] reads the condition of a preference from its evidence sentence: a clause that a
//!   subordinating word opens (`when`, `whenever`, `if`, `while`, `during`, `once`...), or a
//!   time phrase (`at night`, `in the morning`, `on cold days`), up to the clause's end. It
//!   is grammar, not a judgment about preferences: the gate has already decided that the
//!   sentence states one. Some clauses set none because they always hold: a concession
//!   ("even if it takes longer"), either way ("if it's covered or not"), the request itself
//!   ("when searching for gas stations", "during navigation"), being in the car ("when I
//!   drive"), and a clause that names no situation at all ("if I need to", "while we're at
//!   it").
//! * [`Situation`] is what recall knows of the moment: the utterance, the local time, the
//!   occupants and free-text facts ("outside 28 degrees").
//! * [`judge`] decides whether a condition is met: by the clock for a time of day, by a
//!   comparison for a threshold on a number, and otherwise by the embedder's similarity of the
//!   condition and the situation's words ([`SIMILAR`]).

/// Words that open a condition clause.
const OPENERS: &[&str] = &[
    "when", "whenever", "if", "while", "during", "once", "until", "unless",
];

/// Phrases that start with an opener but set no condition ("if you can", "when possible").
const NOT_CONDITIONS: &[&str] = &[
    "if you can",
    "if you could",
    "if possible",
    "if you don't mind",
    "if you do not mind",
    "if that's ok",
    "if that is ok",
    "if you please",
    "when possible",
    "when you can",
    "when you get a chance",
];

/// Conditions that always hold in a car, so set none ("when I drive, I want the mirror
/// heating on" is a plain preference): compared with the whole condition, case folded.
const ALWAYS: &[&str] = &[
    "when i drive",
    "when i'm driving",
    "when i am driving",
    "while i drive",
    "while i'm driving",
    "while driving",
    "while you drive",
    "while you're driving",
    "when we drive",
    "when i'm in the car",
    "when i am in the car",
    "when we're in the car",
    "while we're driving",
    "while we're on the road",
    "when we're on the road",
    "while on the road",
    "during navigation",
    "during our route",
    "during the route",
    "during my route",
    "during the drive",
    "during the trip",
];

/// Words that name no situation: a clause of these alone after its opener sets no condition
/// ("if I need to", "while we're at it", "unless I say otherwise", "if you like").
const NO_SITUATION: &[&str] = &[
    "i",
    "i'm",
    "i'd",
    "we",
    "we're",
    "you",
    "you're",
    "it",
    "it's",
    "at",
    "to",
    "so",
    "that",
    "this",
    "be",
    "am",
    "are",
    "is",
    "do",
    "does",
    "can",
    "could",
    "would",
    "should",
    "must",
    "need",
    "needs",
    "want",
    "wants",
    "like",
    "have",
    "has",
    "say",
    "tell",
    "otherwise",
];

/// Verbs of asking the assistant for something. A condition that is the request itself ("when
/// searching for gas stations", "when I ask for news updates", "when navigating") holds
/// whenever the preference is used, so it sets none.
const REQUEST_VERBS: &[&str] = &[
    "search",
    "searching",
    "look",
    "looking",
    "select",
    "selecting",
    "choose",
    "choosing",
    "pick",
    "picking",
    "ask",
    "asking",
    "plan",
    "planning",
    "suggest",
    "suggesting",
    "check",
    "checking",
    "play",
    "playing",
    "find",
    "finding",
    "recommend",
    "recommending",
    "navigate",
    "navigating",
    "route",
    "routing",
];

/// Words between an opener and its verb ("when I ask", "when you're looking").
const SUBJECTS: &[&str] = &[
    "i", "you", "we", "i'm", "you're", "we're", "am", "are", "is", "it", "it's",
];

/// Times of day and of year, with the local hours (start, end; end exclusive, wrapping past
/// midnight) during which each holds; `None`: a season or kind of day the clock cannot tell.
const TIMES: &[(&str, Option<(u32, u32)>)] = &[
    ("night", Some((20, 6))),
    ("nights", Some((20, 6))),
    ("nighttime", Some((20, 6))),
    ("dark", Some((19, 7))),
    ("evening", Some((17, 22))),
    ("evenings", Some((17, 22))),
    ("morning", Some((5, 12))),
    ("mornings", Some((5, 12))),
    ("afternoon", Some((12, 18))),
    ("afternoons", Some((12, 18))),
    ("day", Some((7, 19))),
    ("daytime", Some((7, 19))),
    ("weekend", None),
    ("weekends", None),
    ("winter", None),
    ("summer", None),
    ("rain", None),
    ("snow", None),
];

/// Prepositions that open a time phrase ("at night", "in the morning", "on weekends").
const TIME_PREPOSITIONS: &[&str] = &["at", "in", "on", "during", "for", "by"];

/// Words that end a condition clause when it runs on into the main clause ("when it's cold I
/// want ..."): a subject pronoun after the clause's own first words.
const MAIN_CLAUSE: &[&str] = &[
    "i", "i'd", "i'm", "i'll", "we", "please", "let's", "set", "turn",
];

/// Cosine similarity of a condition and the situation's words at or above which the condition
/// counts as met when neither the clock nor a number decides it. Chosen a priori, not fitted:
/// MiniLM puts paraphrases of one situation above .5 and different situations below .35; the
/// value sits between them, and the VehicleMemBench evaluation reports what it does.
pub const SIMILAR: f32 = 0.45;

fn tokens(sentence: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut start = None;
    let cleaned: Vec<(usize, char)> = sentence.char_indices().collect();
    for (i, c) in cleaned.iter().copied().chain([(sentence.len(), ' ')]) {
        let word = c.is_alphanumeric() || c == '\'' || c == '’' || c == '-';
        match (start, word) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                let w = sentence[s..i].to_lowercase().replace('’', "'");
                out.push((s, i, w));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The end (byte offset) of the clause that starts at `from`: the next comma, semicolon,
/// full stop, dash or question mark, or the end of the sentence.
fn clause_end(sentence: &str, from: usize) -> usize {
    sentence[from..]
        .find([',', ';', '.', '!', '?', '—', '–', ':'])
        .map_or(sentence.len(), |i| from + i)
}

/// The condition of a preference in its evidence sentence, in the user's words (trimmed,
/// first letter lower-cased), or `None` when the sentence sets none.
pub fn find(sentence: &str) -> Option<String> {
    let toks = tokens(sentence);
    let lower = sentence.to_lowercase().replace('’', "'");
    for (i, (start, _, w)) in toks.iter().enumerate() {
        let purpose = for_others(sentence, &toks, i);
        let opener = OPENERS.contains(&w.as_str()) || purpose;
        let time = TIME_PREPOSITIONS.contains(&w.as_str()) && time_word_after(&toks, i).is_some();
        if !opener && !time {
            continue;
        }
        if NOT_CONDITIONS
            .iter()
            .any(|n| lower[*start..].starts_with(n))
        {
            continue;
        }
        // "even if it takes longer", "even when": concessive, the preference holds regardless.
        if opener && i > 0 && toks[i - 1].2 == "even" {
            continue;
        }
        // "when searching for gas stations": the request itself.
        if opener
            && toks[i + 1..]
                .iter()
                .map(|t| t.2.as_str())
                .find(|w| !SUBJECTS.contains(w))
                .is_some_and(|w| REQUEST_VERBS.contains(&w))
        {
            continue;
        }
        // A question ("when is dinner?") or a bare "when" at the end sets nothing.
        let end = clause_end(sentence, *start);
        if sentence[end..].starts_with('?') {
            continue;
        }
        let end = if time {
            // "at night": the preposition, an article, the time word.
            let t = time_word_after(&toks, i).expect("checked");
            toks[t].1
        } else if purpose {
            // A purpose trails its main clause: it runs to the clause's end.
            end
        } else {
            main_clause_start(&toks, i, end).unwrap_or(end)
        };
        let text = sentence[*start..end].trim();
        let folded = text.to_lowercase().replace('’', "'");
        // "if it's covered or not": either way, so no condition.
        let names_nothing = toks
            .iter()
            .skip(i + 1)
            .take_while(|t| t.1 <= end)
            .all(|t| NO_SITUATION.contains(&t.2.as_str()));
        if text.split_whitespace().count() < 2
            || names_nothing
            || ALWAYS.contains(&folded.as_str())
            || folded.ends_with(" or not")
        {
            continue;
        }
        return Some(lower_first(text));
    }
    None
}

/// Whether the `so` at token `i` opens a purpose for the other people in the car ("turning
/// the navigation volume up to 80 *so you can hear it clearly*", "set the volume to 25 *so we
/// can jam*"): `so` (or `so that`) inside the sentence, then `you`, `we`, `she`, `he` or
/// `they`, then a modal. A setting made for them holds while they are there, or for what they
/// do together. A purpose of the speaker's own ("so I can see the gauges") is a reason that
/// always holds, and a result is no purpose: "so you have time to warm up", nor a `so` after a
/// comma or a dash ("I've changed my parking needs, so we won't be needing ...").
fn for_others(sentence: &str, toks: &[(usize, usize, String)], i: usize) -> bool {
    const OTHERS: &[&str] = &["you", "we", "she", "he", "they"];
    const JOINED: &[&str] = &["you'll", "we'll", "she'll", "he'll", "they'll"];
    const MODALS: &[&str] = &[
        "can", "could", "will", "would", "won't", "wouldn't", "don't", "doesn't", "do", "may",
        "might", "shall", "can't",
    ];
    if i == 0 || toks[i].2 != "so" {
        return false;
    }
    let between = &sentence[toks[i - 1].1..toks[i].0];
    if between.contains([',', ';', '—', '–', ':']) {
        return false;
    }
    let mut j = i + 1;
    if toks.get(j).is_some_and(|t| t.2 == "that") {
        j += 1;
    }
    match toks.get(j).map(|t| t.2.as_str()) {
        Some(w) if JOINED.contains(&w) => true,
        Some(w) if OTHERS.contains(&w) => toks
            .get(j + 1)
            .is_some_and(|t| MODALS.contains(&t.2.as_str())),
        _ => false,
    }
}

/// The token index of a time word right after the preposition at `i` ("at night", "in the
/// morning", "on cold days" is not one: only the listed words count).
fn time_word_after(toks: &[(usize, usize, String)], i: usize) -> Option<usize> {
    let mut j = i + 1;
    if toks
        .get(j)
        .is_some_and(|t| matches!(t.2.as_str(), "the" | "a" | "late" | "early"))
    {
        j += 1;
    }
    toks.get(j)
        .filter(|t| TIMES.iter().any(|(w, _)| *w == t.2))
        .map(|_| j)
}

/// Where the main clause begins inside `[i, end)` when the condition runs on into it without
/// a comma ("when it's cold I want the seat heating on").
fn main_clause_start(toks: &[(usize, usize, String)], i: usize, end: usize) -> Option<usize> {
    toks.iter()
        .skip(i + 2)
        .take_while(|t| t.0 < end)
        .find(|t| MAIN_CLAUSE.contains(&t.2.as_str()))
        .map(|t| t.0)
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        // Keep "I" and proper names: only an ASCII opener word is lower-cased.
        Some(f) if f.is_ascii_uppercase() && !s.starts_with("I ") => {
            f.to_ascii_lowercase().to_string() + c.as_str()
        }
        _ => s.to_string(),
    }
}

/// Whether two conditions are the same (case, spacing and end punctuation folded); `None` is
/// the same only as `None`.
pub fn same(a: Option<&str>, b: Option<&str>) -> bool {
    let fold = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .trim_end_matches(['.', ',', '!'])
            .to_lowercase()
    };
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => fold(a) == fold(b),
        _ => false,
    }
}

/// What recall knows of the moment a preference may be needed in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Situation {
    /// The local time of day as (hour, minute), if known.
    pub local_time: Option<(u32, u32)>,
    /// Who is in the car (user ids), if known.
    pub occupants: Vec<String>,
    /// Free-text facts about the moment ("outside 28 degrees", "raining").
    pub facts: Vec<String>,
}

impl Situation {
    /// The situation's words together with the utterance: what a condition is compared with.
    pub fn words(&self, utterance: &str) -> String {
        let mut s = utterance.trim().to_string();
        for f in &self.facts {
            if !s.is_empty() {
                s.push_str(". ");
            }
            s.push_str(f.trim());
        }
        s
    }
}

/// How a condition was decided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// Decided by the clock or by a number: met or not.
    Decided(bool),
    /// Neither applies: decide by the similarity of the condition and the situation's words.
    BySimilarity,
}

/// Whether `condition` holds in `situation` (with the utterance), where the clock or a number
/// can tell; otherwise [`Verdict::BySimilarity`].
pub fn judge(condition: &str, utterance: &str, situation: &Situation) -> Verdict {
    let cond = tokens(condition);
    let words = situation.words(utterance);
    if let Some(v) = by_threshold(&cond, &words) {
        return Verdict::Decided(v);
    }
    let hours: Vec<(u32, u32)> = cond
        .iter()
        .filter_map(|t| TIMES.iter().find(|(w, _)| *w == t.2).and_then(|(_, h)| *h))
        .collect();
    if let (Some(&(from, to)), Some((h, _))) = (hours.first(), situation.local_time) {
        let inside = if from < to {
            (from..to).contains(&h)
        } else {
            h >= from || h < to
        };
        // A condition that is only a time of day ("at night", "when I drive at night") is
        // decided by the clock; one that says more ("at night on the motorway") must also be
        // similar, and is not met outside its hours.
        const FILLER: &[&str] = &[
            "when", "whenever", "while", "if", "during", "at", "in", "on", "the", "a", "i", "i'm",
            "we", "we're", "it", "it's", "is", "am", "are", "drive", "driving", "late", "early",
            "for", "by",
        ];
        let only_time = cond
            .iter()
            .all(|t| FILLER.contains(&t.2.as_str()) || TIMES.iter().any(|(w, _)| *w == t.2));
        return match (inside, only_time) {
            (false, _) => Verdict::Decided(false),
            (true, true) => Verdict::Decided(true),
            (true, false) => Verdict::BySimilarity,
        };
    }
    Verdict::BySimilarity
}

/// A unit word without its plural `s` ("degrees" and "degree" are one unit).
fn unit(w: &str) -> String {
    w.strip_suffix('s').unwrap_or(w).to_string()
}

/// A threshold on a number ("above 25 degrees", "below 5", "over 30"), compared with the first
/// number in the situation's words; `None` when the condition has none or the words no number.
fn by_threshold(cond: &[(usize, usize, String)], words: &str) -> Option<bool> {
    const ABOVE: &[&str] = &[
        "above", "over", "exceeds", "hotter", "warmer", "higher", "more",
    ];
    const BELOW: &[&str] = &["below", "under", "colder", "cooler", "lower", "less"];
    let mut dir = None;
    let mut limit = None;
    for (i, (_, _, w)) in cond.iter().enumerate() {
        if ABOVE.contains(&w.as_str()) {
            dir = Some(true);
        } else if BELOW.contains(&w.as_str()) {
            dir = Some(false);
        } else if let (Some(_), Ok(n)) = (dir, w.parse::<f64>()) {
            limit = Some((n, cond.get(i + 1).map(|t| unit(&t.2))));
            break;
        }
    }
    let (above, (limit, want)) = (dir?, limit?);
    // The number in the same unit as the condition's ("28 degrees"), else the first number.
    let toks = tokens(words);
    let numbers: Vec<(f64, Option<String>)> = toks
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            Some((
                t.2.parse::<f64>().ok()?,
                toks.get(i + 1).map(|u| unit(&u.2)),
            ))
        })
        .collect();
    let value = numbers
        .iter()
        .find(|(_, u)| want.is_some() && *u == want)
        .or(numbers.first())?
        .0;
    Some(if above { value > limit } else { value < limit })
}

#[cfg(test)]
mod tests;
