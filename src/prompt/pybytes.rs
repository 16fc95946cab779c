//! Python's `str.encode` and what a template can do with the `bytes` it
//! gives: print it (`b'caf\xc3\xa9'`), take its length, index and iterate
//! it (integers), `decode` and `hex` it. The codecs are UTF-8, ASCII,
//! Latin-1, UTF-16 and UTF-32 under Python's names and aliases, with the
//! error handlers `strict`, `ignore`, `replace`, `backslashreplace` and
//! `xmlcharrefreplace`; another codec or handler Python has is refused by
//! name (docs/deviations.md, `prompt-codecs`). An encoding's size is paid
//! for from the rendering's budget before the bytes are built.

use super::budget;
use super::pystr::clinic_type;
use super::render::haystack_error;
use minijinja::value::{Value as JinjaValue, ValueKind};
use minijinja::{Error, State};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Codec {
    Utf8,
    Ascii,
    Latin1,
    Utf16(Option<bool>),
    Utf32(Option<bool>),
}

impl Codec {
    /// The name Python's errors give the codec.
    fn name(self) -> &'static str {
        match self {
            Codec::Utf8 => "utf-8",
            Codec::Ascii => "ascii",
            Codec::Latin1 => "latin-1",
            Codec::Utf16(None) => "utf-16",
            Codec::Utf16(Some(true)) => "utf-16-be",
            Codec::Utf16(Some(false)) => "utf-16-le",
            Codec::Utf32(None) => "utf-32",
            Codec::Utf32(Some(true)) => "utf-32-be",
            Codec::Utf32(Some(false)) => "utf-32-le",
        }
    }
}

/// Python's codec registry for `name` (`encodings.normalize_encoding`,
/// then `encodings.aliases`): `LookupError` for a name it does not know,
/// and a harness error for a codec it has that the harness does not.
fn codec(name: &str) -> Result<Codec, Error> {
    let mut normal = String::new();
    let mut gap = false;
    for ch in name.chars() {
        if ch.is_alphanumeric() || ch == '.' {
            if gap && !normal.is_empty() {
                normal.push('_');
            }
            normal.extend(ch.to_lowercase());
            gap = false;
        } else {
            gap = true;
        }
    }
    let found = match normal.as_str() {
        "utf_8" | "utf8" | "u8" | "utf" | "utf8_ucs2" | "utf8_ucs4" | "cp65001" => Codec::Utf8,
        "ascii" | "646" | "ansi_x3.4_1968" | "ansi_x3_4_1968" | "ansi_x3.4_1986" | "cp367"
        | "csascii" | "ibm367" | "iso646_us" | "iso_646.irv_1991" | "iso_ir_6" | "us"
        | "us_ascii" => Codec::Ascii,
        "latin_1" | "8859" | "cp819" | "csisolatin1" | "ibm819" | "iso8859" | "iso8859_1"
        | "iso_8859_1" | "iso_8859_1_1987" | "iso_ir_100" | "l1" | "latin" | "latin1" => {
            Codec::Latin1
        }
        "utf_16" | "u16" | "utf16" => Codec::Utf16(None),
        "utf_16_be" | "utf_16be" | "unicodebigunmarked" => Codec::Utf16(Some(true)),
        "utf_16_le" | "utf_16le" | "unicodelittleunmarked" => Codec::Utf16(Some(false)),
        "utf_32" | "u32" | "utf32" => Codec::Utf32(None),
        "utf_32_be" | "utf_32be" => Codec::Utf32(Some(true)),
        "utf_32_le" | "utf_32le" => Codec::Utf32(Some(false)),
        _ => {
            return Err(haystack_error(format!(
                "LookupError: unknown encoding: {name} (or a codec of Python's the harness \
                 does not have: it encodes UTF-8, ASCII, Latin-1, UTF-16 and UTF-32; \
                 docs/deviations.md, `prompt-codecs`)"
            )));
        }
    };
    Ok(found)
}

fn harness_refusal(what: &str) -> Error {
    haystack_error(format!("the prompt template uses {what}"))
}

/// The error handlers the harness has.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Handler {
    Strict,
    Ignore,
    Replace,
    BackslashReplace,
    XmlCharRefReplace,
}

/// The handler named `name`, looked up (as Python does) only when a
/// character or byte the codec cannot take is met.
fn handler(name: &str, encoding: bool) -> Result<Handler, Error> {
    match name {
        // `surrogateescape` and `surrogatepass` handle lone surrogates
        // only, which a template's text cannot hold: the error stands.
        "strict" | "surrogateescape" | "surrogatepass" => Ok(Handler::Strict),
        "ignore" => Ok(Handler::Ignore),
        "replace" => Ok(Handler::Replace),
        "backslashreplace" => Ok(Handler::BackslashReplace),
        "xmlcharrefreplace" if encoding => Ok(Handler::XmlCharRefReplace),
        "namereplace" if encoding => Err(harness_refusal(
            "the error handler 'namereplace' (the harness has no Unicode names; \
             docs/deviations.md, `prompt-codecs`)",
        )),
        // Python's decoders reject the encoders' handlers.
        "xmlcharrefreplace" | "namereplace" => Err(type_error(
            "don't know how to handle UnicodeDecodeError in error callback",
        )),
        _ => Err(haystack_error(format!(
            "LookupError: unknown error handler name '{name}'"
        ))),
    }
}

