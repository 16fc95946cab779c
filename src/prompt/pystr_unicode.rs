//! The Unicode data behind Python's case methods (`str.lower`, `upper`,
//! `title`, `capitalize`, `casefold`, `swapcase`) and predicates
//! (`isalpha`, `isdigit`, `isnumeric`, `isalnum`, `isspace`, `islower`,
//! `isupper`, `istitle`, `isdecimal`, `isidentifier`), from the
//! database of the interpreter Haystack is checked against (Python 3.11,
//! Unicode 14.0; `conformance/make_str_tables.py` writes the table), so
//! that a template's text is Python's even where Rust's own Unicode
//! version or rules differ (Rust has no case folding, no titlecase
//! category, no final-sigma rule for `swapcase`).

#[path = "pystr_table.rs"]
mod table;

use crate::pyfmt::printable::in_ranges;
use std::borrow::Cow;

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

/// `ch.isspace()`: the whitespace of `str.split()` and `str.strip()`.
pub(super) fn is_space(ch: char) -> bool {
    in_ranges(table::SPACE, ch)
}

/// Which of Python's character predicates a `str.isX()` method asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Predicate {
    /// `isalpha`: letters.
    Alpha,
    /// `isdigit`: decimal and other digits.
    Digit,
    /// `isnumeric`: any numeric character.
    Numeric,
    /// `isalnum`: letters and numeric characters.
    Alnum,
    /// `isspace`: whitespace.
    Space,
}

impl Predicate {
    /// The predicate of a method's name, if it is one of these.
    pub(super) fn of_method(method: &str) -> Option<Predicate> {
        Some(match method {
            "isalpha" => Predicate::Alpha,
            "isdigit" => Predicate::Digit,
            "isnumeric" => Predicate::Numeric,
            "isalnum" => Predicate::Alnum,
            "isspace" => Predicate::Space,
            _ => return None,
        })
    }

    fn holds(self, ch: char) -> bool {
        match self {
            Predicate::Alpha => in_ranges(table::ALPHA, ch),
            Predicate::Digit => in_ranges(table::DIGIT, ch),
            Predicate::Numeric => in_ranges(table::NUMERIC, ch),
            // Decimal and digit characters are numeric ones.
            Predicate::Alnum => in_ranges(table::ALPHA, ch) || in_ranges(table::NUMERIC, ch),
            Predicate::Space => is_space(ch),
        }
    }

    /// `text.isX()`: not empty, and every character has the property.
    pub(super) fn test(self, text: &str) -> bool {
        !text.is_empty() && text.chars().all(|ch| self.holds(ch))
    }
}

/// `str.islower()` (`upper` false) or `str.isupper()` (`upper` true): no
/// character of the other case or titlecase, and at least one of this one.
pub(super) fn is_cased_as(text: &str, upper: bool) -> bool {
    let mut cased = false;
    for ch in text.chars() {
        let (this, other) = if upper {
            (is_upper(ch), is_lower(ch))
        } else {
            (is_lower(ch), is_upper(ch))
        };
        if other || in_ranges(table::TITLE, ch) {
            return false;
        }
        cased |= this;
    }
    cased
}

/// Which case mapping `str.lower`, `upper`, `title` or `capitalize` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Case {
    /// `lower`: every character lowered, a capital sigma by its place.
    Lower,
    /// `upper`: every character raised.
    Upper,
    /// `title`: the first cased letter of each run titlecased, the
    /// others lowered.
    Title,
    /// `capitalize`: the first character titlecased, the others lowered.
    Capitalize,
}

impl Case {
    /// The case of a method's name, if it is one of these.
    pub(super) fn of_method(method: &str) -> Option<Case> {
        Some(match method {
            "lower" => Case::Lower,
            "upper" => Case::Upper,
            "title" => Case::Title,
            "capitalize" => Case::Capitalize,
            _ => return None,
        })
    }

    /// Each character's mapping, as CPython's `do_lower`, `do_upper`,
    /// `do_title` and `do_capitalize` (its `lower_ucs4` decides a capital
    /// sigma by the word around it).
    fn each(self, text: &str, mut push: impl FnMut(char, Option<&'static str>)) {
        let chars: Vec<char> = text.chars().collect();
        let lower = |i: usize, ch: char| -> (char, Option<&'static str>) {
            if ch == '\u{3a3}' {
                (
                    if final_sigma(&chars, i) {
                        '\u{3c2}'
                    } else {
                        '\u{3c3}'
                    },
                    None,
                )
            } else {
                (ch, mapped(table::LOWER_MAP, ch))
            }
        };
        let mut previous_cased = false;
        for (i, &ch) in chars.iter().enumerate() {
            let (ch2, text) = match self {
                Case::Upper => (ch, mapped(table::UPPER_MAP, ch)),
                Case::Lower => lower(i, ch),
                Case::Capitalize if i == 0 => (ch, mapped(table::TITLE_MAP, ch)),
                Case::Capitalize => lower(i, ch),
                Case::Title if previous_cased => lower(i, ch),
                Case::Title => (ch, mapped(table::TITLE_MAP, ch)),
            };
            previous_cased = in_ranges(table::CASED_ANY, ch);
            push(ch2, text);
        }
    }

    /// The bytes of the mapped text, counted before it is built.
    pub(super) fn len(self, text: &str) -> usize {
        let mut size = 0usize;
        self.each(text, |ch, mapped| {
            size = size.saturating_add(mapped.map_or(ch.len_utf8(), str::len));
        });
        size
    }

    /// The mapped text.
    pub(super) fn apply(self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        self.each(text, |ch, mapped| match mapped {
            Some(text) => out.push_str(text),
            None => out.push(ch),
        });
        out
    }
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
    !text.is_empty() && text.chars().all(is_decimal)
}

/// A decimal digit (Nd): the `\d` of Python's regular expressions.
pub(super) fn is_decimal(ch: char) -> bool {
    in_ranges(table::DECIMAL, ch)
}

/// The value of a decimal digit (Nd): each run of them in Unicode counts
/// from 0 to 9, and the table's ranges are whole runs.
fn decimal_value(ch: char) -> Option<u32> {
    let code = ch as u32;
    let at = table::DECIMAL.partition_point(|&(_, end)| end < code);
    let &(start, end) = table::DECIMAL.get(at)?;
    (start <= code && code <= end).then_some((code - start) % 10)
}

/// CPython's `_PyUnicode_TransformDecimalAndSpaceToASCII`, which `int()`
/// and `float()` read a string through: a decimal digit of any script as
/// its ASCII digit, whitespace as a space, the text cut at the first other
/// character past ASCII (left as `?`, which no number reads).
pub(super) fn decimal_and_space_to_ascii(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if (ch as u32) < 127 {
            out.push(ch);
        } else if is_space(ch) {
            out.push(' ');
        } else if let Some(digit) = decimal_value(ch) {
            out.push(char::from(b'0' + digit as u8));
        } else {
            out.push('?');
            break;
        }
    }
    Cow::Owned(out)
}

