//! Numbers appended to output text without the formatting machinery: the outputs of a
//! NIC-scale map write hundreds of thousands of them, and every generator shares these.

/// Appends `0x` and at least `digits` lower-case hex digits, without the formatting machinery
/// (the outputs of a NIC-scale map write hundreds of thousands of them).
pub fn push_hex(out: &mut String, value: u64, digits: usize) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut buf = [0u8; 16];
    let mut start = buf.len();
    let mut n = value;
    loop {
        start -= 1;
        buf[start] = HEX[(n & 0xf) as usize];
        n >>= 4;
        if n == 0 {
            break;
        }
    }
    out.push_str("0x");
    for _ in (buf.len() - start)..digits {
        out.push('0');
    }
    push_ascii(out, &buf[start..]);
}

/// Appends `value` in decimal without the formatting machinery.
pub fn push_decimal(out: &mut String, value: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut n = value;
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    push_ascii(out, &digits[start..]);
}

/// Appends `text` upper-cased: in place for an ASCII name (no temporary string), through
/// `str::to_uppercase` otherwise.
pub fn push_upper(out: &mut String, text: &str) {
    if text.is_ascii() {
        let start = out.len();
        out.push_str(text);
        out[start..].make_ascii_uppercase();
    } else {
        out.push_str(&text.to_uppercase());
    }
}

/// Appends a few ASCII digits byte by byte: cheaper than checking them with `str::from_utf8`
/// first, which cost about as much as producing them.
fn push_ascii(out: &mut String, digits: &[u8]) {
    out.reserve(digits.len());
    for &d in digits {
        out.push(char::from(d));
    }
}

/// True when `text` is its words joined by single spaces (what `split_whitespace` and a join
/// with `' '` would give): not empty, no space at either end, no two spaces in a row and no
/// other white space. Comment wrappers use it to keep a text that is already one line whole.
pub fn single_spaced(text: &str) -> bool {
    let b = text.as_bytes();
    if b.is_empty() || b[0] == b' ' || b[b.len() - 1] == b' ' {
        return false;
    }
    // One pass over the bytes (the comment of every field comes here); characters only when
    // there is non-ASCII text, whose white space `split_whitespace` would also split at.
    let mut prev = 0u8;
    let mut ascii = true;
    for &c in b {
        if (c == b' ' && prev == b' ') || (b'\t'..=b'\r').contains(&c) {
            return false;
        }
        ascii &= c.is_ascii();
        prev = c;
    }
    ascii || text.chars().all(|c| c == ' ' || !c.is_whitespace())
}

#[cfg(test)]
mod tests {

    #[test]
    fn single_spaced_is_split_and_joined_text() {
        for text in [
            "",
            " a",
            "a ",
            "a  b",
            "a\tb",
            "a\nb",
            "a\u{a0}b",
            "a\u{2003}b",
        ] {
            let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(
                super::single_spaced(text),
                !text.is_empty() && joined == text,
                "{text:?}"
            );
        }
        assert!(super::single_spaced("one line, é and ü"));
    }
    #[test]
    fn hand_written_numbers_match_format() {
        for v in [0u64, 1, 9, 10, 0xabc, 0x1000, 0xdead_beef, u64::MAX] {
            for d in [1usize, 4, 8] {
                let mut s = String::new();
                super::push_hex(&mut s, v, d);
                assert_eq!(s, format!("{v:#0w$x}", w = d + 2));
            }
        }
        for v in [0u32, 7, 10, 99, 100, 4095, u32::MAX] {
            let mut s = String::new();
            super::push_decimal(&mut s, u64::from(v));
            assert_eq!(s, v.to_string());
        }
        for t in ["", "vf0_ctrl", "Mixed_Case9", "straße", "ǆ"] {
            let mut s = String::from("X_");
            super::push_upper(&mut s, t);
            assert_eq!(s, format!("X_{}", t.to_uppercase()));
        }
    }
}