fn type_error(message: &str) -> Error {
    haystack_error(format!("TypeError: {message}"))
}

/// The `encoding` and `errors` arguments of `str.encode` and
/// `bytes.decode`, as Python parses them.
fn codec_args(method: &str, args: &[JinjaValue]) -> Result<(String, String), Error> {
    let (positional, kwargs) = match args.split_last() {
        Some((last, rest)) if last.is_kwargs() => (rest, Some(last)),
        _ => (args, None),
    };
    if positional.len() > 2 {
        return Err(type_error(&format!(
            "{method}() takes at most 2 arguments ({} given)",
            positional.len()
        )));
    }
    let names = ["encoding", "errors"];
    let mut values: [Option<JinjaValue>; 2] =
        [positional.first().cloned(), positional.get(1).cloned()];
    if let Some(kwargs) = kwargs {
        for key in kwargs.try_iter().into_iter().flatten() {
            let key = key.as_str().unwrap_or_default().to_owned();
            let Some(index) = names.iter().position(|n| *n == key) else {
                return Err(type_error(&format!(
                    "'{key}' is an invalid keyword argument for {method}()"
                )));
            };
            if values[index].is_some() {
                return Err(type_error(&format!(
                    "argument for {method}() given by name ('{key}') and position ({})",
                    index + 1
                )));
            }
            values[index] = kwargs.get_attr(&key).ok();
        }
    }
    let text = |index: usize, default: &str| -> Result<String, Error> {
        match &values[index] {
            None => Ok(default.to_owned()),
            Some(v) if v.kind() == ValueKind::String => Ok(v.as_str().unwrap_or("").to_owned()),
            Some(v) => Err(type_error(&format!(
                "{method}() argument '{}' must be str, not {}",
                names[index],
                clinic_type(v)
            ))),
        }
    };
    Ok((text(0, "utf-8")?, text(1, "strict")?))
}

/// Python's escape of a code point in errors and `backslashreplace`.
fn escaped(code: u32) -> String {
    match code {
        0..=0xff => format!("\\x{code:02x}"),
        0x100..=0xffff => format!("\\u{code:04x}"),
        _ => format!("\\U{code:08x}"),
    }
}

/// `str.encode(encoding='utf-8', errors='strict')`.
pub(super) fn encode(state: &State, text: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let (encoding, errors) = codec_args("encode", args)?;
    let codec = codec(&encoding)?;
    let limit: u32 = match codec {
        Codec::Ascii => 0x80,
        Codec::Latin1 => 0x100,
        Codec::Utf8 => {
            budget::ensure_bytes(state, text.len())?;
            return Ok(JinjaValue::from_bytes(text.as_bytes().to_vec()));
        }
        Codec::Utf16(order) => {
            let units = text.encode_utf16().count();
            budget::ensure_bytes(state, units.saturating_add(1).saturating_mul(2))?;
            let big = order.unwrap_or(false);
            let mut out = Vec::with_capacity((units + 1) * 2);
            if order.is_none() {
                out.extend([0xff, 0xfe]);
            }
            for unit in text.encode_utf16() {
                out.extend(if big {
                    unit.to_be_bytes()
                } else {
                    unit.to_le_bytes()
                });
            }
            return Ok(JinjaValue::from_bytes(out));
        }
        Codec::Utf32(order) => {
            let chars = text.chars().count();
            budget::ensure_bytes(state, chars.saturating_add(1).saturating_mul(4))?;
            let big = order.unwrap_or(false);
            let mut out = Vec::with_capacity((chars + 1) * 4);
            if order.is_none() {
                out.extend([0xff, 0xfe, 0, 0]);
            }
            for ch in text.chars() {
                let code = ch as u32;
                out.extend(if big {
                    code.to_be_bytes()
                } else {
                    code.to_le_bytes()
                });
            }
            return Ok(JinjaValue::from_bytes(out));
        }
    };
    let chars: Vec<char> = text.chars().collect();
    // Two passes: the size, paid for, then the bytes.
    let mut size = 0usize;
    for pass in 0..2 {
        let mut out = Vec::with_capacity(if pass == 1 { size } else { 0 });
        let mut i = 0;
        while i < chars.len() {
            let code = chars[i] as u32;
            if code < limit {
                if pass == 1 {
                    out.push(code as u8);
                }
                size += usize::from(pass == 0);
                i += 1;
                continue;
            }
            let end = i + chars[i..]
                .iter()
                .take_while(|c| **c as u32 >= limit)
                .count();
            let mut piece = String::new();
            match handler(&errors, true)? {
                Handler::Strict => {
                    let what = if end - i == 1 {
                        format!("character '{}' in position {i}", escaped(code))
                    } else {
                        format!("characters in position {i}-{}", end - 1)
                    };
                    return Err(haystack_error(format!(
                        "UnicodeEncodeError: '{}' codec can't encode {what}: ordinal not in range({limit})",
                        codec.name()
                    )));
                }
                Handler::Ignore => {}
                Handler::Replace => piece = "?".repeat(end - i),
                Handler::BackslashReplace => {
                    piece = chars[i..end].iter().map(|c| escaped(*c as u32)).collect();
                }
                Handler::XmlCharRefReplace => {
                    piece = chars[i..end]
                        .iter()
                        .map(|c| format!("&#{};", *c as u32))
                        .collect();
                }
            }
            if pass == 0 {
                size += piece.len();
            } else {
                out.extend(piece.bytes());
            }
            i = end;
        }
        if pass == 0 {
            budget::ensure_bytes(state, size)?;
        } else {
            return Ok(JinjaValue::from_bytes(out));
        }
    }
    unreachable!("the second pass returns")
}

