//! The texts that stand for each detail category, embedded once (`Models::prototypes`), and
//! each sentence's similarity to every category: the best over the category's texts.

use crate::memory::values::idiom;
use crate::schema::{DetailId, Schema};

/// Texts that stand for a detail category when sentences are compared with it. Each detail
/// has several: its place in the hierarchy with its description, one per known value (not the
/// example values of a vehicle setting's free text), and each other name people call it by
/// (its `aliases`). The real names of its values stand for it too, for a sentence that says
/// them ([`name_texts`]), and so do the ways drivers state such a preference that these
/// texts place in it ([`statement_texts`], [`placed_in_their_own`]).
pub fn prototype_texts(schema: &Schema) -> Vec<(DetailId, String)> {
    let mut out = Vec::new();
    for d in schema.details() {
        let sub = &schema.sub(d.sub).name;
        out.push((d.id, format!("{sub} > {}: {}", d.name, d.description)));
        // The example values of a vehicle setting's free text (colours) name no setting: "a
        // subtle forest green" in household talk is no more the ambient light's than the
        // panel's or the living room's. Its listed values (a choice) and CarMem's catalogue
        // values (brands, stations) do name their category.
        for a in d.attributes.iter().filter(|_| !d.has_example_values()) {
            out.push((d.id, value_text(sub, &d.name, a)));
        }
        // An alias is what people say: it stands alone, as a labelled example sentence does.
        out.extend(d.aliases.iter().map(|p| (d.id, p.clone())));
    }
    out
}

/// The ways the schema says drivers state a preference of each detail (its `says`: "Traffic
/// jams don't bother me, I just put a podcast on"), each standing alone, as a labelled example
/// sentence does. Written in drivers' words, they place a sentence said in words no
/// description or catalogue value uses; only those [`placed_in_their_own`] count.
pub fn statement_texts(schema: &Schema) -> Vec<(DetailId, String)> {
    schema
        .details()
        .iter()
        .flat_map(|d| d.says.iter().map(move |t| (d.id, t.clone())))
        .collect()
}

/// Which example statements (each with its detail and its row of similarities to the
/// schema's other texts, as [`sentence_scores`] gives it) the schema's other texts place in
/// their own detail: a statement they place in another reads as that one's, and as a
/// prototype it would draw that other's sentences away from it (a statement of not minding
/// traffic "if it's the fastest way" beside the fastest-route detail). Data-free: it asks only
/// the schema.
pub fn placed_in_their_own(details: &[DetailId], rows: &[Vec<f32>]) -> Vec<bool> {
    details
        .iter()
        .zip(rows)
        .map(|(d, row)| {
            super::best_category(row).is_some_and(|(i, s)| s.is_finite() && i == d.index())
        })
        .collect()
}

/// The texts of the real names drivers give a detail's values (its `names`: "Tesco" for the
/// supermarket chains, whose catalogue is invented), each with the name: such a text stands for
/// its category only for a sentence that says the name ([`says_name`]), so that a sentence
/// saying none ("Find a gas station nearby") reads the schema as it is.
pub fn name_texts(schema: &Schema) -> Vec<(DetailId, String, String)> {
    schema
        .details()
        .iter()
        .flat_map(|d| {
            let sub = &schema.sub(d.sub).name;
            d.names
                .iter()
                .map(move |n| (d.id, value_text(sub, &d.name, n), n.clone()))
        })
        .collect()
}

/// Whether a sentence says a name, as whole words, apostrophes aside and a plural or
/// possessive `s` allowed ("Sainsburys" says "Sainsbury's", "Tesco's" says "Tesco"): as
/// written, capitals and all, unless the sentence has no capital letter at all (a transcript
/// in lower case), so that "I'll shell out for it" says no "Shell".
pub fn says_name(sentence: &str, name: &str) -> bool {
    Heard::of(sentence).says(name)
}

/// A sentence folded once for [`says_name`], to be asked about many names.
pub struct Heard {
    chars: Vec<char>,
    /// The transcript has no capital letter: names are compared in lower case.
    lower: bool,
    /// Where in `chars` a word starts that no name may start at ([`inside_names`]: "Queen"
    /// of "Dancing Queen", of "Don't Stop Me Now by Queen"). Such a word is part of another
    /// name, or says who made the work the sentence is about.
    inside: Vec<usize>,
}

