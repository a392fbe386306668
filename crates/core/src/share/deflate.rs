//! A small raw DEFLATE codec (RFC 1951) for share links.
//!
//! It replaces `miniz_oxide`, whose ~30 kB of wasm (big static tables, a streaming state
//! machine) bought nothing for inputs of a few kB (docs/size.md). Like zlib's `puff.c`, the
//! decoder builds its Huffman tables at run time and decodes bit by bit; the length and
//! distance bases are computed, not tabulated.
//!
//! - [`inflate`] reads any valid stream (stored, fixed and dynamic blocks), bounded by an
//!   output limit; every problem is an [`InflateError`], never a panic or an endless loop.
//! - [`deflate`] writes one final block: LZ77 with hash chains and lazy matching over the
//!   32 KiB window, then whichever of fixed or dynamic Huffman codes is shorter.
//!
//! Deterministic: the output depends on the input bytes alone (no `usize` widths, no hashing
//! of addresses), so native and wasm builds make the same links.

/// Why a stream could not be inflated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InflateError {
    /// Not a valid raw DEFLATE stream (bad block type or code, truncated, distance too far).
    Corrupt,
    /// The output would be longer than the limit.
    TooLarge,
}

use InflateError::{Corrupt, TooLarge};

/// The order in which code-length code lengths are stored (RFC 1951, 3.2.7).
const ORDER: [u8; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// The base value and extra bit count of length code `257 + i` (`dist == false`) or of
/// distance code `i`. Both tables follow one rule (RFC 1951, 3.2.5): after a few codes with no
/// extra bits, every group of 4 (lengths) or 2 (distances) codes has one more extra bit.
/// Computed rather than tabulated: smaller in wasm.
fn base_extra(i: u32, dist: bool) -> (u32, u32) {
    let (shift, first) = if dist { (1, 1) } else { (2, 3) };
    let group = 1 << shift;
    if !dist && i == 28 {
        (258, 0)
    } else if i < 2 * group {
        (first + i, 0)
    } else {
        let extra = (i >> shift) - 1;
        (first + ((group | (i & (group - 1))) << extra), extra)
    }
}

/// The code whose range holds `value` (a length 3..=258 or a distance 1..=32768), the inverse
/// of [`base_extra`].
fn code_of(value: u32, dist: bool) -> u32 {
    let (shift, first) = if dist { (1, 1) } else { (2, 3) };
    let group = 1 << shift;
    let v = value - first;
    if !dist && value == 258 {
        28
    } else if v < 2 * group {
        v
    } else {
        let extra = v.ilog2() - shift;
        group * (extra + 1) + ((v >> extra) & (group - 1))
    }
}

/// The code lengths of the fixed Huffman codes (RFC 1951, 3.2.6): 288 literal/length codes and
/// 32 distance codes (30 and 31 never occur, but make the code complete).
fn fixed_lengths() -> (Vec<u8>, Vec<u8>) {
    let lit = (0..288)
        .map(|s| match s {
            0..=143 => 8,
            144..=255 => 9,
            256..=279 => 7,
            _ => 8,
        })
        .collect();
    (lit, vec![5; 32])
}

// ---------------------------------------------------------------------------------------------
// Inflate

/// Bits read from the input, least significant first.
struct Input<'a> {
    data: &'a [u8],
    pos: usize,
    buf: u32,
    count: u32,
}

impl Input<'_> {
    /// The next `n` bits (`n <= 16`) as a number.
    fn bits(&mut self, n: u32) -> Result<u32, InflateError> {
        while self.count < n {
            let byte = *self.data.get(self.pos).ok_or(Corrupt)?;
            self.pos += 1;
            self.buf |= u32::from(byte) << self.count;
            self.count += 8;
        }
        let value = self.buf & ((1 << n) - 1);
        self.buf >>= n;
        self.count -= n;
        Ok(value)
    }
}

/// A canonical Huffman code for decoding: how many codes have each length, and the symbols
/// in code order (`puff.c`'s representation).
struct Huffman {
    count: [u16; 16],
    symbol: Vec<u16>,
}

impl Huffman {
    /// The code with these code lengths (0 = unused symbol). Over-subscribed lengths are an
    /// error, and so are incomplete ones unless at most one symbol is used (encoders write a
    /// single distance code that way; zlib and miniz accept it too).
    fn new(lengths: &[u8]) -> Result<Huffman, InflateError> {
        let mut count = [0u16; 16];
        for &len in lengths {
            count[usize::from(len)] += 1;
        }
        let mut left: i32 = 1;
        for &c in &count[1..] {
            left = 2 * left - i32::from(c);
            if left < 0 {
                return Err(Corrupt);
            }
        }
        let used = lengths.len() - usize::from(count[0]);
        if left > 0 && used > 1 {
            return Err(Corrupt);
        }
        // The first index of each length's symbols, then the symbols sorted by (length, symbol).
        let mut offset = [0u16; 16];
        for len in 1..15 {
            offset[len + 1] = offset[len] + count[len];
        }
        let mut symbol = vec![0; used];
        for (sym, &len) in (0..).zip(lengths) {
            if len != 0 {
                let slot = &mut offset[usize::from(len)];
                symbol[usize::from(*slot)] = sym;
                *slot += 1;
            }
        }
        Ok(Huffman { count, symbol })
    }

