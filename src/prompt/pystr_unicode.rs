//! The Unicode data behind Python's `str.casefold`, `str.swapcase`,
//! `str.istitle`, `str.isdecimal` and `str.isidentifier`, from the
//! database of the interpreter Haystack is checked against (Python 3.11,
//! Unicode 14.0; `conformance/make_str_tables.py` writes the table), so
//! that a template's text is Python's even where Rust's own Unicode
//! version or rules differ (Rust has no case folding, no titlecase
//! category, no final-sigma rule for `swapcase`).

#[path = "pystr_table.rs"]
mod table;

use crate::pyfmt::printable::in_ranges;

fn mapped(map: &'static [(u32, &'static str)], ch: char) -> Option<&'static str> {
    map.binary_search_by_key(&(ch as u32), |&(code, _)| code)
        .ok()
        .map(|at| map[at].1)
}

fn push_mapped(out: &mut String, map: &'static [(u32, &'static str)], ch: char) {
    match mapped(map, ch) {
        Some(text) => out.push_str(text),
        None => out.push(ch),
    }
}

/// `ch.isupper()`.
fn is_upper(ch: char) -> bool {
    in_ranges(table::UPPER, ch)
}

/// `ch.islower()`.
fn is_lower(ch: char) -> bool {
    in_ranges(table::LOWER, ch)
}

/// The bytes of `str.casefold()`'s result, counted before it is built.
pub(super) fn casefold_len(text: &str) -> usize {
    text.chars()
        .map(|ch| mapped(table::FOLD_MAP, ch).map_or(ch.len_utf8(), str::len))
        .sum()
}

/// The bytes of `str.swapcase()`'s result, counted before it is built
/// (a final sigma is as long as the other).
pub(super) fn swapcase_len(text: &str) -> usize {
    text.chars()
        .map(|ch| {
            let map = if is_upper(ch) {
                table::LOWER_MAP
            } else if is_lower(ch) {
                table::UPPER_MAP
            } else {
                return ch.len_utf8();
            };
            mapped(map, ch).map_or(ch.len_utf8(), str::len)
        })
        .sum()
}

/// `str.casefold()`: each character's full case folding.
pub(super) fn casefold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        push_mapped(&mut out, table::FOLD_MAP, ch);
    }
    out
}

/// `str.swapcase()`: capitals lowered, small letters raised (full
/// mappings), a capital sigma lowered to a final sigma at the end of a
/// word, as CPython's `do_swapcase`.
pub(super) fn swapcase(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &ch) in chars.iter().enumerate() {
        if is_upper(ch) {
            if ch == '\u{3a3}' {
                out.push(if final_sigma(&chars, i) {
                    '\u{3c2}'
                } else {
                    '\u{3c3}'
                });
            } else {
                push_mapped(&mut out, table::LOWER_MAP, ch);
            }
        } else if is_lower(ch) {
            push_mapped(&mut out, table::UPPER_MAP, ch);
        } else {
            out.push(ch);
        }
    }
    out
}

/// CPython's `handle_capital_sigma`: a cased letter before the sigma
/// (case-ignorable characters skipped) and none after it.
fn final_sigma(chars: &[char], at: usize) -> bool {
    let not_ignorable = |ch: &&char| !in_ranges(table::CASE_IGNORABLE, **ch);
    let cased = |ch: &char| in_ranges(table::CASED, *ch);
    let before = chars[..at].iter().rev().find(not_ignorable);
    if !before.is_some_and(cased) {
        return false;
    }
    !chars[at + 1..]
        .iter()
        .find(not_ignorable)
        .is_some_and(cased)
}

/// `str.istitle()`: every capital (or titlecase letter) starts a run of
/// cased letters and every small letter follows one; at least one cased.
pub(super) fn istitle(text: &str) -> bool {
    let (mut cased, mut previous_cased) = (false, false);
    for ch in text.chars() {
        if is_upper(ch) || in_ranges(table::TITLE, ch) {
            if previous_cased {
                return false;
            }
            previous_cased = true;
            cased = true;
        } else if is_lower(ch) {
            if !previous_cased {
                return false;
            }
            previous_cased = true;
            cased = true;
        } else {
            previous_cased = false;
        }
    }
    cased
}

/// `str.isdecimal()`: not empty, every character a decimal digit (Nd).
pub(super) fn isdecimal(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|ch| in_ranges(table::DECIMAL, ch))
}