/// A method of a `bytes` value: `decode` and `hex`.
pub(super) fn bytes_method(
    state: &State,
    bytes: &[u8],
    method: &str,
    args: &[JinjaValue],
) -> Option<Result<JinjaValue, Error>> {
    match method {
        "decode" => Some(decode(state, bytes, args)),
        "hex" if args.is_empty() => Some(
            budget::ensure_bytes(state, bytes.len().saturating_mul(2)).map(|()| {
                JinjaValue::from(bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
            }),
        ),
        _ => None,
    }
}

/// `bytes.decode(encoding='utf-8', errors='strict')`.
fn decode(state: &State, bytes: &[u8], args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let (encoding, errors) = codec_args("decode", args)?;
    let codec = codec(&encoding)?;
    let decode_error = |start: usize, end: usize, reason: &str| {
        let what = if end - start == 1 {
            format!("byte 0x{:02x} in position {start}", bytes[start])
        } else {
            format!("bytes in position {start}-{}", end - 1)
        };
        haystack_error(format!(
            "UnicodeDecodeError: '{}' codec can't decode {what}: {reason}",
            codec.name()
        ))
    };
    // A decoded text is at most three bytes per byte (U+FFFD for one).
    budget::ensure_bytes(state, bytes.len().saturating_mul(4))?;
    let mut out = String::new();
    match codec {
        Codec::Latin1 => out.extend(bytes.iter().map(|b| char::from(*b))),
        Codec::Ascii => {
            for (i, b) in bytes.iter().enumerate() {
                if b.is_ascii() {
                    out.push(char::from(*b));
                    continue;
                }
                match handler(&errors, false)? {
                    Handler::Strict => {
                        return Err(decode_error(i, i + 1, "ordinal not in range(128)"));
                    }
                    Handler::Replace => out.push('\u{fffd}'),
                    Handler::BackslashReplace => out.push_str(&escaped(u32::from(*b))),
                    _ => {}
                }
            }
        }
        Codec::Utf8 => {
            let mut rest = bytes;
            let mut at = 0;
            loop {
                match std::str::from_utf8(rest) {
                    Ok(text) => {
                        out.push_str(text);
                        break;
                    }
                    Err(error) => {
                        let good = error.valid_up_to();
                        out.push_str(std::str::from_utf8(&rest[..good]).unwrap_or_default());
                        let (bad, reason) = match error.error_len() {
                            None => (rest.len() - good, "unexpected end of data"),
                            Some(n) if matches!(rest[good], 0xc2..=0xf4) => {
                                (n, "invalid continuation byte")
                            }
                            Some(n) => (n, "invalid start byte"),
                        };
                        match handler(&errors, false)? {
                            Handler::Strict => {
                                return Err(decode_error(at + good, at + good + bad, reason));
                            }
                            Handler::Replace => out.push('\u{fffd}'),
                            Handler::BackslashReplace => {
                                for b in &rest[good..good + bad] {
                                    out.push_str(&escaped(u32::from(*b)));
                                }
                            }
                            _ => {}
                        }
                        rest = &rest[good + bad..];
                        at += good + bad;
                    }
                }
            }
        }
        Codec::Utf16(_) | Codec::Utf32(_) => {
            return Err(harness_refusal(&format!(
                "bytes.decode({:?}) (the harness decodes UTF-8, ASCII and Latin-1 only; \
                 docs/deviations.md, `prompt-codecs`)",
                codec.name()
            )));
        }
    }
    Ok(JinjaValue::from(out))
}

/// Python's `repr` of `bytes`: `b'...'` (`b"..."` when it holds a `'`
/// and no `"`), with `\\`, `\t`, `\n`, `\r` and `\xNN` escapes.
pub(super) fn bytes_repr(bytes: &[u8]) -> String {
    let quote = if bytes.contains(&b'\'') && !bytes.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(bytes.len() + 3);
    out.push('b');
    out.push(quote);
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b if char::from(b) == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push(quote);
    out
}
