//! A sampler of the GBNF subset Glovebox's grammars are written in (rules one per line;
//! literals, character classes, rule references, groups, alternatives and `{m,n}`, `?`, `*`,
//! `+`): it derives strings the grammar allows, driven by a tape of choices that proptest
//! generates and shrinks. It reads the grammar text the LLM is given, so the property tests
//! check the parsers against the grammar itself rather than against a copy of its lists.

use std::collections::HashMap;

#[derive(Debug, Clone)]
enum Node {
    Literal(String),
    Class(Vec<char>),
    Rule(String),
    Group(Vec<Vec<Node>>),
    Repeat(Box<Node>, u32, u32),
}

/// A parsed grammar.
#[derive(Debug)]
pub struct Grammar {
    rules: HashMap<String, Vec<Vec<Node>>>,
}

/// The choices a derivation takes, read in order (past the end: always the first choice).
pub struct Tape<'a> {
    choices: &'a [u32],
    at: usize,
}

impl Tape<'_> {
    fn pick(&mut self, n: usize) -> usize {
        let c = self.choices.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        c as usize % n.max(1)
    }
}

impl Grammar {
    /// Parses a grammar; panics on syntax outside the subset (a test helper).
    pub fn parse(text: &str) -> Grammar {
        let mut rules = HashMap::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let (name, body) = line.split_once("::=").expect("rule ::= body");
            let mut p = Parser {
                s: body.chars().collect(),
                i: 0,
            };
            let alt = p.alternatives();
            assert!(p.i == p.s.len(), "unparsed rest in {line:?}");
            rules.insert(name.trim().to_string(), alt);
        }
        assert!(rules.contains_key("root"), "no root rule");
        Grammar { rules }
    }

    /// One string the grammar allows, chosen by `choices`.
    pub fn sample(&self, choices: &[u32]) -> String {
        let mut out = String::new();
        let mut tape = Tape { choices, at: 0 };
        self.alternatives(&self.rules["root"], &mut tape, &mut out, 0);
        out
    }

    fn alternatives(&self, alts: &[Vec<Node>], tape: &mut Tape, out: &mut String, depth: u32) {
        assert!(depth < 64, "grammar recursion too deep");
        for node in &alts[tape.pick(alts.len())] {
            self.node(node, tape, out, depth + 1);
        }
    }

    fn node(&self, node: &Node, tape: &mut Tape, out: &mut String, depth: u32) {
        match node {
            Node::Literal(s) => out.push_str(s),
            Node::Class(chars) => out.push(chars[tape.pick(chars.len())]),
            Node::Rule(name) => {
                let alts = self
                    .rules
                    .get(name)
                    .unwrap_or_else(|| panic!("undefined rule {name}"));
                self.alternatives(alts, tape, out, depth);
            }
            Node::Group(alts) => self.alternatives(alts, tape, out, depth),
            Node::Repeat(inner, min, max) => {
                let n = *min as usize + tape.pick((max - min + 1) as usize);
                for _ in 0..n {
                    self.node(inner, tape, out, depth);
                }
            }
        }
    }
}

struct Parser {
    s: Vec<char>,
    i: usize,
}

impl Parser {
    fn peek(&mut self) -> Option<char> {
        while self.s.get(self.i).is_some_and(|c| *c == ' ') {
            self.i += 1;
        }
        self.s.get(self.i).copied()
    }

    fn next_raw(&mut self) -> char {
        let c = self.s[self.i];
        self.i += 1;
        c
    }

    fn alternatives(&mut self) -> Vec<Vec<Node>> {
        let mut alts = vec![self.sequence()];
        while self.peek() == Some('|') {
            self.i += 1;
            alts.push(self.sequence());
        }
        alts
    }

    fn sequence(&mut self) -> Vec<Node> {
        let mut seq = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let node = self.primary();
            seq.push(self.quantified(node));
        }
        seq
    }

    fn primary(&mut self) -> Node {
        match self.next_raw() {
            '"' => {
                let mut s = String::new();
                loop {
                    match self.next_raw() {
                        '"' => break,
                        '\\' => s.push(self.escaped()),
                        c => s.push(c),
                    }
                }
                Node::Literal(s)
            }
            '[' => {
                let mut chars = Vec::new();
                while self.s[self.i] != ']' {
                    let c = match self.next_raw() {
                        '\\' => self.escaped(),
                        c => c,
                    };
                    if self.s[self.i] == '-' && self.s[self.i + 1] != ']' {
                        self.i += 1;
                        let hi = self.next_raw();
                        chars.extend(c..=hi);
                    } else {
                        chars.push(c);
                    }
                }
                self.i += 1;
                Node::Class(chars)
            }
            '(' => {
                let alts = self.alternatives();
                assert_eq!(self.peek(), Some(')'), "unclosed group");
                self.i += 1;
                Node::Group(alts)
            }
            c if c.is_ascii_alphanumeric() || c == '_' || c == '-' => {
                let mut name = c.to_string();
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                {
                    name.push(self.next_raw());
                }
                Node::Rule(name)
            }
            c => panic!("unsupported GBNF at {c:?}"),
        }
    }

    fn escaped(&mut self) -> char {
        match self.next_raw() {
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            c => c,
        }
    }

    fn quantified(&mut self, node: Node) -> Node {
        let (min, max) = match self.s.get(self.i) {
            Some('?') => (0, 1),
            Some('*') => (0, 4),
            Some('+') => (1, 4),
            Some('{') => {
                let close = self.s[self.i..].iter().position(|c| *c == '}').unwrap() + self.i;
                let inside: String = self.s[self.i + 1..close].iter().collect();
                self.i = close;
                let (lo, hi) = inside.split_once(',').unwrap_or((&inside, &inside));
                let lo: u32 = lo.trim().parse().unwrap();
                let hi: u32 = if hi.trim().is_empty() {
                    lo + 4
                } else {
                    hi.trim().parse().unwrap()
                };
                (lo, hi)
            }
            _ => return node,
        };
        self.i += 1;
        Node::Repeat(Box::new(node), min, max)
    }
}

#[test]
fn the_sampler_reads_what_glovebox_writes() {
    let g = Grammar::parse(
        "root ::= \"none\\n\" | item{1,2} \"end\\n\"\nitem ::= c0\nc0 ::= \"k\" \": \" (\"a \\\"b\\\"\" | free) \"\\n\"\nfree ::= [A-Za-z0-9] [A-Za-z0-9' .&-]{0,31}\n",
    );
    assert_eq!(g.sample(&[]), "none\n");
    assert_eq!(g.sample(&[1, 0, 0, 0]), "k: a \"b\"\nend\n");
    let s = g.sample(&[1, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
    assert!(s.starts_with("k: ") && s.ends_with("\nend\n"), "{s:?}");
}