/// `str.isidentifier()`: XID_Start or `_`, then XID_Continue.
pub(super) fn isidentifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|first| in_ranges(table::XID_START, first))
        && chars.all(|ch| in_ranges(table::XID_CONTINUE, ch))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn the_tables_are_sorted_and_disjoint() {
        for ranges in [
            table::UPPER,
            table::LOWER,
            table::TITLE,
            table::DECIMAL,
            table::XID_START,
            table::XID_CONTINUE,
            table::CASE_IGNORABLE,
            table::CASED,
        ] {
            for pair in ranges.windows(2) {
                assert!(pair[0].0 <= pair[0].1 && pair[0].1 < pair[1].0, "{pair:?}");
            }
        }
        for map in [table::LOWER_MAP, table::UPPER_MAP, table::FOLD_MAP] {
            assert!(map.windows(2).all(|pair| pair[0].0 < pair[1].0));
        }
    }

    #[test]
    fn known_cases() {
        assert_eq!(casefold("Straße ΣΑΣ ﬁ"), "strasse σασ fi");
        assert_eq!(swapcase("aBc ΑΣ ΑΣ. ß ǅ"), "AbC ας ας. SS ǅ");
        assert_eq!(swapcase("Σ"), "σ");
        for text in ["Straße ΣΑΣ ﬁ", "aBc ΑΣ ΑΣ. ß ǅ ΐ", ""] {
            assert_eq!(casefold_len(text), casefold(text).len());
            assert_eq!(swapcase_len(text), swapcase(text).len());
        }
        assert!(istitle("Hello World") && istitle("ǅungla") && istitle("A1 B"));
        assert!(!istitle("hello") && !istitle("HeLLo") && !istitle("") && !istitle("1"));
        assert!(isdecimal("0١२") && !isdecimal("½") && !isdecimal("²") && !isdecimal(""));
        assert!(isidentifier("_x1") && isidentifier("été") && isidentifier("℘"));
        assert!(!isidentifier("1a") && !isidentifier("") && !isidentifier("a-b"));
    }

    /// Every code point, and words around a capital sigma, against the
    /// interpreter `HOOKHARNESS_PYTHON` names (CI sets it to the reference
    /// venv's Python 3.11), when one is named and has the table's Unicode
    /// version.
    #[test]
    fn every_code_point_agrees_with_python() {
        let Some(python) = std::env::var_os("HOOKHARNESS_PYTHON").filter(|p| !p.is_empty()) else {
            eprintln!("HOOKHARNESS_PYTHON is not set: the tables are not compared with Python");
            return;
        };
        let script = r#"
import sys, unicodedata
def hexes(s):
    return "-".join(f"{ord(c):x}" for c in s) or "-"
print(unicodedata.unidata_version)
words = ["ΑΣ", "ΑΣ.", "Α'Σ", "Σ", "ΑΣΑ", "Α.Σ'Α", "aΣ\u0345", "ʰΣ", "1Σ", "ᾈΣ ", "\u0345Σ"]
for word in words:
    print(hexes(word), hexes(word.swapcase()))
for c in range(0x110000):
    if 0xD800 <= c <= 0xDFFF:
        continue
    ch = chr(c)
    flags = "".join("1" if f else "0" for f in (
        ch.istitle(), ch.isdecimal(), ch.isidentifier(), ("a" + ch).isidentifier()))
    print(c, flags, hexes(ch.casefold()), hexes(ch.swapcase()))
"#;
        let output = Command::new(&python)
            .args(["-c", script])
            .output()
            .expect("HOOKHARNESS_PYTHON runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = String::from_utf8(output.stdout).expect("ASCII");
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some(table::UNICODE_VERSION),
            "HOOKHARNESS_PYTHON has another Unicode database: regenerate the tables with \
             conformance/make_str_tables.py if Haystack is now checked against that Python"
        );
        // Code points in hex, joined by `-`.
        let unescape = |s: &str| -> String {
            s.split('-')
                .filter(|h| !h.is_empty())
                .map(|h| char::from_u32(u32::from_str_radix(h, 16).unwrap()).unwrap())
                .collect()
        };
        let mut differ = Vec::new();
        for _ in 0..11 {
            let line = lines.next().expect("a word");
            let (word, swapped) = line.split_once(' ').expect("two fields");
            let (word, swapped) = (unescape(word), unescape(swapped));
            if swapcase(&word) != swapped {
                differ.push(format!("swapcase({word:?})"));
            }
        }
        for line in lines {
            let fields: Vec<&str> = line.split(' ').collect();
            let ch = char::from_u32(fields[0].parse().unwrap()).unwrap();
            let s = ch.to_string();
            let flags = [
                istitle(&s),
                isdecimal(&s),
                isidentifier(&s),
                isidentifier(&format!("a{ch}")),
            ];
            let expected: Vec<bool> = fields[1].bytes().map(|b| b == b'1').collect();
            if flags[..] != expected[..] {
                differ.push(format!("U+{:04X} flags", ch as u32));
            }
            if casefold(&s) != unescape(fields[2]) {
                differ.push(format!("U+{:04X} casefold", ch as u32));
            }
            if swapcase(&s) != unescape(fields[3]) {
                differ.push(format!("U+{:04X} swapcase", ch as u32));
            }
        }
        assert!(
            differ.is_empty(),
            "{} differ: {:?}",
            differ.len(),
            &differ[..differ.len().min(20)]
        );
    }
}