    /// Reads one symbol, a bit at a time (codes are stored most significant bit first).
    fn decode(&self, input: &mut Input) -> Result<u16, InflateError> {
        // `code` is the code read so far, `first` the first code of length `len`, `index` the
        // index of that code's symbol: the code has length `len` iff code < first + count.
        let (mut code, mut first, mut index) = (0u32, 0u32, 0u32);
        for &count in &self.count[1..] {
            code |= input.bits(1)?;
            let count = u32::from(count);
            if code < first + count {
                return Ok(self.symbol[(index + code - first) as usize]);
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        Err(Corrupt)
    }
}

/// Decompresses a raw DEFLATE stream (RFC 1951) of at most `max_out` bytes. Bytes after the
/// final block are ignored.
pub(crate) fn inflate(data: &[u8], max_out: usize) -> Result<Vec<u8>, InflateError> {
    let mut input = Input {
        data,
        pos: 0,
        buf: 0,
        count: 0,
    };
    let mut out = Vec::new();
    loop {
        let last = input.bits(1)?;
        match input.bits(2)? {
            0 => {
                // Stored: byte-aligned LEN, NLEN (its complement), then LEN bytes as they are.
                input.buf = 0;
                input.count = 0;
                let len = input.bits(16)?;
                if input.bits(16)? != !len & 0xffff {
                    return Err(Corrupt);
                }
                let bytes = data
                    .get(input.pos..input.pos + len as usize)
                    .ok_or(Corrupt)?;
                if out.len() + bytes.len() > max_out {
                    return Err(TooLarge);
                }
                out.extend_from_slice(bytes);
                input.pos += len as usize;
            }
            1 => {
                let (lit, dist) = fixed_lengths();
                codes(&mut input, &mut out, max_out, &lit, &dist)?;
            }
            2 => {
                let (lit, dist) = dynamic_lengths(&mut input)?;
                codes(&mut input, &mut out, max_out, &lit, &dist)?;
            }
            _ => return Err(Corrupt),
        }
        if last == 1 {
            return Ok(out);
        }
    }
}

/// Reads the code lengths of a dynamic block's header (RFC 1951, 3.2.7).
fn dynamic_lengths(input: &mut Input) -> Result<(Vec<u8>, Vec<u8>), InflateError> {
    let nlen = input.bits(5)? as usize + 257;
    let ndist = input.bits(5)? as usize + 1;
    let ncode = input.bits(4)? as usize + 4;
    if nlen > 286 || ndist > 30 {
        return Err(Corrupt);
    }
    let mut lengths = [0u8; 19];
    for &sym in &ORDER[..ncode] {
        lengths[usize::from(sym)] = input.bits(3)? as u8;
    }
    let code = Huffman::new(&lengths)?;
    // Literal/length and distance code lengths form one sequence; repeats may cross over.
    let mut lengths = Vec::with_capacity(nlen + ndist);
    while lengths.len() < nlen + ndist {
        let sym = code.decode(input)?;
        let (len, repeat) = match sym {
            0..=15 => (sym as u8, 1),
            16 => (*lengths.last().ok_or(Corrupt)?, 3 + input.bits(2)?),
            17 => (0, 3 + input.bits(3)?),
            _ => (0, 11 + input.bits(7)?),
        };
        if lengths.len() + repeat as usize > nlen + ndist {
            return Err(Corrupt);
        }
        lengths.extend((0..repeat).map(|_| len));
    }
    if lengths[256] == 0 {
        return Err(Corrupt); // no end-of-block code
    }
    let dist = lengths.split_off(nlen);
    Ok((lengths, dist))
}

/// Decodes the compressed data of a block with these literal/length and distance codes.
fn codes(
    input: &mut Input,
    out: &mut Vec<u8>,
    max_out: usize,
    lit: &[u8],
    dist: &[u8],
) -> Result<(), InflateError> {
    let lit = Huffman::new(lit)?;
    let dist = Huffman::new(dist)?;
    loop {
        let sym = u32::from(lit.decode(input)?);
        if sym == 256 {
            return Ok(());
        }
        let (len, back) = if sym < 256 {
            (1, 0)
        } else {
            if sym > 285 {
                return Err(Corrupt);
            }
            let (base, extra) = base_extra(sym - 257, false);
            let len = base + input.bits(extra)?;
            let code = u32::from(dist.decode(input)?);
            if code > 29 {
                return Err(Corrupt);
            }
            let (base, extra) = base_extra(code, true);
            let back = (base + input.bits(extra)?) as usize;
            if back > out.len() {
                return Err(Corrupt); // before the start of the output
            }
            (len as usize, back)
        };
        if out.len() + len > max_out {
            return Err(TooLarge);
        }
        if back == 0 {
            out.push(sym as u8);
        } else {
            for _ in 0..len {
                out.push(out[out.len() - back]);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Deflate

/// Bits written least significant first.
struct Output {
    bytes: Vec<u8>,
    buf: u32,
    count: u32,
}

impl Output {
    /// Appends the low `n` bits of `value` (`n <= 16`).
    fn put(&mut self, value: u32, n: u32) {
        self.buf |= value << self.count;
        self.count += n;
        while self.count >= 8 {
            self.bytes.push(self.buf as u8);
            self.buf >>= 8;
            self.count -= 8;
        }
    }
}

/// The longest match LZ77 may use, and the farthest distance.
const MAX_MATCH: usize = 258;
const WINDOW: usize = 32 * 1024;
/// How many earlier positions with the same hash are tried for each match.
const MAX_CHAIN: u32 = 256;
const HASH_BITS: u32 = 15;

/// An LZ77 token: a literal byte (`len == 0`, the byte in `dist`) or a match.
#[derive(Clone, Copy)]
struct Token {
    len: u16,
    dist: u16,
}

/// Hash chains over the input: the last position of each 3-byte hash, and for each position
/// the previous one with the same hash (`u32::MAX` for none).
struct Chains<'a> {
    data: &'a [u8],
    head: Vec<u32>,
    prev: Vec<u32>,
}

impl Chains<'_> {
    /// A 15-bit hash of the three bytes at `at` (in `u32`: the same on every target).
    fn hash(&self, at: usize) -> usize {
        let d = &self.data[at..at + 3];
        let key = u32::from(d[0]) << 16 | u32::from(d[1]) << 8 | u32::from(d[2]);
        (key.wrapping_mul(0x9e37_79b1) >> (32 - HASH_BITS)) as usize
    }

    /// Records position `at` (when three bytes start there).
    fn insert(&mut self, at: usize) {
        if at + 3 <= self.data.len() {
            let h = self.hash(at);
            self.prev[at] = self.head[h];
            self.head[h] = at as u32;
        }
    }

    /// The longest earlier match for position `at` (not yet inserted) as (length, distance);
    /// the nearest among equally long ones. Length 0 when there is none of length 3 or more.
    fn longest(&self, at: usize) -> (usize, usize) {
        let data = self.data;
        let limit = MAX_MATCH.min(data.len() - at);
        let mut best = (0, 0);
        if limit < 3 {
            return best;
        }
        let mut candidate = self.head[self.hash(at)];
        let mut tries = MAX_CHAIN;
        while candidate != u32::MAX && tries > 0 {
            let from = candidate as usize;
            if at - from > WINDOW {
                break;
            }
            // Only a candidate that also matches the byte after the best so far can beat it.
            if data[from + best.0.min(limit - 1)] == data[at + best.0.min(limit - 1)] {
                let len = (0..limit)
                    .find(|&k| data[from + k] != data[at + k])
                    .unwrap_or(limit);
                if len > best.0 {
                    best = (len, at - from);
                    if len == limit {
                        break;
                    }
                }
            }
            candidate = self.prev[from];
            tries -= 1;
        }
        if best.0 < 3 {
            best = (0, 0);
        }
        best
    }
}

/// The LZ77 tokens of `data`, with lazy matching: a match is deferred by one byte when the
/// next position has a longer one.
fn tokens(data: &[u8]) -> Vec<Token> {
    let mut chains = Chains {
        data,
        head: vec![u32::MAX; 1 << HASH_BITS],
        prev: vec![u32::MAX; data.len()],
    };
    let mut tokens = Vec::new();
    let mut at = 0;
    let mut pending = chains.longest(0);
    while at < data.len() {
        chains.insert(at);
        let next = if at + 1 < data.len() {
            chains.longest(at + 1)
        } else {
            (0, 0)
        };
        let (len, dist) = pending;
        if len == 0 || next.0 > len {
            tokens.push(Token {
                len: 0,
                dist: u16::from(data[at]),
            });
            at += 1;
            pending = next;
        } else {
            tokens.push(Token {
                len: len as u16,
                dist: dist as u16,
            });
            for k in at + 1..at + len {
                chains.insert(k);
            }
            at += len;
            pending = if at < data.len() {
                chains.longest(at)
            } else {
                (0, 0)
            };
        }
    }
    tokens
}

/// Huffman code lengths of at most `limit` bits for symbols with these frequencies (0 =
/// unused; at least two symbols). At least two symbols get a code, so the code is always
/// complete.
///
/// Huffman's algorithm by plain search for the two lightest nodes (a few hundred symbols at
/// most), and when the tree is too deep, the same with frequencies halved (rare symbols
/// become relatively more frequent) until it fits: smaller code than a sort and the
/// zlib/miniz length fix-up, and as good on text (docs/size.md).
fn huffman_lengths(freq: &[u32], limit: u8) -> Vec<u8> {
    let mut freq = freq.to_vec();
    let mut used = freq.iter().filter(|&&f| f > 0).count();
    for f in freq.iter_mut() {
        if used >= 2 {
            break;
        }
        if *f == 0 {
            *f = 1;
            used += 1;
        }
    }
    loop {
        // Nodes: the symbols, then the inner nodes in order of creation (after their children).
        // A weight of 0 marks a node that is unused or already has a parent.
        let mut weight = freq.clone();
        let mut parent = vec![0; freq.len()];
        loop {
            let (mut a, mut b) = (None, None);
            for (node, &w) in weight.iter().enumerate() {
                if w == 0 {
                    continue;
                }
                if a.is_none_or(|a| w < weight[a]) {
                    b = a;
                    a = Some(node);
                } else if b.is_none_or(|b| w < weight[b]) {
                    b = Some(node);
                }
            }
            let (Some(a), Some(b)) = (a, b) else { break };
            parent[a] = weight.len();
            parent[b] = weight.len();
            weight.push(weight[a] + weight[b]);
            parent.push(0);
            weight[a] = 0;
            weight[b] = 0;
        }
        // Depths from the root (the last node) down.
        let mut depth = vec![0u32; weight.len()];
        for node in (0..weight.len() - 1).rev() {
            depth[node] = depth[parent[node]] + 1;
        }
        if freq
            .iter()
            .zip(&depth)
            .all(|(&f, &d)| f == 0 || d <= u32::from(limit))
        {
            return freq
                .iter()
                .zip(&depth)
                .map(|(&f, &d)| if f == 0 { 0 } else { d as u8 })
                .collect();
        }
        for f in freq.iter_mut().filter(|f| **f > 0) {
            *f = (*f >> 1) | 1;
        }
    }
}

/// The canonical Huffman codes for these code lengths (RFC 1951, 3.2.2), bit-reversed so that
/// [`Output::put`] writes them most significant bit first.
fn canonical(lengths: &[u8]) -> Vec<u32> {
    let mut count = [0u32; 16];
    for &len in lengths {
        count[usize::from(len)] += 1;
    }
    count[0] = 0;
    let mut next = [0u32; 16];
    for len in 1..16 {
        next[len] = (next[len - 1] + count[len - 1]) << 1;
    }
    lengths
        .iter()
        .map(|&len| {
            let len = usize::from(len);
            let code = next[len];
            next[len] += 1;
            code.reverse_bits()
                .checked_shr(32 - len as u32)
                .unwrap_or(0)
        })
        .collect()
}

/// A length or distance as (code, extra bits value, extra bit count).
fn split(value: u32, dist: bool) -> (u32, u32, u32) {
    let code = code_of(value, dist);
    let (base, extra) = base_extra(code, dist);
    (code, value - base, extra)
}

/// A code set ready for writing: lengths and their canonical codes.
struct Code {
    lengths: Vec<u8>,
    codes: Vec<u32>,
}

impl Code {
    fn new(lengths: Vec<u8>) -> Code {
        let codes = canonical(&lengths);
        Code { lengths, codes }
    }

    fn put(&self, out: &mut Output, sym: u32) {
        let sym = sym as usize;
        out.put(self.codes[sym], u32::from(self.lengths[sym]));
    }
}

/// Writes a dynamic block's code lengths (RFC 1951, 3.2.7): both sequences as one, run-length
/// coded with symbols 16 (repeat the previous length), 17 and 18 (runs of zeros), themselves
/// Huffman coded with lengths of at most 7 bits.
fn write_header(out: &mut Output, lit: &[u8], dist: &[u8]) {
    let used = |lengths: &[u8], min: usize| {
        lengths
            .iter()
            .rposition(|&len| len != 0)
            .map_or(min, |last| (last + 1).max(min))
    };
    let (nlen, ndist) = (used(lit, 257), used(dist, 1));
    let seq: Vec<u8> = lit[..nlen].iter().chain(&dist[..ndist]).copied().collect();
    // (symbol, extra bits value) pairs.
    let mut rle = Vec::new();
    let mut freq = [0u32; 19];
    let mut at = 0;
    while at < seq.len() {
        let len = seq[at];
        let run = seq[at..].iter().take_while(|&&l| l == len).count();
        let (sym, take, min) = if len == 0 && run >= 11 {
            (18, run.min(138), 11)
        } else if len == 0 && run >= 3 {
            (17, run.min(10), 3)
        } else if at > 0 && seq[at - 1] == len && run >= 3 {
            (16, run.min(6), 3)
        } else {
            (len, 1, 1)
        };
        rle.push((sym, (take - min) as u32));
        freq[usize::from(sym)] += 1;
        at += take;
    }
    let code = Code::new(huffman_lengths(&freq, 7));
    let ncode = ORDER
        .iter()
        .rposition(|&sym| code.lengths[usize::from(sym)] != 0)
        .map_or(4, |last| (last + 1).max(4));
    out.put(nlen as u32 - 257, 5);
    out.put(ndist as u32 - 1, 5);
    out.put(ncode as u32 - 4, 4);
    for &sym in &ORDER[..ncode] {
        out.put(u32::from(code.lengths[usize::from(sym)]), 3);
    }
    for (sym, extra) in rle {
        code.put(out, u32::from(sym));
        let bits = match sym {
            16 => 2,
            17 => 3,
            18 => 7,
            _ => 0,
        };
        out.put(extra, bits);
    }
}

/// Compresses `data` into one final raw DEFLATE block (RFC 1951) with fixed or dynamic
/// Huffman codes, whichever is shorter (fixed wins for a few dozen bytes: no code table).
pub(crate) fn deflate(data: &[u8]) -> Vec<u8> {
    let tokens = tokens(data);
    let mut lit_freq = [0u32; 286];
    let mut dist_freq = [0u32; 30];
    lit_freq[256] = 1;
    for t in &tokens {
        if t.len == 0 {
            lit_freq[usize::from(t.dist)] += 1;
        } else {
            lit_freq[257 + split(u32::from(t.len), false).0 as usize] += 1;
            dist_freq[split(u32::from(t.dist), true).0 as usize] += 1;
        }
    }
    let (fixed_lit, fixed_dist) = fixed_lengths();
    let choices = [
        (1, fixed_lit, fixed_dist),
        (
            2,
            huffman_lengths(&lit_freq, 15),
            huffman_lengths(&dist_freq, 15),
        ),
    ];
    let mut best: Option<Vec<u8>> = None;
    for (kind, lit, dist) in choices {
        let mut out = Output {
            bytes: Vec::new(),
            buf: 0,
            count: 0,
        };
        out.put(1 | kind << 1, 3); // final block of this kind
        if kind == 2 {
            write_header(&mut out, &lit, &dist);
        }
        let (lit, dist) = (Code::new(lit), Code::new(dist));
        for t in &tokens {
            if t.len == 0 {
                lit.put(&mut out, u32::from(t.dist));
            } else {
                for (value, is_dist) in [(t.len, false), (t.dist, true)] {
                    let (code, extra, bits) = split(u32::from(value), is_dist);
                    if is_dist {
                        dist.put(&mut out, code);
                    } else {
                        lit.put(&mut out, 257 + code);
                    }
                    out.put(extra, bits);
                }
            }
        }
        lit.put(&mut out, 256);
        out.put(0, 7); // flush the last partial byte
        if best.as_ref().is_none_or(|b| out.bytes.len() < b.len()) {
            best = Some(out.bytes);
        }
    }
    best.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::collection::vec;
    use proptest::prelude::*;
    use proptest::sample::Index;

    const LIMIT: usize = 1 << 20;

    fn miniz_inflate(data: &[u8]) -> Result<Vec<u8>, ()> {
        miniz_oxide::inflate::decompress_to_vec(data).map_err(|_| ())
    }

    /// Scenario-like text: words of the language, indentation, newlines, some UTF-8.
    fn text() -> impl Strategy<Value = Vec<u8>> {
        let words = vec![
            "client ",
            "alice",
            "bob",
            ":\n",
            "    ",
            "get ",
            "configmap/x",
            "update ",
            "retry",
            " = ",
            "obj",
            "\n",
            "409 ",
            "resourceVersion",
            "é",
            "→",
            "x",
            "1",
            "2",
        ];
        vec(prop::sample::select(words), 0..500).prop_map(|w| w.concat().into_bytes())
    }

    /// Random bytes, text, long runs, and a small alphabet (many overlapping matches).
    fn inputs() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            vec(any::<u8>(), 0..600),
            text(),
            (any::<u8>(), 0usize..3000).prop_map(|(b, n)| vec![b; n]),
            vec(0u8..3, 0..3000),
        ]
    }

    /// Inflating arbitrary bytes gives an error or exactly what miniz reads (never a panic).
    fn agrees_with_miniz(data: &[u8]) -> Result<(), TestCaseError> {
        let ours = inflate(data, LIMIT);
        let theirs = miniz_inflate(data);
        if let (Ok(ours), Ok(theirs)) = (&ours, &theirs) {
            prop_assert_eq!(ours, theirs);
        }
        prop_assert_eq!(ours.is_ok(), theirs.is_ok(), "ours {:?}", ours);
        Ok(())
    }

    /// A bit stream written with [`Output`], flushed.
    fn stream(write: impl FnOnce(&mut Output)) -> Vec<u8> {
        let mut out = Output {
            bytes: Vec::new(),
            buf: 0,
            count: 0,
        };
        write(&mut out);
        out.put(0, 7);
        out.bytes
    }

    /// The Kraft sum of code lengths, scaled by 2^15 (2^15 = complete).
    fn kraft(lengths: &[u8]) -> u32 {
        lengths
            .iter()
            .filter(|&&l| l > 0)
            .map(|&l| 1 << (15 - l))
            .sum()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn round_trips_and_agrees_with_miniz_both_ways(data in inputs()) {
            let packed = deflate(&data);
            prop_assert_eq!(inflate(&packed, data.len()), Ok(data.clone()));
            prop_assert_eq!(miniz_inflate(&packed), Ok(data.clone()));
            if !data.is_empty() {
                prop_assert_eq!(inflate(&packed, data.len() - 1), Err(TooLarge));
            }
            for level in [0, 1, 6, 9] {
                let theirs = miniz_oxide::deflate::compress_to_vec(&data, level);
                prop_assert_eq!(inflate(&theirs, data.len()), Ok(data.clone()));
            }
        }

        #[test]
        fn random_bytes_never_panic(data in vec(any::<u8>(), 0..300)) {
            agrees_with_miniz(&data)?;
        }

        #[test]
        fn damaged_streams_never_panic(
            data in inputs(),
            level in 0u8..10,
            flips in vec((any::<Index>(), 0u32..8), 1..4),
            cut in any::<Index>(),
        ) {
            let mut packed = if level == 0 {
                deflate(&data)
            } else {
                miniz_oxide::deflate::compress_to_vec(&data, level)
            };
            for (at, bit) in flips {
                let at = at.index(packed.len());
                packed[at] ^= 1 << bit;
            }
            agrees_with_miniz(&packed)?;
            packed.truncate(cut.index(packed.len() + 1));
            agrees_with_miniz(&packed)?;
        }

        #[test]
        fn code_lengths_are_complete_and_limited(
            freq in vec(prop_oneof![Just(0u32), 1u32..5, 1u32..100_000], 2..300),
            limit in prop_oneof![Just(7u8), Just(15u8)],
        ) {
            // At most 2^7 symbols fit in 7 bits.
            let freq = &freq[..freq.len().min(if limit == 7 { 19 } else { 300 })];
            let lengths = huffman_lengths(freq, limit);
            prop_assert_eq!(lengths.len(), freq.len());
            prop_assert!(lengths.iter().all(|&l| l <= limit));
            prop_assert!(freq.iter().zip(&lengths).all(|(&f, &l)| f == 0 || l > 0));
            prop_assert_eq!(kraft(&lengths), 1 << 15);
        }
    }

    #[test]
    fn deep_trees_are_limited_and_stay_complete() {
        // Fibonacci frequencies make the deepest possible Huffman tree (one more level per symbol).
        let mut fib = vec![1u32, 1];
        while fib.len() < 30 {
            fib.push(fib[fib.len() - 1] + fib[fib.len() - 2]);
        }
        for (count, limit) in [(30, 15), (19, 7)] {
            let lengths = huffman_lengths(&fib[..count], limit);
            assert_eq!(lengths.iter().max(), Some(&limit), "{lengths:?}");
            assert_eq!(kraft(&lengths), 1 << 15, "{lengths:?}");
            // Rarer symbols never get shorter codes.
            assert!(lengths.windows(2).all(|w| w[0] >= w[1]), "{lengths:?}");
        }
        // Without a limit problem, the lengths are Huffman's: 1, 2, 3, 3 for 8, 4, 2, 2.
        assert_eq!(huffman_lengths(&[2, 8, 0, 2, 4], 15), [3, 1, 0, 3, 2]);
        // One or no symbol in use: padded to two one-bit codes.
        assert_eq!(huffman_lengths(&[0, 0, 5], 15), [1, 0, 1]);
        assert_eq!(huffman_lengths(&[0, 0, 0], 15), [1, 1, 0]);
    }

    #[test]
    fn length_and_distance_codes_follow_the_rfc() {
        // Anchors from the tables of RFC 1951, 3.2.5 (length codes as 257 + i).
        assert_eq!(base_extra(0, false), (3, 0));
        assert_eq!(base_extra(7, false), (10, 0));
        assert_eq!(base_extra(8, false), (11, 1));
        assert_eq!(base_extra(12, false), (19, 2));
        assert_eq!(base_extra(27, false), (227, 5));
        assert_eq!(base_extra(28, false), (258, 0));
        assert_eq!(base_extra(3, true), (4, 0));
        assert_eq!(base_extra(4, true), (5, 1));
        assert_eq!(base_extra(10, true), (33, 4));
        assert_eq!(base_extra(29, true), (24577, 13));
        // Every length and distance has one code whose range holds it.
        for (dist, max, codes) in [(false, 258, 29), (true, 32768, 30)] {
            for value in (if dist { 1 } else { 3 })..=max {
                let (code, extra, bits) = split(value, dist);
                assert!(code < codes, "{value}");
                assert!(extra < 1 << bits, "{value}");
                let (base, _) = base_extra(code, dist);
                assert_eq!(base + extra, value);
            }
        }
        assert_eq!(split(257, false), (27, 30, 5));
        assert_eq!(split(258, false), (28, 0, 0));
    }

    #[test]
    fn reads_hand_made_stored_fixed_and_dynamic_blocks() {
        // A final stored block "abc".
        let stored = [0x01, 0x03, 0x00, 0xfc, 0xff, b'a', b'b', b'c'];
        assert_eq!(inflate(&stored, LIMIT), Ok(b"abc".to_vec()));
        // An empty fixed block, as zlib writes it.
        assert_eq!(inflate(&[0x03, 0x00], LIMIT), Ok(Vec::new()));
        // zlib's raw deflate of "abcabcabcabc" (fixed codes, a match of 9 at distance 3).
        let zlib = [0x4b, 0x4c, 0x4a, 0x4e, 0x84, 0x21, 0x00];
        assert_eq!(inflate(&zlib, LIMIT), Ok(b"abcabcabcabc".to_vec()));
        // A stored block, then a final fixed one (zlib's "a").
        let two = [0x00, 0x01, 0x00, 0xfe, 0xff, b'x', 0x4b, 0x04, 0x00];
        assert_eq!(inflate(&two, LIMIT), Ok(b"xa".to_vec()));
        // zlib's level 9 raw deflate of an English paragraph: a dynamic block.
        let text = "Optimistic concurrency: every object carries a resourceVersion. An update \
            that names an old resourceVersion fails with 409 Conflict, and the client must read \
            the object again, apply its change again, and retry the update. ";
        let hex =
            "5d8e310ec2400c04bfb20f408882063ac403e8e88de3244617dfc9e780f27b2e0aa2a05dcd68e756\
            4227ada10ccec6b3bb182f67c84b7c417e3c85034cee2a1504979a6767b98b57cdb6c7c530978e42102305\
            8ca69533e4d4fdc3e84953c55b63c4f170c2355b9f9463d7f8aee9024e2a1698e61a4da66dfc36d0406a0d\
            2d252dd0a8e0916c90df6eeb5fb4e6d5d992f6f800";
        let zlib: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        assert_eq!(zlib[0] >> 1 & 3, 2, "a dynamic block");
        assert_eq!(inflate(&zlib, LIMIT), Ok(text.as_bytes().to_vec()));
        // Fixed codes written here: a literal, then a match that overlaps itself.
        let (lit, dist) = fixed_lengths();
        let (lit, dist) = (Code::new(lit), Code::new(dist));
        let aaaa = stream(|out| {
            out.put(0b011, 3);
            lit.put(out, u32::from(b'a'));
            lit.put(out, 257 + 1); // length 4
            dist.put(out, 0); // distance 1
            lit.put(out, 256);
        });
        assert_eq!(inflate(&aaaa, LIMIT), Ok(b"aaaaa".to_vec()));
        assert_eq!(miniz_inflate(&aaaa), Ok(b"aaaaa".to_vec()));
        // A dynamic block whose only distance code has one bit (an incomplete code, legal).
        let mut lit = vec![0u8; 258];
        (lit[usize::from(b'a')], lit[256], lit[257]) = (2, 2, 1);
        let single = stream(|out| {
            out.put(0b101, 3);
            write_header(out, &lit, &[1]);
            let (lit, dist) = (Code::new(lit.clone()), Code::new(vec![1]));
            lit.put(out, u32::from(b'a'));
            lit.put(out, 257);
            dist.put(out, 0);
            lit.put(out, 256);
        });
        assert_eq!(inflate(&single, LIMIT), Ok(b"aaaa".to_vec()));
        assert_eq!(miniz_inflate(&single), Ok(b"aaaa".to_vec()));
    }

    #[test]
    fn damaged_streams_are_errors() {
        let corrupt = |data: &[u8]| inflate(data, LIMIT) == Err(Corrupt);
        assert!(corrupt(&[]), "no block");
        assert!(corrupt(&[0x07]), "block type 3");
        assert!(corrupt(&[0x02, 0x00]), "no final block");
        assert!(
            corrupt(&[0x01, 0x03, 0x00, 0x00, 0x00, b'a', b'b', b'c']),
            "NLEN"
        );
        assert!(
            corrupt(&[0x01, 0x03, 0x00, 0xfc, 0xff, b'a']),
            "stored, truncated"
        );
        let (lit, dist) = fixed_lengths();
        let (lit, dist) = (Code::new(lit), Code::new(dist));
        let far = stream(|out| {
            out.put(0b011, 3);
            lit.put(out, u32::from(b'a'));
            lit.put(out, 257);
            dist.put(out, 1); // distance 2, one byte written so far
            lit.put(out, 256);
        });
        assert!(corrupt(&far), "distance too far back");
        for (sym, is_dist) in [(286, false), (287, false), (30, true), (31, true)] {
            let bad = stream(|out| {
                out.put(0b011, 3);
                lit.put(out, u32::from(b'a'));
                if is_dist {
                    lit.put(out, 257);
                    dist.put(out, sym);
                } else {
                    lit.put(out, sym);
                }
                lit.put(out, 256);
            });
            assert!(corrupt(&bad), "symbol {sym}");
        }
        // Dynamic headers: (HLIT - 257, HDIST - 1, HCLEN - 4, code length code lengths).
        let header = |hlit: u32, hclen: u32, lengths: &[u32], rest: &dyn Fn(&mut Output)| {
            stream(|out| {
                out.put(0b101, 3);
                out.put(hlit, 5);
                out.put(0, 5);
                out.put(hclen, 4);
                for &len in lengths {
                    out.put(len, 3);
                }
                rest(out);
            })
        };
        assert!(
            corrupt(&header(0, 15, &[1; 19], &|_| {})),
            "over-subscribed"
        );
        assert!(corrupt(&header(0, 0, &[2, 2, 0, 0], &|_| {})), "incomplete");
        assert!(
            corrupt(&header(30, 0, &[0, 0, 1, 1], &|_| {})),
            "287 lengths"
        );
        // Code length code {0: "0", 16: "1"}: a repeat with nothing to repeat.
        let repeat_first = header(0, 0, &[1, 0, 0, 1], &|out| out.put(0b001, 3));
        assert!(corrupt(&repeat_first), "repeat first");
        // Code length code {18: "1", 0: "0"}: 2 x 138 zeros for 258 lengths.
        let overflow = header(0, 0, &[0, 0, 1, 1], &|out| {
            out.put(1, 1);
            out.put(127, 7);
            out.put(1, 1);
            out.put(127, 7);
        });
        assert!(corrupt(&overflow), "too many lengths");
        // Literal/length codes: over-subscribed, incomplete, or without an end-of-block code.
        // Each block holds symbol 0 then the end of block, as the lengths would code them.
        let block = |lit: &[u8]| {
            stream(|out| {
                out.put(0b101, 3);
                write_header(out, lit, &[1, 1]);
                let lit = Code::new(lit.to_vec());
                lit.put(out, 0);
                lit.put(out, 256);
            })
        };
        let mut lit = vec![0u8; 257];
        (lit[0], lit[256]) = (1, 1);
        assert_eq!(inflate(&block(&lit), LIMIT), Ok(vec![0]), "the same, valid");
        (lit[0], lit[1], lit[256]) = (1, 1, 1);
        assert!(corrupt(&block(&lit)), "over-subscribed literals");
        (lit[0], lit[1], lit[256]) = (2, 0, 2);
        assert!(corrupt(&block(&lit)), "incomplete literals");
        (lit[0], lit[1], lit[256]) = (1, 1, 0);
        assert!(corrupt(&block(&lit)), "no end of block");
        // Every strict prefix of a stream is truncated (the last byte always holds code bits).
        let lesson = crate::lessons::LESSONS[0].source.as_bytes();
        let packed = deflate(lesson);
        for end in 0..packed.len() {
            assert!(corrupt(&packed[..end]), "prefix {end}");
        }
        // The output limit, in every kind of block.
        assert_eq!(inflate(&packed, lesson.len()), Ok(lesson.to_vec()));
        assert_eq!(inflate(&packed, lesson.len() - 1), Err(TooLarge));
        let aaaaa = deflate(b"aaaaa"); // fixed codes: a literal and a match of 4
        assert_eq!(inflate(&aaaaa, 5), Ok(b"aaaaa".to_vec()));
        assert_eq!(inflate(&aaaaa, 4), Err(TooLarge));
        let stored = [0x01, 0x03, 0x00, 0xfc, 0xff, b'a', b'b', b'c'];
        assert_eq!(inflate(&stored, 2), Err(TooLarge));
    }

    #[test]
    fn long_inputs_use_the_whole_window() {
        // 70 kB of scenario-like text (over the 32 KiB window and the 64 KiB text limit).
        let mut rng = crate::rng::Rng::new(7);
        let words = [
            "client ",
            "alice",
            ":\n",
            "    ",
            "get ",
            "configmap/",
            "update ",
            "409 ",
        ];
        let mut text = Vec::new();
        while text.len() < 70_000 {
            text.extend_from_slice(words[rng.below(words.len() as u32) as usize].as_bytes());
            text.extend_from_slice(rng.below(1000).to_string().as_bytes());
        }
        let packed = deflate(&text);
        assert_eq!(inflate(&packed, LIMIT), Ok(text.clone()));
        assert_eq!(miniz_inflate(&packed), Ok(text.clone()));
        let theirs = miniz_oxide::deflate::compress_to_vec(&text, 9);
        assert!(
            packed.len() <= theirs.len() * 102 / 100,
            "{} vs miniz {}",
            packed.len(),
            theirs.len()
        );
        // Random bytes repeated at exactly the largest distance: the copy costs next to nothing.
        let random: Vec<u8> = (0..WINDOW).map(|_| rng.below(256) as u8).collect();
        let twice = [random.as_slice(), random.as_slice()].concat();
        let packed = deflate(&twice);
        assert!(packed.len() < WINDOW + WINDOW / 8, "{}", packed.len());
        assert_eq!(inflate(&packed, LIMIT), Ok(twice.clone()));
        assert_eq!(miniz_inflate(&packed), Ok(twice));
    }

    #[test]
    fn short_inputs_use_fixed_codes_and_text_dynamic_ones() {
        let kind = |data: &[u8]| deflate(data)[0] >> 1 & 3;
        assert_eq!(deflate(b""), [0x03, 0x00], "zlib's empty stream");
        assert_eq!(kind(b"client alice"), 1);
        for lesson in crate::lessons::LESSONS {
            assert_eq!(kind(lesson.source.as_bytes()), 2, "{}", lesson.id);
        }
    }

    #[test]
    fn lesson_links_are_as_short_as_minizs() {
        // Links made with miniz at level 9 before; ours must not be longer than theirs.
        for lesson in crate::lessons::LESSONS {
            let ours = deflate(lesson.source.as_bytes());
            let theirs = miniz_oxide::deflate::compress_to_vec(lesson.source.as_bytes(), 9);
            assert!(
                ours.len() <= theirs.len(),
                "{}: {} vs {}",
                lesson.id,
                ours.len(),
                theirs.len()
            );
            assert_eq!(inflate(&ours, LIMIT), Ok(lesson.source.as_bytes().to_vec()));
        }
    }
}
