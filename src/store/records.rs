//! The write-ahead log's records (`store::logged`): how the operations
//! of a flush are laid out in the bytes of log pages (issue #45: "a log
//! that costs what it carries").
//!
//! Version 2, written since issue #45, packs operations in *runs*: a run
//! header byte, then up to 16 records of the same operation.
//!
//! | bits of the header | meaning |
//! |---|---|
//! | 7 | 1: a run (a version-1 record's first byte, its op, is 1–3) |
//! | 6..5 | operation: 0 insert, 1 delete, 2 update, 3 upsert |
//! | 4 | keys after the run's first are delta-coded |
//! | 3..0 | records in the run, minus one |
//!
//! A record is its key, then its value at the entry format's width, and
//! for an update the new value too. The run's first key is at the entry
//! format's width; in a delta-coded run each later key is the zigzag
//! varint (LEB128) of its difference from the key before it in the run. A
//! run is delta-coded when its second key's varint is shorter than the
//! key width, and it ends where a delta no longer is (keys that climb in
//! small steps — time stamps, counters, a bulk of neighbours — take one or
//! two bytes a key; random keys take their width, with one header byte a
//! sixteenth of a record).
//!
//! What each byte buys: the operation is needed to replay (an insert and
//! an upsert differ on an index of pairs); the key and value are the
//! operation; the header's count spares a byte a record, and the delta
//! bit lets a run of close keys shed their high bytes. Nothing ties a run
//! to the records before it, so a page decodes on its own and a run never
//! spans pages (`Encoder::fits`).
//!
//! Version 1 (issues #29–#44; still read): `op u8 | key | value [| new]`
//! at the entry widths, op 1 insert, 2 delete, 3 update. The two mix in
//! one log (a store written before and after an upgrade): the first byte
//! of each says which it is.
//!
//! Invariants: a run holds 1–16 records of one operation; a delta-coded
//! run's deltas are each shorter than the key width.

use crate::index::{EntryFormat, IndexError, Result};

/// A decoded record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    Insert(u64, u64),
    Delete(u64, u64),
    Update(u64, u64, u64),
    Upsert(u64, u64),
}

impl Op {
    fn code(&self) -> u8 {
        match self {
            Op::Insert(..) => 0,
            Op::Delete(..) => 1,
            Op::Update(..) => 2,
            Op::Upsert(..) => 3,
        }
    }
    fn key(&self) -> u64 {
        match *self {
            Op::Insert(k, _) | Op::Delete(k, _) | Op::Update(k, _, _) | Op::Upsert(k, _) => k,
        }
    }
}

const RUN: u8 = 0x80;
const DELTA: u8 = 0x10;
const MAX_RUN: u8 = 16;
/// Version 1's ops.
const V1_INSERT: u8 = 1;
const V1_UPDATE: u8 = 3;

fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(z: u64) -> i64 {
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The open run at the end of the bytes being filled.
#[derive(Clone, Copy, Debug)]
struct OpenRun {
    header_at: usize,
    code: u8,
    count: u8,
    /// `Some(delta-coded)` once the run has a second record.
    delta: Option<bool>,
    last_key: u64,
}

/// Appends records to the bytes of one log page (`Logged::pending`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Encoder {
    format: EntryFormat,
    run: Option<OpenRun>,
}

/// How `op` joins the open run, if it can: `Some(delta)`.
enum Join {
    /// A new run: header, full key.
    New,
    /// The next record of the open run, its key as a delta (`true`) or at
    /// full width.
    Next(bool),
}

impl Encoder {
    pub(super) fn new(format: EntryFormat) -> Self {
        Encoder { format, run: None }
    }

    /// The bytes already in the page were written out: the next record
    /// starts a run.
    pub(super) fn page_written(&mut self) {
        self.run = None;
    }

    fn values(&self, op: &Op) -> usize {
        let v = self.format.value_bytes as usize;
        if matches!(op, Op::Update(..)) {
            2 * v
        } else {
            v
        }
    }

    fn join(&self, op: &Op) -> Join {
        let Some(r) = self.run else {
            return Join::New;
        };
        if r.code != op.code() || r.count == MAX_RUN {
            return Join::New;
        }
        let delta = zigzag(op.key().wrapping_sub(r.last_key) as i64);
        let short = varint_len(delta) < self.format.key_bytes as usize;
        match r.delta {
            None => Join::Next(short),
            Some(true) if short => Join::Next(true),
            Some(true) => Join::New,
            Some(false) => Join::Next(false),
        }
    }

