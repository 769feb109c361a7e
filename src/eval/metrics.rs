//! The CarMem metrics: micro-averaged precision/recall/F1 per schema level, 0/1/2+ shares,
//! maintenance confusion counts and top-n retrieval hits. Pure arithmetic, tested on hand-made
//! cases.

use serde::Serialize;

use crate::pref::Maintenance;
use crate::schema::{DetailId, Schema};

/// True/false positive and false negative counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Confusion {
    pub tp: u32,
    pub fp: u32,
    pub fn_: u32,
}

/// Precision, recall and F1 of a [`Confusion`].
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Prf {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

fn ratio(a: u32, b: u32) -> f64 {
    if b == 0 {
        0.0
    } else {
        f64::from(a) / f64::from(b)
    }
}

impl Confusion {
    pub fn add(&mut self, o: Confusion) {
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
    }

    pub fn prf(&self) -> Prf {
        let precision = ratio(self.tp, self.tp + self.fp);
        let recall = ratio(self.tp, self.tp + self.fn_);
        let f1 = if precision + recall == 0.0 {
            0.0
        } else {
            2.0 * precision * recall / (precision + recall)
        };
        Prf {
            precision,
            recall,
            f1,
        }
    }

    /// One conversation with one true label and the set of distinct predicted labels: the truth
    /// predicted is a true positive, every other distinct label a false positive, a missed truth
    /// a false negative.
    pub fn of<T: PartialEq>(truth: &T, predicted: &[T]) -> Confusion {
        let mut distinct: Vec<&T> = Vec::new();
        for p in predicted {
            if !distinct.contains(&p) {
                distinct.push(p);
            }
        }
        let hit = distinct.contains(&truth);
        Confusion {
            tp: u32::from(hit),
            fp: (distinct.len() - usize::from(hit)) as u32,
            fn_: u32::from(!hit),
        }
    }
}

/// Confusions at the main, sub and detail level for one conversation.
pub fn levels(schema: &Schema, truth: DetailId, predicted: &[DetailId]) -> [Confusion; 3] {
    let t = schema.detail(truth);
    let mains: Vec<_> = predicted.iter().map(|&d| schema.detail(d).main).collect();
    let subs: Vec<_> = predicted.iter().map(|&d| schema.detail(d).sub).collect();
    [
        Confusion::of(&t.main, &mains),
        Confusion::of(&t.sub, &subs),
        Confusion::of(&truth, predicted),
    ]
}

/// How many preferences each conversation yielded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub none: u32,
    pub one: u32,
    pub two_plus: u32,
}

impl Counts {
    pub fn add(&mut self, n: usize) {
        match n {
            0 => self.none += 1,
            1 => self.one += 1,
            _ => self.two_plus += 1,
        }
    }

    pub fn total(&self) -> u32 {
        self.none + self.one + self.two_plus
    }

    /// Shares of none, one and two-plus.
    pub fn shares(&self) -> (f64, f64, f64) {
        let t = self.total();
        (
            ratio(self.none, t),
            ratio(self.one, t),
            ratio(self.two_plus, t),
        )
    }
}

/// Maintenance outcomes of one question kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpCounts {
    pub pass: u32,
    pub update: u32,
    pub append: u32,
}

impl OpCounts {
    pub fn add(&mut self, op: Maintenance) {
        match op {
            Maintenance::Pass(_) => self.pass += 1,
            Maintenance::Update(_) => self.update += 1,
            Maintenance::Append | Maintenance::New => self.append += 1,
        }
    }

    pub fn n(&self) -> u32 {
        self.pass + self.update + self.append
    }

    /// Shares of pass, update and append.
    pub fn shares(&self) -> (f64, f64, f64) {
        let n = self.n();
        (
            ratio(self.pass, n),
            ratio(self.update, n),
            ratio(self.append, n),
        )
    }
}

/// Top-n, n+1 and n+2 hits of retrieval queries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TopN {
    pub n: u32,
    pub n1: u32,
    pub n2: u32,
    pub queries: u32,
}

impl TopN {
    /// `rank` is the 0-based position of the truth in the results (None: not returned);
    /// `n` the user's stored preferences in the truth's subcategory.
    pub fn add(&mut self, rank: Option<usize>, n: usize) {
        self.queries += 1;
        if let Some(r) = rank {
            self.n += u32::from(r < n);
            self.n1 += u32::from(r < n + 1);
            self.n2 += u32::from(r < n + 2);
        }
    }

    pub fn shares(&self) -> (f64, f64, f64) {
        (
            ratio(self.n, self.queries),
            ratio(self.n1, self.queries),
            ratio(self.n2, self.queries),
        )
    }
}

/// The `p`-quantile (0..=1) of samples, nearest-rank; 0 when empty.
pub fn quantile(samples: &[f64], p: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pref::PreferenceId;

    #[test]
    fn micro_prf_on_a_known_case() {
        // 3 conversations: exact hit; a miss with one wrong label; a hit plus one extra label.
        let mut c = Confusion::default();
        c.add(Confusion::of(&1, &[1]));
        c.add(Confusion::of(&2, &[3]));
        c.add(Confusion::of(&4, &[4, 5, 5]));
        assert_eq!(
            c,
            Confusion {
                tp: 2,
                fp: 2,
                fn_: 1
            }
        );
        let p = c.prf();
        assert!((p.precision - 0.5).abs() < 1e-12);
        assert!((p.recall - 2.0 / 3.0).abs() < 1e-12);
        assert!((p.f1 - 4.0 / 7.0).abs() < 1e-12);
        assert_eq!(
            Confusion::of(&1, &[]),
            Confusion {
                tp: 0,
                fp: 0,
                fn_: 1
            }
        );
        assert_eq!(Confusion::default().prf().f1, 0.0);
    }

    #[test]
    fn levels_count_a_sibling_as_right_above_the_detail() {
        let s = Schema::embedded();
        let temp = s.detail_by_key("preferred_temperature").unwrap();
        let fan = s.detail_by_key("fan_speed_preferences").unwrap();
        let [main, sub, detail] = levels(&s, temp, &[fan]);
        assert_eq!(main.tp, 1);
        assert_eq!(sub.tp, 1);
        assert_eq!(
            detail,
            Confusion {
                tp: 0,
                fp: 1,
                fn_: 1
            }
        );
    }

    #[test]
    fn counts_ops_topn_and_quantiles() {
        let mut c = Counts::default();
        for n in [0, 1, 1, 3] {
            c.add(n);
        }
        assert_eq!(c.shares(), (0.25, 0.5, 0.25));
        let mut o = OpCounts::default();
        o.add(Maintenance::Pass(PreferenceId(1)));
        o.add(Maintenance::Update(PreferenceId(1)));
        o.add(Maintenance::Append);
        o.add(Maintenance::Append);
        assert_eq!(o.shares(), (0.25, 0.25, 0.5));
        let mut t = TopN::default();
        t.add(Some(0), 1);
        t.add(Some(1), 1);
        t.add(Some(2), 1);
        t.add(None, 1);
        assert_eq!(t.shares(), (0.25, 0.5, 0.75));
        assert_eq!(quantile(&[5.0, 1.0, 3.0, 2.0, 4.0], 0.5), 3.0);
        assert_eq!(quantile(&[5.0, 1.0, 3.0, 2.0, 4.0], 0.95), 5.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }
}