impl Heard {
    /// The text's characters without apostrophes or accents ("Beyonce" says "Beyoncé"), in
    /// lower case if `lower`.
    fn fold(s: &str, lower: bool) -> Vec<char> {
        let keep = |c: &char| *c != '\'' && *c != '\u{2019}';
        match lower {
            true => s
                .to_lowercase()
                .chars()
                .filter(keep)
                .map(unaccented)
                .collect(),
            false => s.chars().filter(keep).map(unaccented).collect(),
        }
    }

    pub fn of(sentence: &str) -> Self {
        let lower = !sentence.chars().any(char::is_uppercase);
        let tokens: Vec<&str> = sentence.split(' ').collect();
        let blocked = inside_names(sentence, &tokens);
        // The sentence folded word by word, with where each blocked word's letters start.
        let (mut chars, mut inside) = (Vec::new(), Vec::new());
        for (k, t) in tokens.iter().enumerate() {
            if k > 0 {
                chars.push(' ');
            }
            let word = Self::fold(t, lower);
            if blocked[k] {
                inside.push(chars.len() + word.iter().take_while(|c| !c.is_alphanumeric()).count());
            }
            chars.extend(word);
        }
        Heard {
            chars,
            lower,
            inside,
        }
    }

    /// Whether the sentence says `name` ([`says_name`]).
    pub fn says(&self, name: &str) -> bool {
        let hay = &self.chars;
        let needle = Self::fold(name, self.lower);
        if needle.is_empty() || needle.len() > hay.len() {
            return false;
        }
        let ends = |k: usize| hay.get(k).is_none_or(|c| !c.is_alphanumeric());
        (0..=hay.len() - needle.len()).any(|i| {
            let end = i + needle.len();
            hay[i..end] == needle[..]
                && (i == 0 || !hay[i - 1].is_alphanumeric())
                && (ends(end) || hay[end] == 's' && ends(end + 1))
                && !self.inside.contains(&i)
        })
    }
}

/// Which of `sentence`'s space-separated `tokens` no name may start at: a word inside a
/// title after its first ([`idiom::titles`], or a quoted run), inside a run of capitalised
/// words after its first (after its second where the run opens a sentence, whose first word
/// is capitalised as the sentence's: "Play Queen."), and whom a work is said to be by
/// ("Don't Stop Me Now by Queen"), with the work's own run of capitals ("Playing Dancing
/// Queen by ABBA.").
fn inside_names(sentence: &str, tokens: &[&str]) -> Vec<bool> {
    let mut blocked = vec![false; tokens.len()];
    for r in idiom::titles(sentence).into_iter().chain(quoted(tokens)) {
        blocked[r.start + 1..r.end]
            .iter_mut()
            .for_each(|b| *b = true);
    }
    // A quote's apostrophe before it aside ("'Dancing Queen'").
    let capital = |t: &str| {
        let t = t.replace('\u{2019}', "'");
        idiom::capitalised(idiom::bare(&t).trim_start_matches('\''))
    };
    let marked = |t: &str| t.ends_with([',', '.', '!', '?', ';', ':']);
    // A run of capitalised words is one name ("Put on Dancing Queen."): its words after
    // the first are inside it. A run that opens a sentence opens with its first word's
    // capital, not a name's ("Play Queen.", "Arctic Monkeys are ..."). Not in a text in
    // capitals nearly throughout.
    let caps = tokens.iter().filter(|t| capital(t)).count();
    if tokens.len() < 4 || caps * 5 <= tokens.len() * 4 {
        let mut k = 0;
        while k < tokens.len() {
            let opens = k == 0 || marked(tokens[k - 1]);
            let mut end = k;
            while end < tokens.len() && capital(tokens[end]) {
                end += 1;
                if marked(tokens[end - 1]) {
                    break;
                }
            }
            let first = k + usize::from(opens);
            if end > first + 1 {
                blocked[first + 1..end].iter_mut().for_each(|b| *b = true);
            }
            k = end.max(k + 1);
        }
    }
    for k in 2..tokens.len() {
        let work = tokens[k - 2];
        if tokens[k - 1] == "by" && capital(work) && !marked(work) {
            blocked[k] = true;
            // The work's own words, though its run opens the sentence ("Playing Dancing
            // Queen by ABBA."): a credited name's run of capitals after its first.
            if capital(tokens[k]) {
                let mut from = k - 2;
                while from > 0 && capital(tokens[from - 1]) && !marked(tokens[from - 1]) {
                    from -= 1;
                }
                blocked[from + 1..k - 1].iter_mut().for_each(|b| *b = true);
            }
        }
    }
    blocked
}