    /// Bytes `op` would take at the end of the page.
    fn bytes(&self, op: &Op) -> usize {
        let k = self.format.key_bytes as usize;
        self.values(op)
            + match self.join(op) {
                Join::New => 1 + k,
                Join::Next(false) => k,
                Join::Next(true) => {
                    let last = self.run.map_or(0, |r| r.last_key);
                    varint_len(zigzag(op.key().wrapping_sub(last) as i64))
                }
            }
    }

    /// Whether `op` fits in a page of `payload` bytes holding `used`.
    pub(super) fn fits(&self, op: &Op, used: usize, payload: usize) -> bool {
        used + self.bytes(op) <= payload
    }

    /// Appends `op` to `out` (the page's bytes, which hold the open run).
    pub(super) fn push(&mut self, op: &Op, out: &mut Vec<u8>) {
        let f = self.format;
        let (k, v) = (f.key_bytes as usize, f.value_bytes as usize);
        match self.join(op) {
            Join::New => {
                self.run = Some(OpenRun {
                    header_at: out.len(),
                    code: op.code(),
                    count: 1,
                    delta: None,
                    last_key: op.key(),
                });
                out.push(RUN | op.code() << 5);
                let at = out.len();
                out.resize(at + k, 0);
                f.put_key(&mut out[at..], op.key());
            }
            Join::Next(delta) => {
                // Invariant: `join` answers `Next` only with a run open.
                let Some(r) = self.run.as_mut() else {
                    return;
                };
                if delta {
                    put_varint(out, zigzag(op.key().wrapping_sub(r.last_key) as i64));
                } else {
                    let at = out.len();
                    out.resize(at + k, 0);
                    f.put_key(&mut out[at..], op.key());
                }
                r.delta = Some(delta);
                r.count += 1;
                r.last_key = op.key();
                out[r.header_at] =
                    RUN | r.code << 5 | if delta { DELTA } else { 0 } | (r.count - 1);
            }
        }
        let (value, new) = match *op {
            Op::Insert(_, x) | Op::Delete(_, x) | Op::Upsert(_, x) => (x, None),
            Op::Update(_, old, new) => (old, Some(new)),
        };
        let at = out.len();
        out.resize(at + v, 0);
        f.put_value(&mut out[at..], value);
        if let Some(new) = new {
            let at = out.len();
            out.resize(at + v, 0);
            f.put_value(&mut out[at..], new);
        }
    }
}

fn unreadable(at: usize, len: usize, what: &str) -> IndexError {
    IndexError::Corrupt {
        page: 0,
        detail: format!(
            "the write-ahead log holds a record it cannot read ({what} at byte {at} of {len})"
        ),
    }
}