/// The `\w` of Python's regular expressions: `isalnum()` or `_`.
pub(super) fn is_word(ch: char) -> bool {
    ch == '_' || Predicate::Alnum.holds(ch)
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
            table::CASED_ANY,
            table::ALPHA,
            table::DIGIT,
            table::NUMERIC,
            table::SPACE,
        ] {
            for pair in ranges.windows(2) {
                assert!(pair[0].0 <= pair[0].1 && pair[0].1 < pair[1].0, "{pair:?}");
            }
        }
        for map in [
            table::LOWER_MAP,
            table::UPPER_MAP,
            table::FOLD_MAP,
            table::TITLE_MAP,
        ] {
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
        assert_eq!(Case::Lower.apply("ΟΔΟΣ ΑΣ.Σ İ"), "οδος ασ.ς i\u{307}");
        assert_eq!(Case::Upper.apply("straße ﬁ"), "STRASSE FI");
        assert_eq!(
            Case::Title.apply("hello wORLD ǆx 1a ßa"),
            "Hello World ǅx 1A Ssa"
        );
        assert_eq!(Case::Capitalize.apply("ǆX ΑΣ"), "ǅx ας");
        for case in [Case::Lower, Case::Upper, Case::Title, Case::Capitalize] {
            let text = "Straße ΣΑΣ ﬁ ǅ İ";
            assert_eq!(case.len(text), case.apply(text).len());
        }
        assert!(Predicate::Alpha.test("été") && !Predicate::Alpha.test("a1"));
        assert!(Predicate::Digit.test("1²") && !Predicate::Digit.test("½"));
        assert!(Predicate::Numeric.test("½一") && !Predicate::Numeric.test(""));
        assert!(Predicate::Alnum.test("a½") && !Predicate::Alnum.test("a "));
        assert!(
            Predicate::Space.test(" \u{1c}\u{85}\u{3000}") && !Predicate::Space.test("\u{200b}")
        );
        assert!(is_cased_as("ab1", false) && !is_cased_as("aǅ", false) && !is_cased_as("1", false));
        assert!(is_cased_as("AB1", true) && !is_cased_as("Ab", true));
    }

    /// Every code point, and words around a capital sigma, against the
    /// interpreter `HOOKHARNESS_PYTHON` names (CI sets it to the reference
    /// venv's Python 3.11), when one is named and has the table's Unicode
    /// version.
    #[test]
    fn every_code_point_agrees_with_python() {
        if !crate::reference_python::named() {
            eprintln!("HOOKHARNESS_PYTHON is not set: the tables are not compared with Python");
            return;
        }
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
        ch.istitle(), ch.isdecimal(), ch.isidentifier(), ("a" + ch).isidentifier(),
        ch.isalpha(), ch.isdigit(), ch.isnumeric(), ch.isalnum(), ch.isspace(),
        (ch + "a").islower(), (ch + "A").isupper()))
    print(c, flags, hexes(ch.casefold()), hexes(ch.swapcase()), hexes(ch.lower()),
          hexes(ch.upper()), hexes((ch + "A").title()), hexes((ch + "A").capitalize()))
"#;
        let text = crate::reference_python::output(script);
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
                Predicate::Alpha.test(&s),
                Predicate::Digit.test(&s),
                Predicate::Numeric.test(&s),
                Predicate::Alnum.test(&s),
                Predicate::Space.test(&s),
                is_cased_as(&format!("{ch}a"), false),
                is_cased_as(&format!("{ch}A"), true),
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
            let pair = format!("{ch}A");
            for (case, text, field) in [
                (Case::Lower, &s, 4),
                (Case::Upper, &s, 5),
                (Case::Title, &pair, 6),
                (Case::Capitalize, &pair, 7),
            ] {
                if case.apply(text) != unescape(fields[field]) {
                    differ.push(format!("U+{:04X} {case:?}", ch as u32));
                }
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