/// The runs of tokens said in quotes ("'Dancing Queen' is my song", "put on “Killer Queen”"),
/// each from the token that opens the quote to the one that closes it, at most eight long.
fn quoted(tokens: &[&str]) -> Vec<std::ops::Range<usize>> {
    let opens = |t: &str| t.starts_with(['\'', '"', '\u{2018}', '\u{201C}']);
    let closes = |t: &str| {
        t.trim_end_matches([',', '.', '!', '?', ';', ':'])
            .ends_with(['\'', '"', '\u{2019}', '\u{201D}'])
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if opens(tokens[i]) {
            if let Some(j) = (i..tokens.len().min(i + 8)).find(|&j| closes(tokens[j])) {
                out.push(i..j + 1);
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// A Latin letter without its accent ("é" -> "e", "Ö" -> "O"); any other character as it is.
fn unaccented(c: char) -> char {
    const FROM: &str = "àáâãäåçèéêëìíîïñòóôõöøùúûüýÿÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖØÙÚÛÜÝ";
    const TO: &str = "aaaaaaceeeeiiiinoooooouuuuyyAAAAAACEEEEIIIINOOOOOOUUUUY";
    FROM.chars()
        .position(|a| a == c)
        .and_then(|i| TO.chars().nth(i))
        .unwrap_or(c)
}

/// The prototype text of one known value of a detail.
fn value_text(sub: &str, detail: &str, value: &str) -> String {
    format!("{sub} > {detail}: {value}")
}

/// A vector standing for a detail category: a schema text, or a labelled example sentence
/// (which remembers the user it came from, so an evaluation can leave that user's out).
#[derive(Debug, Clone)]
pub struct Prototype {
    pub detail: DetailId,
    pub vector: Vec<f32>,
    pub source: Option<String>,
    /// A real name the sentence must say for this text to count ([`name_texts`]).
    pub said: Option<String>,
    /// One of the schema's example statements ([`statement_texts`]): these count for their
    /// detail together, not each alone ([`sentence_scores`]).
    pub statement: bool,
}

/// One labelled example sentence (a line of `config/examples.jsonl`).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Example {
    pub category: String,
    pub sentence: String,
    #[serde(default)]
    pub source: Option<String>,
}

/// The examples shipped in the binary: one per conversation of the CarMem development split
/// (`scripts/make-examples`).
pub const DEFAULT_EXAMPLES: &str = include_str!("../../../config/examples.jsonl");

/// Reads examples (JSON lines), checking every category against the schema.
pub fn parse_examples(schema: &Schema, text: &str) -> Result<Vec<(DetailId, Example)>, String> {
    let mut out = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let e: Example =
            serde_json::from_str(line).map_err(|e| format!("examples line {}: {e}", i + 1))?;
        let d = schema
            .detail_by_key(&e.category)
            .ok_or_else(|| format!("examples line {}: unknown category {:?}", i + 1, e.category))?;
        out.push((d, e));
    }
    Ok(out)
}

/// The lines of labelled JSON lines (examples, requests) whose `category` the schema has: the
/// built-in ones are CarMem's, and another schema keeps only what it shares with it.
pub fn lines_in_schema(schema: &Schema, text: &str) -> String {
    text.lines()
        .filter(|l| {
            serde_json::from_str::<Example>(l)
                .is_ok_and(|e| schema.detail_by_key(&e.category).is_some())
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Per sentence (its vector and its text), the similarity to every detail: `sims[s][d]` (max
/// over the detail's prototypes, leaving out examples from `exclude` and the real names the
/// sentence does not say; its example statements count as one, the mean of the two nearest,
/// which lifts the detail halfway from its other texts' score towards it, so that a sentence
/// close to one statement of a sibling, or sharing only a statement's frame, is not drawn to
/// it by that alone).
pub fn sentence_scores(
    schema: &Schema,
    prototypes: &[Prototype],
    sentences: &[Vec<f32>],
    texts: &[String],
    exclude: Option<&str>,
) -> Vec<Vec<f32>> {
    sentences
        .iter()
        .zip(texts)
        .map(|(s, text)| {
            let heard = Heard::of(text);
            let n = schema.details().len();
            let mut row = vec![f32::NEG_INFINITY; n];
            // The two nearest example statements of each detail.
            let mut near = vec![[f32::NEG_INFINITY; 2]; n];
            for Prototype {
                detail: d,
                vector: p,
                source,
                said,
                statement,
            } in prototypes
            {
                if exclude.is_some() && source.as_deref() == exclude {
                    continue;
                }
                if said.as_deref().is_some_and(|n| !heard.says(n)) {
                    continue;
                }
                let c = crate::embed::cosine(s, p);
                if *statement {
                    let two = &mut near[d.index()];
                    if c > two[0] {
                        *two = [c, two[0]];
                    } else if c > two[1] {
                        two[1] = c;
                    }
                    continue;
                }
                let slot = &mut row[d.index()];
                if c > *slot {
                    *slot = c;
                }
            }
            // The statements lift a detail halfway from what its own texts say towards what
            // they say: a sentence that only shares a statement's frame ("I never drive to
            // work without some jazz on" beside "I never drive on the motorway") is not
            // carried to a detail its own texts read as unrelated.
            for (slot, [a, b]) in row.iter_mut().zip(near) {
                let by_statements = if b.is_finite() { (a + b) / 2.0 } else { a };
                if by_statements > *slot {
                    *slot = (*slot + by_statements) / 2.0;
                }
            }
            row
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{name_texts, placed_in_their_own, prototype_texts, says_name, statement_texts};
    use crate::schema::Schema;

    #[test]
    fn an_example_statement_counts_only_where_the_other_texts_place_it_in_its_own_detail() {
        let s = Schema::embedded();
        let d = |i: usize| s.details()[i].id;
        let rows = vec![
            vec![0.6, 0.4, f32::NEG_INFINITY],
            vec![0.6, 0.4, 0.1],
            vec![f32::NEG_INFINITY; 3],
        ];
        assert_eq!(
            placed_in_their_own(&[d(0), d(1), d(2)], &rows),
            [true, false, false]
        );
        // The statements are their own texts, not the schema's other prototypes.
        let said = statement_texts(&s);
        assert_eq!(said.len(), 8 * s.details().len());
        assert!(prototype_texts(&s)
            .iter()
            .all(|(_, t)| !said.iter().any(|(_, x)| x == t)));
    }

    #[test]
    fn a_name_is_said_as_whole_words_as_written() {
        assert!(says_name("We always do the big shop at Tesco.", "Tesco"));
        assert!(says_name("Tesco's fine.", "Tesco"));
        assert!(says_name("Sainsburys every Saturday.", "Sainsbury's"));
        assert!(says_name("Stick on BBC Radio 2.", "BBC Radio 2"));
        // A transcript in lower case says it too; a capitalised one says it capitalised.
        assert!(says_name("i only ever fill up at shell", "Shell"));
        assert!(!says_name("I'll shell out for it.", "Shell"));
        // A name inside a longer title, or whom a work is by, is not said for itself.
        assert!(!says_name(
            "'Dancing Queen' is my favourite song ever.",
            "Queen"
        ));
        assert!(!says_name("Play Don't Stop Me Now by Queen.", "Queen"));
        assert!(!says_name("Playing Dancing Queen by ABBA.", "Queen"));
        assert!(!says_name("Put on Dancing Queen.", "Queen"));
        assert!(says_name("Play Queen.", "Queen"));
        assert!(says_name("Stick on BBC Radio 2.", "BBC Radio 2"));
        assert!(says_name("Queen's my favourite band.", "Queen"));
        assert!(says_name("Put on something by Queen.", "Queen"));
        // A longer name that opens with it still says it.
        assert!(says_name(
            "I do the weekly shop at the Tesco Express by work.",
            "Tesco"
        ));
        // Accents as a transcript may drop them, either way.
        assert!(says_name("Put some Beyonce on.", "Beyoncé"));
        assert!(says_name("I love Björk.", "Bjork"));
        assert!(!says_name("The Tesco Express closed.", "Tesco Extra"));
        assert!(!says_name("Find a BPM counter.", "BP"));
        assert!(!says_name("Play Radio 22.", "Radio 2"));
        assert!(!says_name("", "BP"));
    }

    #[test]
    fn real_names_stand_apart_from_the_schema_texts() {
        let s = Schema::embedded();
        let names = name_texts(&s);
        let super_chains = s.detail_by_key("preferred_supermarket_chains").unwrap();
        assert!(names
            .iter()
            .any(|(d, t, n)| *d == super_chains && n == "Tesco" && t.ends_with(": Tesco")));
        // They are no text every sentence is compared with.
        let texts = prototype_texts(&s);
        assert!(!texts.iter().any(|(_, t)| t.ends_with(": Tesco")));
        // Only free text has names; CarMem's choices have none.
        assert!(names
            .iter()
            .all(|(d, ..)| s.detail(*d).kind == crate::schema::ValueKind::Text));
    }
}