/// Decodes `records` (the log's complete batches, in order) into `ops`.
pub(super) fn decode(format: EntryFormat, records: &[u8], ops: &mut Vec<Op>) -> Result<()> {
    let (k, v) = (format.key_bytes as usize, format.value_bytes as usize);
    let len = records.len();
    let take = |at: &mut usize, n: usize, what: &str| -> Result<&[u8]> {
        let b = records
            .get(*at..*at + n)
            .ok_or_else(|| unreadable(*at, len, what))?;
        *at += n;
        Ok(b)
    };
    let mut at = 0;
    while at < len {
        let head = records[at];
        if head & RUN == 0 {
            // Version 1.
            if !(V1_INSERT..=V1_UPDATE).contains(&head) {
                return Err(unreadable(at, len, &format!("op {head}")));
            }
            at += 1;
            let key = format.read_key(take(&mut at, k, "key")?);
            let value = format.read_value(take(&mut at, v, "value")?);
            ops.push(match head {
                V1_INSERT => Op::Insert(key, value),
                V1_UPDATE => Op::Update(key, value, format.read_value(take(&mut at, v, "value")?)),
                _ => Op::Delete(key, value),
            });
            continue;
        }
        at += 1;
        let code = (head >> 5) & 3;
        let delta = head & DELTA != 0;
        let count = (head & 0x0F) + 1;
        let mut key = 0u64;
        for i in 0..count {
            key = if i == 0 || !delta {
                format.read_key(take(&mut at, k, "key")?)
            } else {
                let mut z = 0u64;
                let mut shift = 0;
                loop {
                    let b = take(&mut at, 1, "key delta")?[0];
                    if shift > 63 || (shift == 63 && b > 1) {
                        return Err(unreadable(at, len, "key delta past 64 bits"));
                    }
                    z |= u64::from(b & 0x7F) << shift;
                    if b & 0x80 == 0 {
                        break;
                    }
                    shift += 7;
                }
                key.wrapping_add(unzigzag(z) as u64)
            };
            if key > format.max_key() {
                return Err(unreadable(at, len, "key past the entry width"));
            }
            let value = format.read_value(take(&mut at, v, "value")?);
            ops.push(match code {
                0 => Op::Insert(key, value),
                1 => Op::Delete(key, value),
                2 => Op::Update(key, value, format.read_value(take(&mut at, v, "value")?)),
                _ => Op::Upsert(key, value),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn encode(format: EntryFormat, ops: &[Op], payload: usize) -> Vec<Vec<u8>> {
        let mut pages = vec![Vec::new()];
        let mut e = Encoder::new(format);
        for op in ops {
            if !e.fits(op, pages.last().map_or(0, Vec::len), payload) {
                pages.push(Vec::new());
                e.page_written();
            }
            let page = pages.last_mut().unwrap();
            e.push(op, page);
            assert!(page.len() <= payload);
        }
        pages
    }

    fn op(format: EntryFormat) -> impl Strategy<Value = Op> {
        let key = prop_oneof![
            0..format.max_key().min(300),
            format.max_key() - 300..=format.max_key(),
            0..=format.max_key(),
        ];
        let max_v = if format.value_bytes == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * format.value_bytes)) - 1
        };
        (0..4u8, key, 0..=max_v, 0..=max_v).prop_map(|(c, k, v, w)| match c {
            0 => Op::Insert(k, v),
            1 => Op::Delete(k, v),
            2 => Op::Update(k, v, w),
            _ => Op::Upsert(k, v),
        })
    }

    proptest! {
        #[test]
        fn records_decode_to_what_was_encoded_page_by_page_and_whole(
            widths in prop_oneof![Just((8u8, 8u8)), Just((4, 4)), Just((2, 8))],
            ops in proptest::collection::vec(op(EntryFormat::new(8, 8).unwrap()), 0..200),
            payload in 40usize..400,
        ) {
            let format = EntryFormat::new(widths.0, widths.1).unwrap();
            let ops: Vec<Op> = ops.iter().map(|o| {
                let k = |x: u64| x & format.max_key();
                let v = |x: u64| if widths.1 == 8 { x } else { x & ((1u64 << (8 * widths.1)) - 1) };
                match *o {
                    Op::Insert(a, b) => Op::Insert(k(a), v(b)),
                    Op::Delete(a, b) => Op::Delete(k(a), v(b)),
                    Op::Update(a, b, c) => Op::Update(k(a), v(b), v(c)),
                    Op::Upsert(a, b) => Op::Upsert(k(a), v(b)),
                }
            }).collect();
            let pages = encode(format, &ops, payload);
            let mut got = Vec::new();
            for p in &pages {
                decode(format, p, &mut got).unwrap();
            }
            prop_assert_eq!(&got, &ops);
            let whole: Vec<u8> = pages.concat();
            got.clear();
            decode(format, &whole, &mut got).unwrap();
            prop_assert_eq!(got, ops);
        }

        #[test]
        fn any_bytes_decode_or_are_refused_without_a_panic(
            bytes in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let _ = decode(EntryFormat::new(8, 8).unwrap(), &bytes, &mut Vec::new());
        }
    }

    #[test]
    fn climbing_keys_take_a_byte_or_two_and_random_keys_their_width() {
        let f = EntryFormat::new(8, 8).unwrap();
        let climbing: Vec<Op> = (0..1000u64)
            .map(|i| Op::Upsert(1_000_000 + 3 * i, i))
            .collect();
        let bytes: usize = encode(f, &climbing, 4016).iter().map(Vec::len).sum();
        // A header and a full key a run of 16, a one-byte delta, 8 bytes of value.
        assert!(bytes < 1000 * 10, "{bytes}");
        let mut x = 1u64;
        let random: Vec<Op> = (0..1000u64)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                Op::Upsert(x, i)
            })
            .collect();
        let bytes: usize = encode(f, &random, 4016).iter().map(Vec::len).sum();
        // A header a run of 16, and one more a page (a run never spans pages).
        assert!(bytes <= 1000 * 16 + 1000 / 16 + 1 + 4, "{bytes}");
        assert!(bytes < 1000 * 17, "{bytes}");
    }

    #[test]
    fn version_one_records_still_read() {
        let f = EntryFormat::new(4, 4).unwrap();
        let mut v1 = vec![1u8, 7, 0, 0, 0, 9, 0, 0, 0];
        v1.extend([3u8, 7, 0, 0, 0, 9, 0, 0, 0, 10, 0, 0, 0]);
        v1.extend([2u8, 7, 0, 0, 0, 10, 0, 0, 0]);
        let mut got = Vec::new();
        decode(f, &v1, &mut got).unwrap();
        assert_eq!(
            got,
            [Op::Insert(7, 9), Op::Update(7, 9, 10), Op::Delete(7, 10)]
        );
        assert!(decode(f, &[4u8, 0, 0, 0, 0, 0, 0, 0, 0], &mut got).is_err());
    }
}
