//! Python's binding of a filter's arguments to its parameters, with its
//! `TypeError` texts (`do_indent() got an unexpected keyword argument
//! 'foo'`), for the filters the harness writes as Jinja2 does.

use super::jinja2::HINTS_KEYWORD;
use super::pystr::type_error;
use super::render::haystack_error;
use minijinja::Error;
use minijinja::value::{Kwargs, Value as JinjaValue};

/// A Jinja2 filter function's parameters, as Python binds a call to them.
pub(super) struct Signature {
    /// The Python function's name (`do_indent`).
    pub(super) function: &'static str,
    /// The positional parameters before the filter's own arguments: the
    /// value filtered, and a context Jinja2 passes first for some.
    pub(super) leading: usize,
    /// The filter's own parameters, in order.
    pub(super) parameters: &'static [&'static str],
    /// How many of them, from the first, are required.
    pub(super) required: usize,
}

impl Signature {
    /// Each parameter's argument (`None` when not given), or Python's
    /// `TypeError` for a call it does not bind.
    pub(super) fn bind(
        &self,
        positional: &[JinjaValue],
        kwargs: &Kwargs,
    ) -> Result<Vec<Option<JinjaValue>>, Error> {
        let function = self.function;
        if positional.len() > self.parameters.len() {
            let most = self.leading + self.parameters.len();
            let least = self.leading + self.required;
            let takes = if least == most {
                most.to_string()
            } else {
                format!("from {least} to {most}")
            };
            let plural = if most == 1 { "" } else { "s" };
            return Err(type_error(format!(
                "{function}() takes {takes} positional argument{plural} but {} were given",
                self.leading + positional.len()
            )));
        }
        let mut bound: Vec<Option<JinjaValue>> = positional.iter().cloned().map(Some).collect();
        bound.resize(self.parameters.len(), None);
        for name in kwargs.args().filter(|name| *name != HINTS_KEYWORD) {
            let Some(index) = self.parameters.iter().position(|p| *p == name) else {
                return Err(type_error(format!(
                    "{function}() got an unexpected keyword argument '{name}'"
                )));
            };
            if bound[index].is_some() {
                return Err(type_error(format!(
                    "{function}() got multiple values for argument '{name}'"
                )));
            }
            bound[index] = Some(kwargs.get::<JinjaValue>(name)?);
        }
        let missing: Vec<String> = self.parameters[..self.required]
            .iter()
            .zip(&bound)
            .filter(|(_, value)| value.is_none())
            .map(|(name, _)| format!("'{name}'"))
            .collect();
        if !missing.is_empty() {
            let (count, plural) = (missing.len(), if missing.len() == 1 { "" } else { "s" });
            return Err(type_error(format!(
                "{function}() missing {count} required positional argument{plural}: {}",
                python_list(&missing)
            )));
        }
        Ok(bound)
    }
}

/// The names a filter's undefined operand and arguments had in the
/// template, as the parser hands them on ([`HINTS_KEYWORD`]): the filter
/// raises Jinja2's `UndefinedError` with one when Python reads the value.
#[derive(Default)]
pub(super) struct Hints(Option<JinjaValue>);

impl Hints {
    /// The hints a call carries (none when the template named nothing).
    pub(super) fn take(kwargs: &Kwargs) -> Result<Hints, Error> {
        Ok(Hints(kwargs.get::<Option<JinjaValue>>(HINTS_KEYWORD)?))
    }

    /// The hint the template gave for `parameter` (`"[0]"` for the first
    /// item of a list written in the template as the operand).
    pub(super) fn hint(&self, parameter: &str) -> Option<String> {
        let hints = self.0.as_ref()?;
        let hint = hints.get_item(&JinjaValue::from(parameter)).ok()?;
        hint.as_str().map(str::to_owned)
    }

    /// The hints as the keyword argument they came in, to hand them on.
    pub(super) fn keyword(&self) -> Option<(&'static str, JinjaValue)> {
        self.0.clone().map(|hints| (HINTS_KEYWORD, hints))
    }

    /// Jinja2's `UndefinedError` when `value`, given for `parameter` (`""`
    /// for the operand), is undefined and was a name in the template.
    pub(super) fn check(&self, parameter: &str, value: Option<&JinjaValue>) -> Result<(), Error> {
        if !value.is_some_and(JinjaValue::is_undefined) {
            return Ok(());
        }
        let hint = self
            .0
            .as_ref()
            .and_then(|hints| hints.get_item(&JinjaValue::from(parameter)).ok())
            .filter(|hint| !hint.is_undefined());
        match hint {
            Some(hint) => Err(haystack_error(format!("UndefinedError: {hint}"))),
            None => Ok(()),
        }
    }
}

/// Python's list of names in an argument error: `'a'`, `'a' and 'b'`,
/// `'a', 'b', and 'c'`.
fn python_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [first, second] => format!("{first} and {second}"),
        [init @ .., last] => format!("{}, and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPLACE: Signature = Signature {
        function: "do_replace",
        leading: 2,
        parameters: &["old", "new", "count"],
        required: 2,
    };

    fn bind(positional: &[i64], keywords: &[(&str, i64)]) -> Result<Vec<Option<i64>>, String> {
        let positional: Vec<JinjaValue> = positional.iter().map(|n| JinjaValue::from(*n)).collect();
        let kwargs = Kwargs::from_iter(keywords.iter().map(|(k, v)| (*k, JinjaValue::from(*v))));
        REPLACE
            .bind(&positional, &kwargs)
            .map(|bound| {
                bound
                    .into_iter()
                    .map(|v| v.and_then(|v| v.as_i64()))
                    .collect()
            })
            .map_err(|e| e.to_string())
    }

    #[test]
    fn binds_as_python_does() {
        assert_eq!(
            bind(&[1, 2], &[("count", 3)]),
            Ok(vec![Some(1), Some(2), Some(3)])
        );
        assert_eq!(
            bind(&[], &[("new", 2), ("old", 1)]),
            Ok(vec![Some(1), Some(2), None])
        );
        let error = |p: &[i64], k: &[(&str, i64)]| bind(p, k).unwrap_err();
        assert!(
            error(&[1, 2, 3, 4], &[])
                .contains("do_replace() takes from 4 to 5 positional arguments but 6 were given")
        );
        assert!(
            error(&[1], &[]).contains("do_replace() missing 1 required positional argument: 'new'")
        );
        assert!(
            error(&[], &[])
                .contains("do_replace() missing 2 required positional arguments: 'old' and 'new'")
        );
        assert!(
            error(&[1], &[("old", 2)])
                .contains("do_replace() got multiple values for argument 'old'")
        );
        assert!(
            error(&[1, 2], &[("foo", 2)])
                .contains("do_replace() got an unexpected keyword argument 'foo'")
        );
    }

    #[test]
    fn lists_three_names_with_a_serial_comma() {
        let names = ["'a'", "'b'", "'c'"].map(str::to_owned);
        assert_eq!(python_list(&names), "'a', 'b', and 'c'");
    }
}
