//! Python's `str.isprintable`, from the Unicode database of the interpreter
//! Haystack is checked against.
//!
//! Python's `repr` of a string escapes every character `isprintable` rejects:
//! the categories Other (Cc, Cf, Cs, Co, Cn) and Separator (Zl, Zp, Zs), the
//! space excepted. The ranges of those code points are generated from Python
//! 3.11 (Unicode 14.0) by `conformance/make_printable_table.py`; a newer
//! Python's database moves a few assigned code points out of `Cn`.

#[path = "printable_table.rs"]
mod table;

/// `ch.isprintable()` in Python 3.11.
pub(crate) fn is_printable(ch: char) -> bool {
    let code = ch as u32;
    if (0x20..0x7f).contains(&code) {
        return true;
    }
    !in_ranges(table::NOT_PRINTABLE, ch)
}

/// Whether `ch` lies in one of `ranges`, sorted inclusive `(start, end)`
/// code point ranges (the shape of the Unicode tables generated from Python).
pub(crate) fn in_ranges(ranges: &[(u32, u32)], ch: char) -> bool {
    let code = ch as u32;
    ranges
        .binary_search_by(|&(start, end)| {
            if end < code {
                std::cmp::Ordering::Less
            } else if start > code {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::{is_printable, table};

    #[test]
    fn the_table_is_sorted_and_disjoint() {
        for pair in table::NOT_PRINTABLE.windows(2) {
            assert!(
                pair[0].0 <= pair[0].1 && pair[0].1 + 1 < pair[1].0,
                "{pair:?}"
            );
        }
    }

    #[test]
    fn the_categories_python_rejects_are_not_printable() {
        // Cc, Zs (no-break space), Cf (soft hyphen, bidi isolate), Cn
        // (unassigned), Co (private use in the BMP and plane 15), Zl.
        for ch in [
            '\0',
            '\n',
            '\u{7f}',
            '\u{a0}',
            '\u{ad}',
            '\u{2066}',
            '\u{378}',
            '\u{e000}',
            '\u{f0000}',
            '\u{2028}',
        ] {
            assert!(!is_printable(ch), "{:?} is printable", ch);
        }
        for ch in [
            ' ',
            'a',
            '~',
            'é',
            'Ж',
            '中',
            '😀',
            '\u{10ffff}', /* Cn */
        ] {
            assert_eq!(is_printable(ch), ch != '\u{10ffff}', "{ch:?}");
        }
    }

    /// Every code point against the interpreter `HOOKHARNESS_PYTHON` names
    /// (CI sets it to the reference venv's Python 3.11), when one is named
    /// and has the table's Unicode version.
    #[test]
    fn every_code_point_agrees_with_python() {
        if !crate::reference_python::named() {
            eprintln!("HOOKHARNESS_PYTHON is not set: the table is not compared with Python");
            return;
        }
        let script = "import sys, unicodedata\n\
                      print(unicodedata.unidata_version)\n\
                      sys.stdout.write(''.join('1' if chr(c).isprintable() else '0' for c in range(0x110000)))\n";
        let text = crate::reference_python::output(script);
        let (version, flags) = text.split_once('\n').expect("two lines");
        assert_eq!(
            version,
            table::UNICODE_VERSION,
            "HOOKHARNESS_PYTHON has another Unicode database: regenerate the table with \
             conformance/make_printable_table.py if Haystack is now checked against that Python"
        );
        let mut differ = Vec::new();
        for (code, flag) in flags.bytes().enumerate() {
            let Some(ch) = char::from_u32(code as u32) else {
                continue; // surrogates: Python rejects them, no Rust `char` holds one
            };
            if is_printable(ch) != (flag == b'1') {
                differ.push(format!("U+{code:04X}"));
            }
        }
        assert!(
            differ.is_empty(),
            "{} code points differ: {:?}",
            differ.len(),
            &differ[..differ.len().min(20)]
        );
    }
}
